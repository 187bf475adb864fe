// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bytestream.c - see bytestream.h. Every fd is non-blocking; callers poll.
 *
 * Opening, locking and raw mode are libphyllo's (lib_port.c). Three
 * promises about the files named on the command line:
 *  - a --device that is not a tty (a regular file, a directory, /dev/null,
 *    /dev/phylloN) is refused before anything is written to it;
 *  - a --device is used by this process alone, as `phyllo attach` and
 *    libphyllo use theirs: its flock and UUCP lock, or it stops;
 *  - a --pty link is created, never replaced: if the path exists the peer
 *    stops. The link is removed at exit (normal, error or SIGINT/SIGTERM/
 *    SIGHUP through the caller's clean exit), and only while it still
 *    points where this process made it point.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>
#include "bytestream.h"
#include "phyllo-internal.h"

unsigned long bytestream_parse_baud(const char *who, const char *s)
{
	char *end;
	unsigned long v;
	unsigned int i;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!errno && end != s && !*end && s[0] != '-' && phyllo_lib_baud_speed(v))
		return v;
	fprintf(stderr, "%s: --baud: '%s' is not a speed the serial driver takes; valid "
		"speeds:", who, s);
	for (i = 0; phyllo_lib_baud_at(i); i++)
		fprintf(stderr, " %lu", phyllo_lib_baud_at(i));
	fputc('\n', stderr);
	exit(2);
}

static void refuse_not_tty(const char *who, const char *path, mode_t m)
{
	fprintf(stderr, "%s: %s is %s%s, not a serial port: refusing to use it (nothing was "
		"written); give a tty such as /dev/ttyACM0, /dev/ttyUSB0 or a pty\n", who, path,
		phyllo_port_kind(m), S_ISSOCK(m) ? " (use --connect unix:PATH)" : "");
}

