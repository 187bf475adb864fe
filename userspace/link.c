// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * link.c - see link.h. Every fd is non-blocking; callers poll.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>
#include "link.h"

static speed_t baud_constant(unsigned long baud)
{
	static const struct { unsigned long baud; speed_t c; } map[] = {
		{ 9600, B9600 }, { 19200, B19200 }, { 38400, B38400 }, { 57600, B57600 },
		{ 115200, B115200 }, { 230400, B230400 }, { 460800, B460800 },
		{ 500000, B500000 }, { 921600, B921600 }, { 1000000, B1000000 },
		{ 2000000, B2000000 }, { 4000000, B4000000 },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].baud == baud)
			return map[i].c;
	return 0;
}

int link_tty_raw(int fd, unsigned long baud)
{
	struct termios t;

	if (tcgetattr(fd, &t))
		return -1;
	cfmakeraw(&t);
	t.c_cflag |= CLOCAL | CREAD;
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (baud) {
		speed_t c = baud_constant(baud);

		if (!c) {
			errno = EINVAL;
			return -1;
		}
		cfsetispeed(&t, c);
		cfsetospeed(&t, c);
	}
	return tcsetattr(fd, TCSANOW, &t);
}

static int open_device(const struct link_spec *spec, struct link_io *io)
{
	int fd = open(spec->device, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "phyllo: cannot open %s: %s%s\n", spec->device, strerror(errno),
			errno == EACCES ? " (add yourself to the 'dialout' group, or run as root)" : "");
		return -1;
	}
	if (isatty(fd) && link_tty_raw(fd, spec->baud)) {
		fprintf(stderr, "phyllo: cannot set %s to raw mode at %lu baud: %s\n",
			spec->device, spec->baud, strerror(errno));
		close(fd);
		return -1;
	}
	io->rfd = io->wfd = fd;
	snprintf(io->name, sizeof(io->name), "%s", spec->device);
	return 0;
}

static int open_pty(const struct link_spec *spec, struct link_io *io)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	const char *slave;

	if (m < 0 || grantpt(m) || unlockpt(m) || !(slave = ptsname(m))) {
		fprintf(stderr, "phyllo: cannot create a pty: %s\n", strerror(errno));
		return -1;
	}
	io->keep_fd = open(slave, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (io->keep_fd < 0 || link_tty_raw(io->keep_fd, spec->baud) || link_tty_raw(m, 0)) {
		fprintf(stderr, "phyllo: cannot set up pty %s: %s\n", slave, strerror(errno));
		return -1;
	}
	unlink(spec->pty_link);
	if (symlink(slave, spec->pty_link)) {
		fprintf(stderr, "phyllo: cannot link %s to %s: %s\n", spec->pty_link, slave,
			strerror(errno));
		return -1;
	}
	io->rfd = io->wfd = m;
	snprintf(io->name, sizeof(io->name), "%s", slave);
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

static int open_socket(const struct link_spec *spec, struct link_io *io)
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

int link_open(const struct link_spec *spec, struct link_io *io)
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

void link_close(struct link_io *io)
{
	if (io->rfd > STDERR_FILENO)
		close(io->rfd);
	if (io->wfd != io->rfd && io->wfd > STDERR_FILENO)
		close(io->wfd);
	if (io->keep_fd >= 0)
		close(io->keep_fd);
}
