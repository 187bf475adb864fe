// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bytestream.c - see bytestream.h. Every fd is non-blocking; callers poll.
 *
 * The speeds are libphyllo's (lib_tty.c). Two promises about the files
 * named on the command line:
 *  - a --device that is not a tty (a regular file, a directory, /dev/null,
 *    /dev/phylloN) is refused before anything is written to it;
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>
#include "bytestream.h"
#include "lib.h"

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

int bytestream_tty_raw(int fd, unsigned long baud)
{
	struct termios t;

	if (tcgetattr(fd, &t))
		return -1;
	cfmakeraw(&t);
	t.c_cflag |= CLOCAL | CREAD;
	/* DTR stays up at close: the next open does not reset the board */
	t.c_cflag &= ~(tcflag_t)HUPCL;
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (baud) {
		speed_t c = phyllo_lib_baud_speed(baud);

		if (!c) {
			errno = EINVAL;
			return -1;
		}
		cfsetispeed(&t, c);
		cfsetospeed(&t, c);
	}
	return tcsetattr(fd, TCSANOW, &t);
}

static const char *file_kind(mode_t m)
{
	if (S_ISREG(m))
		return "a regular file";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket (use --connect unix:PATH)";
	if (S_ISBLK(m))
		return "a block device";
	return "a character device that is not a tty";
}

static void refuse_not_tty(const char *who, const char *path, mode_t m)
{
	fprintf(stderr, "%s: %s is %s, not a serial port: refusing to use it (nothing was "
		"written); give a tty such as /dev/ttyACM0, /dev/ttyUSB0 or a pty\n", who, path,
		file_kind(m));
}

int bytestream_open_tty(const char *who, const char *path, int flags)
{
	struct stat st;
	int fd;

	/* Refuse what is plainly no tty before opening it at all. */
	if (stat(path, &st) == 0 && !S_ISCHR(st.st_mode)) {
		refuse_not_tty(who, path, st.st_mode);
		errno = ENOTTY;
		return -1;
	}
	fd = open(path, flags | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot open %s: %s%s\n", who, path, strerror(errno),
			errno == EACCES ? " (add yourself to the 'dialout' group, or run as root)"
					: "");
		return -1;
	}
	if (!isatty(fd)) {
		if (fstat(fd, &st))
			st.st_mode = 0;
		refuse_not_tty(who, path, st.st_mode);
		close(fd);
		errno = ENOTTY;
		return -1;
	}
	return fd;
}

static int open_device(const struct bytestream_spec *spec, struct bytestream *io)
{
	int fd = bytestream_open_tty("phyllo", spec->device, O_RDWR | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (bytestream_tty_raw(fd, spec->baud)) {
		fprintf(stderr, "phyllo: cannot set %s to raw mode at %lu baud: %s\n",
			spec->device, spec->baud, strerror(errno));
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

	if (m < 0 || grantpt(m) || unlockpt(m) || !(slave = ptsname(m))) {
		fprintf(stderr, "phyllo: cannot create a pty: %s\n", strerror(errno));
		return -1;
	}
	io->keep_fd = open(slave, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (io->keep_fd < 0 || bytestream_tty_raw(io->keep_fd, spec->baud) || bytestream_tty_raw(m, 0)) {
		fprintf(stderr, "phyllo: cannot set up pty %s: %s\n", slave, strerror(errno));
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
}
