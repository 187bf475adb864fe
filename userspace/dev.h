/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * dev.h - opening a link for the tool's commands, with errors that say
 * what to do (module not loaded, no such link, permission denied, not a
 * tty, port in use): /dev/phylloN raw (list, attach, drain) or through
 * libphyllo (pub, sub, echo, stats), where --tty TTY runs the protocol in
 * the tool itself, no module needed.
 */
#ifndef PHYLLO_DEV_H
#define PHYLLO_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "libphyllo.h"

#define DEV_DEFAULT "/dev/phyllo0"

/* Where a command's link is: -d DEV (kernel; a bare NAME is the named
 * link's, linkname.h) or --tty TTY (userspace). */
struct dev_spec {
	const char *dev;	/* default DEV_DEFAULT */
	const char *tty;	/* set: the protocol runs in this process */
	unsigned long baud;	/* --tty: 0 leaves the speed */
	int preset;		/* --tty: PHYLLO_LIB_* */
	bool nonblock;
};

/* Open a link device; on failure print why and what to do, return -1. */
int dev_open(const char *path, int flags);
/* ioctl that prints "phyllo: WHAT: reason" on failure; returns 0 or -1. */
int dev_ioctl(int fd, unsigned long req, void *arg, const char *what);
/* Path of /dev/phylloN for unit n. */
void dev_path(char *buf, unsigned long len, unsigned int n);
/* The link of spec through libphyllo; NULL after printing why. */
struct phyllo *dev_open_link(const struct dev_spec *spec, const char *who);
/* Who has the serial port at path: the process holding its flock, its
 * UUCP lock file, or any other process with it open; its pid (0: none
 * found) and its command line into cmd. */
pid_t dev_tty_holder(const char *path, char *cmd, size_t len);
/* Another process with the serial port at path open, locked or not (as
 * fuser finds it; the far end of a pty, which holds its master, is not
 * one): its pid (0: none) and its command line into cmd. */
pid_t dev_tty_other(const char *path, char *cmd, size_t len);
/*
 * A named link's down and up, and session resets, as a client reports
 * them on stderr and rides over them: -ENOLINK "WHO: NAME: link down ...",
 * -ECONNRESET "WHO: NAME: link up, session N" after a down, else "session
 * reset ...". 0 when err was one of them (go on), -1 otherwise.
 */
struct dev_events {
	bool down;		/* the last event was a down */
};
int dev_link_event(struct dev_events *ev, struct phyllo *h, const char *who, const char *name,
		   int err);
/* The path spec names (for messages). */
const char *dev_name(const struct dev_spec *spec);

#endif
