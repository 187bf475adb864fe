// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * replug.c - the replug storm: a named link unplugged and plugged again
 * --cycles times while programs keep its one /dev/phylloN open (issue 35,
 * phyllo(4) "Named links"), run as root in the make test-storm guest
 * before the storm (tests/storm/storm-init.sh starts it).
 *
 * Contract:
 *  1. Each cycle opens a new pty pair. The master carries the board: the
 *     phyllo line discipline, an unnamed link, a new /dev/phylloM each
 *     cycle, opened before the host side is attached (so nothing it
 *     acknowledges has no file to go to). The slave carries the host: the
 *     line discipline, then PHYLLO_IOC_TTY_ATTACH "replug", so the named
 *     link comes up on it. The first cycle creates the link, later ones
 *     move the slave to it: PHYLLO_IOC_TTY_UNIT must tell the same N
 *     every time.
 *  2. Then the cycle unplugs: the master is closed (a hangup of the
 *     slave), or the slave set to N_TTY, or hung up by TIOCVHANGUP, and
 *     then the master closed. 1 cycle in 8 unplugs at once (0-2 ms after
 *     the attach, in the handshake), the others once the board has read
 *     a host unit and finished its first write-and-fsync round (or after
 *     3 s), 0-5 ms later. The board's link dies with its master: its
 *     reader gets what was queued, then end of file; its writer EIO.
 *  3. Across all cycles, on the named link: a writer file (its
 *     subscription matches nothing, drop mode) sends host units (a 32-bit
 *     sequence number, the cycle, a pattern) and fsyncs every 1-8 of
 *     them; a reader file (hold mode, the largest hold budget) reads;
 *     a poller polls both and checks PHYLLO_IOC_GET_STATE; an interrupter
 *     sends SIGUSR1 to the three. Each file is opened once and kept.
 *     Per cycle, on the board's link, the same pair of files: a reader
 *     records every host unit, a writer sends 1-3 rounds of 1-6 board
 *     units, each round fsynced. A unit is acknowledged when an fsync
 *     after it returned 0 with no ECONNRESET from a write or fsync in
 *     between (the ones since the last good fsync are then unknown).
 *     Writers have files of their own because a read that reports a
 *     reset tells the file's writers too (phyllo(4)).
 *  4. Invariants: every acknowledged host unit was read by a board file,
 *     every acknowledged board unit by the host reader, each file's units
 *     in increasing sequence with their patterns intact; the host reader
 *     gets ENOLINK after a down and ECONNRESET before the next session's
 *     units (never a unit between the two), at least one ENOLINK and one
 *     ECONNRESET per cycle it read units of, at most one ENOLINK per down
 *     (unread flaps may collapse into one); the link counts one down per
 *     cycle; no call fails with an errno phyllo(4) does not give it, no
 *     file of the named link sees end of file or POLLHUP; and at the end,
 *     with linger_ms 0 and its files closed, /dev/phylloN goes away.
 *  5. --failslab PCT and --failpage PCT inject allocation failures as the
 *     storm does (storm.c, contract 8 and 9): into the threads above and
 *     the kworkers, an attach (TIOCSETD to phyllo) marked 1 time in 4, the
 *     detach and PHYLLO_IOC_TTY_ATTACH always. ENOMEM is then allowed
 *     where the kernel allocates, and a pty, a board file, an attach or
 *     a TTY_ATTACH that fails with it is retried and counted. At the end
 *     both are set to 0 and the kworkers unmarked, for the storm after.
 *  6. No cycle for --stall seconds, or a thread that does not end within
 *     --watchdog seconds at the end, fails with the thread's call and
 *     kernel stack. The last line is "replug: PASS ..." (exit 0) or
 *     "replug: FAIL ..." (exit 1). Kernel reports are the caller's to
 *     find in dmesg.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <termios.h>
#include <linux/tty.h>
#include <time.h>
#include <unistd.h>

#include "phyllo.h"
#include "storm-guest.h"

#define NAME		"replug"
#define N_TTY_LDISC	0
#define HOST_TYPE	0x20	/* units the host writer sends */
#define BOARD_TYPE	0x21	/* units the board writers send */
#define SUB_NEVER	0xee	/* the writer file's subscription: nobody sends it */
#define HDR		9	/* [type][seq, 4 bytes LE][cycle, 4 bytes LE] */
#define SEQ_MAX		(1u << 22)	/* units a side may send in a run */
#define RETRIES		1000	/* ENOMEM retries of one call */

enum role {
	T_MAIN, T_WRITER, T_READER, T_POLLER, T_BREADER, T_BWRITER,
	T_INTERRUPTER, T_MARKER, T_WATCHDOG, T_COUNT
};

struct thread {
	pthread_t tid;
	pid_t ktid;
	const char *name;
	void *(*fn)(struct thread *);
	unsigned int rng;
	bool failable;			/* marked for fault injection */
	_Atomic(const char *) op;	/* call in progress, or NULL */
	atomic_long since_ms;
	atomic_bool exited;
};

static struct {
	int cycles;
	unsigned int seed;
	int stall_s;
	int watchdog_s;
	int ldisc;
	int failslab;
	int failpage;
} opt = { 400, 1, 120, 60, N_DEVELOPMENT, 0, 0 };

static struct thread threads[T_COUNT] = {
	[T_MAIN] = { .name = "main" },
	[T_WRITER] = { .name = "writer" },
	[T_READER] = { .name = "reader" },
	[T_POLLER] = { .name = "poller" },
	[T_BREADER] = { .name = "board-reader" },
	[T_BWRITER] = { .name = "board-writer" },
	[T_INTERRUPTER] = { .name = "interrupter" },
	[T_MARKER] = { .name = "kworker-marker" },
	[T_WATCHDOG] = { .name = "watchdog" },
};

