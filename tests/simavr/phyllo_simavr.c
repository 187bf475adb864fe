// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo_simavr.c - runs an AVR firmware on libsimavr with its UART wired
 * to the outside at a real line rate.
 *
 * Modes (one per run):
 *   --console      UART output to stdout, until the firmware stops (cli;
 *                  sleep) or --seconds of simulated time pass. For the core
 *                  tests built for the AVR.
 *   --pty          a pseudo-terminal: its path goes to stdout as
 *                  "pty: /dev/pts/N" (and to --link PATH as a symlink). The
 *                  simulation is held in step with real time (never ahead);
 *                  it ends on SIGINT/SIGTERM or after --seconds.
 *   --bench        an echo client built from the same protocol core runs
 *                  inside simulated time; prints one JSON line.
 * --noise-ms N first sends N ms (simulated) of random bytes at line rate,
 * then waits 100 ms, then starts the mode.
 *
 * Timing model. simavr paces the UART with its own byte time, which counts a
 * parity bit that 8N1 does not have; the harness sets it to exactly ten bit
 * times at the nominal --baud, both directions. Received bytes enter the
 * simulated UART one byte time apart; a transmitted byte reaches the client
 * one byte time after the firmware wrote it (when its stop bit is out).
 *
 * Busy cycles: every simulated cycle not spent in the SLEEP instruction
 * (the firmware sleeps whenever it waits), interrupt handlers included.
 * The reset vector is watched: a firmware that jumps back to 0 is reported.
 * So is the receive latency: simavr queues 64 received bytes where a real
 * USART holds two, so a byte arriving while three are unread counts as an
 * overrun a board would have suffered. Either makes the run fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <sim_avr.h>
#include <sim_elf.h>
#include <sim_io.h>
#include <sim_irq.h>
#include <sim_cycle_timers.h>
#include <avr_uart.h>

#include "phyllo_stack.h"
#include "util.h"
#include "phyllo_pubsub.h"
#include "phyllo_msgpack.h"

#define QSIZE (1u << 16)   /* byte queues between the UART and the world */

struct byteq {
	uint8_t b[QSIZE];
	uint64_t due[QSIZE];   /* arrival cycle (transmit queue only) */
	uint32_t head, tail;
};

enum hs_mode { MODE_CONSOLE, MODE_PTY, MODE_BENCH };

/* What the client sends: an echo tuple, or requests to the other
 * endpoints, whose replies it checks (blink: a blink then a ping, and the
 * LED must match when the ping's reply comes back). */
enum client_kind { KIND_ECHO, KIND_PING, KIND_STATS, KIND_BLINK };

struct client {
	struct phyllo_stack st;
	uint8_t msg[256];
	uint16_t len;
	uint8_t kind;          /* enum client_kind */
	uint32_t pings;        /* ping replies expected so far */
	uint8_t preset;
	uint32_t window, count, warmup, sent, got, bad;
	bool ack_first;        /* a pure ACK right before every request */
	uint64_t t0, t1, busy0, busy1, work0, work1, last_progress;
	bool started, done;
};

struct hs {
	avr_t *avr;
	avr_uart_t *uart;
	avr_irq_t *uart_in;
	enum hs_mode mode;
	uint32_t baud;
	uint32_t cpb;            /* cycles per byte at the nominal baud */
	bool xoff;
	struct byteq rxq;        /* towards the AVR */
	struct byteq txq;        /* from the AVR */
	uint64_t next_rx;        /* earliest cycle the next byte may enter */
	uint64_t slept;          /* cycles spent sleeping */
	uint64_t noise_end;      /* random bytes until this cycle */
	uint64_t start;          /* cycle the mode starts (after noise) */
	uint64_t limit;          /* stop at this cycle (0: never) */
	uint64_t tick;           /* service period, cycles */
	uint64_t rng;
	uint64_t noise_bytes, rx_bytes, tx_bytes, resets;
	uint64_t overruns;       /* bytes a real USART would have lost */
	uint16_t sp_min;         /* lowest stack pointer seen after boot */
	uint16_t ring_full_addr; /* the firmware's rx_ring_full (0: not found) */
	uint16_t led_addr;       /* data address of the LED's PORT register */
	uint8_t led_mask;
	uint64_t work, work_mark;  /* busy cycles inside the GPIOR1 bracket */
	bool working;
	int pty, pty_slave;
	struct timespec wall0;
	uint64_t cycle0;
	bool pty_open;           /* path printed, peer may talk */
	struct client cl;
	const char *link;
	const char *fw_name;
	int stop;
};

