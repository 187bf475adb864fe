// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * test_session.c - the reliable layer against a hostile or unlucky peer:
 * session control that fits neither state nor nonces, NAK floods, refusal
 * (the one back-pressure rule), events, the RTO floor and backoff. Each
 * case is a finding of the hardening review (issue 9) or of the fuzzers.
 * Split from test_arq.c so each suite fits the Uno's flash on its own.
 */
#include "test_arq_harness.h"

/* Finding: a bare RST, or one naming another session, reset an open
 * session. Now each is stale: counted, and the session goes on. */
static void arq_rst_without_this_sessions_nonces_is_stale(void)
{
	static const uint8_t bare[] = { 0, 0, PHYLLO_FLAG_NOS | PHYLLO_FLAG_RST, 0 };
	static const uint8_t old[] = { 0, 0, PHYLLO_FLAG_NOS | PHYLLO_FLAG_RST, 0,
				       0, 0, 0, 0x76, 0, 0, 0, 0x42 };
	static const uint8_t swapped[] = { 0, 0, PHYLLO_FLAG_NOS | PHYLLO_FLAG_RST, 0,
					   0, 0, 0, 0x42, 0, 0, 0, 0x77 };

	arq_open_by_hand(4);
	peer_raw(bare, sizeof(bare), 1, NULL);
	peer_raw(old, sizeof(old), 2, NULL);
	peer_raw(swapped, sizeof(swapped), 3, NULL);
	PTEST_EXPECT_EQ(a.state, PHYLLO_ARQ_OPEN);
	PTEST_EXPECT_EQ(stats.rx_ctrl_stale, 3);
	PTEST_EXPECT_EQ(stats.sessions, 1);
	PTEST_EXPECT_EQ(log_n, 0);
}

/* Finding: a stray SYN|ACK in an open session overwrote the peer's
 * window (8 dropped to 1). Only the answer to our own SYN sets it. */
static void arq_stray_synack_keeps_session_and_window(void)
{
	static const uint8_t stray[] = { 0x66, 0x42, PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK, 0, 1 };
	static const uint8_t again[] = { 0x77, 0x42, PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK, 0, 1 };
	uint8_t before;

	arq_open_by_hand(PHYLLO_ARQ_WINDOW_MAX);
	before = a.peer_window;
	peer_raw(stray, sizeof(stray), 1, NULL);
	PTEST_EXPECT_EQ(stats.rx_ctrl_stale, 1);
	/* a second answer to our SYN (it was repeated) is harmless, and
	 * does not change the window either */
	peer_raw(again, sizeof(again), 2, NULL);
	PTEST_EXPECT_EQ(stats.rx_ctrl_stale, 1);
	PTEST_EXPECT_EQ(a.peer_window, before);
	PTEST_EXPECT_EQ(a.state, PHYLLO_ARQ_OPEN);
	PTEST_EXPECT_EQ(stats.sessions, 1);
}

/* Finding: a delayed SYN carrying the peer's previous nonce reset the
 * session the peer had restarted into. */
static void arq_delayed_syn_of_previous_peer_is_stale(void)
{
	static const uint8_t syn1[] = { 0x01, 0, PHYLLO_FLAG_SYN, 0, 4, 0, 0, 0, 0x01 };
	static const uint8_t syn2[] = { 0x02, 0, PHYLLO_FLAG_SYN, 0, 4, 0, 0, 0, 0x02 };
	static const uint8_t synack1[] = { 0x01, 0x42, PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK, 0,
					   4, 0, 0, 0, 0x01, 0, 0, 0, 0x42 };

	arq_fresh(true, 4);
	peer_raw(syn1, sizeof(syn1), 0, NULL);
	peer_raw(synack1, sizeof(synack1), 0, NULL);
	peer_raw(syn2, sizeof(syn2), 1, NULL);		/* the peer restarted */
	PTEST_EXPECT_EQ(stats.sessions, 2);
	peer_raw(syn1, sizeof(syn1), 2, NULL);		/* late copy of the first */
	PTEST_EXPECT_EQ(stats.sessions, 2);
	PTEST_EXPECT_EQ(stats.rx_ctrl_stale, 1);
	PTEST_EXPECT(a.peer_nonce == 2);
}

