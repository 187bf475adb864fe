/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo-internal.h - what the phyllo tool (userspace/) and the tests may
 * use of libphyllo beyond its API (libphyllo.h): the one internal header
 * outside the library, none of it exported from libphyllo.so (the tool
 * links libphyllo.a). The handle's insides stay in lib.h, which no file
 * outside userspace/lib/ includes.
 *
 *  - the port (lib_port.c): opening, locking and setting raw the serial
 *    port, the one tty policy of the library, `attach` and `peer`;
 *  - the speeds, the live report's path, pcapng captures (lib_capture.h),
 *    JSON (json.h) and the counters' names (stats_list.h).
 */
#ifndef PHYLLO_INTERNAL_H
#define PHYLLO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <termios.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "libphyllo.h"
#include "phyllo_stack.h"
#include "json.h"
#include "lib_capture.h"
#include "stats_list.h"

/* ---- speeds ---- */

/* The speed when none is given, the firmware's (PHYLLO_FW_BAUD). */
#define PHYLLO_LIB_BAUD_DEFAULT 115200ul
/* The speeds the serial driver takes: the termios constant of one (0: not
 * one of them), and the i-th of them (0 past the last). */
speed_t phyllo_lib_baud_speed(unsigned long baud);
unsigned long phyllo_lib_baud_at(unsigned int i);

/* ---- the port (lib_port.c) ---- */

/*
 * Open the serial port at path (O_NOCTTY and O_CLOEXEC added to flags).
 * What is plainly no tty (a regular file, a directory, a FIFO) is refused
 * before it is opened, a character device that is no tty (/dev/null)
 * after, unless any_chr (libphyllo's /dev/phylloN): nothing is ever
 * written to it. Returns the fd, or -errno: -ENOTTY with *mode (may be
 * NULL) the file's type, for phyllo_port_kind().
 */
int phyllo_port_open(const char *path, int flags, bool any_chr, mode_t *mode);
/* What a file of mode m is, in words: "a regular file", "a directory"... */
const char *phyllo_port_kind(mode_t m);

/*
 * One user of a serial port at a time, the way serial programs agree on
 * it: a UUCP lock file LCK..NAME in phyllo_lib_lock_dir() holding the
 * owner's pid in ASCII (as slattach, minicom and pppd write it), NAME the
 * kernel's name of the tty (ttyACM0, pts3); then an exclusive flock(2) on
 * the open tty (as systemd and ldattach take). Not on a pty master: no
 * other program can open it, and every master is an open of the one ptmx
 * inode, so its flock would refuse all the others.
 *
 * A lock file is only a claim (the directory is world-writable): one that
 * is no regular file, or names a process that is gone or does not have
 * the tty open, is stale (phyllo_lib_lock_holds()). With
 * PHYLLO_PORT_LOCK_FILE (attach, peer) this process writes its own lock
 * file, taking a stale one over, never through a symlink; where the
 * directory may not be written only the flock applies. Without it (the
 * library) a live lock file of another process refuses the port as well.
 * The process that locks is the one that keeps the tty.
 *
 * path names the port (NULL: the fd's ttyname()). Returns 0, or -EBUSY
 * with *holder (may be NULL) saying who: the pid and lock file of a live
 * lock file, pid 0 for another process's flock; or -errno.
 */
#define PHYLLO_PORT_LOCK_FILE 0x1
struct phyllo_port_holder {
	pid_t pid;			/* 0: a flock, nobody named */
	char file[PATH_MAX];		/* the lock file naming pid */
};
int phyllo_port_lock(int fd, const char *path, unsigned int flags,
		     struct phyllo_port_holder *holder);
/* Remove this process's lock file, if it still names this process (the
 * flock goes with the fd). */
void phyllo_port_unlock(void);
/* The kernel's name of the tty at path (symlinks resolved): "ttyACM0",
 * "pts3". Returns 0, or -1 when path is no /dev node. */
int phyllo_port_name(const char *path, char *name, size_t len);
/* The live process that tty NAME's lock file names and that has that tty
 * open, or 0: the only process `phyllo detach` may signal. */
pid_t phyllo_port_lock_owner(const char *name);

/*
 * Raw mode, VMIN 1, at baud (0: the speed stays), and HUPCL off: the port
 * keeps DTR up when closed, so the next open does not reset a board that
 * reboots on DTR (an Uno and most boards with a USB-serial bridge), as
 * serial tools leave it. Returns 1 when HUPCL was on (this open may then
 * have reset such a board, unless the port is a pty), 0, or -errno
 * (-EINVAL: a speed the driver does not take).
 */
int phyllo_port_raw(int fd, unsigned long baud);
/* A pseudo-terminal, either end: no line, no DTR, no board to reset. */
bool phyllo_port_is_pty(int fd);

/* UUCP lock files as a local user who means harm may have made them
 * (lib_port.c): the directory; the pid a lock file names (0: none, not
 * a regular file, or unreadable); whether pid has the tty st open, the
 * test that makes a lock file more than a claim. */
const char *phyllo_lib_lock_dir(void);
pid_t phyllo_lib_lock_read(const char *file);
bool phyllo_lib_lock_holds(pid_t pid, const struct stat *tty);

/* ---- the live report (lib_report.c) ---- */

/* The counters of a tty handle while it runs, in a file other programs
 * read (phyllo stats --tty on a port in use): the file's path for the tty
 * at path (-ENOENT: no run directory, or no /dev node). */
int phyllo_lib_report_path(const char *tty, char *buf, size_t len);
/* Why a program holding a tty may have no report to read: the folder's
 * absence, its permissions, or the program's own; into buf, returned. */
const char *phyllo_lib_report_why(char *buf, size_t len);

#endif
