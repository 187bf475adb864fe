// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * test_arq_ack.c - when the reliable layer acknowledges and how it times
 * what it sent, against the scripted peer of test_arq_harness.h: the three
 * ACK rules (docs/reliable.md), delayed ACKs and pingpong mode, duplicates,
 * stale ACKs, sequence wrap, the RTT estimator and the RTO it gives.
 * Split from test_arq.c so each suite fits the Uno's flash with room to
 * grow (the arq image had about 1.5 KB left of 32 KB).
 */
#include "test_arq_harness.h"

/* The peer's unit `seq` at t, answered by the application at t + reply. */
static void arq_unit_and_reply(uint8_t seq, uint32_t t, uint32_t reply)
{
	struct phyllo_unit u;

	PTEST_EXPECT_EQ(peer(seq, seq, PHYLLO_FLAG_ACK, 0x60, t, &u), 1);
	PTEST_EXPECT_EQ(phyllo_arq_send(&a, 0x60, (const uint8_t *)"r", 1, t + reply), 0);
}

/* The peer acknowledges our reply (seq 0) at t: with the reply sent at
 * 10 and t = 50, an RTT of 40 ms and an RTO of 120 (delay bound 30).
 */
static void arq_reply_acked(uint32_t t)
{
	peer(0, 1, PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK, 0, t, NULL);
	PTEST_EXPECT_EQ(a.tx_count, 0);
}

/* In pingpong mode (a prompt reply at 10, acknowledged at 50), the
 * peer's next unit (seq 1) arrives at 60 and its ACK waits.
 */
static void arq_pingpong_unit(void)
{
	struct phyllo_unit u;

	arq_open_by_hand(4);
	arq_unit_and_reply(0, 10, 0);
	arq_reply_acked(50);
	log_n = 0;
	PTEST_EXPECT_EQ(peer(1, 1, PHYLLO_FLAG_ACK, 0x60, 60, &u), 1);
}

/* Rule 3: nothing will carry the ACK soon, so it leaves at the poll. */
static void arq_acks_at_once_when_no_reply_expected(void)
{
	struct phyllo_unit u;

	arq_open_by_hand(4);
	PTEST_EXPECT(!phyllo_arq_has_deadline(&a));
	PTEST_EXPECT_EQ(peer(0, 0, PHYLLO_FLAG_ACK, 0x60, 10, &u), 1);
	PTEST_EXPECT_EQ(log_n, 1);
	PTEST_EXPECT_EQ(log_hdr[0][1], 1);
	PTEST_EXPECT_EQ(log_hdr[0][2], PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK);
	PTEST_EXPECT_EQ(stats.tx_acks, 1);
	PTEST_EXPECT(!a.pingpong);
	/* nothing left to time: no deadline for the glue's timer */
	PTEST_EXPECT(!phyllo_arq_has_deadline(&a));
	PTEST_EXPECT_EQ(phyllo_arq_poll(&a, 11), 1000);
}

/* Rule 2: after a prompt reply the next ACK waits for the next reply. */
static void arq_delays_ack_while_application_replies(void)
{
	arq_open_by_hand(4);
	arq_unit_and_reply(0, 10, 1);	/* ACK at once, reply at 11 */
	PTEST_EXPECT(a.pingpong);
	PTEST_EXPECT_EQ(stats.tx_acks, 1);
	arq_reply_acked(51);
	log_n = 0;
	arq_unit_and_reply(1, 60, 3);	/* waits, then rides on the reply */
	PTEST_EXPECT_EQ(log_n, 1);
	PTEST_EXPECT_EQ(log_hdr[0][1], 2);
	PTEST_EXPECT_EQ(log_hdr[0][2], PHYLLO_FLAG_ACK);
	phyllo_arq_poll(&a, 70);
	PTEST_EXPECT_EQ(log_n, 1);
	PTEST_EXPECT_EQ(stats.tx_acks, 1);
	PTEST_EXPECT(a.pingpong);
}

