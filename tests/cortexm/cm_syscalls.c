// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * cm_syscalls.c - the few system calls newlib-nano's stdio needs in the
 * Cortex-M test programs (never in the firmware, which has no stdio and
 * no heap): write goes to the UART (main_cm.c), the heap grows from the
 * end of .bss (cm_sections.ld's __heap_start) towards the stack, the rest
 * say "no such thing".
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

int phyllo_cm_test_putc(int c);
int _write(int fd, const char *buf, int n);
int _read(int fd, char *buf, int n);
int _close(int fd);
int _fstat(int fd, struct stat *st);
int _isatty(int fd);
int _lseek(int fd, int off, int whence);
void *_sbrk(ptrdiff_t incr);
int _getpid(void);
int _kill(int pid, int sig);
void _exit(int status);

extern char __heap_start[];
/* Leave this much below the stack pointer at the time of the call. */
#define STACK_RESERVE 2048

int _write(int fd, const char *buf, int n)
{
	int i;

	(void)fd;
	for (i = 0; i < n; i++)
		phyllo_cm_test_putc((unsigned char)buf[i]);
	return n;
}

int _read(int fd, char *buf, int n)
{
	(void)fd;
	(void)buf;
	(void)n;
	return 0;
}

int _close(int fd)
{
	(void)fd;
	return -1;
}

int _fstat(int fd, struct stat *st)
{
	(void)fd;
	st->st_mode = S_IFCHR;
	return 0;
}

int _isatty(int fd)
{
	(void)fd;
	return 1;
}

int _lseek(int fd, int off, int whence)
{
	(void)fd;
	(void)off;
	(void)whence;
	return 0;
}

void *_sbrk(ptrdiff_t incr)
{
	static char *brk = __heap_start;
	uintptr_t sp;
	char *old = brk;

	__asm__ __volatile__("mov %0, sp" : "=r"(sp));
	if ((uintptr_t)(brk + incr) > sp - STACK_RESERVE) {
		errno = ENOMEM;
		return (void *)-1;
	}
	brk += incr;
	return old;
}

int _getpid(void)
{
	return 1;
}

int _kill(int pid, int sig)
{
	(void)pid;
	(void)sig;
	errno = EINVAL;
	return -1;
}

void _exit(int status)
{
	(void)status;
	for (;;)
		;
}