static struct hs hs;
static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	(void)sig;
	got_signal = 1;
}

static uint32_t q_len(const struct byteq *q)
{
	return q->head - q->tail;
}

static void q_put(struct byteq *q, uint8_t b, uint64_t due)
{
	if (q_len(q) == QSIZE)
		return;       /* never happens in practice; the peer would see loss */
	q->b[q->head % QSIZE] = b;
	q->due[q->head % QSIZE] = due;
	q->head++;
}

static uint8_t rng_byte(void)
{
	hs.rng ^= hs.rng << 13;
	hs.rng ^= hs.rng >> 7;
	hs.rng ^= hs.rng << 17;
	return (uint8_t)(hs.rng >> 24);
}

static uint64_t ms_cycles(uint64_t ms)
{
	return ms * (hs.avr->frequency / 1000);
}

static uint32_t sim_ms(void)
{
	return (uint32_t)(hs.avr->cycle / (hs.avr->frequency / 1000));
}

/* ---- UART plumbing ---------------------------------------------------- */

static avr_cycle_count_t rx_inject(avr_t *avr, avr_cycle_count_t when, void *p);

static void rx_kick(void)
{
	avr_t *avr = hs.avr;
	uint64_t at = hs.next_rx > avr->cycle ? hs.next_rx : avr->cycle + 1;

	if (avr_cycle_timer_status(avr, rx_inject, NULL))
		return;
	avr_cycle_timer_register(avr, at - avr->cycle, rx_inject, NULL);
}

static avr_cycle_count_t rx_inject(avr_t *avr, avr_cycle_count_t when, void *p)
{
	uint8_t b;

	(void)p;
	if (hs.xoff)
		return when + hs.cpb / 4;
	if (avr->cycle < hs.noise_end) {
		b = rng_byte();
		hs.noise_bytes++;
	} else if (q_len(&hs.rxq)) {
		b = hs.rxq.b[hs.rxq.tail++ % QSIZE];
		hs.rx_bytes++;
	} else {
		return 0;
	}
	/* simavr buffers 64 received bytes; the USART holds two and loses the
	 * next (DOR) if the firmware has not read the oldest by then. */
	if (hs.uart && ((hs.uart->input.write - hs.uart->input.read) & 63) >= 3)
		hs.overruns++;
	avr_raise_irq(hs.uart_in, b);
	hs.next_rx = when + hs.cpb;
	return hs.next_rx;
}

static void on_xon(struct avr_irq_t *irq, uint32_t value, void *p)
{
	(void)irq; (void)value; (void)p;
	hs.xoff = false;
}

static void on_xoff(struct avr_irq_t *irq, uint32_t value, void *p)
{
	(void)irq; (void)p;
	hs.xoff = value != 0;
}

static avr_cycle_count_t tx_deliver(avr_t *avr, avr_cycle_count_t when, void *p);

static void on_output(struct avr_irq_t *irq, uint32_t value, void *p)
{
	(void)irq; (void)p;
	hs.tx_bytes++;
	if (hs.mode == MODE_CONSOLE) {
		putchar((int)(value & 0xff));
		if (value == '\n')
			fflush(stdout);
		return;
	}
	q_put(&hs.txq, (uint8_t)value, hs.avr->cycle + hs.cpb);
	if (hs.mode == MODE_BENCH && !avr_cycle_timer_status(hs.avr, tx_deliver, NULL))
		avr_cycle_timer_register(hs.avr, hs.cpb, tx_deliver, NULL);
}

/* simavr's idea of a byte time includes a parity bit; use ten bit times. */
static void uart_fix_timing(void)
{
	if (hs.uart && hs.uart->cycles_per_byte != hs.cpb)
		hs.uart->cycles_per_byte = hs.cpb;
}

static avr_uart_t *uart_find(avr_t *avr, char name)
{
	avr_io_t *io;

	for (io = avr->io_port; io; io = io->next)
		if (io->kind && !strcmp(io->kind, "uart") && ((avr_uart_t *)io)->name == name)
			return (avr_uart_t *)io;
	return NULL;
}