/* A reply slower than the delay would not have carried the ACK. */
static void arq_late_reply_does_not_delay_acks(void)
{
	arq_open_by_hand(4);
	arq_unit_and_reply(0, 10, 5);
	PTEST_EXPECT(!a.pingpong);
	/* only the first unit sent after a receive is its reply */
	arq_open_by_hand(4);
	arq_unit_and_reply(0, 10, 1);
	a.pingpong = false;
	PTEST_EXPECT_EQ(phyllo_arq_send(&a, 0x60, (const uint8_t *)"s", 1, 12), 0);
	PTEST_EXPECT(!a.pingpong);
}

/* A delay that runs out sends the pure ACK and leaves pingpong mode. */
static void arq_delayed_ack_expiry_acks_at_once_next(void)
{
	struct phyllo_unit u;

	arq_pingpong_unit();
	PTEST_EXPECT_EQ(log_n, 0);
	PTEST_EXPECT(phyllo_arq_has_deadline(&a));
	PTEST_EXPECT_EQ(phyllo_arq_poll(&a, 62), 2);
	phyllo_arq_poll(&a, 64);
	PTEST_EXPECT_EQ(log_n, 1);
	PTEST_EXPECT_EQ(log_hdr[0][1], 2);
	PTEST_EXPECT(!a.pingpong);
	PTEST_EXPECT_EQ(peer(2, 1, PHYLLO_FLAG_ACK, 0x60, 70, &u), 1);
	PTEST_EXPECT_EQ(log_n, 2);
	PTEST_EXPECT_EQ(log_hdr[1][1], 3);
}

/* Rule 1: a second unit is acknowledged at once, even in pingpong mode. */
static void arq_acks_every_second_unit_at_once(void)
{
	struct phyllo_unit u;

	arq_pingpong_unit();
	PTEST_EXPECT_EQ(phyllo_arq_poll(&a, 60), 4);	/* the first waits */
	PTEST_EXPECT_EQ(log_n, 0);
	PTEST_EXPECT_EQ(peer(2, 1, PHYLLO_FLAG_ACK, 0x60, 61, &u), 1);
	PTEST_EXPECT_EQ(log_n, 1);			/* the second does not */
	PTEST_EXPECT_EQ(log_hdr[0][1], 3);
	PTEST_EXPECT(a.pingpong);			/* not a missed reply */
}

/* The wait is ack_delay_ms, but never more than a quarter of the RTO;
 * 0 never waits.
 */
static void arq_ack_delay_bounded_by_rto_and_zero_never_waits(void)
{
	struct phyllo_unit u;

	arq_open_by_hand(4);
	a.cfg.ack_delay_ms = 60;	/* RTO 100 before any sample: 25 */
	arq_unit_and_reply(0, 10, 20);
	PTEST_EXPECT(a.pingpong);
	arq_reply_acked(70);		/* RTT 40: RTO 120, a quarter 30 */
	PTEST_EXPECT_EQ(a.rto, 120);
	PTEST_EXPECT_EQ(peer(1, 1, PHYLLO_FLAG_ACK, 0x60, 80, &u), 1);
	PTEST_EXPECT_EQ(phyllo_arq_poll(&a, 80), 30);
	arq_open_by_hand(4);
	a.cfg.ack_delay_ms = 0;
	arq_unit_and_reply(0, 10, 0);
	arq_reply_acked(50);
	log_n = 0;
	PTEST_EXPECT_EQ(peer(1, 1, PHYLLO_FLAG_ACK, 0x60, 20, &u), 1);
	PTEST_EXPECT_EQ(log_n, 1);
	PTEST_EXPECT_EQ(log_hdr[0][2], PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK);
}

static void arq_duplicate_reacked_at_once(void)
{
	struct phyllo_unit u;

	arq_open_by_hand(4);
	peer(0, 0, PHYLLO_FLAG_ACK, 0x60, 1, &u);
	phyllo_arq_poll(&a, 10);
	log_n = 0;
	PTEST_EXPECT_EQ(peer(0, 0, PHYLLO_FLAG_ACK, 0x60, 11, &u), PHYLLO_E_DUP);
	phyllo_arq_poll(&a, 11);
	PTEST_EXPECT_EQ(log_n, 1);
	PTEST_EXPECT_EQ(log_hdr[0][1], 1);
}

