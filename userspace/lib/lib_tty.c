// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_tty.c - libphyllo over a tty (or any stream fd): the protocol core
 * runs in the library, the glue the kernel module is on a tty. The engine
 * (lib_engine.c) runs the core and keeps its contract; the port module
 * (lib_port.c) locks the tty and sets it raw.
 *
 * Back-pressure is the core's one rule: a reliable unit that finds the
 * application's queue full is refused and the link held until the queue
 * has room for a whole window again; the peer keeps the unit. The core's
 * next deadline is a timerfd in the handle's epoll set, so an application
 * that polls phyllo_fd() runs the timers on time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include "lib.h"

static void t_hangup(struct phyllo *h)
{
	h->hungup = true;
	h->eng.txlen = 0;
	phyllo_lib_io_events(h, 0);
}

static int t_flush(struct phyllo *h)
{
	/* EIO: the tty hung up; EPIPE: the socket */
	if (!h->hungup && phyllo_engine_flush(&h->eng))
		t_hangup(h);
	/* writable matters only while bytes wait for the tty */
	if (!h->hungup)
		phyllo_lib_io_events(h, EPOLLIN | (h->eng.txlen ? EPOLLOUT : 0));
	return 0;
}

void phyllo_lib_stats_fold(uint64_t *total, uint32_t *seen, const uint32_t *now, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		total[i] += (uint32_t)(now[i] - seen[i]);
		seen[i] = now[i];
	}
}

/* At every service and send, not only when asked: a counter then grows by
 * far less than 2^32 between two folds (a service reads 64 KiB at most). */
static void t_fold(struct phyllo *h)
{
	uint32_t now[PHYLLO_STATS_FIELDS];

	_Static_assert(sizeof(now) == sizeof(h->eng.st.stats), "the core's counters are u32");
	memcpy(now, &h->eng.st.stats, sizeof(now));
	phyllo_lib_stats_fold(h->stats_total, h->stats_seen, now, PHYLLO_STATS_FIELDS);
}

static void t_events(void *ctx, uint8_t ev)
{
	struct phyllo *h = ctx;

	if (ev & PHYLLO_EV_RESET) {
		h->reset_pending = true;
		h->resets++;
	}
}

/* A unit whose type is one of the layers this preset lacks: a far end on
 * a fuller preset (a standard board's SYN, read on minimal, is a unit of
 * type 0x22). Counted as the core counts an unexpected type, not given to
 * the application. */
static bool t_other_preset(const struct phyllo *h, uint8_t type)
{
	return (h->preset == PHYLLO_PRESET_MINIMAL && type == PHYLLO_TYPE_VALIDATED) ||
	       (h->preset < PHYLLO_PRESET_STANDARD && type == PHYLLO_TYPE_RELIABLE);
}

/* A unit from the core: queue it, or refuse it and hold the link. */
static void t_unit(void *ctx, const struct phyllo_unit *u)
{
	struct phyllo *h = ctx;
	uint8_t unit[LIB_UNIT_MAX];

	if (t_other_preset(h, u->type)) {
		h->eng.st.stats.rx_type++;
		return;
	}

	unit[0] = u->type;
	memcpy(unit + 1, u->data, u->len);
	if (!phyllo_lib_ingest(h, unit, (uint16_t)(u->len + 1)))
		return;
	if (phyllo_stack_refuse(&h->eng.st) != 0) {
		h->q_drops++;	/* unreliable: nobody keeps it */
		return;
	}
	if (!h->held) {
		h->held = true;
		phyllo_arq_hold(&h->eng.st.arq, true);
	}
}

static const struct phyllo_engine_ops t_ops = { .unit = t_unit, .events = t_events };

static void t_read(struct phyllo *h, uint32_t now)
{
	int rounds;

	for (rounds = 0; rounds < 16 && !h->hungup; rounds++) {
		long r = phyllo_engine_read(&h->eng, now);

		if (r == 0)
			break;
		if (r < 0)
			t_hangup(h);	/* EOF, or EIO: the other end hung up */
	}
}

static void t_arm(struct phyllo *h, uint32_t ms)
{
	struct itimerspec its = { 0 };
	uint64_t expired;

	if (read(h->timer_fd, &expired, sizeof(expired)) < 0) {
		/* nothing expired: EAGAIN */
	}
	its.it_value.tv_sec = ms / 1000;
	its.it_value.tv_nsec = (long)(ms % 1000) * 1000000L + 1;
	timerfd_settime(h->timer_fd, 0, &its, NULL);
}

