/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * bytestream.h - the byte transport under `phyllo peer`'s stack: a tty
 * (raw mode, chosen baud), a new pty whose slave path is published as a symlink (created,
 * never replaced; removed again by bytestream_close() or at exit), a unix or
 * TCP socket, or stdin/stdout.
 */
#ifndef PHYLLO_BYTESTREAM_H
#define PHYLLO_BYTESTREAM_H

struct bytestream {
	int rfd;
	int wfd;
	int keep_fd;		/* pty slave held open so the master never sees EIO */
	char name[128];
	const char *pty_link;	/* the symlink we made, removed by bytestream_close() */
};

struct bytestream_spec {
	const char *device;	/* tty path */
	const char *connect;	/* unix:PATH or tcp:HOST:PORT */
	const char *pty_link;	/* create a pty, symlink its slave here */
	unsigned long baud;	/* 0: leave as is (peer: 115200 unless -b) */
	unsigned int connect_wait_s;
};

/* Returns 0, or -1 after printing what went wrong and what to do. */
int bytestream_open(const struct bytestream_spec *spec, struct bytestream *io);
void bytestream_close(struct bytestream *io);
/* Set raw mode, HUPCL off and the speed (0: leave it) on a tty fd; -1
 * with errno on failure. */
int bytestream_tty_raw(int fd, unsigned long baud);
/* Open a tty; anything else (a regular file, a directory, /dev/null) is
 * refused, before it is opened when stat() tells. Prints "WHO: why" and
 * returns -1 on failure. */
int bytestream_open_tty(const char *who, const char *path, int flags);
/* A --baud value the serial driver takes; otherwise print the valid
 * speeds and exit with status 2. */
unsigned long bytestream_parse_baud(const char *who, const char *s);

#endif
