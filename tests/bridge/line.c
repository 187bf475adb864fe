// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * line.c - a serial line of a given rate between two ttys, for
 * bench-bridge.sh: a pty has no line rate, a UART does. `line BAUD A B`
 * opens the tty A (a board's pty, made by board.c) and makes a new pty
 * whose slave is symlinked to B, then copies bytes each way as a UART
 * would deliver them: 8N1, ten bit times a byte, each byte handed on when
 * its stop bit would have ended, one direction independent of the other.
 * What a side writes faster than the line waits here, up to LINE_BUF
 * bytes; beyond that this stops reading it and the writer blocks on its
 * pty, as it would on a full UART.
 * Counts the bytes each way on SIGTERM/end (stderr): "line: A->B N, B->A N".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define LINE_BUF 65536

struct dir {
	int from, to;
	unsigned char buf[LINE_BUF];
	size_t head, len;	/* bytes held, from buf[head] */
	long long start_ns;	/* when the byte at buf[head] began to go out */
	unsigned long long moved;
};

static long long byte_ns;
static volatile sig_atomic_t stop;

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void raw(int fd)
{
	struct termios t;

	if (!tcgetattr(fd, &t)) {
		cfmakeraw(&t);
		tcsetattr(fd, TCSANOW, &t);
	}
}

/* Take what the sender wrote; a byte begins to go out when it arrives
 * on an idle line, or right after the byte before it. */
static int dir_read(struct dir *d, long long now)
{
	size_t tail = (d->head + d->len) % LINE_BUF;
	size_t room = d->head + d->len < LINE_BUF ? LINE_BUF - tail : d->head - tail;
	ssize_t r = read(d->from, d->buf + tail, room);

	if (r < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (!r)
		return -1;
	if (!d->len)
		d->start_ns = now;
	d->len += (size_t)r;
	return 0;
}

/* Hand on the bytes whose ten bit times have passed; returns the ns until
 * the next one is due (-1: none held). */
static long long dir_write(struct dir *d, long long now)
{
	size_t due, n;
	ssize_t w;

	if (!d->len)
		return -1;
	due = (size_t)((now - d->start_ns) / byte_ns);
	if (due > d->len)
		due = d->len;
	n = due < LINE_BUF - d->head ? due : LINE_BUF - d->head;
	if (n) {
		w = write(d->to, d->buf + d->head, n);
		if (w < 0)
			return errno == EAGAIN || errno == EINTR ? byte_ns : -2;
		d->head = (d->head + (size_t)w) % LINE_BUF;
		d->len -= (size_t)w;
		d->moved += (size_t)w;
		d->start_ns += (long long)w * byte_ns;
		if (!d->len)
			return -1;
	}
	return d->start_ns + byte_ns - now;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void line_run(struct dir *ab, struct dir *ba)
{
	struct dir *d[2] = { ab, ba };
	struct pollfd p[2];
	long long now, wait, t;
	struct timespec ts;
	int i;

	while (!stop) {
		now = now_ns();
		wait = -1;
		for (i = 0; i < 2; i++) {
			t = dir_write(d[i], now);
			if (t == -2)
				return;
			if (t >= 0 && (wait < 0 || t < wait))
				wait = t;
			p[i].fd = d[i]->from;
			p[i].events = d[i]->len < LINE_BUF ? POLLIN : 0;
		}
		ts.tv_sec = wait / 1000000000;
		ts.tv_nsec = wait % 1000000000;
		if (ppoll(p, 2, wait < 0 ? NULL : &ts, NULL) < 0 && errno != EINTR)
			return;
		now = now_ns();
		for (i = 0; i < 2; i++)
			if ((p[i].revents & (POLLIN | POLLHUP | POLLERR)) && dir_read(d[i], now))
				return;
	}
}

int main(int argc, char **argv)
{
	static struct dir ab, ba;
	const char *slave;
	unsigned long baud;
	int a, m, keep;

	if (argc != 4 || !(baud = strtoul(argv[1], NULL, 10))) {
		fprintf(stderr, "usage: line BAUD TTY_A LINK_B\n");
		return 2;
	}
	byte_ns = 10000000000LL / (long long)baud;
	a = open(argv[2], O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	m = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (a < 0 || m < 0 || grantpt(m) || unlockpt(m) || !(slave = ptsname(m)))
		return perror("line"), 1;
	/* held open so that the master never reads EIO between openers */
	keep = open(slave, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (keep < 0)
		return perror("line: pty slave"), 1;
	raw(a);
	raw(keep);
	if (symlink(slave, argv[3]))
		return perror("line: symlink"), 1;
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	ab.from = a, ab.to = m;
	ba.from = m, ba.to = a;
	line_run(&ab, &ba);
	unlink(argv[3]);
	fprintf(stderr, "line: A->B %llu, B->A %llu\n", ab.moved, ba.moved);
	return 0;
}