static int t_service(struct phyllo *h)
{
	uint32_t now = (uint32_t)phyllo_lib_now_ms(), next = 1000;
	int n;

	t_read(h, now);
	if (h->held && h->q_cap - h->q_n >= PHYLLO_ARQ_WINDOW_MAX) {
		h->held = false;
		phyllo_arq_hold(&h->eng.st.arq, false);
	}
	if (!h->hungup && (n = phyllo_engine_poll(&h->eng, now)) >= 0)
		next = (uint32_t)n;
	t_flush(h);
	t_arm(h, next);
	t_fold(h);
	phyllo_lib_report(h);
	return 0;
}

static int t_send(struct phyllo *h, const uint8_t *unit, uint16_t len, bool reliable)
{
	uint32_t now = (uint32_t)phyllo_lib_now_ms();
	int ret;

	if (!phyllo_engine_room(&h->eng, PHYLLO_WIRE_MAX))
		t_flush(h);
	if (h->hungup)
		return -EPIPE;
	ret = phyllo_engine_send(&h->eng, unit[0], unit + 1, (uint16_t)(len - 1), reliable, now);
	if (ret)
		return -phyllo_lib_errno(ret);
	t_fold(h);
	phyllo_engine_events(&h->eng);
	t_flush(h);
	return 0;
}

static int t_filter(struct phyllo *h, bool everything)
{
	(void)h;
	(void)everything;
	return 0;
}

static int t_status(struct phyllo *h, struct phyllo_status *s)
{
	bool arq = h->preset == PHYLLO_PRESET_STANDARD;

	s->state = h->hungup ? PHYLLO_STATE_HUNGUP
		 : !arq || h->eng.st.arq.state == PHYLLO_ARQ_OPEN ? PHYLLO_STATE_UP
		 : PHYLLO_STATE_CONNECTING;
	s->session = h->eng.st.stats.sessions;
	s->resets = h->resets;
	s->preset = h->preset;
	s->mtu = phyllo_stack_mtu(h->preset);
	s->tx_in_flight = arq ? h->eng.st.arq.tx_count : 0;
	if (arq && h->eng.st.arq.state == PHYLLO_ARQ_OPEN)
		s->window = phyllo_arq_window(&h->eng.st.arq);
	return 0;
}

static int t_stats(struct phyllo *h, uint32_t *v, unsigned int n)
{
	uint32_t glue[LIB_GLUE_STATS] = { 0, (uint32_t)h->q_drops, (uint32_t)h->filtered, 0, 0, 0 };

	(void)n;
	memcpy(v, &h->eng.st.stats, sizeof(h->eng.st.stats));
	memcpy(v + PHYLLO_STATS_FIELDS, glue, sizeof(glue));
	return 0;
}

static int t_stats64(struct phyllo *h, uint64_t *v, unsigned int n)
{
	uint64_t glue[LIB_GLUE_STATS] = { 0, h->q_drops, h->filtered, 0, 0, 0 };

	(void)n;
	t_fold(h);
	memcpy(v, h->stats_total, sizeof(h->stats_total));
	/* gauges: what they are now, not a sum */
	v[offsetof(struct phyllo_stats, rtt_ms) / sizeof(uint32_t)] = h->eng.st.stats.rtt_ms;
	v[offsetof(struct phyllo_stats, rto_ms) / sizeof(uint32_t)] = h->eng.st.stats.rto_ms;
	memcpy(v + PHYLLO_STATS_FIELDS, glue, sizeof(glue));
	return 0;
}

/* Units not yet acknowledged, and one more while bytes wait to be written. */
static int t_in_flight(struct phyllo *h)
{
	if (h->hungup)
		return 0;
	return (h->preset == PHYLLO_PRESET_STANDARD ? h->eng.st.arq.tx_count : 0) + (h->eng.txlen ? 1 : 0);
}

static void t_taken(struct phyllo *h)
{
	(void)h;	/* the hold is released by the next service */
}

/* The acknowledgement owed for the last unit received goes out before the
 * port closes: else the far end keeps that unit in flight and counts it
 * lost to the next session. */
static void t_close(struct phyllo *h)
{
	int64_t deadline = phyllo_lib_now_ms() + 100;

	while (h->preset == PHYLLO_PRESET_STANDARD && !h->hungup && h->eng.st.arq.ack_pending &&
	       phyllo_lib_now_ms() < deadline) {
		t_service(h);
		if (h->eng.st.arq.ack_pending || h->eng.txlen)
			phyllo_lib_wait(h, phyllo_lib_now_ms() + 5);
	}
	phyllo_capture_close(h->eng.cap);
	h->eng.cap = NULL;
	phyllo_lib_report_close(h);
}

