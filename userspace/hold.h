/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * hold.h - `phyllo attach` holding its tty: wait until the tty hangs up
 * (a USB adapter unplugged, a pty's master closed) or a signal sets *stop.
 * A tty with the phyllo discipline has no poll of its own, so the tty is
 * looked at once a second as well: a hung-up tty answers every ioctl with
 * EIO and every poll with POLLHUP.
 */
#ifndef PHYLLO_HOLD_H
#define PHYLLO_HOLD_H

#include <signal.h>

enum hold_end { HOLD_STOPPED = 0, HOLD_HUNGUP = 1 };

enum hold_end hold_tty(int fd, volatile sig_atomic_t *stop);

#endif
