// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_port.c - the serial port: open it, lock it, set it raw
 * (phyllo-internal.h). The one tty policy of libphyllo's tty transport,
 * `phyllo attach` and `phyllo peer`.
 *
 * UUCP lock files (LCK..NAME, a pid in ASCII) are read as a local user
 * who means harm may have made them: the lock directory is world-writable
 * (/run/lock is 1777), so what is there is only a claim.
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
 *  4. Our own lock file is created O_EXCL|O_NOFOLLOW: never through a
 *     symlink, never over a file that is there; a stale one is removed
 *     and the creation tried again (three times at most).
 *
 * And a path named as a serial port is refused before anything is
 * written to it when it is no tty (phyllo_port_open()).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <termios.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/file.h>
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

int phyllo_port_pty_index(dev_t rdev)
{
	unsigned int maj = major(rdev);

	return maj >= 136 && maj <= 143 ? (int)((maj - 136) * 256 + minor(rdev)) : -1;
}

bool phyllo_port_fd_is_master(pid_t pid, const char *fd, int idx)
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
	int idx = phyllo_port_pty_index(tty->st_rdev);
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
			(idx >= 0 && phyllo_port_fd_is_master(pid, d->d_name, idx));
	}
	closedir(fds);
	return holds;
}

/* ---- our own lock ---- */

static char port_lock_path[PATH_MAX];	/* our lock file, once taken */

int phyllo_port_name(const char *path, char *name, size_t len)
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

static void port_lock_file(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/LCK..%s", phyllo_lib_lock_dir(), name);
}

/* A new lock file naming this process (4.). */
static int port_lock_write(const char *file)
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
static int port_node(const char *name, struct stat *st)
{
	char path[PATH_MAX];

	if (!strncmp(name, "pts", 3))
		snprintf(path, sizeof(path), "/dev/pts/%s", name + 3);
	else
		snprintf(path, sizeof(path), "/dev/%s", name);
	return stat(path, st) || !S_ISCHR(st->st_mode) ? -1 : 0;
}

pid_t phyllo_port_lock_owner(const char *name)
{
	char file[PATH_MAX];
	struct stat st;
	pid_t pid;

	port_lock_file(file, sizeof(file), name);
	pid = phyllo_lib_lock_read(file);
	if (!pid || port_node(name, &st) || !phyllo_lib_lock_holds(pid, &st))
		return 0;
	return pid;
}

/* The live process other than this one that file names and that has the
 * tty st open, or 0. */
static pid_t port_lock_live(const char *file, const struct stat *st)
{
	pid_t pid = phyllo_lib_lock_read(file);

	return pid && pid != getpid() && phyllo_lib_lock_holds(pid, st) ? pid : 0;
}

/*
 * The UUCP lock file of tty name (st): 0 free (and taken, with write, or
 * no directory we may write), or the pid of its live holder.
 */
static pid_t port_lock_uucp(const char *name, const struct stat *st, bool write, char *file,
			    size_t len)
{
	pid_t owner;
	int tries;

	port_lock_file(file, len, name);
	if (!write)
		return port_lock_live(file, st);
	for (tries = 0; tries < 3; tries++) {
		if (port_lock_write(file) == 0) {
			snprintf(port_lock_path, sizeof(port_lock_path), "%s", file);
			return 0;
		}
		if (errno != EEXIST)
			return 0;	/* no lock directory we may write: flock only */
		owner = port_lock_live(file, st);
		if (owner)
			return owner;
		unlink(file);	/* stale */
	}
	return 0;
}

/* The ptmx device (as /dev/ptmx and /dev/pts/ptmx are): each open of it
 * is a new pseudo-terminal's master. */
#define PORT_PTMX_RDEV makedev(5, 2)

static bool port_is_pty_master(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && st->st_rdev == PORT_PTMX_RDEV;
}

bool phyllo_port_is_pty(int fd)
{
	struct stat st;

	/* Unix98 slaves: majors 136..143 */
	return !fstat(fd, &st) && S_ISCHR(st.st_mode) &&
	       (port_is_pty_master(&st) || phyllo_port_pty_index(st.st_rdev) >= 0);
}

