/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * storm-guest.h - what the storm's guest programs (storm.c, replug.c)
 * both need, each built static from one .c file: clocks and pauses, a
 * thread's random stream, writing a file of /proc or debugfs, the
 * kernel's fault injection (failslab, fail_page_alloc) and its marking
 * of tasks, a raw pty pair, and a hung thread's kernel stack.
 *
 * Every function is static inline, so a program that uses only some of
 * them builds without warnings. PREFIX arguments are the program's name
 * for its output lines ("storm", "replug").
 */
#ifndef STORM_GUEST_H
#define STORM_GUEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* This thread's make-it-fail: set, its allocations may fail. */
#define MAKE_IT_FAIL	"/proc/thread-self/make-it-fail"
/* The fault injections' "times" at the start: never reached. */
#define FAULT_TIMES	1000000000L
#define FAILSLAB_DIR	"/sys/kernel/debug/failslab/"
#define FAILPAGE_DIR	"/sys/kernel/debug/fail_page_alloc/"

static inline long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static inline void pause_us(unsigned int us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* xorshift32: the next of a thread's own stream, reproducible from a seed;
 * in [0, n), or any value for n 0. */
static inline unsigned int xorshift(unsigned int *state, unsigned int n)
{
	unsigned int x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return n ? x % n : x;
}

/* Write VAL into a file of /proc or debugfs; false on error. */
static inline bool put(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok;
}

static inline bool is_kworker(long pid)
{
	char path[64], comm[32] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	return n > 8 && !strncmp(comm, "kworker/", 8);
}

/*
 * Every kworker's make-it-fail set to VAL: the kworkers run the tty's
 * receive and the link's work, where a received unit is allocated. New
 * ones appear, so a marker calls this again and again.
 */
static inline void kworkers_mark(const char *val)
{
	char path[64];
	struct dirent *de;
	long pid;
	DIR *d = opendir("/proc");

	while (d && (de = readdir(d))) {
		pid = atol(de->d_name);
		if (pid > 0 && is_kworker(pid)) {
			snprintf(path, sizeof(path), "/proc/%ld/make-it-fail", pid);
			put(path, val);
		}
	}
	if (d)
		closedir(d);
}

/* FILE of one fault injection's debugfs folder DIR set to VAL. */
static inline bool fault_put(const char *dir, const char *file, const char *val)
{
	char path[96];

	snprintf(path, sizeof(path), "%s%s", dir, file);
	return put(path, val);
}

/*
 * PCT % of the eligible calls of the marked tasks fail (sleeping ones
 * too: the module allocates with GFP_KERNEL), or none (0); false if
 * debugfs refuses.
 */
static inline bool fault_set(const char *dir, int pct)
{
	char v[16], times[24];

	if (!pct)
		return fault_put(dir, "probability", "0");
	snprintf(v, sizeof(v), "%d", pct);
	snprintf(times, sizeof(times), "%ld", FAULT_TIMES);
	return fault_put(dir, "task-filter", "Y") && fault_put(dir, "ignore-gfp-wait", "N") &&
	       fault_put(dir, "verbose", "0") && fault_put(dir, "interval", "1") &&
	       fault_put(dir, "space", "0") && fault_put(dir, "times", times) &&
	       fault_put(dir, "probability", v);
}

/*
 * Failures injected so far: how far "times" has counted down, or -1.
 * Opening it allocates: the caller must not be marked.
 */
static inline long fault_injected(const char *dir)
{
	char path[96], buf[32] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%stimes", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	return n > 0 ? FAULT_TIMES - atol(buf) : -1;
}

/*
 * Both injections at these percents (0: that one off), each with its own
 * scope: failslab the kmalloc-* caches, fail_page_alloc orders 2 and up.
 */
static inline bool faults_on(int failslab_pct, int failpage_pct)
{
	return (!failslab_pct || (fault_put(FAILSLAB_DIR, "cache-filter", "Y") &&
				  fault_set(FAILSLAB_DIR, failslab_pct))) &&
	       (!failpage_pct || (fault_put(FAILPAGE_DIR, "min-order", "2") &&
				  fault_put(FAILPAGE_DIR, "ignore-gfp-highmem", "Y") &&
				  fault_set(FAILPAGE_DIR, failpage_pct)));
}

/* A raw pty pair: the master (non-blocking), the slave in *slave; -1 with
 * errno. */
static inline int pty_open(int *slave)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	struct termios tio;
	char *name;

	if (m < 0 || grantpt(m) || unlockpt(m) || !(name = ptsname(m))) {
		if (m >= 0)
			close(m);
		return -1;
	}
	*slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*slave < 0) {
		close(m);
		return -1;
	}
	if (tcgetattr(*slave, &tio) == 0) {
		cfmakeraw(&tio);
		tcsetattr(*slave, TCSANOW, &tio);
	}
	return m;
}

/* The kernel stack of this process's thread KTID, a line each. */
static inline void show_kernel_stack(const char *prefix, pid_t ktid)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", ktid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("%s:     %s", prefix, line);
	fclose(f);
}

/* A magic SysRq key: 'w' dumps the blocked tasks to the console. */
static inline void sysrq(const char *prefix, char c)
{
	int fd = open("/proc/sysrq-trigger", O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (write(fd, &c, 1) < 0)
			fprintf(stderr, "%s: sysrq: %s\n", prefix, strerror(errno));
		close(fd);
	}
}

#endif
