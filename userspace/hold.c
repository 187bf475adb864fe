// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * hold.c - see hold.h.
 */
#include <errno.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include "hold.h"

enum hold_end hold_tty(int fd, volatile sig_atomic_t *stop)
{
	while (!*stop) {
		struct pollfd p = { .fd = fd, .events = 0 };
		int ld;

		/* a signal ends the wait early (no SA_RESTART): *stop is looked at */
		if (poll(&p, 1, 1000) > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)))
			return HOLD_HUNGUP;
		if (ioctl(fd, TIOCGETD, &ld) && errno == EIO)
			return HOLD_HUNGUP;
	}
	return HOLD_STOPPED;
}