static void hs_sleep(avr_t *avr, avr_cycle_count_t how_long)
{
	(void)avr;
	hs.slept += how_long + 1;
}

static uint64_t busy_cycles(void)
{
	return hs.avr->cycle - hs.slept;
}

/* The firmware brackets its protocol work with GPIOR1 = 1 ... GPIOR1 = 0
 * (data address 0x4a on the ATmega328P and the ATmega32U4). */
#define GPIOR1_ADDR 0x4a
static void on_gpior1(struct avr_t *avr, avr_io_addr_t addr, uint8_t v, void *p)
{
	(void)p;
	avr->data[addr] = v;
	if (v && !hs.working) {
		hs.work_mark = busy_cycles();
		hs.working = true;
	} else if (!v && hs.working) {
		hs.work += busy_cycles() - hs.work_mark;
		hs.working = false;
	}
}

/* ---- the echo client of --bench ---------------------------------------- */

static void client_write(void *ctx, const uint8_t *buf, uint16_t n)
{
	(void)ctx;
	while (n--)
		q_put(&hs.rxq, *buf++, 0);
	rx_kick();
}

/* A request document on topic: pub-sub header, MessagePack document
 * header, body. Returns its length. */
static int request_build(uint8_t *p, uint16_t cap, const char *topic, const uint8_t *body,
			 uint16_t n)
{
	int h = phyllo_pubsub_header(p, cap, PHYLLO_TYPE_DOCUMENT, (const uint8_t *)topic,
				     (uint8_t)strlen(topic));

	h += phyllo_doc_header(p + h, PHYLLO_FORMAT_MSGPACK, PHYLLO_SCHEMA_NONE);
	memcpy(p + h, body, n);
	return h + n;
}

static int blink_build(uint8_t *p, bool on)
{
	const uint8_t b = on ? 0xc3 : 0xc2;

	return request_build(p, 16, "blink", &b, 1);
}

/* A pub-sub message on the topic a reply of this client would carry. */
static bool reply_expected(const struct client *c, const struct phyllo_unit *u)
{
	const char *topic = c->kind == KIND_STATS ? "stats" : "ping";
	struct phyllo_pubsub m;

	if (u->type != PHYLLO_TYPE_PUBSUB || phyllo_pubsub_parse(u->data, u->len, &m) < 0)
		return true;    /* malformed: let reply_ok() count it */
	return m.topic_len == strlen(topic) && !memcmp(m.topic, topic, m.topic_len);
}

/* Check a reply of the ping or stats endpoint. */
static bool reply_ok(struct client *c, const struct phyllo_unit *u)
{
	const char *topic = c->kind == KIND_STATS ? "stats" : "ping";
	struct phyllo_mp_reader r;
	struct phyllo_mp_obj o;
	struct phyllo_pubsub m;
	struct phyllo_doc d;
	uint32_t i;

	if (u->type != PHYLLO_TYPE_PUBSUB || phyllo_pubsub_parse(u->data, u->len, &m) < 0 ||
	    m.topic_len != strlen(topic) || memcmp(m.topic, topic, m.topic_len) ||
	    phyllo_doc_parse(m.payload, m.len, &d) < 0 || d.format != PHYLLO_FORMAT_MSGPACK)
		return false;
	phyllo_mp_reader_init(&r, d.body, d.len);
	if (phyllo_mp_read(&r, &o) < 0)
		return false;
	if (c->kind != KIND_STATS) {
		if (o.kind != PHYLLO_MP_UINT || o.u != c->pings++)
			return false;
		if (c->kind == KIND_BLINK) {
			bool on = (hs.avr->data[hs.led_addr] & hs.led_mask) != 0;

			return on == ((c->got & 1) == 0);
		}
		return true;
	}
	if (o.kind != PHYLLO_MP_ARRAY || o.len != PHYLLO_STATS_FIELDS)
		return false;
	for (i = 0; i < PHYLLO_STATS_FIELDS; i++)
		if (phyllo_mp_read(&r, &o) < 0 || o.kind != PHYLLO_MP_UINT)
			return false;
	return r.pos == r.len;
}

/*
 * A pure ACK (NOS|ACK, a layer-internal type, no payload) of what the
 * client has received, written straight to the line: --ack-first sends one
 * right in front of every request, as a peer whose ACK policy sends them
 * at once does, so a short frame and a full-size one arrive back to back
 * while the board is writing a reply.
 */
