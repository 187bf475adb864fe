// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_lock.c - UUCP lock files (LCK..NAME, a pid in ASCII) read as a
 * local user who means harm may have made them: the lock directory is
 * world-writable (/run/lock is 1777), so what is there is only a claim.
 *
 *  1. The directory is $PHYLLO_LOCK_DIR (secure_getenv: not in a setuid
 *     or file-capability program), else /run/lock, else /var/lock.
 *  2. A lock file is opened O_NOFOLLOW|O_NONBLOCK and read only when it
 *     is a regular file: a FIFO never blocks its reader, a symlink never
 *     points it at another file.
 *  3. The pid it names is believed only if that process has the tty open
 *     (a /proc/PID/fd link to the tty, or for a pty slave the master of
 *     that pty): a lock naming any other process is stale. When its
 *     descriptors cannot be read (another user's process, and this one
 *     is not root), it is believed only if its credentials let it open
 *     the tty at all. Root can always read them: it never signals a
 *     process the lock names on the lock's word alone.
 * Shared by libphyllo (lib_tty.c) and the tool (ttylock.c).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "lib.h"

const char *phyllo_lib_lock_dir(void)
{
	const char *env = secure_getenv("PHYLLO_LOCK_DIR");

	if (env && *env)
		return env;
	return access("/run/lock", F_OK) ? "/var/lock" : "/run/lock";
}

pid_t phyllo_lib_lock_read(const char *file)
{
	char buf[32];
	struct stat st;
	ssize_t n = -1;
	long pid;
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode))
		n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	pid = strtol(buf, NULL, 10);
	return pid > 0 && pid <= INT_MAX ? (pid_t)pid : 0;
}

/* The index of a Unix98 pty slave (majors 136..143), or -1. */
static int lock_pty_index(dev_t rdev)
{
	unsigned int maj = major(rdev);

	return maj >= 136 && maj <= 143 ? (int)((maj - 136) * 256 + minor(rdev)) : -1;
}

/* Whether descriptor fd of pid is the master of pty idx (its fdinfo says
 * "tty-index: idx"). */
static bool lock_fd_is_master(pid_t pid, const char *fd, int idx)
{
	char path[320], line[128];
	bool found = false;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", (int)pid, fd);
	f = fopen(path, "re");
	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "tty-index: %d", &i) == 1 && i == idx;
	if (f)
		fclose(f);
	return found;
}

/* Whether pid's credentials let it open the node st for reading and
 * writing (Uid:/Gid:/Groups: of /proc/PID/status, effective ids). */
static bool lock_pid_may_open(pid_t pid, const struct stat *st)
{
	char path[64], line[512];
	unsigned long uid = ULONG_MAX, gid = ULONG_MAX, g;
	bool group = false;
	char *p, *end;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Uid: %*u %lu", &uid) == 1 || sscanf(line, "Gid: %*u %lu", &gid) == 1)
			continue;
		if (strncmp(line, "Groups:", 7))
			continue;
		for (p = line + 7; (g = strtoul(p, &end, 10)), end != p; p = end)
			group = group || g == st->st_gid;
	}
	fclose(f);
	if (uid == 0)
		return true;
	if (uid == st->st_uid)
		return (st->st_mode & 0600) == 0600;
	if (gid == st->st_gid || group)
		return (st->st_mode & 0060) == 0060;
	return (st->st_mode & 0006) == 0006;
}

bool phyllo_lib_lock_holds(pid_t pid, const struct stat *tty)
{
	char path[64], f[320];
	int idx = lock_pty_index(tty->st_rdev);
	bool holds = false;
	struct dirent *d;
	struct stat st;
	DIR *fds;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	fds = opendir(path);
	if (!fds)
		return errno == EACCES && lock_pid_may_open(pid, tty);
	while (!holds && (d = readdir(fds))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(f, sizeof(f), "%s/%s", path, d->d_name);
		holds = (!stat(f, &st) && S_ISCHR(st.st_mode) && st.st_rdev == tty->st_rdev) ||
			(idx >= 0 && lock_fd_is_master(pid, d->d_name, idx));
	}
	closedir(fds);
	return holds;
}