static atomic_int stop, marker_stop, failures;
static atomic_int cycle;	/* the cycle under way, stamped on units */
static int unit_n = -1;		/* N of the named link's /dev/phylloN */
static int host_wfd = -1, host_rfd = -1;

/* What each side acknowledged and what the other read, by sequence. */
static uint8_t host_acked[SEQ_MAX / 8], host_got[SEQ_MAX / 8];
static uint8_t board_acked[SEQ_MAX / 8], board_got[SEQ_MAX / 8];
static uint32_t board_next;	/* the board writers' next sequence */
static long last_host_got = -1;	/* the board readers' last sequence */

/*
 * This cycle's board files and how far their threads got. The writer has
 * a file of its own, as the host's: a read that reports a reset tells
 * that file's writers too (phyllo(4)), and the writer must hear of it.
 */
static struct {
	int fd, wfd;
	atomic_long host_units;		/* host units its reader read */
	atomic_bool round_done;		/* its writer's first round ended */
} board = { -1, -1, 0, false };

static struct {
	atomic_long host_written, host_acked, host_got, host_resets;
	atomic_long board_written, board_acked, board_got, board_resets;
	atomic_long board_rd_resets, board_enobufs;
	atomic_long enolink, econnreset, enobufs, collapsed, eintr;
	atomic_long cycles_read, last_event;	/* 'u'nit, 'd'own, 'r'eset */
	atomic_long polls, pollpri, pollout, states_down, states_up;
	atomic_long enomem, pty_enomem, open_enomem, attach_enomem;
	atomic_long tty_attach_enomem, detach_enomem, early, waited_out;
	atomic_long by_close, by_detach, by_vhangup;
} cnt;

static unsigned int rnd(struct thread *t, unsigned int n)
{
	return xorshift(&t->rng, n);
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&failures, 1) >= 20)
		return;
	va_start(ap, fmt);
	fputs("replug: FAILURE: ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
	va_end(ap);
}

static bool faults(void)
{
	return opt.failslab || opt.failpage;
}

static void op_begin(struct thread *t, const char *op)
{
	atomic_store(&t->since_ms, now_ms());
	atomic_store(&t->op, op);
}

static void op_end(struct thread *t)
{
	atomic_store(&t->op, NULL);
}

/*
 * errno is one of the listed values (terminated by 0), or ENOMEM under
 * fault injection (counted); else a failure. True if allowed.
 */
static bool errno_in(struct thread *t, const char *what, int err, ...)
{
	va_list ap;
	int e;

	if (err == ENOMEM && faults()) {
		atomic_fetch_add(&cnt.enomem, 1);
		return true;
	}
	va_start(ap, err);
	while ((e = va_arg(ap, int)) != 0)
		if (e == err)
			break;
	va_end(ap);
	if (e == 0)
		fail("%s: cycle %d: %s: unexpected errno %d (%s)", t->name,
		     atomic_load(&cycle), what, err, strerror(err));
	return e != 0;
}

/*
 * This thread's allocations may fail (under fault injection) or not;
 * unmarking is retried, as the write itself runs marked.
 */
static void mark(bool on)
{
	int i;

	for (i = 0; faults() && i < RETRIES; i++)
		if (put(MAKE_IT_FAIL, on ? "1" : "0"))
			return;
	if (faults())
		fail("%s: %s", MAKE_IT_FAIL, strerror(errno));
}

static void bit_set(uint8_t *map, uint32_t i)
{
	map[i / 8] |= (uint8_t)(1u << (i % 8));
}