/* Refusing the unit just received: not acknowledged, units behind it
 * not NAKed (we know why there is a gap), asked for again on release. */
static void arq_refuse_unaccepts_and_asks_again(void)
{
	struct phyllo_unit u;

	arq_open_by_hand(4);
	PTEST_EXPECT_EQ(phyllo_arq_refuse(&a), PHYLLO_E_INVAL);
	PTEST_EXPECT_EQ(phyllo_arq_receive(&a, (const uint8_t[]){ 0, 0, PHYLLO_FLAG_ACK, 0x60 },
					   4, 1, &u), 1);
	PTEST_EXPECT_EQ(phyllo_arq_refuse(&a), 0);
	PTEST_EXPECT_EQ(phyllo_arq_refuse(&a), PHYLLO_E_INVAL);	/* once */
	PTEST_EXPECT_EQ(a.rx_next, 0);
	PTEST_EXPECT_EQ(stats.rx_hold, 1);
	PTEST_EXPECT_EQ(peer(1, 0, PHYLLO_FLAG_ACK, 0x60, 2, &u), PHYLLO_E_HOLD);
	phyllo_arq_poll(&a, 100);
	PTEST_EXPECT_EQ(log_n, 0);		/* no ACK, no NAK */
	phyllo_arq_hold(&a, false);
	phyllo_arq_poll(&a, 101);
	PTEST_EXPECT_EQ(log_n, 1);
	PTEST_EXPECT_EQ(log_hdr[0][1], 0);
	PTEST_EXPECT_EQ(log_hdr[0][2], PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK | PHYLLO_FLAG_NAK);
	PTEST_EXPECT_EQ(peer(0, 0, PHYLLO_FLAG_ACK, 0x60, 102, &u), 1);
}

/* Finding: nine NOS|ACK|NAK frames in one buffer, each acking one more
 * unit, made the sender resend the rest of its window nine times. Now
 * receive writes nothing and the poll resends once. */
static void arq_nak_burst_resends_once_per_poll(void)
{
	const uint8_t w = PHYLLO_ARQ_WINDOW_MAX;
	uint8_t i, p[4] = { 0, 0, PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK | PHYLLO_FLAG_NAK, 0 };
	struct phyllo_unit u;

	arq_open_by_hand(w);
	for (i = 0; i < w; i++)
		phyllo_arq_send(&a, 0x60, &i, 1, 0);
	log_n = 0;
	for (i = 0; i <= w; i++) {	/* each acks one more, the last all */
		p[1] = i;
		phyllo_arq_receive(&a, p, sizeof(p), 1, &u);
	}
	PTEST_EXPECT_EQ(log_n, 0);
	phyllo_arq_poll(&a, 1);
	PTEST_EXPECT_EQ(log_n, 0);	/* all acknowledged by the last */
	for (i = 0; i < w; i++)
		phyllo_arq_send(&a, 0x60, &i, 1, 1);
	log_n = 0;
	for (i = 0; i <= w; i++) {	/* positions w..2w-1, then 2w-1 again */
		p[1] = (uint8_t)(w + (i < w ? i : w - 1));
		phyllo_arq_receive(&a, p, sizeof(p), 2, &u);
	}
	phyllo_arq_poll(&a, 2);
	PTEST_EXPECT_EQ(log_n, 1);	/* one resend of the one left */
	PTEST_EXPECT(log_n <= PHYLLO_ARQ_POLL_FRAMES(w));
	/* the same position again within an RTO: nothing */
	phyllo_arq_receive(&a, p, sizeof(p), 3, &u);
	phyllo_arq_poll(&a, 3);
	PTEST_EXPECT_EQ(log_n, 1);
}

/* The backoff ends with the first progress, max_retries or not (it
 * used to stay doubled for good when max_retries was 0). */