static void client_pure_ack(struct client *c)
{
	uint8_t f[PHYLLO_DATAGRAM_HDR + PHYLLO_VALIDATED_HDR + PHYLLO_RELIABLE_HDR];
	uint8_t wire[sizeof(f) + 3] = { PHYLLO_DELIMITER };
	uint8_t *rel = f + PHYLLO_DATAGRAM_HDR + PHYLLO_VALIDATED_HDR;
	int n;

	rel[0] = 0;
	rel[1] = c->st.arq.rx_next;
	rel[2] = PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK;
	rel[3] = PHYLLO_TYPE_CONTROL;
	phyllo_datagram_header(f, PHYLLO_TYPE_VALIDATED, sizeof(f) - PHYLLO_DATAGRAM_HDR);
	phyllo_validated_header(f + PHYLLO_DATAGRAM_HDR, PHYLLO_TYPE_RELIABLE,
				PHYLLO_RELIABLE_HDR, NULL, 0);
	n = phyllo_cobs_encode(f, sizeof(f), wire + 1, sizeof(f) + 1);
	wire[n + 1] = PHYLLO_DELIMITER;
	client_write(NULL, wire, (uint16_t)(n + 2));
}

static void client_pump(struct client *c)
{
	uint32_t total = c->warmup + c->count;

	while (c->sent < total && c->sent - c->got < c->window &&
	       phyllo_stack_room(&c->st) >= (c->kind == KIND_BLINK ? 2 : 1)) {
		if (c->kind == KIND_BLINK) {
			uint8_t blink[16];
			int h = blink_build(blink, (c->sent & 1) == 0);

			if (phyllo_stack_send(&c->st, PHYLLO_TYPE_PUBSUB, blink, (uint16_t)h, true,
					      sim_ms()) < 0)
				break;
		}
		if (c->ack_first)
			client_pure_ack(c);
		if (phyllo_stack_send(&c->st, PHYLLO_TYPE_PUBSUB, c->msg, c->len, true,
				      sim_ms()) < 0)
			break;
		c->sent++;
	}
}

static void client_unit(struct client *c, const struct phyllo_unit *u)
{
	if (c->kind != KIND_ECHO && !reply_expected(c, u))
		return;     /* the device's own publications (e.g. Blink's uptime) */
	if (c->kind == KIND_ECHO ? u->type != PHYLLO_TYPE_PUBSUB || u->len != c->len ||
				    memcmp(u->data, c->msg, c->len) : !reply_ok(c, u)) {
		c->bad++;
		return;
	}
	c->got++;
	c->last_progress = hs.avr->cycle;
	if (c->got == c->warmup) {
		c->t0 = hs.avr->cycle;
		c->busy0 = busy_cycles();
		c->work0 = hs.work;
	}
	if (c->got == c->warmup + c->count) {
		c->t1 = hs.avr->cycle;
		c->busy1 = busy_cycles();
		c->work1 = hs.work;
		c->done = true;
		return;
	}
	client_pump(c);
}

static avr_cycle_count_t tx_deliver(avr_t *avr, avr_cycle_count_t when, void *p)
{
	struct client *c = &hs.cl;

	(void)p;
	while (q_len(&hs.txq) && hs.txq.due[hs.txq.tail % QSIZE] <= avr->cycle) {
		uint8_t b = hs.txq.b[hs.txq.tail++ % QSIZE];
		uint16_t off = 0;

		while (off < 1 && c->started) {
			struct phyllo_unit u;
			bool got;

			off += phyllo_stack_receive(&c->st, &b, 1, sim_ms(), &u, &got);
			if (got)
				client_unit(c, &u);
		}
	}
	if (q_len(&hs.txq)) {
		uint64_t due = hs.txq.due[hs.txq.tail % QSIZE];

		return due > when ? due : when + 1;
	}
	return 0;
}