static bool bit_get(const uint8_t *map, uint32_t i)
{
	return map[i / 8] & (1u << (i % 8));
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint8_t pattern(uint32_t seq, size_t i)
{
	return (uint8_t)(seq * 13 + i * 7);
}

/* A unit of HDR to 64 bytes: [type][seq][cycle][pattern]. */
static size_t unit_make(struct thread *t, uint8_t *u, uint8_t type, uint32_t seq)
{
	size_t len = HDR + rnd(t, 56), i;

	u[0] = type;
	put_le32(u + 1, seq);
	put_le32(u + 5, (uint32_t)atomic_load(&cycle));
	for (i = HDR; i < len; i++)
		u[i] = pattern(seq, i);
	return len;
}

/* The unit's sequence number, or -1 (a failure) if it is not whole. */
static long unit_check(struct thread *t, const uint8_t *u, ssize_t len, uint8_t type,
		       uint32_t *stamp)
{
	uint32_t seq;
	ssize_t i;

	if (len < HDR || len > 64 || u[0] != type) {
		fail("%s: read a unit of %zd bytes, type 0x%02x", t->name, len,
		     len > 0 ? u[0] : 0);
		return -1;
	}
	seq = get_le32(u + 1);
	*stamp = get_le32(u + 5);
	for (i = HDR; i < len; i++)
		if (u[i] != pattern(seq, (size_t)i)) {
			fail("%s: unit %u of %zd bytes corrupt at byte %zd", t->name, seq,
			     len, i);
			return -1;
		}
	if (seq >= SEQ_MAX) {
		fail("%s: unit %u: no such sequence number", t->name, seq);
		return -1;
	}
	return seq;
}

/*
 * One side's writer: *next is the next sequence number, *from the first
 * not known to be acknowledged. A unit is sent (0), or not (-1, errno):
 * ECONNRESET says the ones since the last good fsync are lost or unknown.
 */
static int send_unit(struct thread *t, int fd, uint8_t type, uint32_t *next, uint32_t *from)
{
	uint8_t u[64];
	size_t len = unit_make(t, u, type, *next);
	ssize_t r;
	int err;

	op_begin(t, "write");
	r = write(fd, u, len);
	err = errno;
	op_end(t);
	if (r == (ssize_t)len) {
		(*next)++;
		return 0;
	}
	if (r >= 0) {
		fail("%s: write of %zu bytes returned %zd", t->name, len, r);
		err = EIO;
	}
	if (err == ECONNRESET)
		*from = *next;
	errno = err;
	return -1;
}

/* fsync: 0 marks [*from, next) acknowledged in map; -1 with errno. */
static int sync_units(struct thread *t, int fd, uint8_t *map, uint32_t next, uint32_t *from,
		      atomic_long *acked)
{
	int r, err;

	op_begin(t, "fsync");
	r = fsync(fd);
	err = errno;
	op_end(t);
	if (r == 0) {
		atomic_fetch_add(acked, next - *from);
		for (; *from < next; (*from)++)
			bit_set(map, *from);
		return 0;
	}
	if (err == ECONNRESET)
		*from = next;
	errno = err;
	return -1;
}

/* Blocking or not, as the writer and reader alternate. */
static void set_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

/* Wait up to 50 ms for EVENTS on fd, as a non-blocking caller would. */
static void wait_for(struct thread *t, int fd, short events)
{
	struct pollfd p = { fd, events, 0 };

	op_begin(t, "poll");
	poll(&p, 1, 50);
	op_end(t);
	if (p.revents & (POLLHUP | POLLNVAL))
		fail("%s: poll: revents 0x%x on the named link", t->name, p.revents);
}

/* The host writer: units over every cycle, fsync every 1-8. */
static void *host_writer(struct thread *t)
{
	uint32_t next = 0, from = 0;
	unsigned int batch = 0, n;

	for (n = 0; !atomic_load(&stop); n++) {
		if (n % 32 == 0)
			set_nonblock(host_wfd, rnd(t, 4) == 0);
		if (next >= SEQ_MAX - 1) {
			pause_us(10000);
			continue;
		}
		if (!batch)
			batch = 1 + rnd(t, 8);
		if (send_unit(t, host_wfd, HOST_TYPE, &next, &from)) {
			if (errno == EAGAIN)
				wait_for(t, host_wfd, POLLOUT);
			else if (errno == ECONNRESET)
				atomic_fetch_add(&cnt.host_resets, 1);
			else
				errno_in(t, "write", errno, EINTR, 0);
			continue;
		}
		atomic_fetch_add(&cnt.host_written, 1);
		if (--batch)
			continue;
		if (!sync_units(t, host_wfd, host_acked, next, &from, &cnt.host_acked))
			continue;
		if (errno == ECONNRESET)
			atomic_fetch_add(&cnt.host_resets, 1);
		else
			errno_in(t, "fsync", errno, EINTR, 0);
	}
	return NULL;
}

/*
 * A board unit the host reader got: none may come between an ENOLINK and
 * the ECONNRESET of the next session, and each comes after the last.
 */
static void host_unit(struct thread *t, const uint8_t *u, ssize_t len, bool down,
		      long *last, long *last_stamp)
{
	uint32_t stamp;
	long seq = unit_check(t, u, len, BOARD_TYPE, &stamp);

	if (seq < 0)
		return;
	if (down)
		fail("%s: board unit %ld (cycle %u) read after ENOLINK, before ECONNRESET",
		     t->name, seq, stamp);
	if (seq <= *last)
		fail("%s: board unit %ld read after %ld", t->name, seq, *last);
	*last = seq;
	bit_set(board_got, (uint32_t)seq);
	atomic_fetch_add(&cnt.board_got, 1);
	if ((long)stamp != *last_stamp) {
		atomic_fetch_add(&cnt.cycles_read, 1);
		*last_stamp = stamp;
	}
	atomic_store(&cnt.last_event, 'u');
}

/* The host reader: every unit, down and up, until told to stop. */
static void *host_reader(struct thread *t)
{
	uint8_t buf[PHYLLO_UNIT_MAX];
	long last = -1, last_stamp = -1;
	bool down = false;	/* ENOLINK read, no ECONNRESET since */
	unsigned int n;
	ssize_t r;
	int err;

	for (n = 0;; n++) {
		if (n % 64 == 0)
			set_nonblock(host_rfd, rnd(t, 4) == 0);
		op_begin(t, "read");
		r = read(host_rfd, buf, sizeof(buf));
		err = errno;
		op_end(t);
		if (r > 0) {
			host_unit(t, buf, r, down, &last, &last_stamp);
			continue;
		}
		if (r == 0) {
			fail("%s: end of file on the named link", t->name);
			break;
		}
		if (err == ENOLINK) {
			/* an up with no unit after it collapses into the next down */
			if (down)
				atomic_fetch_add(&cnt.collapsed, 1);
			atomic_fetch_add(&cnt.enolink, 1);
			down = true;
			atomic_store(&cnt.last_event, 'd');
		} else if (err == ECONNRESET) {
			atomic_fetch_add(&cnt.econnreset, 1);
			down = false;
			atomic_store(&cnt.last_event, 'r');
		} else if (err == ENOBUFS) {
			atomic_fetch_add(&cnt.enobufs, 1);
		} else if ((err == EAGAIN || err == EINTR) && atomic_load(&stop)) {
			break;
		} else if (err == EAGAIN) {
			wait_for(t, host_rfd, POLLIN);
		} else if (err == EINTR) {
			atomic_fetch_add(&cnt.eintr, 1);
		} else if (!errno_in(t, "read", err, 0)) {
			break;
		}
	}
	return NULL;
}

/* What GET_STATE tells at any time: the same N, never hung up. */
static void state_check(struct thread *t, const struct phyllo_link_state *st, uint32_t *downs)
{
	if (st->unit != (uint32_t)unit_n)
		fail("%s: GET_STATE: unit %u, not %d", t->name, st->unit, unit_n);
	if (st->state == PHYLLO_LINK_DOWN)
		atomic_fetch_add(&cnt.states_down, 1);
	else if (st->state == PHYLLO_LINK_UP)
		atomic_fetch_add(&cnt.states_up, 1);
	else if (st->state != PHYLLO_LINK_CONNECTING)
		fail("%s: GET_STATE: state %u", t->name, st->state);
	if (st->downs < *downs)
		fail("%s: GET_STATE: downs went from %u to %u", t->name, *downs, st->downs);
	*downs = st->downs;
}

/* Poll both files (never POLLHUP), and ask GET_STATE now and then. */
static void *poller(struct thread *t)
{
	struct phyllo_link_state st;
	struct pollfd p[2];
	uint32_t downs = 0;
	int r;

	while (!atomic_load(&stop)) {
		p[0] = (struct pollfd){ host_rfd, POLLIN | POLLPRI, 0 };
		p[1] = (struct pollfd){ host_wfd, POLLOUT | POLLPRI, 0 };
		op_begin(t, "poll");
		r = poll(p, 2, 20);
		op_end(t);
		if (r < 0) {
			errno_in(t, "poll", errno, EINTR, 0);
			continue;
		}
		atomic_fetch_add(&cnt.polls, 1);
		atomic_fetch_add(&cnt.pollpri, !!(p[0].revents & POLLPRI));
		atomic_fetch_add(&cnt.pollout, !!(p[1].revents & POLLOUT));
		if ((p[0].revents | p[1].revents) & (POLLHUP | POLLNVAL))
			fail("%s: poll: revents 0x%x, 0x%x on the named link", t->name,
			     p[0].revents, p[1].revents);
		if (rnd(t, 4))
			continue;
		op_begin(t, "GET_STATE");
		r = ioctl(host_wfd, PHYLLO_IOC_GET_STATE, &st);
		op_end(t);
		if (r)
			errno_in(t, "GET_STATE", errno, EINTR, 0);
		else
			state_check(t, &st, &downs);
	}
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
}

/* SIGUSR1 to the writer, the reader or the poller: EINTR and restarts. */
static void *interrupter(struct thread *t)
{
	struct thread *to;

	while (!atomic_load(&stop)) {
		pause_us(2000 + rnd(t, 18000));
		to = &threads[T_WRITER + rnd(t, 3)];
		if (!atomic_load(&to->exited))
			pthread_kill(to->tid, SIGUSR1);
	}
	return NULL;
}

/*
 * The kworkers run the tty's receive and the link's work, where a
 * received unit is allocated: marked too, every 20 ms for new ones.
 */
static void *kworker_marker(struct thread *t)
{
	(void)t;
	while (!atomic_load(&marker_stop)) {
		kworkers_mark("1");
		pause_us(20000);
	}
	return NULL;
}

static void *thread_main(void *arg)
{
	struct thread *t = arg;
	void *r;

	t->ktid = (pid_t)syscall(SYS_gettid);
	if (t->failable)
		mark(true);
	r = t->fn(t);
	atomic_store(&t->exited, true);
	return r;
}

static void spawn(enum role role, void *(*fn)(struct thread *), bool failable)
{
	struct thread *t = &threads[role];

	t->fn = fn;
	t->failable = failable;
	t->rng = opt.seed * 2654435761u + (unsigned int)role * 40503u +
		 (unsigned int)atomic_load(&cycle) * 97u + 1;
	atomic_store(&t->exited, false);
	atomic_store(&t->op, NULL);
	if (pthread_create(&t->tid, NULL, thread_main, t)) {
		fail("cannot start thread %s", t->name);
		fflush(stdout);
		_exit(1);
	}
}

/* Name every live thread with its call and kernel stack, then end. */
static void hung(const char *why)
{
	long t = now_ms();
	const char *op;
	int i;

	for (i = 0; i < T_COUNT; i++) {
		struct thread *th = &threads[i];

		if (!th->ktid || atomic_load(&th->exited) || i == T_WATCHDOG)
			continue;
		op = atomic_load(&th->op);
		fail("%s: cycle %d: thread %s (tid %d) in %s for %ld ms", why,
		     atomic_load(&cycle), th->name, th->ktid, op ? op : "user code",
		     op ? t - atomic_load(&th->since_ms) : 0);
		show_kernel_stack("replug", th->ktid);
	}
	sysrq("replug", 'w');
	printf("replug: FAIL: %s in cycle %d\n", why, atomic_load(&cycle));
	fflush(stdout);
	_exit(1);
}

/* Join a thread within the watchdog, or end the run naming it. */
static void join(enum role role)
{
	long deadline = now_ms() + opt.watchdog_s * 1000L;

	while (!atomic_load(&threads[role].exited)) {
		if (now_ms() > deadline)
			hung("watchdog");
		pause_us(1000);
	}
	pthread_join(threads[role].tid, NULL);
}

/* A cycle that does not end within --stall seconds ends the run. */
static void *watchdog(struct thread *t)
{
	int last = -1;
	long since = now_ms();

	(void)t;
	while (!atomic_load(&stop)) {
		pause_us(200000);
		if (atomic_load(&cycle) != last) {
			last = atomic_load(&cycle);
			since = now_ms();
		} else if (now_ms() - since > opt.stall_s * 1000L) {
			hung("no progress");
		}
	}
	return NULL;
}

/* The board's reader: every host unit until its link dies. */
static void *board_reader(struct thread *t)
{
	uint8_t buf[PHYLLO_UNIT_MAX];
	uint32_t stamp;
	ssize_t r;
	long seq;
	int err;

	for (;;) {
		op_begin(t, "read");
		r = read(board.fd, buf, sizeof(buf));
		err = errno;
		op_end(t);
		if (r == 0)
			break;
		if (r < 0 && err == ECONNRESET) {
			atomic_fetch_add(&cnt.board_rd_resets, 1);
		} else if (r < 0 && err == ENOBUFS) {
			atomic_fetch_add(&cnt.board_enobufs, 1);
		} else if (r < 0) {
			if (!errno_in(t, "board read", err, 0))
				break;
		} else if ((seq = unit_check(t, buf, r, HOST_TYPE, &stamp)) >= 0) {
			if (seq <= last_host_got)
				fail("%s: host unit %ld read after %ld", t->name, seq,
				     last_host_got);
			last_host_got = seq;
			bit_set(host_got, (uint32_t)seq);
			atomic_fetch_add(&cnt.host_got, 1);
			atomic_fetch_add(&board.host_units, 1);
		}
	}
	return NULL;
}

/* A board write or fsync failed: go on (true), or the link died. */
static bool board_went_on(struct thread *t, const char *what)
{
	if (errno == EIO)
		return false;
	if (errno == ECONNRESET) {
		atomic_fetch_add(&cnt.board_resets, 1);
		return true;
	}
	return errno_in(t, what, errno, 0);
}

/* The board's writer: 1-3 rounds of 1-6 units, each round fsynced. */
static void *board_writer(struct thread *t)
{
	unsigned int rounds = 1 + rnd(t, 3), n;
	uint32_t from = board_next;

	while (rounds--) {
		for (n = 1 + rnd(t, 6); n;) {
			if (!send_unit(t, board.wfd, BOARD_TYPE, &board_next, &from)) {
				atomic_fetch_add(&cnt.board_written, 1);
				n--;
			} else if (!board_went_on(t, "board write")) {
				goto out;
			}
		}
		if (sync_units(t, board.wfd, board_acked, board_next, &from, &cnt.board_acked) &&
		    !board_went_on(t, "board fsync"))
			break;
		atomic_store(&board.round_done, true);
	}
out:
	atomic_store(&board.round_done, true);
	return NULL;
}

static int tty_unit(int tty)
{
	uint32_t unit;

	return ioctl(tty, PHYLLO_IOC_TTY_UNIT, &unit) ? -1 : (int)unit;
}

/*
 * An ioctl made marked 1 time in one_in (0: never), retried while it
 * fails with ENOMEM (counted) or, for TIOCSETD, EBUSY (the tty's ldisc
 * lock timed out); 0, or -1 and a failure.
 */
static int ioctl_retry(struct thread *t, const char *what, int fd, unsigned long req, void *arg,
		       unsigned int one_in, atomic_long *enomem)
{
	int i, r, err;

	for (i = 0; i < RETRIES; i++) {
		bool marked = one_in && !rnd(t, one_in);

		if (marked)
			mark(true);
		op_begin(t, what);
		r = ioctl(fd, req, arg);
		err = errno;
		op_end(t);
		if (marked)
			mark(false);
		if (!r)
			return 0;
		if (err == ENOMEM && faults())
			atomic_fetch_add(enomem, 1);
		else if (!(err == EBUSY && req == TIOCSETD))
			break;
	}
	fail("%s: cycle %d: %s: %s", t->name, atomic_load(&cycle), what, strerror(err));
	return -1;
}

static int attach(struct thread *t, int tty)
{
	int ldisc = opt.ldisc;

	return ioctl_retry(t, "TIOCSETD phyllo", tty, TIOCSETD, &ldisc, 4, &cnt.attach_enomem);
}

/* Open a pty pair, or /dev/phylloM, marked; retried on ENOMEM. */
static int open_retry(struct thread *t, const char *path, int *slave)
{
	int i, fd, err;

	for (i = 0; i < RETRIES; i++) {
		mark(true);
		op_begin(t, path ? "open" : "open pty");
		fd = path ? open(path, O_RDWR | O_CLOEXEC) : pty_open(slave);
		err = errno;
		op_end(t);
		mark(false);
		if (fd >= 0)
			return fd;
		if (err != ENOMEM || !faults())
			break;
		atomic_fetch_add(path ? &cnt.open_enomem : &cnt.pty_enomem, 1);
	}
	fail("%s: cycle %d: open %s: %s", t->name, atomic_load(&cycle), path ? path : "pty",
	     strerror(err));
	return -1;
}

/* A writer's file takes no unit: its subscription matches none, it drops. */
static bool writer_file(int fd)
{
	struct phyllo_subscription sub = { .flags = PHYLLO_SUB_TYPE, .type = SUB_NEVER };
	uint32_t drop = PHYLLO_RECV_DROP;

	return !ioctl(fd, PHYLLO_IOC_SUBSCRIBE, &sub) &&
	       !ioctl(fd, PHYLLO_IOC_SET_RECV_MODE, &drop);
}

/*
 * The first cycle named the link: open its two files (unmarked), the
 * writer's, and the reader's holding for as long as the link allows,
 * and start the threads that use them.
 */
static bool host_open(void)
{
	struct phyllo_link_config cfg = { .rxq_stall_ms = PHYLLO_STALL_MS_MAX,
					  .mask = PHYLLO_SET_RXQ_STALL_MS };
	uint32_t hold = PHYLLO_RECV_HOLD;
	char path[32];

	snprintf(path, sizeof(path), "/dev/phyllo%d", unit_n);
	host_wfd = open(path, O_RDWR | O_CLOEXEC);
	host_rfd = open(path, O_RDWR | O_CLOEXEC);
	if (host_wfd < 0 || host_rfd < 0 || !writer_file(host_wfd) ||
	    ioctl(host_rfd, PHYLLO_IOC_SET_RECV_MODE, &hold) ||
	    ioctl(host_rfd, PHYLLO_IOC_SET_CONFIG, &cfg)) {
		fail("%s: %s", path, strerror(errno));
		return false;
	}
	spawn(T_WRITER, host_writer, true);
	spawn(T_READER, host_reader, true);
	spawn(T_POLLER, poller, true);
	spawn(T_INTERRUPTER, interrupter, false);
	return true;
}

/* The slave carries the named link now: the same N (the first: its N). */
static bool host_plugged(struct thread *t, int slave)
{
	int n = tty_unit(slave);

	if (n < 0) {
		fail("%s: cycle %d: TTY_UNIT: %s", t->name, atomic_load(&cycle), strerror(errno));
		return false;
	}
	if (unit_n < 0) {
		unit_n = n;
		return host_open();
	}
	if (n != unit_n) {
		fail("%s: cycle %d: the named link is /dev/phyllo%d, was /dev/phyllo%d", t->name,
		     atomic_load(&cycle), n, unit_n);
		return false;
	}
	return true;
}

/* Unplug at once (1 in 8), or once the board has done some work. */
static void cycle_wait(struct thread *t)
{
	long deadline = now_ms() + 3000;

	if (!rnd(t, 8)) {
		atomic_fetch_add(&cnt.early, 1);
		pause_us(rnd(t, 2000));
		return;
	}
	while (!atomic_load(&board.host_units) || !atomic_load(&board.round_done)) {
		if (now_ms() > deadline) {
			atomic_fetch_add(&cnt.waited_out, 1);
			break;
		}
		pause_us(1000);
	}
	pause_us(rnd(t, 5000));
}

/*
 * The slave loses the named link: the master closed (the slave hangs
 * up), the slave set to N_TTY (marked 1 time in 4: a failed detach
 * still closes the link's line discipline), or TIOCVHANGUP on it.
 */
static void unplug(struct thread *t, int master, int slave)
{
	int how = (int)rnd(t, 4), ldisc = N_TTY_LDISC, r, err;
	bool marked = !rnd(t, 4);

	if (how == 2) {
		atomic_fetch_add(&cnt.by_detach, 1);
		if (marked)
			mark(true);
		op_begin(t, "TIOCSETD N_TTY");
		r = ioctl(slave, TIOCSETD, &ldisc);
		err = errno;
		op_end(t);
		if (marked)
			mark(false);
		if (r && err == ENOMEM && faults())
			atomic_fetch_add(&cnt.detach_enomem, 1);
		else if (r)
			errno_in(t, "TIOCSETD N_TTY", err, EBUSY, 0);
		pause_us(rnd(t, 2000));
	} else if (how == 3) {
		atomic_fetch_add(&cnt.by_vhangup, 1);
		op_begin(t, "TIOCVHANGUP");
		if (ioctl(slave, TIOCVHANGUP))
			fail("%s: TIOCVHANGUP: %s", t->name, strerror(errno));
		op_end(t);
	} else {
		atomic_fetch_add(&cnt.by_close, 1);
	}
	op_begin(t, "close master");
	close(master);
	op_end(t);
	close(slave);
}

/* After an unplug: the link is down, once more than before. */
static bool host_unplugged(struct thread *t, int c)
{
	struct phyllo_link_state st;

	if (ioctl(host_wfd, PHYLLO_IOC_GET_STATE, &st)) {
		fail("%s: cycle %d: GET_STATE: %s", t->name, c, strerror(errno));
		return false;
	}
	if (st.state != PHYLLO_LINK_DOWN || st.downs != (uint32_t)c + 1 ||
	    st.unit != (uint32_t)unit_n) {
		fail("%s: cycle %d unplugged: state %u, downs %u, unit %u", t->name, c, st.state,
		     st.downs, st.unit);
		return false;
	}
	return true;
}

/*
 * The board's files on /dev/phylloM, the master's link, opened (marked)
 * before the slave is attached: a reader's, and the writer's.
 */
static bool board_open(struct thread *t, int master)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/phyllo%d", tty_unit(master));
	board.fd = open_retry(t, path, NULL);
	board.wfd = board.fd < 0 ? -1 : open_retry(t, path, NULL);
	if (board.wfd >= 0 && !writer_file(board.wfd)) {
		fail("%s: cycle %d: %s: %s", t->name, atomic_load(&cycle), path, strerror(errno));
		return false;
	}
	return board.wfd >= 0;
}