int bytestream_open_tty(const char *who, const char *path, int flags)
{
	mode_t mode;
	int fd = phyllo_port_open(path, flags, false, &mode);

	if (fd == -ENOTTY) {
		refuse_not_tty(who, path, mode);
		errno = ENOTTY;
		return -1;
	}
	if (fd < 0) {
		fprintf(stderr, "%s: cannot open %s: %s%s\n", who, path, strerror(-fd),
			fd == -EACCES ? " (add yourself to the 'dialout' group, or run as root)"
				      : "");
		errno = -fd;
		return -1;
	}
	return fd;
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

int bytestream_lock_tty(int fd, const char *path, const char *who)
{
	struct phyllo_port_holder holder;
	char comm[80];

	if (!phyllo_port_lock(fd, path, PHYLLO_PORT_LOCK_FILE, &holder))
		return 0;
	if (holder.pid) {
		proc_comm(holder.pid, comm, sizeof(comm));
		fprintf(stderr, "%s: %s is in use by process %d (%s), see %s\n", who, path,
			(int)holder.pid, comm, holder.file);
	} else {
		fprintf(stderr, "%s: %s is in use by another program (it holds a lock on it)\n",
			who, path);
	}
	return -1;
}

static int open_device(const struct bytestream_spec *spec, struct bytestream *io)
{
	int fd = bytestream_open_tty("phyllo", spec->device, O_RDWR | O_NONBLOCK);
	int ret;

	if (fd < 0)
		return -1;
	if (bytestream_lock_tty(fd, spec->device, "phyllo")) {
		close(fd);
		return -1;
	}
	io->locked = true;
	ret = phyllo_port_raw(fd, spec->baud);
	if (ret < 0) {
		fprintf(stderr, "phyllo: cannot set %s to raw mode at %lu baud: %s\n",
			spec->device, spec->baud, strerror(-ret));
		close(fd);
		return -1;
	}
	io->rfd = io->wfd = fd;
	snprintf(io->name, sizeof(io->name), "%s", spec->device);
	return 0;
}

/* The --pty link this process made, for removal at exit. */
static struct bytestream *pty_owner;

static void pty_unlink(struct bytestream *io)
{
	char target[sizeof(io->name)];
	ssize_t n;

	if (!io->pty_link)
		return;
	n = readlink(io->pty_link, target, sizeof(target) - 1);
	if (n >= 0) {
		target[n] = 0;
		if (!strcmp(target, io->name))
			unlink(io->pty_link);
	}
	io->pty_link = NULL;
}

static void pty_atexit(void)
{
	if (pty_owner)
		pty_unlink(pty_owner);
}

static int open_pty(const struct bytestream_spec *spec, struct bytestream *io)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	const char *slave;
	int ret = 0;

	if (m < 0 || grantpt(m) || unlockpt(m) || !(slave = ptsname(m))) {
		fprintf(stderr, "phyllo: cannot create a pty: %s\n", strerror(errno));
		return -1;
	}
	io->keep_fd = open(slave, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (io->keep_fd < 0 || (ret = phyllo_port_raw(io->keep_fd, spec->baud)) < 0 ||
	    (ret = phyllo_port_raw(m, 0)) < 0) {
		fprintf(stderr, "phyllo: cannot set up pty %s: %s\n", slave,
			strerror(io->keep_fd < 0 ? errno : -ret));
		return -1;
	}
	/* symlink() never replaces: whatever is at the path stays there */
	if (symlink(slave, spec->pty_link)) {
		if (errno == EEXIST)
			fprintf(stderr, "phyllo: --pty %s: that path already exists; it is "
				"left alone (remove it yourself, or name a new path)\n",
				spec->pty_link);
		else
			fprintf(stderr, "phyllo: cannot link %s to %s: %s\n", spec->pty_link,
				slave, strerror(errno));
		return -1;
	}
	io->rfd = io->wfd = m;
	snprintf(io->name, sizeof(io->name), "%s", slave);
	io->pty_link = spec->pty_link;
	if (!pty_owner) {
		pty_owner = io;
		atexit(pty_atexit);
	}
	return 0;
}

/* unix:PATH or tcp:HOST:PORT; retried while the server is not up yet. */
static int connect_once(const char *where)
{
	int fd = -1;

	if (!strncmp(where, "unix:", 5)) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", where + 5);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return fd;
	} else if (!strncmp(where, "tcp:", 4)) {
		char host[128], *port;
		struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;

		snprintf(host, sizeof(host), "%s", where + 4);
		port = strrchr(host, ':');
		if (!port)
			return -2;
		*port++ = 0;
		if (getaddrinfo(host, port, &hints, &ai))
			return -2;
		fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
			freeaddrinfo(ai);
			return fd;
		}
		freeaddrinfo(ai);
	} else {
		return -2;
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

static int open_socket(const struct bytestream_spec *spec, struct bytestream *io)
{
	unsigned int tries = spec->connect_wait_s * 10 + 1;
	int fd;

	while ((fd = connect_once(spec->connect)) == -1 && --tries)
		usleep(100000);
	if (fd == -2) {
		fprintf(stderr, "phyllo: --connect: '%s' is not unix:PATH or tcp:HOST:PORT\n",
			spec->connect);
		return -1;
	}
	if (fd < 0) {
		fprintf(stderr, "phyllo: cannot connect to %s: %s\n", spec->connect, strerror(errno));
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	io->rfd = io->wfd = fd;
	snprintf(io->name, sizeof(io->name), "%s", spec->connect);
	return 0;
}

int bytestream_open(const struct bytestream_spec *spec, struct bytestream *io)
{
	memset(io, 0, sizeof(*io));
	io->keep_fd = -1;
	if (spec->device)
		return open_device(spec, io);
	if (spec->pty_link)
		return open_pty(spec, io);
	if (spec->connect)
		return open_socket(spec, io);
	io->rfd = STDIN_FILENO;
	io->wfd = STDOUT_FILENO;
	fcntl(io->rfd, F_SETFL, fcntl(io->rfd, F_GETFL) | O_NONBLOCK);
	fcntl(io->wfd, F_SETFL, fcntl(io->wfd, F_GETFL) | O_NONBLOCK);
	snprintf(io->name, sizeof(io->name), "stdio");
	return 0;
}

void bytestream_close(struct bytestream *io)
{
	pty_unlink(io);
	if (pty_owner == io)
		pty_owner = NULL;
	if (io->rfd > STDERR_FILENO)
		close(io->rfd);
	if (io->wfd != io->rfd && io->wfd > STDERR_FILENO)
		close(io->wfd);
	if (io->keep_fd >= 0)
		close(io->keep_fd);
	if (io->locked)
		phyllo_port_unlock();
	io->locked = false;
}