static void arq_sequence_wraps_past_255(void)
{
	struct phyllo_unit u;
	uint16_t i;
	uint8_t x = 0;

	arq_open_by_hand(2);
	for (i = 0; i < 600; i++) {
		PTEST_EXPECT_EQ(peer((uint8_t)i, (uint8_t)i, PHYLLO_FLAG_ACK, 0x60, i, &u), 1);
		PTEST_EXPECT_EQ(phyllo_arq_send(&a, 0x60, &x, 1, i), 0);
	}
	PTEST_EXPECT_EQ(a.rx_next, (uint8_t)600);
	PTEST_EXPECT_EQ(a.tx_base, (uint8_t)599);
	PTEST_EXPECT_EQ(a.tx_retired_total, 599);
	PTEST_EXPECT_EQ(stats.rx_ack_stale, 0);
}

static void arq_stale_ack_counted_not_applied(void)
{
	uint8_t x = 0;

	arq_open_by_hand(4);
	phyllo_arq_send(&a, 0x60, &x, 1, 0);
	peer(0, 5, PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK, 0, 1, NULL);
	PTEST_EXPECT_EQ(stats.rx_ack_stale, 1);
	PTEST_EXPECT_EQ(a.tx_count, 1);
	peer(0, 0xff, PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK, 0, 1, NULL);
	PTEST_EXPECT_EQ(stats.rx_ack_stale, 2);
}

static void arq_rto_adapts_to_round_trip(void)
{
	uint32_t t;

	arq_open_by_hand(1);
	t = arq_steady_units(0, 50, 0, 30);
	PTEST_EXPECT_EQ(stats.rtt_ms, 30);
	PTEST_EXPECT(a.rto >= 40 && a.rto <= 50);	/* SRTT + rto_min at least */
	/* bounded below by rto_min on a very fast link */
	arq_steady_units(50, 50, t, 0);
	PTEST_EXPECT_EQ(a.rto, 10);
}

/* Samples are capped at 8 s: the 16-bit estimator cannot overflow. */
static void arq_rtt_huge_samples_stay_bounded(void)
{
	uint8_t x = 0, i;
	uint32_t t = 0;

	arq_open_by_hand(1);
	for (i = 0; i < 40; i++) {
		phyllo_arq_send(&a, 0x60, &x, 1, t);
		t += 60000;
		peer(0, (uint8_t)(i + 1), PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK, 0, t, NULL);
	}
	PTEST_EXPECT_EQ(stats.rtt_ms, 8000);
	PTEST_EXPECT_EQ(a.rto, 1000);
	PTEST_EXPECT(a.srtt8 <= 64000u && a.rttvar4 <= 32000u);
}

static const struct ptest_case arq_ack_cases[] = {
	PTEST_CASE(arq_acks_at_once_when_no_reply_expected),
	PTEST_CASE(arq_delays_ack_while_application_replies),
	PTEST_CASE(arq_late_reply_does_not_delay_acks),
	PTEST_CASE(arq_delayed_ack_expiry_acks_at_once_next),
	PTEST_CASE(arq_acks_every_second_unit_at_once),
	PTEST_CASE(arq_ack_delay_bounded_by_rto_and_zero_never_waits),
	PTEST_CASE(arq_duplicate_reacked_at_once),
	PTEST_CASE(arq_sequence_wraps_past_255),
	PTEST_CASE(arq_stale_ack_counted_not_applied),
	PTEST_CASE(arq_rto_adapts_to_round_trip),
	PTEST_CASE(arq_rtt_huge_samples_stay_bounded),
};

PTEST_SUITE(phyllo_suite_arq_ack, "phyllo_arq_ack", arq_ack_cases);