static void board_close(void)
{
	if (board.fd >= 0)
		close(board.fd);
	if (board.wfd >= 0)
		close(board.wfd);
	board.fd = board.wfd = -1;
}

/* One cycle (contract 1 and 2); false ends the run. */
static bool cycle_run(struct thread *t, int c)
{
	struct phyllo_attach req = { NAME, 0, { 0 } };
	bool ok = false, reading = false, writing = false;
	int m, s = -1;

	atomic_store(&cycle, c);
	m = open_retry(t, NULL, &s);
	if (m < 0)
		return false;
	if (attach(t, m)) {
		close(m);
		close(s);
		return false;
	}
	atomic_store(&board.host_units, 0);
	atomic_store(&board.round_done, false);
	if (board_open(t, m)) {
		spawn(T_BREADER, board_reader, true);
		reading = true;
	}
	if (reading && !attach(t, s) &&
	    !ioctl_retry(t, "TTY_ATTACH", s, PHYLLO_IOC_TTY_ATTACH, &req, 1,
			 &cnt.tty_attach_enomem) &&
	    host_plugged(t, s)) {
		spawn(T_BWRITER, board_writer, true);
		writing = true;
		cycle_wait(t);
		ok = true;
	}
	unplug(t, m, s);
	if (ok)
		ok = host_unplugged(t, c);
	if (reading)
		join(T_BREADER);
	if (writing)
		join(T_BWRITER);
	board_close();
	return ok;
}