const struct lib_transport phyllo_lib_tty_transport = {
	.kind = PHYLLO_TRANSPORT_TTY,
	.service = t_service,
	.send = t_send,
	.filter = t_filter,
	.status = t_status,
	.stats = t_stats,
	.stats64 = t_stats64,
	.in_flight = t_in_flight,
	.taken = t_taken,
	.close = t_close,
};

/*
 * The tty's lock (another program's lock file refuses it too: such a
 * program may not flock the port, and would read what the board sends),
 * raw mode at baud. Returns 1 when this open may have reset a board (HUPCL
 * was on and the port is no pty), 0, or -errno.
 */
static int t_tty_setup(int fd, unsigned long baud)
{
	int ret = phyllo_port_lock(fd, NULL, 0, NULL);

	if (ret)
		return ret;
	ret = phyllo_port_raw(fd, baud);
	return ret > 0 ? !phyllo_port_is_pty(fd) : ret;
}

/* This open reset the board: without a handshake to wait for (minimal and
 * reduced), let its bootloader hand over before the first unit, drop what
 * the bootloader said, and listen to the board's first frames for the last
 * part of the wait (a board on the standard preset says SYN as it starts:
 * counted as rx_type, so the command can tell). The standard preset waits
 * for the board's own SYN instead, however long the bootloader takes. */
static void t_boot_wait(struct phyllo *h)
{
	long quiet = PHYLLO_LIB_BOOT_MS - PHYLLO_LIB_BOOT_LISTEN_MS;
	struct timespec ts = { quiet / 1000, (quiet % 1000) * 1000000L };
	int64_t end;

	if (h->preset == PHYLLO_PRESET_STANDARD)
		return;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	tcflush(h->io_fd, TCIFLUSH);
	end = phyllo_lib_now_ms() + PHYLLO_LIB_BOOT_LISTEN_MS;
	while (!h->hungup && phyllo_lib_now_ms() < end) {
		t_read(h, (uint32_t)phyllo_lib_now_ms());
		phyllo_lib_wait(h, end);
	}
}

int phyllo_lib_tty_init(struct phyllo *h, const struct phyllo_options *o, bool is_tty)
{
	static const struct phyllo_arq_config def = PHYLLO_ARQ_CONFIG_DEFAULT;
	struct phyllo_arq_config cfg = def;
	struct epoll_event ev = { .events = EPOLLIN };
	int ret;

	unsigned long baud = o->baud ? o->baud : PHYLLO_LIB_BAUD_DEFAULT;
	int reset = 0;

	if (o->preset < PHYLLO_LIB_MINIMAL || o->preset > PHYLLO_LIB_STANDARD ||
	    o->window > PHYLLO_ARQ_WINDOW_MAX || !phyllo_baud_valid(baud))
		return -EINVAL;
	if (is_tty && (reset = t_tty_setup(h->io_fd, baud)) < 0)
		return reset;
	h->t = &phyllo_lib_tty_transport;
	h->preset = (uint8_t)o->preset;
	if (o->window)
		cfg.window = (uint8_t)o->window;
	cfg.handshake = !(o->flags & PHYLLO_OPEN_NO_HANDSHAKE);
	/* a pty, a socket: no line time */
	cfg.line_ms = is_tty && !phyllo_port_is_pty(h->io_fd) ? PHYLLO_LINE_MS(baud) : 0;
	h->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	ev.data.fd = h->timer_fd;
	if (h->timer_fd < 0 || epoll_ctl(h->ep_fd, EPOLL_CTL_ADD, h->timer_fd, &ev))
		return -errno;
	ret = phyllo_engine_init(&h->eng, h->preset, &cfg, &t_ops, h, NULL,
				 (uint32_t)phyllo_lib_now_ms());
	if (ret)
		return -phyllo_lib_errno(ret);
	h->eng.rfd = h->eng.wfd = h->io_fd;
	ret = phyllo_capture_open_env(&h->eng.cap, "libphyllo", h->io_fd, NULL, h->preset);
	if (ret)
		return ret;
	if (is_tty)
		phyllo_lib_report_open(h);
	if (reset)
		t_boot_wait(h);
	phyllo_engine_events(&h->eng);
	return t_service(h);
}