static int tuple_build(struct client *c, const char *name)
{
	struct phyllo_mp_writer w;
	uint8_t *p = c->msg;
	int h, i, last;

	if (!strcmp(name, "ping") || !strcmp(name, "stats") || !strcmp(name, "blink")) {
		static const uint8_t nil = 0xc0;

		c->kind = name[0] == 's' ? KIND_STATS : name[0] == 'b' ? KIND_BLINK : KIND_PING;
		c->len = (uint16_t)request_build(p, sizeof(c->msg), c->kind == KIND_STATS ?
						 "stats" : "ping", &nil, 1);
		return 0;
	}
	h = phyllo_pubsub_header(p, sizeof(c->msg), PHYLLO_TYPE_DOCUMENT,
				 (const uint8_t *)"echo", 4);
	h += phyllo_doc_header(p + h, PHYLLO_FORMAT_MSGPACK, PHYLLO_SCHEMA_ECHO_TUPLE);
	phyllo_mp_writer_init(&w, p + h, (uint16_t)(sizeof(c->msg) - h));
	if (!strcmp(name, "small")) {
		phyllo_mp_write_array(&w, 4);
		phyllo_mp_write_str(&w, (const uint8_t *)"hello", 5);
		phyllo_mp_write_uint(&w, 123);
		phyllo_mp_write_uint(&w, 456);
		phyllo_mp_write_uint(&w, 789);
	} else {
		static const uint8_t bin[] = { 0, 1, 2, 3, 4 };

		last = !strcmp(name, "large") ? 25 : !strcmp(name, "very-large") ? 166 : -1;
		if (last < 0)
			return -1;
		phyllo_mp_write_array(&w, 5 + last + 1);
		phyllo_mp_write_str(&w, (const uint8_t *)"hello", 5);
		phyllo_mp_write_bool(&w, true);
		phyllo_mp_write_nil(&w);
		phyllo_mp_write_f64_bits(&w, 0x3FC0000000000000ULL);   /* 0.125 */
		phyllo_mp_write_bin(&w, bin, sizeof(bin));
		for (i = 0; i <= last; i++)
			phyllo_mp_write_uint(&w, (uint64_t)i);
	}
	if (w.err)
		return -1;
	c->len = (uint16_t)(h + w.len);
	return 0;
}

static void client_start(struct client *c)
{
	static const struct phyllo_out out = { .write = client_write };
	struct phyllo_arq_config cfg = PHYLLO_ARQ_CONFIG_DEFAULT;

	uint32_t units = c->window * (c->kind == KIND_BLINK ? 2 : 1);  /* blink: 2 per step */

	cfg.window = (uint8_t)(units > PHYLLO_ARQ_WINDOW_MAX ? PHYLLO_ARQ_WINDOW_MAX : units);
	phyllo_stack_init(&c->st, c->preset, &cfg, &out, 0x5a, sim_ms());
	c->started = true;
	c->last_progress = hs.avr->cycle;
	client_pump(c);
}

static void client_report(const struct client *c)
{
	double secs = (double)(c->t1 - c->t0) / hs.avr->frequency;
	double rate = c->done && secs > 0 ? c->count / secs : 0;
	static const char *const presets[] = { "minimal", "reduced", "standard" };

	printf("{\"firmware\":\"%s\",\"preset\":\"%s\",\"payload_bytes\":%u,\"baud\":%u,"
	       "\"window\":%u,\"count\":%u,\"echoed\":%u,\"bad\":%u,\"ok\":%s,"
	       "\"sim_seconds\":%.6f,\"echoes_per_s\":%.1f,\"goodput_bytes_per_s\":%.0f,"
	       "\"busy_cycles_per_echo\":%.0f,\"stack_cycles_per_echo\":%.0f,"
	       "\"cycles_per_byte\":%u,"
	       "\"tx_retransmits\":%u,\"noise_bytes\":%" PRIu64 ",\"resets\":%" PRIu64 ","
	       "\"sp_min\":%u,\"client_rx_naks\":%u,\"client_rx_dup\":%u,\"client_tx_timeouts\":%u,"
	       "\"client_rto_ms\":%u,\"ring_full\":%d,\"overruns\":%" PRIu64 "}\n",
	       hs.fw_name, presets[c->preset], c->len, hs.baud, c->window, c->count,
	       c->done ? c->count : (c->got > c->warmup ? c->got - c->warmup : 0), c->bad,
	       c->done && !c->bad && !hs.resets && !hs.overruns ? "true" : "false", secs, rate, rate * c->len,
	       c->done ? (double)(c->busy1 - c->busy0) / c->count : 0.0,
	       c->done ? (double)(c->work1 - c->work0) / c->count : 0.0, hs.cpb,
	       c->st.stats.tx_retransmits, hs.noise_bytes, hs.resets, hs.sp_min,
	       c->st.stats.rx_naks, c->st.stats.rx_dup, c->st.stats.tx_timeouts, c->st.stats.rto_ms,
	       hs.ring_full_addr ? hs.avr->data[hs.ring_full_addr] : -1, hs.overruns);
	fflush(stdout);
}