static void arq_backoff_ends_on_progress(void)
{
	uint8_t x = 0;

	arq_open_by_hand(4);
	phyllo_arq_send(&a, 0x60, &x, 1, 0);
	phyllo_arq_poll(&a, 100);
	phyllo_arq_poll(&a, 300);
	PTEST_EXPECT_EQ(a.rto, 400);
	peer(0, 1, PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK, 0, 301, NULL);
	PTEST_EXPECT_EQ(a.rto, 100);	/* the estimate: no sample yet */
}

/* Finding: on a steady link the RTO converged to SRTT + 1 ms, so the first
 * larger unit fired a timeout. The floor keeps rto_min of variance and a
 * largest frame's time each way. */
static void arq_rto_floor_has_variance_and_line_time(void)
{
	arq_open_by_hand(1);
	arq_steady_units(0, 60, 0, 46);
	PTEST_EXPECT_EQ(stats.rtt_ms, 46);
	PTEST_EXPECT_EQ(a.rto, 46 + 10);
	phyllo_arq_set_line_ms(&a, 23);		/* 257 bytes at 115200 baud */
	PTEST_EXPECT_EQ(a.rto, 46 + 10 + 2 * 23);
	PTEST_EXPECT_EQ(stats.rto_ms, a.rto);
}

static void arq_events_tell_open_reset_and_room(void)
{
	static const uint8_t syn[] = { 0x09, 0, PHYLLO_FLAG_SYN, 0, 4, 0, 0, 0, 0x09 };
	uint8_t x = 0;

	arq_open_by_hand(4);
	PTEST_EXPECT_EQ(phyllo_arq_take_events(&a), PHYLLO_EV_OPEN);
	PTEST_EXPECT_EQ(phyllo_arq_take_events(&a), 0);
	phyllo_arq_send(&a, 0x60, &x, 1, 0);
	phyllo_arq_send(&a, 0x60, &x, 1, 0);
	peer(0, 1, PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK, 0, 1, NULL);
	PTEST_EXPECT_EQ(phyllo_arq_take_events(&a), PHYLLO_EV_ROOM);
	peer_raw(syn, sizeof(syn), 2, NULL);		/* the peer restarted */
	PTEST_EXPECT_EQ(phyllo_arq_take_events(&a),
			PHYLLO_EV_RESET | PHYLLO_EV_ROOM | PHYLLO_EV_OPEN);
	PTEST_EXPECT_EQ(stats.tx_reset_lost, 1);
}

/* Found by fuzz_stack: without a handshake no peer nonce was ever learnt,
 * and a SYN with nonce 0 passed for a repeat of the session's own SYN. */
static void arq_syn_nonce_zero_with_no_nonce_learnt_is_a_restart(void)
{
	static const uint8_t syn0[] = { 0, 0, PHYLLO_FLAG_SYN, 0, 4, 0, 0, 0, 0 };

	arq_fresh(false, 4);
	peer(0, 0, 0, 0x60, 1, NULL);
	PTEST_EXPECT_EQ(a.rx_next, 1);
	peer_raw(syn0, sizeof(syn0), 2, NULL);
	PTEST_EXPECT_EQ(stats.sessions, 2);
	PTEST_EXPECT_EQ(stats.peer_resets, 1);
	PTEST_EXPECT_EQ(a.rx_next, 0);
}

/* Polls as asked until `until` with no peer, counting the SYNs in *syns
 * and the gap before the last in *gap; returns the last SYN's time. */
static uint32_t syn_silence(uint32_t *now, uint32_t until, uint32_t last, uint32_t *gap,
			    unsigned int *syns)
{
	while (*now < until) {
		unsigned int before = log_n;
		uint16_t next = phyllo_arq_poll(&a, *now);

		if (log_n != before) {
			(*syns)++;
			*gap = *now - last;
			last = *now;
		}
		*now += next ? next : 1;
	}
	return last;
}

/* Finding (issue 24): with no peer, a SYN went out every rto_max_ms
 * forever. The retries now grow twofold on to PHYLLO_ARQ_SYN_IDLE_MS, and a
 * peer that appears is answered at once. */
