/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * bytestream.h - the byte transport under `phyllo peer`'s stack: a tty
 * (locked, raw, at the chosen baud), a new pty whose slave path is
 * published as a symlink (created, never replaced; removed again by
 * bytestream_close() or at exit), a unix or TCP socket, or stdin/stdout.
 * And the messages every command gives when a serial port cannot be
 * opened or locked (the port itself: lib_port.c, phyllo-internal.h).
 */
#ifndef PHYLLO_BYTESTREAM_H
#define PHYLLO_BYTESTREAM_H

struct bytestream {
	int rfd;
	int wfd;
	int keep_fd;		/* pty slave held open so the master never sees EIO */
	char name[128];
	const char *pty_link;	/* the symlink we made, removed by bytestream_close() */
	bool locked;		/* a tty whose lock this process holds */
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

/* Open a tty (phyllo_port_open()); print "WHO: why" and return -1 on
 * failure. */
int bytestream_open_tty(const char *who, const char *path, int flags);
/* Lock the open tty fd at path, with a lock file of this process
 * (phyllo_port_lock()); print who holds it and return -1 on failure. */
int bytestream_lock_tty(int fd, const char *path, const char *who);
/* A --baud value the serial driver takes; otherwise print the valid
 * speeds and exit with status 2. */
unsigned long bytestream_parse_baud(const char *who, const char *s);

#endif