/* ---- the pty of --pty -------------------------------------------------- */

static int pty_open(void)
{
	struct termios t;
	const char *path;
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);

	if (m < 0 || grantpt(m) || unlockpt(m) || !(path = ptsname(m)))
		return -1;
	/* Keep a slave open so the master never sees EIO between peers. */
	hs.pty_slave = open(path, O_RDWR | O_NOCTTY);
	if (hs.pty_slave < 0 || tcgetattr(hs.pty_slave, &t))
		return -1;
	cfmakeraw(&t);
	tcsetattr(hs.pty_slave, TCSANOW, &t);
	hs.pty = m;
	if (hs.link) {
		unlink(hs.link);
		if (symlink(path, hs.link))
			perror("symlink");
	}
	printf("pty: %s\n", path);
	fflush(stdout);
	return 0;
}

static void pty_service(void)
{
	uint8_t buf[512];
	ssize_t n;

	/* Leave room in the queue, and read no faster than a few ms of line. */
	if (q_len(&hs.rxq) < 64) {
		n = read(hs.pty, buf, sizeof(buf));
		for (ssize_t i = 0; i < n; i++)
			q_put(&hs.rxq, buf[i], 0);
		if (n > 0)
			rx_kick();
	}
	while (q_len(&hs.txq)) {
		uint32_t k = 0;

		while (k < sizeof(buf) && q_len(&hs.txq))
			buf[k++] = hs.txq.b[hs.txq.tail++ % QSIZE];
		n = write(hs.pty, buf, k);
		if (n < (ssize_t)k) {
			/* The peer is not reading: keep the rest, in order. */
			hs.txq.tail -= k - (n > 0 ? (uint32_t)n : 0);
			break;
		}
	}
}

static void realtime_sync(void)
{
	struct timespec now;
	int64_t wall_us, sim_us;

	clock_gettime(CLOCK_MONOTONIC, &now);
	wall_us = (now.tv_sec - hs.wall0.tv_sec) * 1000000LL +
		  (now.tv_nsec - hs.wall0.tv_nsec) / 1000;
	sim_us = (int64_t)((hs.avr->cycle - hs.cycle0) / (hs.avr->frequency / 1000000));
	if (sim_us > wall_us + 500)
		usleep((useconds_t)(sim_us - wall_us));
}

/* ---- the service tick -------------------------------------------------- */

static avr_cycle_count_t service(avr_t *avr, avr_cycle_count_t when, void *p)
{
	(void)p;
	uart_fix_timing();
	if (hs.limit && avr->cycle >= hs.limit)
		hs.stop = 1;
	if (got_signal)
		hs.stop = 1;
	if (avr->cycle < hs.start)
		return when + hs.tick;
	if (hs.mode == MODE_PTY) {
		if (!hs.pty_open) {
			if (pty_open()) {
				perror("pty");
				hs.stop = 2;
			}
			hs.pty_open = true;
			clock_gettime(CLOCK_MONOTONIC, &hs.wall0);
			hs.cycle0 = avr->cycle;
		}
		pty_service();
		realtime_sync();
	} else if (hs.mode == MODE_BENCH) {
		struct client *c = &hs.cl;

		if (!c->started)
			client_start(c);
		phyllo_stack_poll(&c->st, sim_ms());
		client_pump(c);
		if (c->done || avr->cycle - c->last_progress > ms_cycles(2000))
			hs.stop = 1;
	}
	return when + hs.tick;
}

/* Busy cycles per flash word address (byte address / 2), for profile.sh. */
static void profile_dump(const uint64_t *prof, const char *path)
{
	FILE *f = fopen(path, "w");
	uint32_t a;

	if (!f)
		return;
	for (a = 0; a < (1u << 16); a++)
		if (prof[a])
			fprintf(f, "%x %" PRIu64 "\n", a * 2, prof[a]);
	fclose(f);
}

