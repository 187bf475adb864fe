// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo-hostile.c - a hostile peer for make test-kernel: it owns a pty
 * master, links PTYLINK to the slave (where ldattach puts the line
 * discipline), opens a real session with the kernel through the protocol
 * core, attacks in one of these ways, and then behaves: it echoes every
 * unit back until the line hangs up or SIGTERM, so the script can check
 * that a normal session works afterwards.
 *
 *   control   SECONDS of CRC-valid NOS|ACK|NAK (any ack), SYN (new and
 *             current nonces), SYN|ACK, bare and foreign RST and stray ACKs,
 *             as fast as the pty takes them, reading what the kernel says
 *   nodelim   1 MiB of bytes without a frame delimiter, then one
 *   flood     SECONDS of reliable units as fast as the kernel acknowledges
 *             them (the script keeps a reader that does not read)
 *
 * One JSON line on stdout after the attack: bytes written and read, units
 * sent, and how the sessions went. Exit 1 if the kernel wrote more than
 * PHYLLO_HOSTILE_AMP times the bytes it was sent (no amplification).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "phyllo_stack.h"

#define PHYLLO_HOSTILE_AMP 4

static int master = -1;
static struct phyllo_stack st;
static unsigned long long bytes_in, bytes_out;	/* to / from the kernel */
static volatile sig_atomic_t stop;

