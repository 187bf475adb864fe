// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * dev.c - see dev.h. Every explanation of a failed open is here, and the
 * search for who holds a busy serial port.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "dev.h"
#include "ttylock.h"

/* Why path (a /dev/phylloN) could not be opened: errno says. */
static void dev_explain(const char *path)
{
	if (errno == ENOENT && access("/sys/module/phyllo", F_OK) != 0)
		fprintf(stderr, "phyllo: %s: no such device, and the phyllo module is not "
			"loaded: run 'modprobe phyllo' (or insmod phyllo.ko) first\n", path);
	else if (errno == ENOENT || errno == ENXIO || errno == ENODEV)
		fprintf(stderr, "phyllo: %s: no such link: attach a serial port first with "
			"'phyllo attach TTY' (or 'ldattach 29 TTY'); 'phyllo list' shows the "
			"links there are\n", path);
	else if (errno == EACCES || errno == EPERM)
		fprintf(stderr, "phyllo: %s: permission denied: run as root, or give your "
			"group access with a udev rule (see PERMISSIONS in phyllo(1))\n", path);
	else if (errno == ENOTTY)
		fprintf(stderr, "phyllo: %s: not a phyllo device (wrong file?); for a serial "
			"port without the module use --tty %s\n", path, path);
	else
		fprintf(stderr, "phyllo: %s: %s\n", path, strerror(errno));
}

/* Whether the file at fd path f is the character device rdev. */
static bool dev_is_rdev(const char *f, dev_t rdev)
{
	struct stat st;

	return !stat(f, &st) && S_ISCHR(st.st_mode) && st.st_rdev == rdev;
}

/* The process holding an flock(2) on the file st is, from /proc/locks
 * ("1: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE 0 EOF"), or 0. */
static pid_t dev_flock_holder(const struct stat *st)
{
	char line[256], kind[16];
	unsigned int maj, mn;
	unsigned long ino;
	pid_t found = 0;
	FILE *f = fopen("/proc/locks", "r");
	int pid;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%lu", kind, &pid, &maj, &mn,
			   &ino) == 5 && !strcmp(kind, "FLOCK") && maj == major(st->st_dev) && mn == minor(st->st_dev) &&
		    ino == st->st_ino && pid > 0)
			found = pid;
	fclose(f);
	return found;
}

/* Any other process with the device rdev open (as fuser finds it), or 0. */
static pid_t dev_fd_holder(dev_t rdev)
{
	char f[600];
	struct dirent *p, *d;
	DIR *proc = opendir("/proc"), *fds;
	pid_t found = 0;

	while (proc && !found && (p = readdir(proc))) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9' || atoi(p->d_name) == getpid())
			continue;
		snprintf(f, sizeof(f), "/proc/%s/fd", p->d_name);
		fds = opendir(f);
		while (fds && !found && (d = readdir(fds))) {
			snprintf(f, sizeof(f), "/proc/%s/fd/%s", p->d_name, d->d_name);
			if (d->d_name[0] != '.' && dev_is_rdev(f, rdev))
				found = atoi(p->d_name);
		}
		if (fds)
			closedir(fds);
	}
	if (proc)
		closedir(proc);
	return found;
}

pid_t dev_tty_holder(const char *path, char *cmd, size_t len)
{
	struct stat st;
	char name[64], file[64];
	pid_t pid = 0;
	ssize_t n = 0;
	int fd;

	snprintf(cmd, len, "?");
	if (stat(path, &st) || !S_ISCHR(st.st_mode))
		return 0;
	pid = dev_flock_holder(&st);
	if (!pid && !ttylock_name(path, name, sizeof(name)))
		pid = ttylock_owner(name);
	if (!pid)
		pid = dev_fd_holder(st.st_rdev);
	if (!pid)
		return 0;
	/* its command line, arguments joined by spaces */
	snprintf(file, sizeof(file), "/proc/%d/cmdline", (int)pid);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, cmd, len - 1);
		close(fd);
	}
	if (n > 0) {
		cmd[n] = 0;
		for (ssize_t i = 0; i < n - 1; i++)
			if (!cmd[i])
				cmd[i] = ' ';
	}
	return pid;
}

static void dev_explain_busy(const char *who, const char *path)
{
	char cmd[120];
	pid_t pid = dev_tty_holder(path, cmd, sizeof(cmd));

	if (pid)
		fprintf(stderr, "%s: %s is in use by process %d (%s)", who, path, (int)pid, cmd);
	else
		fprintf(stderr, "%s: %s is in use by another program (it holds a lock on it)",
			who, path);
	fprintf(stderr, ". One program at a time owns a serial port: to share a board, "
		"attach it with the module ('phyllo attach %s') and give each program "
		"-d /dev/phylloN (see SHARING A BOARD in phyllo(1))\n", path);
}

int dev_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	dev_explain(path);
	return -1;
}

const char *dev_name(const struct dev_spec *spec)
{
	return spec->tty ? spec->tty : spec->dev ? spec->dev : DEV_DEFAULT;
}

struct phyllo *dev_open_link(const struct dev_spec *spec, const char *who)
{
	struct phyllo_options o;
	struct phyllo *h;
	const char *path = dev_name(spec);
	int ret;

	phyllo_options_init(&o);
	o.transport = spec->tty ? PHYLLO_TRANSPORT_TTY : PHYLLO_TRANSPORT_KERNEL;
	o.baud = spec->baud;
	o.preset = spec->preset;
	o.flags = spec->nonblock ? PHYLLO_OPEN_NONBLOCK : 0;
	ret = phyllo_open(&h, path, &o);
	if (!ret)
		return h;
	errno = -ret;
	if (!spec->tty) {
		dev_explain(path);
	} else if (errno == ENOTTY) {
		fprintf(stderr, "%s: %s is not a serial port: refusing to use it (nothing was "
			"written); give a tty such as /dev/ttyACM0, /dev/ttyUSB0 or a pty\n",
			who, path);
	} else if (errno == EBUSY) {
		dev_explain_busy(who, path);
	} else {
		fprintf(stderr, "%s: cannot open %s: %s%s\n", who, path, strerror(errno),
			errno == EACCES ? " (add yourself to the 'dialout' group, or run as root)"
					: "");
	}
	return NULL;
}

int dev_ioctl(int fd, unsigned long req, void *arg, const char *what)
{
	if (ioctl(fd, req, arg) == 0)
		return 0;
	if (errno == ENOTTY)
		fprintf(stderr, "phyllo: %s: not a phyllo device (wrong file?)\n", what);
	else
		fprintf(stderr, "phyllo: %s: %s\n", what, strerror(errno));
	return -1;
}

void dev_path(char *buf, unsigned long len, unsigned int n)
{
	snprintf(buf, len, "/dev/phyllo%u", n);
}