/* ---- main -------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr,
		"usage: phyllo-simavr [--mcu atmega328p|atmega32u4] [--freq HZ] [--baud N]\n"
		"         [--noise-ms N] [--seed N] [--seconds S] [--profile FILE]\n"
		"         (--console | --pty [--link PATH] |\n"
		"          --bench --preset minimal|reduced|standard\n"
		"                  --payload small|large|very-large|ping|stats|blink\n"
		"                  [--count N] [--window N] [--ack-first]) FIRMWARE.elf\n");
	exit(2);
}

struct options {
	const char *mcu, *payload, *elf, *prof_path;
	uint32_t freq, noise_ms;
	double seconds;
};

static void options_parse(struct options *o, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--console")) { hs.mode = MODE_CONSOLE; continue; }
		if (!strcmp(a, "--pty")) { hs.mode = MODE_PTY; continue; }
		if (!strcmp(a, "--bench")) { hs.mode = MODE_BENCH; continue; }
		if (!strcmp(a, "--ack-first")) { hs.cl.ack_first = true; continue; }
		if (a[0] != '-') { o->elf = a; continue; }
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--mcu")) o->mcu = v;
		else if (!strcmp(a, "--freq")) o->freq = (uint32_t)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--baud")) hs.baud = (uint32_t)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--noise-ms")) o->noise_ms = (uint32_t)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--seed")) hs.rng ^= strtoull(v, NULL, 0) * 0x2545F4914F6CDD1DULL;
		else if (!strcmp(a, "--seconds")) o->seconds = strtod(v, NULL);
		else if (!strcmp(a, "--link")) hs.link = v;
		else if (!strcmp(a, "--profile")) o->prof_path = v;
		else if (!strcmp(a, "--preset")) hs.cl.preset = util_parse_preset(v);
		else if (!strcmp(a, "--payload")) o->payload = v;
		else if (!strcmp(a, "--count")) hs.cl.count = (uint32_t)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--window")) hs.cl.window = (uint32_t)strtoul(v, NULL, 0);
		else usage();
	}
	if (!o->elf || !hs.baud || !o->freq || !hs.cl.window || !hs.cl.count)
		usage();
	if (hs.mode == MODE_BENCH && tuple_build(&hs.cl, o->payload))
		usage();
}

/* The firmware's count of bytes its receive ring had no room for
 * (uart_ring.h), reported by --bench: a lost frame costs the client a
 * resend, this says where it went. Data addresses are 0x800000 + SRAM. */
static void ring_full_find(const elf_firmware_t *fw)
{
	uint32_t i;

	for (i = 0; i < fw->symbolcount; i++)
		if (!strcmp(fw->symbol[i]->symbol, "rx_ring_full") &&
		    fw->symbol[i]->addr >= 0x800000)
			hs.ring_full_addr = (uint16_t)(fw->symbol[i]->addr - 0x800000);
}

static int avr_setup(const struct options *o)
{
	elf_firmware_t fw;

	memset(&fw, 0, sizeof(fw));
	if (elf_read_firmware(o->elf, &fw)) {
		fprintf(stderr, "phyllo-simavr: cannot read %s\n", o->elf);
		return -1;
	}
	hs.avr = avr_make_mcu_by_name(o->mcu);
	if (!hs.avr) {
		fprintf(stderr, "phyllo-simavr: unknown mcu %s\n", o->mcu);
		return -1;
	}
	avr_init(hs.avr);
	hs.avr->log = LOG_ERROR;
	avr_load_firmware(hs.avr, &fw);
	ring_full_find(&fw);
	hs.avr->frequency = o->freq;
	hs.avr->run = avr_callback_run_raw;
	hs.avr->sleep = hs_sleep;
	avr_register_io_write(hs.avr, GPIOR1_ADDR, on_gpior1, NULL);
	return 0;
}

/* The firmware's UART (USART1 on the 32U4, USART0 elsewhere) and LED. */
static void uart_wire(const char *mcu)
{
	char name = strcmp(mcu, "atmega32u4") ? '0' : '1';
	uint32_t flags = 0;   /* no stdio echo, no usleep on polling */

	hs.uart = uart_find(hs.avr, name);
	hs.led_addr = name == '1' ? 0x28 : 0x25;   /* PORTC7 / PORTB5 */
	hs.led_mask = name == '1' ? 0x80 : 0x20;
	avr_ioctl(hs.avr, AVR_IOCTL_UART_SET_FLAGS(name), &flags);
	hs.uart_in = avr_io_getirq(hs.avr, AVR_IOCTL_UART_GETIRQ(name), UART_IRQ_INPUT);
	avr_irq_register_notify(avr_io_getirq(hs.avr, AVR_IOCTL_UART_GETIRQ(name),
					      UART_IRQ_OUTPUT), on_output, NULL);
	avr_irq_register_notify(avr_io_getirq(hs.avr, AVR_IOCTL_UART_GETIRQ(name),
					      UART_IRQ_OUT_XON), on_xon, NULL);
	avr_irq_register_notify(avr_io_getirq(hs.avr, AVR_IOCTL_UART_GETIRQ(name),
					      UART_IRQ_OUT_XOFF), on_xoff, NULL);
}

