/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * test_arq_harness.h - the scripted peer of the reliable layer's suites
 * (test_arq.c, test_arq_ack.c, test_session.c): one layer under test,
 * every unit it sends captured, and peer()/peer_raw() to play the other
 * side by hand. Each suite file gets its own copy (static), so each runs
 * alone on a small MCU; the helpers are static inline because each suite
 * uses only some of them.
 */
#ifndef PHYLLO_TEST_ARQ_HARNESS_H
#define PHYLLO_TEST_ARQ_HARNESS_H

#include <string.h>
#include "ptest.h"
#include "phyllo_arq.h"

static struct phyllo_arq a;
static struct phyllo_stats stats;

/* The last units the layer sent: header and payload length. */
#define LOG_MAX 16
static uint8_t log_hdr[LOG_MAX][PHYLLO_RELIABLE_HDR];
static uint16_t log_len[LOG_MAX];
static unsigned int log_n;

static void link_send(void *ctx, const uint8_t *hdr, uint8_t nhdr,
		      const uint8_t *body, uint16_t nbody)
{
	(void)ctx;
	(void)body;
	(void)nhdr;
	if (log_n < LOG_MAX) {
		memcpy(log_hdr[log_n], hdr, PHYLLO_RELIABLE_HDR);
		log_len[log_n] = nbody;
	}
	log_n++;
}

static const struct phyllo_arq_link test_link = { link_send, NULL };

static inline void arq_fresh(bool handshake, uint8_t window)
{
	struct phyllo_arq_config cfg = PHYLLO_ARQ_CONFIG_DEFAULT;

	cfg.handshake = handshake;
	cfg.window = window;
	memset(&stats, 0, sizeof(stats));
	PTEST_EXPECT_EQ(phyllo_arq_init(&a, &cfg, &test_link, &stats, 0x42), 0);
	log_n = 0;
}

/* Deliver a unit from the peer, then poll as every glue does. Receive
 * itself must never write: checked here for every unit of every case.
 * *u points into the bytes received (u->data), so they are static: the
 * case may read them until its next peer(). */
static inline int peer(uint8_t seq, uint8_t ack, uint8_t flags, uint8_t type, uint32_t now,
		struct phyllo_unit *u)
{
	static uint8_t p[6];
	struct phyllo_unit dummy;
	unsigned int before = log_n;
	int ret;

	p[0] = seq;
	p[1] = ack;
	p[2] = flags;
	p[3] = type;
	p[4] = 0xAB;
	p[5] = 0xCD;
	ret = phyllo_arq_receive(&a, p, sizeof(p), now, u ? u : &dummy);

	PTEST_EXPECT_EQ(log_n, before);
	phyllo_arq_poll(&a, now);
	return ret;
}

/* A raw reliable payload from the peer, then a poll, as peer() does. */
static inline int peer_raw(const uint8_t *p, uint16_t n, uint32_t now, struct phyllo_unit *u)
{
	struct phyllo_unit dummy;
	unsigned int before = log_n;
	int ret = phyllo_arq_receive(&a, p, n, now, u ? u : &dummy);

	PTEST_EXPECT_EQ(log_n, before);
	phyllo_arq_poll(&a, now);
	return ret;
}

static inline void arq_open_by_hand(uint8_t window)
{
	arq_fresh(true, window);
	phyllo_arq_poll(&a, 0);
	peer(0x77, 0x42, PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK, 0, 0, NULL);
	log_n = 0;
}

/* Units number from .. from + n - 1, sent one at a time from time t, each
 * acknowledged rtt ms after it went out: a steady link for the RTT
 * estimator. Returns the time after the last acknowledgement. */
static inline uint32_t arq_steady_units(uint16_t from, uint16_t n, uint32_t t, uint32_t rtt)
{
	uint8_t x = 0;
	uint16_t i;

	for (i = from; i < from + n; i++) {
		phyllo_arq_send(&a, 0x60, &x, 1, t);
		t += rtt;
		peer(0, (uint8_t)(i + 1), PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK, 0, t, NULL);
	}
	return t;
}

#endif /* PHYLLO_TEST_ARQ_HARNESS_H */