static uint32_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)(ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

static void put_all(const uint8_t *b, size_t n)
{
	while (n) {
		ssize_t w = write(master, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			struct pollfd p = { master, POLLOUT, 0 };

			/* No timeout: taking bytes in, the line discipline
			 * must wake a writer waiting for room (a writer that
			 * is never woken hangs here, and the script fails). */
			if (errno != EAGAIN || poll(&p, 1, -1) < 0)
				exit(errno == EIO ? 0 : 3);
			continue;
		}
		bytes_in += (size_t)w;
		b += w;
		n -= (size_t)w;
	}
}

static void out_write(void *ctx, const uint8_t *b, uint16_t n)
{
	(void)ctx;
	put_all(b, n);
}

static void echo_unit(const struct phyllo_unit *u)
{
	/* A full window is a lost echo here: the kernel's client notices. */
	phyllo_stack_send(&st, u->type, u->data, u->len, true, now_ms());
}

/* Read what the kernel wrote (waiting up to ms); with echo, answer its
 * units. Returns 1 after reading, 0 when there was nothing, -1 at hangup. */
static int pump(int ms, bool echo)
{
	struct pollfd p = { master, POLLIN, 0 };
	uint8_t buf[4096];
	ssize_t r;
	uint16_t used;

	if (poll(&p, 1, ms) <= 0) {
		phyllo_stack_poll(&st, now_ms());
		return 0;
	}
	r = read(master, buf, sizeof(buf));
	if (r <= 0)
		return r < 0 && (errno == EAGAIN || errno == EINTR) ? 0 : -1;
	bytes_out += (size_t)r;
	for (used = 0; used < r;) {
		struct phyllo_unit u;
		bool got;

		used += phyllo_stack_receive(&st, buf + used, (uint16_t)(r - used), now_ms(),
					     &u, &got);
		if (got && echo)
			echo_unit(&u);
	}
	phyllo_stack_poll(&st, now_ms());
	return 1;
}

static void stack_start(uint32_t nonce)
{
	static const struct phyllo_out out = { .write = out_write };
	struct phyllo_arq_config cfg = PHYLLO_ARQ_CONFIG_DEFAULT;

	cfg.window = PHYLLO_ARQ_WINDOW_MAX;
	if (phyllo_stack_init(&st, PHYLLO_PRESET_STANDARD, &cfg, &out, nonce, now_ms()) < 0)
		exit(2);
}

/* A CRC-valid frame with the reliable header given, as the core builds it
 * (a throwaway stack whose output is the frame). */
static uint8_t forged[PHYLLO_WIRE_MAX * 2];
static size_t nforged;

static void forge_out(void *ctx, const uint8_t *b, uint16_t n)
{
	(void)ctx;
	memcpy(forged + nforged, b, n);
	nforged += n;
}

static size_t forge(uint8_t seq, uint8_t ack, uint8_t flags, const uint8_t *body, uint8_t n)
{
	static const struct phyllo_out out = { .write = forge_out };
	static struct phyllo_stack f;
	uint8_t unit[PHYLLO_RELIABLE_HDR + 16];

	/* reduced preset: a validated datagram of type 0x23 whose payload
	 * is the reliable header and body, byte for byte what a standard
	 * stack sends */
	phyllo_stack_init(&f, PHYLLO_PRESET_REDUCED, NULL, &out, 0, 0);
	unit[0] = seq;
	unit[1] = ack;
	unit[2] = flags;
	unit[3] = PHYLLO_TYPE_CONTROL;
	if (n)
		memcpy(unit + PHYLLO_RELIABLE_HDR, body, n);
	nforged = 0;
	phyllo_stack_send(&f, PHYLLO_TYPE_RELIABLE, unit, (uint16_t)(PHYLLO_RELIABLE_HDR + n),
			  false, 0);
	return nforged;
}

static uint32_t rnd(void)
{
	static uint32_t x = 0x2545F491u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* One hostile control frame of a random kind into the wire buffer. */
static size_t control_frame(uint8_t *w)
{
	uint8_t body[9];
	uint32_t r = rnd();

	body[0] = (uint8_t)(1 + r % 8);
	put32(body + 1, rnd());
	put32(body + 5, rnd());
	switch (r % 6) {
	case 0: forge(0, (uint8_t)rnd(), PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK | PHYLLO_FLAG_NAK,
		      NULL, 0); break;
	case 1: forge(body[4], 0, PHYLLO_FLAG_SYN, body, 5); break;
	case 2: put32(body + 1, st.arq.local_nonce);	/* the session's own */
		forge(body[4], 0, PHYLLO_FLAG_SYN, body, 5); break;
	case 3: forge(body[4], (uint8_t)rnd(), PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK, body, 9); break;
	case 4: forge(0, 0, PHYLLO_FLAG_NOS | PHYLLO_FLAG_RST, body + 1, (uint8_t)(r & 8)); break;
	default: forge(0, (uint8_t)rnd(), PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK, NULL, 0); break;
	}
	memcpy(w, forged, nforged);
	return nforged;
}

static void attack_control(unsigned int seconds)
{
	uint32_t end = now_ms() + seconds * 1000u;
	uint8_t w[4096];

	while ((int32_t)(end - now_ms()) > 0) {
		size_t n = 0;

		while (n + 2 * PHYLLO_WIRE_MAX < sizeof(w))
			n += control_frame(w + n);
		put_all(w, n);
		while (pump(0, false) > 0)
			;
	}
}

static void attack_nodelim(void)
{
	uint8_t w[4096];
	int i;

	memset(w, 0x55, sizeof(w));
	for (i = 0; i < 256; i++) {
		put_all(w, sizeof(w));
		pump(0, false);
	}
	put_all((const uint8_t *)"", 1);
}

static void attack_flood(unsigned int seconds)
{
	uint32_t end = now_ms() + seconds * 1000u;
	uint8_t body[200];
	unsigned long sent = 0;

	memset(body, 0xA5, sizeof(body));
	body[0] = 0x10;
	while ((int32_t)(end - now_ms()) > 0) {
		while (phyllo_stack_room(&st) &&
		       phyllo_stack_send(&st, 0x10, body, sizeof(body), true, now_ms()) == 0)
			sent++;
		pump(5, false);
	}
	fprintf(stderr, "hostile: flood queued %lu units\n", sent);
}

/* Open the session the way a board would, within 30 s of being attached. */
static void handshake(void)
{
	uint32_t end = now_ms() + 30000;

	stack_start(rnd());
	while (st.arq.state != PHYLLO_ARQ_OPEN && (int32_t)(end - now_ms()) > 0)
		if (pump(50, true) < 0)
			exit(1);
	if (st.arq.state != PHYLLO_ARQ_OPEN) {
		fprintf(stderr, "hostile: no session with the kernel\n");
		exit(1);
	}
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void open_pty(const char *link)
{
	master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (master < 0 || grantpt(master) || unlockpt(master)) {
		perror("hostile: pty");
		exit(2);
	}
	unlink(link);
	if (symlink(ptsname(master), link)) {
		perror("hostile: symlink");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	unsigned int seconds = argc > 3 ? (unsigned int)atoi(argv[3]) : 5;
	const struct phyllo_stats *s = &st.stats;

	if (argc < 3) {
		fprintf(stderr, "usage: phyllo-hostile PTYLINK control|nodelim|flood [SECONDS]\n");
		return 2;
	}
	signal(SIGTERM, on_term);
	signal(SIGPIPE, SIG_IGN);
	open_pty(argv[1]);
	handshake();
	bytes_in = bytes_out = 0;
	if (!strcmp(argv[2], "control"))
		attack_control(seconds);
	else if (!strcmp(argv[2], "nodelim"))
		attack_nodelim();
	else if (!strcmp(argv[2], "flood"))
		attack_flood(seconds);
	else
		return 2;
	printf("{\"mode\":\"%s\",\"bytes_to_kernel\":%llu,\"bytes_from_kernel\":%llu,"
	       "\"sessions\":%lu,\"tx_units\":%lu}\n", argv[2], bytes_in, bytes_out,
	       (unsigned long)s->sessions, (unsigned long)s->tx_units);
	fflush(stdout);
	if (bytes_out > PHYLLO_HOSTILE_AMP * bytes_in + 65536) {
		fprintf(stderr, "hostile: the kernel wrote %llu bytes for %llu\n",
			bytes_out, bytes_in);
		return 1;
	}
	/* Now behave: a fresh session, every unit echoed. */
	handshake();
	printf("hostile: ready\n");
	fflush(stdout);
	while (!stop && pump(50, true) >= 0)
		;
	unlink(argv[1]);
	return 0;
}