static void arq_syn_retries_back_off_with_no_peer(void)
{
	static const uint8_t syn[] = { 0x09, 0, PHYLLO_FLAG_SYN, 0, 4, 0, 0, 0, 0x09 };
	uint32_t now = 0, last = 0, gap = 0;
	unsigned int syns = 0;

	arq_fresh(true, 4);
	last = syn_silence(&now, 600000u, last, &gap, &syns);
	PTEST_EXPECT_EQ(gap, PHYLLO_ARQ_SYN_IDLE_MS);
	PTEST_EXPECT(syns < 40);
	/* and no poll is asked for before the next SYN is due */
	PTEST_EXPECT_EQ(phyllo_arq_poll(&a, last + 1), PHYLLO_ARQ_SYN_IDLE_MS - 1);
	log_n = 0;
	peer_raw(syn, sizeof(syn), now, NULL);
	PTEST_EXPECT_EQ(a.state, PHYLLO_ARQ_SYN_SENT);
	/* our SYN and the SYN|ACK, in the same poll, not at the next retry */
	PTEST_EXPECT_EQ(log_n, 2);
	PTEST_EXPECT_EQ(log_hdr[0][2], PHYLLO_FLAG_SYN);
}

/* Finding: a connecting side that had backed off to the idle bound kept
 * it while the peer was heard (units resent into a session it had given
 * up: a cable back after minutes), so the link stayed down for up to
 * PHYLLO_ARQ_SYN_IDLE_MS. While the peer is heard, SYNs now go at most
 * rto_max_ms apart; once it falls silent they back off again. */
static void arq_syn_retries_quicken_while_the_peer_is_heard(void)
{
	uint32_t now = 0, last, gap = 0, first_heard;
	unsigned int before, syns = 0;

	arq_fresh(true, 4);
	last = syn_silence(&now, 600000u, 0, &gap, &syns);
	PTEST_EXPECT_EQ(gap, PHYLLO_ARQ_SYN_IDLE_MS);
	first_heard = now;
	syns = 0;
	for (gap = 0; now < first_heard + 10000u; now += 100) {
		before = log_n;
		PTEST_EXPECT_EQ(peer(0, 0, 0, 0x60, now, NULL), PHYLLO_E_NOSESSION);
		if (log_n != before) {
			if (!syns)	/* the first SYN: with the peer's first frame */
				PTEST_EXPECT_EQ(now, first_heard);
			else if (now - last > gap)
				gap = now - last;
			syns++;
			last = now;
		}
	}
	PTEST_EXPECT_EQ(gap, a.cfg.rto_max_ms);
	PTEST_EXPECT_EQ(syns, 10000u / a.cfg.rto_max_ms);
	syn_silence(&now, now + 600000u, last, &gap, &syns);
	PTEST_EXPECT_EQ(gap, PHYLLO_ARQ_SYN_IDLE_MS);
}

static const struct ptest_case session_cases[] = {
	PTEST_CASE(arq_rst_without_this_sessions_nonces_is_stale),
	PTEST_CASE(arq_stray_synack_keeps_session_and_window),
	PTEST_CASE(arq_delayed_syn_of_previous_peer_is_stale),
	PTEST_CASE(arq_refuse_unaccepts_and_asks_again),
	PTEST_CASE(arq_nak_burst_resends_once_per_poll),
	PTEST_CASE(arq_backoff_ends_on_progress),
	PTEST_CASE(arq_rto_floor_has_variance_and_line_time),
	PTEST_CASE(arq_events_tell_open_reset_and_room),
	PTEST_CASE(arq_syn_nonce_zero_with_no_nonce_learnt_is_a_restart),
	PTEST_CASE(arq_syn_retries_back_off_with_no_peer),
	PTEST_CASE(arq_syn_retries_quicken_while_the_peer_is_heard),
};

PTEST_SUITE(phyllo_suite_session, "phyllo_session", session_cases);