/* Run until the mode ends; prof (may be NULL) collects busy cycles per
 * flash word. */
static void run(uint64_t *prof)
{
	while (!hs.stop) {
		avr_flashaddr_t pc = hs.avr->pc;
		uint64_t c0 = hs.avr->cycle, s0 = hs.slept;
		int st;

		if (pc == 0 && c0 > 0) {
			hs.resets++;
			if (hs.mode == MODE_CONSOLE)
				break;  /* a test binary that restarts has crashed */
		}
		st = avr_run(hs.avr);
		if (c0 > hs.start) {
			uint16_t sp = (uint16_t)(hs.avr->data[0x5d] | hs.avr->data[0x5e] << 8);

			if (sp < hs.sp_min)
				hs.sp_min = sp;
		}
		if (prof && hs.avr->cycle >= hs.start)
			prof[pc / 2] += (hs.avr->cycle - c0) - (hs.slept - s0);
		if (st == cpu_Done || st == cpu_Crashed)
			break;
	}
}

int main(int argc, char **argv)
{
	struct options o = { .mcu = "atmega328p", .payload = "small", .freq = 16000000 };
	uint64_t *prof = NULL;

	hs.baud = 115200;
	hs.rng = 0x9E3779B97F4A7C15ULL;
	hs.cl.count = 1000;
	hs.cl.window = 1;
	hs.cl.warmup = 10;
	hs.cl.preset = PHYLLO_PRESET_STANDARD;
	hs.mode = MODE_CONSOLE;
	hs.sp_min = 0xffff;
	options_parse(&o, argc, argv);
	hs.fw_name = strrchr(o.elf, '/') ? strrchr(o.elf, '/') + 1 : o.elf;
	if (avr_setup(&o))
		return 2;
	uart_wire(o.mcu);
	hs.cpb = (uint32_t)(((uint64_t)o.freq * 10 + hs.baud / 2) / hs.baud);
	hs.tick = hs.mode == MODE_BENCH ? ms_cycles(1) : hs.cpb > 400 ? hs.cpb / 2 : 200;
	/* Let the firmware boot and configure its UART before any byte. */
	hs.next_rx = ms_cycles(5);
	if (o.noise_ms) {
		hs.noise_end = hs.next_rx + ms_cycles(o.noise_ms);
		rx_kick();
	}
	hs.start = (o.noise_ms ? hs.noise_end + ms_cycles(100) : 0) + ms_cycles(10);
	if (o.seconds > 0)
		hs.limit = hs.start + (uint64_t)(o.seconds * o.freq);
	avr_cycle_timer_register(hs.avr, hs.tick, service, NULL);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	if (o.prof_path)
		prof = calloc(1 << 16, sizeof(*prof));
	run(prof);
	if (prof)
		profile_dump(prof, o.prof_path);
	if (hs.mode == MODE_BENCH)
		client_report(&hs.cl);
	fprintf(stderr, "phyllo-simavr: %.3f s simulated, busy %.2f%%, rx %" PRIu64
		" bytes, tx %" PRIu64 " bytes, noise %" PRIu64 " bytes, lowest SP 0x%04x, "
		"USART overruns %" PRIu64 ", resets %" PRIu64 "\n",
		(double)hs.avr->cycle / o.freq, 100.0 * busy_cycles() / (hs.avr->cycle ? hs.avr->cycle : 1),
		hs.rx_bytes, hs.tx_bytes, hs.noise_bytes, hs.sp_min, hs.overruns, hs.resets);
	if (hs.mode == MODE_BENCH)
		return hs.cl.done && !hs.cl.bad && !hs.resets && !hs.overruns ? 0 : 1;
	return hs.resets || hs.overruns ? 1 : 0;
}
