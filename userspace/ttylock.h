/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * ttylock.h - one user of a serial port at a time, the way serial programs
 * agree on it: an exclusive flock(2) on the open tty (as libphyllo and
 * systemd take), and a UUCP lock file LCK..NAME holding the owner's pid in
 * ASCII (as slattach, minicom and pppd write), NAME being the kernel's name
 * of the tty (ttyACM0, pts3). The directory is $PHYLLO_LOCK_DIR, else
 * /run/lock, else /var/lock; a lock file that is not a regular file, or
 * whose process is gone or does not have the tty open, is stale and taken
 * over (userspace/lib/lib_lock.c); where the directory is not writable
 * only flock applies. The process that takes the lock is the one that
 * keeps the tty (attach forks before it opens the tty).
 * `phyllo list` and `phyllo detach` find the attach process through it.
 */
#ifndef PHYLLO_TTYLOCK_H
#define PHYLLO_TTYLOCK_H

#include <stddef.h>
#include <sys/types.h>

/* The kernel's name of the tty at path (symlinks resolved): "ttyACM0",
 * "pts3". Returns 0, or -1 when path is no /dev node. */
int ttylock_name(const char *path, char *name, size_t len);
/* Lock the open tty fd (at path); on failure print who holds it and
 * return -1. */
int ttylock_take(int fd, const char *path, const char *who);
/* Remove the lock file if it is ours (the flock goes with the fd). */
void ttylock_release(void);
/* The live process named in tty NAME's lock file that has that tty open,
 * or 0: the only process `phyllo detach` may signal. */
pid_t ttylock_owner(const char *name);

#endif