/* The last down read: the reader has had everything (30 s at most). */
static void drain_wait(void)
{
	long deadline = now_ms() + 30000;
	struct pollfd p;

	for (;;) {
		p = (struct pollfd){ host_rfd, POLLIN, 0 };
		if (atomic_load(&cnt.last_event) == 'd' && poll(&p, 1, 0) == 0)
			return;
		if (now_ms() > deadline) {
			fail("the reader did not read the last down in 30 s (last event '%c')",
			     (int)atomic_load(&cnt.last_event));
			return;
		}
		pause_us(10000);
	}
}

/* Stop the threads of the named link's files, SIGUSR1 until they end. */
static void host_stop(void)
{
	long deadline = now_ms() + opt.watchdog_s * 1000L;
	int i, left;

	atomic_store(&stop, 1);
	do {
		left = 0;
		for (i = T_WRITER; i <= T_POLLER; i++)
			if (!atomic_load(&threads[i].exited)) {
				pthread_kill(threads[i].tid, SIGUSR1);
				left++;
			}
		if (left && now_ms() > deadline)
			hung("watchdog at the end");
		pause_us(10000);
	} while (left);
	join(T_WRITER);
	join(T_READER);
	join(T_POLLER);
	join(T_INTERRUPTER);
}

/* Acknowledged in one map, missing from the other: named, counted. */
static long lost(const char *what, const uint8_t *acked, const uint8_t *got, long *n_acked)
{
	long missing = 0;
	uint32_t i;

	*n_acked = 0;
	for (i = 0; i < SEQ_MAX; i++) {
		if (!bit_get(acked, i))
			continue;
		(*n_acked)++;
		if (bit_get(got, i))
			continue;
		if (missing++ < 5)
			fail("%s unit %u acknowledged, never read", what, i);
	}
	return missing;
}

