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
 *  - the engine (lib_engine.c): the protocol core on a byte stream, the
 *    one that runs it in userspace, for the tty transport and `peer`;
 *  - the speeds, the live report's path, pcapng captures (lib_capture.h)
 *    and JSON (json.h).
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
/* The index of a Unix98 pty slave (majors 136..143), or -1. */
int phyllo_port_pty_index(dev_t rdev);
/* Whether descriptor fd (a /proc/PID/fd name) of pid is the master of pty
 * idx: its fdinfo says "tty-index: idx". */
bool phyllo_port_fd_is_master(pid_t pid, const char *fd, int idx);

/* UUCP lock files as a local user who means harm may have made them
 * (lib_port.c): the directory; the pid a lock file names (0: none, not
 * a regular file, or unreadable); whether pid has the tty st open, the
 * test that makes a lock file more than a claim. */
const char *phyllo_lib_lock_dir(void);
pid_t phyllo_lib_lock_read(const char *file);
bool phyllo_lib_lock_holds(pid_t pid, const struct stat *tty);

/* ---- the engine (lib_engine.c) ---- */

/*
 * The protocol core on a byte stream: the one loop body that runs it in
 * userspace, for libphyllo's tty transport (lib_tty.c) and `phyllo peer`.
 * The client owns the loop (when to read, poll, send and flush); the
 * engine keeps the core's contract (core/phyllo_stack.h):
 *  1. a bounded transmit buffer: phyllo_engine_poll() runs the core only
 *     with PHYLLO_STACK_POLL_OUT_MAX bytes free, phyllo_engine_send()
 *     only with PHYLLO_WIRE_MAX free (twice that with a hook, which may
 *     duplicate);
 *  2. after every receive step (unit first) and every poll the core's
 *     events go to ops->events; every unit received to ops->unit;
 *  3. captures ($PHYLLO_CAPTURE, cap): the bytes the core wrote and the
 *     bytes it was fed, hook or not;
 *  4. a halted engine (its client stopped dead, as a board whose power is
 *     cut) lets the core take the rest of what it was given, so that the
 *     counts stay comparable, tells the client nothing more and cuts no
 *     more frames for the hook.
 *
 * The hook (the fault injector of `phyllo peer`, userspace/fault.h) sits
 * between the core and the fd, on whole frames (00 chunk 00): every frame
 * the core writes goes to hook->frame (PHYLLO_ENGINE_TX); with hook->rx,
 * every frame read does too before the core sees it (PHYLLO_ENGINE_RX),
 * while a chunk too long to be a frame goes to the core as it is, to be
 * counted. The hook passes on what it will, now or later (it may drop,
 * change, hold or repeat frames), with phyllo_engine_pass(); passing a
 * frame in may make the client send and so reenter the hook.
 */
enum phyllo_engine_dir { PHYLLO_ENGINE_TX = 0, PHYLLO_ENGINE_RX = 1 };

struct phyllo_engine_ops {
	void (*unit)(void *ctx, const struct phyllo_unit *u);
	void (*events)(void *ctx, uint8_t ev);	/* PHYLLO_EV_*, never 0 */
};

struct phyllo_engine_hook {
	void (*frame)(void *ctx, enum phyllo_engine_dir dir, const uint8_t *frame, uint16_t n,
		      uint32_t now_ms);
	void *ctx;
	bool rx;			/* frames read go through it too */
};

/* The transmit buffer's bound, for the room rules (1.). */
#define PHYLLO_ENGINE_TX_MAX (4u * PHYLLO_STACK_POLL_OUT_MAX)

struct phyllo_engine {
	struct phyllo_stack st;
	int rfd, wfd;			/* the same fd but for stdin/stdout */
	uint32_t now;			/* ms, as the last call gave it */
	bool halted;			/* 4.: set by the client */
	int error;			/* -ENOMEM, kept: bytes found no room */
	const struct phyllo_engine_ops *ops;
	void *ctx;
	const struct phyllo_engine_hook *hook;
	struct phyllo_capture *cap;	/* $PHYLLO_CAPTURE, opened by the client */
	/* what waits for the fd: PHYLLO_ENGINE_TX_MAX by the room rules,
	 * more only while a hook releases frames it held; grown on demand */
	uint8_t *tx;
	size_t txlen, txcap;
	/* the hook's frames under way: one written, one read */
	uint8_t txframe[PHYLLO_WIRE_MAX + 16];
	uint16_t txframe_len;
	uint8_t rxchunk[PHYLLO_WIRE_MAX + 16];
	uint16_t rxchunk_len;
	bool rx_overlong;
};

/* The core at preset with cfg (window, timers, handshake; line_ms) and a
 * random session nonce: 0, or the core's error (bad settings), before any
 * fd is opened. The client then sets rfd and wfd (non-blocking).
 * phyllo_engine_free() frees the buffer. */
int phyllo_engine_init(struct phyllo_engine *e, uint8_t preset,
		       const struct phyllo_arq_config *cfg, const struct phyllo_engine_ops *ops, void *ctx,
		       const struct phyllo_engine_hook *hook, uint32_t now);
void phyllo_engine_free(struct phyllo_engine *e);
/* Room for a frame of need bytes (1.). */
bool phyllo_engine_room(const struct phyllo_engine *e, size_t need);
/* One read of rfd, fed to the core (or the hook): the bytes read, 0 when
 * none are there now (EAGAIN, EINTR), -1 at the end (EOF; EIO: the tty
 * hung up). */
long phyllo_engine_read(struct phyllo_engine *e, uint32_t now);
/* Bytes as if read. */
void phyllo_engine_feed(struct phyllo_engine *e, const uint8_t *b, size_t n, uint32_t now);
/* The core's timers (standard preset, with room: 1.), then its events:
 * ms until the core's next deadline, or -1 when it did not run. */
int phyllo_engine_poll(struct phyllo_engine *e, uint32_t now);
/* A unit into the core: 0, PHYLLO_E_AGAIN (no room here or in the
 * window) or the core's error. */
int phyllo_engine_send(struct phyllo_engine *e, uint8_t type, const uint8_t *data,
		       uint16_t len, bool reliable, uint32_t now);
/* The core's events, if any, to ops->events (after a send, say). */
void phyllo_engine_events(struct phyllo_engine *e);
/* Write what wfd takes; the rest waits. 0, or -errno of a write that
 * failed (EIO: the tty hung up; EPIPE: the socket), errno set too. */
int phyllo_engine_flush(struct phyllo_engine *e);
/* What the hook passes on: dir TX to the transmit buffer, RX to the core. */
void phyllo_engine_pass(struct phyllo_engine *e, enum phyllo_engine_dir dir,
			const uint8_t *frame, uint16_t n);

/* ---- the live report (lib_report.c) ---- */

/* The counters of a tty handle while it runs, in a file other programs
 * read (phyllo stats --tty on a port in use): the file's path for the tty
 * at path (-ENOENT: no run directory, or no /dev node). */
int phyllo_lib_report_path(const char *tty, char *buf, size_t len);
/* Why a program holding a tty may have no report to read: the folder's
 * absence, its permissions, or the program's own; into buf, returned. */
const char *phyllo_lib_report_why(char *buf, size_t len);

#endif
