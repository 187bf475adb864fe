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
#include "ttylock.h"

static char lock_path[PATH_MAX];	/* our lock file, once taken */

static const char *lock_dir(void)
{
	const char *env = getenv("PHYLLO_LOCK_DIR");
	struct stat st;

	if (env && *env)
		return env;
	return stat("/run/lock", &st) == 0 ? "/run/lock" : "/var/lock";
}

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
	snprintf(buf, len, "%s/LCK..%s", lock_dir(), name);
}

/* The pid in a lock file (ASCII, as UUCP writes it; binary ones are
 * from before that convention and not read), or 0. */
static pid_t lock_read(const char *file)
{
	char buf[32];
	ssize_t n;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	long pid;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	pid = strtol(buf, NULL, 10);
	return pid > 0 && pid <= INT_MAX ? (pid_t)pid : 0;
}

static int lock_write(const char *file, pid_t pid, int flags)
{
	char buf[16];
	int fd = open(file, O_WRONLY | O_CLOEXEC | flags, 0644);
	int n;

	if (fd < 0)
		return -1;
	n = snprintf(buf, sizeof(buf), "%10d\n", (int)pid);
	if (write(fd, buf, (size_t)n) != n) {
		close(fd);
		unlink(file);
		return -1;
	}
	close(fd);
	return 0;
}

pid_t ttylock_owner(const char *name)
{
	char file[PATH_MAX];
	pid_t pid;

	lock_file(file, sizeof(file), name);
	pid = lock_read(file);
	if (pid && kill(pid, 0) && errno == ESRCH)
		return 0;
	return pid;
}

/* The command name of pid, for messages ("?" if unknown). */
static void proc_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	snprintf(buf, len, "?");
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/* The UUCP lock file: 0 taken (or no writable directory), -1 held. */
static int lock_uucp(const char *name, const char *path, const char *who)
{
	char file[PATH_MAX], comm[32];
	pid_t owner;
	int tries;

	lock_file(file, sizeof(file), name);
	for (tries = 0; tries < 3; tries++) {
		if (lock_write(file, getpid(), O_CREAT | O_EXCL) == 0) {
			snprintf(lock_path, sizeof(lock_path), "%s", file);
			return 0;
		}
		if (errno != EEXIST)
			return 0;	/* no lock directory we may write: flock only */
		owner = lock_read(file);
		if (owner && owner != getpid() && !(kill(owner, 0) && errno == ESRCH)) {
			proc_comm(owner, comm, sizeof(comm));
			fprintf(stderr, "%s: %s is in use by process %d (%s), see %s\n", who, path,
				(int)owner, comm, file);
			return -1;
		}
		unlink(file);	/* stale: its process is gone */
	}
	return 0;
}

int ttylock_take(int fd, const char *path, const char *who)
{
	char name[64];

	/* the lock file first: it names the holder */
	if (!ttylock_name(path, name, sizeof(name)) && lock_uucp(name, path, who))
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		fprintf(stderr, "%s: %s is in use by another program (it holds a lock on it)\n",
			who, path);
		ttylock_release();
		return -1;
	}
	return 0;
}

void ttylock_set_pid(void)
{
	if (lock_path[0])
		lock_write(lock_path, getpid(), O_TRUNC);
}

void ttylock_release(void)
{
	if (lock_path[0] && lock_read(lock_path) == getpid())
		unlink(lock_path);
	lock_path[0] = 0;
}