/* Contract 4 on what the run counted. */
static void verdict(int cycles)
{
	struct phyllo_link_state st = { 0 };
	long n_host, n_board, host_lost, board_lost;
	long enolink = atomic_load(&cnt.enolink), reset = atomic_load(&cnt.econnreset);
	long read = atomic_load(&cnt.cycles_read);

	host_lost = lost("host", host_acked, host_got, &n_host);
	board_lost = lost("board", board_acked, board_got, &n_board);
	if (ioctl(host_wfd, PHYLLO_IOC_GET_STATE, &st))
		fail("GET_STATE at the end: %s", strerror(errno));
	printf("replug: %d cycles (%ld unplugged by closing the master, %ld by N_TTY, %ld by "
	       "TIOCVHANGUP; %ld at once, %ld after 3 s), /dev/phyllo%d throughout: downs %u, "
	       "sessions %u, resets %u\n", cycles, atomic_load(&cnt.by_close),
	       atomic_load(&cnt.by_detach), atomic_load(&cnt.by_vhangup),
	       atomic_load(&cnt.early), atomic_load(&cnt.waited_out), unit_n, st.downs,
	       st.session, st.resets);
	printf("replug: host units written %ld, acknowledged %ld, read by the boards %ld, "
	       "acknowledged and lost %ld; writer told of resets %ld\n",
	       atomic_load(&cnt.host_written), n_host, atomic_load(&cnt.host_got),
	       host_lost, atomic_load(&cnt.host_resets));
	printf("replug: board units written %ld, acknowledged %ld, read by the host %ld, "
	       "acknowledged and lost %ld; board writers told of resets %ld, board readers %ld, "
	       "ENOBUFS %ld\n", atomic_load(&cnt.board_written), n_board,
	       atomic_load(&cnt.board_got), board_lost, atomic_load(&cnt.board_resets),
	       atomic_load(&cnt.board_rd_resets), atomic_load(&cnt.board_enobufs));
	printf("replug: host reader: ENOLINK %ld (%ld with no unit since the one before), "
	       "ECONNRESET %ld, ENOBUFS %ld, EINTR %ld, units of %ld cycles; poll %ld "
	       "(POLLPRI %ld, POLLOUT %ld), GET_STATE down %ld, up %ld\n", enolink,
	       atomic_load(&cnt.collapsed), reset, atomic_load(&cnt.enobufs),
	       atomic_load(&cnt.eintr), read, atomic_load(&cnt.polls),
	       atomic_load(&cnt.pollpri), atomic_load(&cnt.pollout),
	       atomic_load(&cnt.states_down), atomic_load(&cnt.states_up));
	if (st.downs != (uint32_t)cycles)
		fail("the link went down %u times in %d cycles", st.downs, cycles);
	if (enolink > (long)st.downs)
		fail("ENOLINK %ld times for %u downs", enolink, st.downs);
	if (!atomic_load(&cnt.enobufs) && (enolink < read || reset < read - 1))
		fail("units of %ld cycles read, but ENOLINK %ld and ECONNRESET %ld times", read,
		     enolink, reset);
	if (!n_host || !n_board)
		fail("nothing acknowledged: host %ld, board %ld", n_host, n_board);
}

