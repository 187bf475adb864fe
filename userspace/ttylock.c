// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * ttylock.c - see ttylock.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib.h"
#include "ttylock.h"

static char lock_path[PATH_MAX];	/* our lock file, once taken */

int ttylock_name(const char *path, char *name, size_t len)
{
	char real[PATH_MAX];
	const char *p;
	size_t n = 0;

	if (!realpath(path, real) || strncmp(real, "/dev/", 5))
		return -1;
	/* /dev/pts/3 is the kernel's pts3: the name without its slashes */
	for (p = real + 5; *p && n + 1 < len; p++)
		if (*p != '/')
			name[n++] = *p;
	name[n] = 0;
	return n ? 0 : -1;
}

static void lock_file(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/LCK..%s", phyllo_lib_lock_dir(), name);
}

/* A new lock file naming this process: never through a symlink, never
 * over a file that is there. */
static int lock_write(const char *file)
{
	char buf[16];
	int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	int n;

	if (fd < 0)
		return -1;
	n = snprintf(buf, sizeof(buf), "%10d\n", (int)getpid());
	if (write(fd, buf, (size_t)n) != n) {
		close(fd);
		unlink(file);
		errno = EIO;
		return -1;
	}
	close(fd);
	return 0;
}

/* The node of tty NAME (/dev/NAME, /dev/pts/N for ptsN): 0 or -1. */
static int tty_node(const char *name, struct stat *st)
{
	char path[PATH_MAX];

	if (!strncmp(name, "pts", 3))
		snprintf(path, sizeof(path), "/dev/pts/%s", name + 3);
	else
		snprintf(path, sizeof(path), "/dev/%s", name);
	return stat(path, st) || !S_ISCHR(st->st_mode) ? -1 : 0;
}

pid_t ttylock_owner(const char *name)
{
	char file[PATH_MAX];
	struct stat st;
	pid_t pid;

	lock_file(file, sizeof(file), name);
	pid = phyllo_lib_lock_read(file);
	if (!pid || tty_node(name, &st) || !phyllo_lib_lock_holds(pid, &st))
		return 0;
	return pid;
}

/* The command name of pid, for messages ("?" if unknown): its owner
 * chose it, so every byte but printable ASCII is written \xNN. */
static void proc_comm(pid_t pid, char *buf, size_t len)
{
	char path[64], raw[32];
	size_t i, n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	snprintf(buf, len, "?");
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(raw, sizeof(raw), f)) {
		raw[strcspn(raw, "\n")] = 0;
		for (i = 0; raw[i] && n + 5 < len; i++) {
			unsigned char c = (unsigned char)raw[i];

			n += (size_t)snprintf(buf + n, len - n, c < 0x20 || c >= 0x7f || c == '\\' ?
					      "\\x%02x" : "%c", c);
		}
	}
	fclose(f);
}

/*
 * The UUCP lock file: 0 taken (or no writable directory), -1 held. A lock
 * file that is no regular file, names no process or one that does not
 * have this tty open (st) is stale: removed, and taken (lib_lock.c).
 */
static int lock_uucp(const char *name, const struct stat *st, const char *path,
		     const char *who)
{
	char file[PATH_MAX], comm[80];
	pid_t owner;
	int tries;

	lock_file(file, sizeof(file), name);
	for (tries = 0; tries < 3; tries++) {
		if (lock_write(file) == 0) {
			snprintf(lock_path, sizeof(lock_path), "%s", file);
			return 0;
		}
		if (errno != EEXIST)
			return 0;	/* no lock directory we may write: flock only */
		owner = phyllo_lib_lock_read(file);
		if (owner && owner != getpid() && phyllo_lib_lock_holds(owner, st)) {
			proc_comm(owner, comm, sizeof(comm));
			fprintf(stderr, "%s: %s is in use by process %d (%s), see %s\n", who, path,
				(int)owner, comm, file);
			return -1;
		}
		unlink(file);	/* stale */
	}
	return 0;
}

int ttylock_take(int fd, const char *path, const char *who)
{
	char name[64];

	struct stat st;

	/* the lock file first: it names the holder */
	if (!fstat(fd, &st) && !ttylock_name(path, name, sizeof(name)) &&
	    lock_uucp(name, &st, path, who))
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		fprintf(stderr, "%s: %s is in use by another program (it holds a lock on it)\n",
			who, path);
		ttylock_release();
		return -1;
	}
	return 0;
}

void ttylock_release(void)
{
	if (lock_path[0] && phyllo_lib_lock_read(lock_path) == getpid())
		unlink(lock_path);
	lock_path[0] = 0;
}
