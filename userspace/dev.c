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
#include "linkname.h"
#include "phyllo-internal.h"

/* Why path (a /dev/phylloN) could not be opened: errno says. */
static void dev_explain(const char *path)
{
	if (errno == ENOENT && access("/sys/module/phyllo", F_OK) != 0)
		fprintf(stderr, "phyllo: %s: no such device, and the phyllo module is not "
			"loaded: run 'modprobe phyllo' (or insmod phyllo.ko) first, or, where "
			"modules cannot load, give the board's serial port with --tty (--tty "
			"/dev/ttyACM0): the protocol then runs in phyllo itself\n", path);
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

/* Whether /proc/PID/fd/FD (f) is the master of pty idx: a ptmx whose
 * fdinfo says "tty-index: idx". */
static bool dev_is_master(const char *pid, const char *fd, const char *f, int idx)
{
	char link[64];
	ssize_t n = readlink(f, link, sizeof(link) - 1);

	if (n <= 0)
		return false;
	link[n] = 0;
	if (strcmp(link, "/dev/ptmx") && strcmp(link, "/dev/pts/ptmx"))
		return false;
	return phyllo_port_fd_is_master((pid_t)atoi(pid), fd, idx);
}

/* Whether process pid (a /proc name) has rdev open, and whether it also
 * holds the master of the pty idx (>= 0), which makes it the pty's far
 * end, not a user of the port. */
static bool dev_pid_opens(const char *pid, dev_t rdev, int idx, bool *master)
{
	char f[600];
	struct dirent *d;
	DIR *fds;
	bool opens = false;

	snprintf(f, sizeof(f), "/proc/%s/fd", pid);
	fds = opendir(f);
	*master = false;
	while (fds && (d = readdir(fds))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(f, sizeof(f), "/proc/%s/fd/%s", pid, d->d_name);
		opens = opens || dev_is_rdev(f, rdev);
		*master = *master || (idx >= 0 && dev_is_master(pid, d->d_name, f, idx));
	}
	if (fds)
		closedir(fds);
	return opens;
}

/* Any other process with the device rdev open (as fuser finds it), but
 * the far end of a pty (the one that holds its master too), or 0. */
static pid_t dev_fd_holder(dev_t rdev)
{
	struct dirent *p;
	DIR *proc = opendir("/proc");
	pid_t found = 0;
	int idx = phyllo_port_pty_index(rdev);
	bool master;

	while (proc && !found && (p = readdir(proc))) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9' || atoi(p->d_name) == getpid())
			continue;
		if (dev_pid_opens(p->d_name, rdev, idx, &master) && !master)
			found = atoi(p->d_name);
	}
	if (proc)
		closedir(proc);
	return found;
}

/* The command line of pid, arguments joined by spaces, into cmd: its
 * owner chose every byte of it, so all but printable ASCII is written
 * \xNN (a backslash as \\) before it reaches a terminal. */
static void dev_cmdline(pid_t pid, char *cmd, size_t len)
{
	char file[64], raw[120];
	ssize_t n = 0, i;
	size_t k = 0;
	int fd;

	snprintf(file, sizeof(file), "/proc/%d/cmdline", (int)pid);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, raw, sizeof(raw) - 1);
		close(fd);
	}
	if (n <= 0)
		return;
	while (n > 0 && !raw[n - 1])
		n--;
	for (i = 0; i < n && k + 5 < len; i++) {
		unsigned char c = (unsigned char)raw[i];

		if (!c)
			cmd[k++] = ' ';
		else
			k += (size_t)snprintf(cmd + k, len - k, c < 0x20 || c >= 0x7f || c == '\\' ?
					      "\\x%02x" : "%c", c);
	}
	cmd[k] = 0;
}

pid_t dev_tty_holder(const char *path, char *cmd, size_t len)
{
	struct stat st;
	char name[64];
	pid_t pid = 0;

	snprintf(cmd, len, "?");
	if (stat(path, &st) || !S_ISCHR(st.st_mode))
		return 0;
	pid = dev_flock_holder(&st);
	if (!pid && !phyllo_port_name(path, name, sizeof(name)))
		pid = phyllo_port_lock_owner(name);
	if (!pid)
		pid = dev_fd_holder(st.st_rdev);
	if (pid)
		dev_cmdline(pid, cmd, len);
	return pid;
}

pid_t dev_tty_other(const char *path, char *cmd, size_t len)
{
	struct stat st;
	pid_t pid;

	snprintf(cmd, len, "?");
	if (stat(path, &st) || !S_ISCHR(st.st_mode))
		return 0;
	pid = dev_fd_holder(st.st_rdev);
	if (pid)
		dev_cmdline(pid, cmd, len);
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
	char buf[300];
	int fd;

	path = linkname_resolve(path, buf, sizeof(buf));
	fd = open(path, flags | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	dev_explain(path);
	return -1;
}

int dev_link_event(struct dev_events *ev, struct phyllo *h, const char *who, const char *name,
		   int err)
{
	struct phyllo_status s;

	if (err == -ENOLINK) {
		ev->down = true;
		fprintf(stderr, "%s: %s: link down (its board went away); waiting for it to come "
			"back\n", who, name);
		return 0;
	}
	if (err != -ECONNRESET)
		return -1;
	memset(&s, 0, sizeof(s));
	phyllo_status(h, &s);
	if (ev->down)
		fprintf(stderr, "%s: %s: link up, session %u\n", who, name, s.session);
	else
		fprintf(stderr, "%s: %s: session reset (the far end restarted), session %u; "
			"continuing\n", who, name, s.session);
	ev->down = false;
	return 0;
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
	char buf[300];
	int ret;

	if (!spec->tty)
		path = linkname_resolve(path, buf, sizeof(buf));
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
	} else if (errno == ECANCELED) {
		/* the capture file's fault, said by the library; the port is fine */
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