/* linger_ms 0, files closed: the down link and its /dev/phylloN go. */
static void linger_check(void)
{
	struct phyllo_link_config cfg = { .linger_ms = 0, .mask = PHYLLO_SET_LINGER_MS };
	char path[32];
	long deadline;

	snprintf(path, sizeof(path), "/dev/phyllo%d", unit_n);
	if (ioctl(host_wfd, PHYLLO_IOC_SET_CONFIG, &cfg))
		fail("SET_CONFIG linger_ms 0: %s", strerror(errno));
	close(host_wfd);
	close(host_rfd);
	deadline = now_ms() + 10000;
	while (access(path, F_OK) == 0) {
		if (now_ms() > deadline) {
			fail("%s still there 10 s after its last file closed, linger_ms 0", path);
			return;
		}
		pause_us(10000);
	}
}

/* Fault injection off, every kworker unmarked: the storm sets its own. */
static void faults_off(long slab_base, long page_base)
{
	atomic_store(&marker_stop, 1);
	join(T_MARKER);
	fault_set(FAILSLAB_DIR, 0);
	fault_set(FAILPAGE_DIR, 0);
	kworkers_mark("0");
	printf("replug: fail_slab %d %%: %ld allocations failed; fail_page_alloc %d %%: %ld; "
	       "ENOMEM: %ld attaches (TIOCSETD), %ld TTY_ATTACH, %ld detaches, %ld board "
	       "opens, %ld ptys, %ld other calls\n", opt.failslab,
	       opt.failslab ? fault_injected(FAILSLAB_DIR) - slab_base : 0, opt.failpage,
	       opt.failpage ? fault_injected(FAILPAGE_DIR) - page_base : 0,
	       atomic_load(&cnt.attach_enomem), atomic_load(&cnt.tty_attach_enomem),
	       atomic_load(&cnt.detach_enomem), atomic_load(&cnt.open_enomem),
	       atomic_load(&cnt.pty_enomem), atomic_load(&cnt.enomem));
}