/* The name of the tty open at fd, from path or else its ttyname(). */
static int port_fd_name(int fd, const char *path, char *name, size_t len)
{
	if (!path)
		path = ttyname(fd);
	return path ? phyllo_port_name(path, name, len) : -1;
}

int phyllo_port_lock(int fd, const char *path, unsigned int flags,
		     struct phyllo_port_holder *holder)
{
	struct phyllo_port_holder none;
	char name[64];
	struct stat st;

	if (!holder)
		holder = &none;
	holder->pid = 0;
	holder->file[0] = 0;
	if (fstat(fd, &st))
		return -errno;
	/* the lock file first: it names the holder */
	if (!port_fd_name(fd, path, name, sizeof(name)))
		holder->pid = port_lock_uucp(name, &st, flags & PHYLLO_PORT_LOCK_FILE,
					     holder->file, sizeof(holder->file));
	if (holder->pid)
		return -EBUSY;
	holder->file[0] = 0;
	if (!port_is_pty_master(&st) && flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno == EWOULDBLOCK ? -EBUSY : -errno;

		phyllo_port_unlock();
		return err;
	}
	return 0;
}

void phyllo_port_unlock(void)
{
	if (port_lock_path[0] && phyllo_lib_lock_read(port_lock_path) == getpid())
		unlink(port_lock_path);
	port_lock_path[0] = 0;
}

/* ---- opening, raw mode and speed ---- */

const char *phyllo_port_kind(mode_t m)
{
	if (S_ISREG(m))
		return "a regular file";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISBLK(m))
		return "a block device";
	return "a character device that is not a tty";
}

int phyllo_port_open(const char *path, int flags, bool any_chr, mode_t *mode)
{
	struct stat st;
	mode_t none;
	int fd;

	if (!mode)
		mode = &none;
	*mode = 0;
	/* Refuse what is plainly no tty before opening it at all. */
	if (stat(path, &st) == 0 && !S_ISCHR(st.st_mode)) {
		*mode = st.st_mode;
		return -ENOTTY;
	}
	fd = open(path, flags | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!any_chr && !isatty(fd)) {
		*mode = fstat(fd, &st) ? 0 : st.st_mode;
		close(fd);
		return -ENOTTY;
	}
	return fd;
}

static const struct { unsigned long baud; speed_t c; } port_bauds[] = {
	{ 1200, B1200 }, { 2400, B2400 }, { 4800, B4800 }, { 9600, B9600 },
	{ 19200, B19200 }, { 38400, B38400 }, { 57600, B57600 }, { 115200, B115200 },
	{ 230400, B230400 }, { 460800, B460800 }, { 500000, B500000 }, { 576000, B576000 },
	{ 921600, B921600 }, { 1000000, B1000000 }, { 1152000, B1152000 },
	{ 1500000, B1500000 }, { 2000000, B2000000 }, { 2500000, B2500000 },
	{ 3000000, B3000000 }, { 3500000, B3500000 }, { 4000000, B4000000 },
};

speed_t phyllo_lib_baud_speed(unsigned long baud)
{
	size_t i;

	for (i = 0; i < sizeof(port_bauds) / sizeof(port_bauds[0]); i++)
		if (port_bauds[i].baud == baud)
			return port_bauds[i].c;
	return 0;
}

unsigned long phyllo_lib_baud_at(unsigned int i)
{
	return i < sizeof(port_bauds) / sizeof(port_bauds[0]) ? port_bauds[i].baud : 0;
}

int phyllo_baud_valid(unsigned long baud)
{
	return phyllo_lib_baud_speed(baud) != 0;
}

int phyllo_port_raw(int fd, unsigned long baud)
{
	speed_t c = phyllo_lib_baud_speed(baud);
	struct termios t;
	bool hupcl;

	if (baud && !c)
		return -EINVAL;
	if (tcgetattr(fd, &t))
		return -errno;
	hupcl = t.c_cflag & HUPCL;
	cfmakeraw(&t);
	t.c_cflag |= CLOCAL | CREAD;
	t.c_cflag &= ~(tcflag_t)HUPCL;
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (baud) {
		cfsetispeed(&t, c);
		cfsetospeed(&t, c);
	}
	if (tcsetattr(fd, TCSANOW, &t))
		return -errno;
	return hupcl;
}