static void usage(void)
{
	fprintf(stderr, "usage: replug [--cycles N] [--seed S] [--stall SECS] [--watchdog SECS]\n"
			"              [--ldisc N] [--failslab PCT] [--failpage PCT]\n");
	exit(2);
}

static void parse(int argc, char **argv)
{
	int i;

	for (i = 1; i + 1 < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];

		if (!strcmp(k, "--cycles"))
			opt.cycles = atoi(v);
		else if (!strcmp(k, "--seed"))
			opt.seed = (unsigned int)strtoul(v, NULL, 0);
		else if (!strcmp(k, "--stall"))
			opt.stall_s = atoi(v);
		else if (!strcmp(k, "--watchdog"))
			opt.watchdog_s = atoi(v);
		else if (!strcmp(k, "--ldisc"))
			opt.ldisc = atoi(v);
		else if (!strcmp(k, "--failslab"))
			opt.failslab = atoi(v);
		else if (!strcmp(k, "--failpage"))
			opt.failpage = atoi(v);
		else
			usage();
	}
	if (i != argc || opt.cycles < 1 || opt.failslab < 0 || opt.failslab > 100 ||
	    opt.failpage < 0 || opt.failpage > 100)
		usage();
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */
	struct thread *t = &threads[T_MAIN];
	long start = now_ms(), report = start + 10000, slab_base = 0, page_base = 0;
	int c;

	parse(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGUSR1, &sa, NULL);
	t->ktid = (pid_t)syscall(SYS_gettid);
	t->rng = opt.seed * 2654435761u + 1;
	printf("replug: %d cycles, seed %u, fail_slab %d %%, fail_page_alloc %d %%\n",
	       opt.cycles, opt.seed, opt.failslab, opt.failpage);
	if (faults() && !faults_on(opt.failslab, opt.failpage)) {
		printf("replug: FAIL: cannot set up fault injection: %s\n", strerror(errno));
		return 1;
	}
	if (faults()) {
		slab_base = opt.failslab ? fault_injected(FAILSLAB_DIR) : 0;
		page_base = opt.failpage ? fault_injected(FAILPAGE_DIR) : 0;
		spawn(T_MARKER, kworker_marker, false);
	}
	spawn(T_WATCHDOG, watchdog, false);
	for (c = 0; c < opt.cycles && !atomic_load(&failures); c++) {
		if (!cycle_run(t, c))
			break;
		if (now_ms() > report) {
			report += 10000;
			printf("replug: cycle %d/%d in %ld s: host units acked %ld read %ld, board "
			       "units acked %ld read %ld, ENOLINK %ld ECONNRESET %ld\n", c + 1,
			       opt.cycles, (now_ms() - start) / 1000,
			       atomic_load(&cnt.host_acked), atomic_load(&cnt.host_got),
			       atomic_load(&cnt.board_acked), atomic_load(&cnt.board_got),
			       atomic_load(&cnt.enolink), atomic_load(&cnt.econnreset));
		}
	}
	if (unit_n >= 0 && host_wfd >= 0) {
		drain_wait();
		host_stop();
	}
	atomic_store(&stop, 1);
	join(T_WATCHDOG);
	if (faults())
		faults_off(slab_base, page_base);
	if (host_wfd >= 0) {
		verdict(c);
		linger_check();
	}
	if (atomic_load(&failures) || c < opt.cycles) {
		printf("replug: FAIL: %d failures, %d of %d cycles\n", atomic_load(&failures), c,
		       opt.cycles);
		return 1;
	}
	printf("replug: PASS: %d cycles in %ld s\n", c, (now_ms() - start) / 1000);
	return 0;
}
