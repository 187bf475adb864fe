// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * test_arq.c - the reliable layer against a scripted peer: handshake,
 * window, NAK, timeout resend, restart detection, hold, flags and
 * truncation. Every unit the layer sends is captured; the test plays the
 * peer by hand. When it acknowledges and how it times what it sent (ACK
 * rules, duplicates, wrap, RTT): test_arq_ack.c.
 */
#include "test_arq_harness.h"

static void arq_handshake_opens_on_synack(void)
{
	arq_fresh(true, 4);
	phyllo_arq_poll(&a, 0);
	PTEST_EXPECT_EQ(log_n, 1);
	PTEST_EXPECT_EQ(log_hdr[0][0], 0x42);
	PTEST_EXPECT_EQ(log_hdr[0][2], PHYLLO_FLAG_SYN);
	PTEST_EXPECT_EQ(a.state, PHYLLO_ARQ_SYN_SENT);
	/* a SYN|ACK for someone else's SYN is ignored */
	PTEST_EXPECT_EQ(peer(0x77, 0x41, PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK, 0, 1, NULL), 0);
	PTEST_EXPECT_EQ(a.state, PHYLLO_ARQ_SYN_SENT);
	PTEST_EXPECT_EQ(peer(0x77, 0x42, PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK, 0, 1, NULL), 0);
	PTEST_EXPECT_EQ(a.state, PHYLLO_ARQ_OPEN);
	PTEST_EXPECT_EQ(stats.sessions, 1);
}

static void arq_answers_syn_and_backs_off(void)
{
	arq_fresh(true, 4);
	phyllo_arq_poll(&a, 0);
	phyllo_arq_poll(&a, 100);
	phyllo_arq_poll(&a, 150);	/* interval doubled to 200: nothing */
	PTEST_EXPECT_EQ(log_n, 2);
	phyllo_arq_poll(&a, 300);
	PTEST_EXPECT_EQ(log_n, 3);
	log_n = 0;
	/* a peer's SYN is answered, and ours goes again at once, not after
	 * the backoff; the session opens on the answer to ours */
	PTEST_EXPECT_EQ(peer(0x99, 0, PHYLLO_FLAG_SYN, 0, 301, NULL), 0);
	PTEST_EXPECT_EQ(a.state, PHYLLO_ARQ_SYN_SENT);
	PTEST_EXPECT_EQ(log_n, 2);
	PTEST_EXPECT_EQ(log_hdr[0][0], 0x42);
	PTEST_EXPECT_EQ(log_hdr[0][2], PHYLLO_FLAG_SYN);
	PTEST_EXPECT_EQ(log_hdr[1][0], 0x42);
	PTEST_EXPECT_EQ(log_hdr[1][1], 0x99);
	PTEST_EXPECT_EQ(log_hdr[1][2], PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK);
	PTEST_EXPECT_EQ(peer(0x99, 0x42, PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK, 0, 302, NULL), 0);
	PTEST_EXPECT_EQ(a.state, PHYLLO_ARQ_OPEN);
	PTEST_EXPECT_EQ(stats.sessions, 1);
}

/*
 * Finding (issue 35's replug storm): a connecting side opened on any SYN.
 * A tty moved to a named link met a SYN the board had sent before it
 * opened a session with the tty's own link; the named link opened on it
 * at seq 0 and took the units of the board's other session, and once the
 * board's own reset to the named link's SYN had set its seq back to 0,
 * the board's next units looked like repeats: acknowledged, never
 * delivered. A connecting side now opens only on the answer to its SYN.
 */
static void arq_connecting_side_opens_only_on_its_answer(void)
{
	struct phyllo_unit u;

	arq_fresh(true, 4);
	phyllo_arq_poll(&a, 0);
	log_n = 0;
	PTEST_EXPECT_EQ(peer(0x99, 0, PHYLLO_FLAG_SYN, 0, 1, NULL), 0);
	PTEST_EXPECT_EQ(a.state, PHYLLO_ARQ_SYN_SENT);
	/* the answer alone: our SYN's first retry is near (100 ms) */
	PTEST_EXPECT_EQ(log_n, 1);
	PTEST_EXPECT_EQ(log_hdr[0][2], PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK);
	log_n = 0;
	/* the peer's units of its other session: not taken, not acknowledged */
	PTEST_EXPECT_EQ(peer(0, 0, PHYLLO_FLAG_ACK, 0x60, 2, &u), PHYLLO_E_NOSESSION);
	PTEST_EXPECT_EQ(peer(1, 0, PHYLLO_FLAG_ACK, 0x60, 3, &u), PHYLLO_E_NOSESSION);
	PTEST_EXPECT_EQ(log_n, 0);
	PTEST_EXPECT_EQ(a.rx_next, 0);
	/* the peer's answer to our SYN: it starts at seq 0 from here */
	PTEST_EXPECT_EQ(peer(0x99, 0x42, PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK, 0, 4, NULL), 0);
	PTEST_EXPECT_EQ(a.state, PHYLLO_ARQ_OPEN);
	PTEST_EXPECT_EQ(peer(0, 0, PHYLLO_FLAG_ACK, 0x60, 5, &u), 1);
	PTEST_EXPECT_EQ(a.rx_next, 1);
	PTEST_EXPECT_EQ(stats.sessions, 1);
	PTEST_EXPECT_EQ(stats.peer_resets, 0);
}

/* A side not yet polled answers a SYN as a connecting side does. */
static void arq_closed_side_answers_syn_and_connects(void)
{
	arq_fresh(true, 4);
	PTEST_EXPECT_EQ(peer(0x99, 0, PHYLLO_FLAG_SYN, 0, 0, NULL), 0);
	PTEST_EXPECT_EQ(a.state, PHYLLO_ARQ_SYN_SENT);
	PTEST_EXPECT_EQ(log_n, 2);
	PTEST_EXPECT_EQ(log_hdr[0][2], PHYLLO_FLAG_SYN);
	PTEST_EXPECT_EQ(log_hdr[1][2], PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK);
	PTEST_EXPECT_EQ(peer(0x99, 0x42, PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK, 0, 1, NULL), 0);
	PTEST_EXPECT_EQ(a.state, PHYLLO_ARQ_OPEN);
}

static void arq_queues_before_open_and_sends_on_open(void)
{
	arq_fresh(true, 4);
	phyllo_arq_poll(&a, 0);
	log_n = 0;
	PTEST_EXPECT_EQ(phyllo_arq_send(&a, 0x60, (const uint8_t *)"x", 1, 0), 0);
	PTEST_EXPECT_EQ(log_n, 0);
	peer(0x77, 0x42, PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK, 0, 5, NULL);
	/* the answer to the peer's SYN (which a connecting peer opens on),
	 * then the queued unit
	 */
	PTEST_EXPECT_EQ(log_n, 2);
	PTEST_EXPECT_EQ(log_hdr[0][1], 0x77);
	PTEST_EXPECT_EQ(log_hdr[0][2], PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK);
	PTEST_EXPECT_EQ(log_hdr[1][0], 0);
	PTEST_EXPECT_EQ(log_hdr[1][2], PHYLLO_FLAG_ACK);
	PTEST_EXPECT_EQ(log_hdr[1][3], 0x60);
}

static void arq_window_full_returns_again(void)
{
	uint8_t i;

	arq_open_by_hand(3);
	for (i = 0; i < 3; i++)
		PTEST_EXPECT_EQ(phyllo_arq_send(&a, 0x60, &i, 1, 0), 0);
	PTEST_EXPECT_EQ(phyllo_arq_room(&a), 0);
	PTEST_EXPECT_EQ(phyllo_arq_send(&a, 0x60, &i, 1, 0), PHYLLO_E_AGAIN);
	/* the peer acknowledges two: two slots free, totals follow */
	peer(0, 2, PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK, 0, 10, NULL);
	PTEST_EXPECT_EQ(phyllo_arq_room(&a), 2);
	PTEST_EXPECT_EQ(a.tx_queued_total, 3);
	PTEST_EXPECT_EQ(a.tx_retired_total, 2);
	PTEST_EXPECT_EQ(phyllo_arq_send(&a, 0x60, &i, 1, 10), 0);
	PTEST_EXPECT_EQ(log_hdr[3][0], 3);
	PTEST_EXPECT_EQ(phyllo_arq_send(&a, 0x60, &i, 244, 10), PHYLLO_E_TOOBIG);
	PTEST_EXPECT_EQ(phyllo_arq_send(&a, 0x05, &i, 1, 10), PHYLLO_E_INVAL);
}

static void arq_timeout_resends_whole_window_in_order(void)
{
	uint8_t i;

	arq_open_by_hand(4);
	for (i = 0; i < 3; i++)
		phyllo_arq_send(&a, 0x60, &i, 1, 0);
	log_n = 0;
	phyllo_arq_poll(&a, 99);
	PTEST_EXPECT_EQ(log_n, 0);
	phyllo_arq_poll(&a, 100);
	PTEST_EXPECT_EQ(log_n, 3);
	for (i = 0; i < 3; i++)
		PTEST_EXPECT_EQ(log_hdr[i][0], i);
	PTEST_EXPECT_EQ(stats.tx_timeouts, 1);
	PTEST_EXPECT_EQ(stats.tx_retransmits, 3);
	PTEST_EXPECT_EQ(a.rto, 200);	/* backed off */
}

static void arq_nak_resends_once_until_progress(void)
{
	uint8_t i;

	arq_open_by_hand(4);
	for (i = 0; i < 4; i++)
		phyllo_arq_send(&a, 0x60, &i, 1, 0);
	log_n = 0;
	peer(0, 1, PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK | PHYLLO_FLAG_NAK, 0, 5, NULL);
	PTEST_EXPECT_EQ(log_n, 3);
	PTEST_EXPECT_EQ(log_hdr[0][0], 1);
	peer(0, 1, PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK | PHYLLO_FLAG_NAK, 0, 6, NULL);
	PTEST_EXPECT_EQ(log_n, 3);
	PTEST_EXPECT_EQ(stats.rx_naks, 2);
	peer(0, 2, PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK | PHYLLO_FLAG_NAK, 0, 7, NULL);
	PTEST_EXPECT_EQ(log_n, 5);
}

static void arq_out_of_order_dropped_with_one_nak(void)
{
	struct phyllo_unit u;

	arq_open_by_hand(4);
	PTEST_EXPECT_EQ(peer(1, 0, PHYLLO_FLAG_ACK, 0x60, 1, &u), PHYLLO_E_SEQ);
	PTEST_EXPECT_EQ(peer(2, 0, PHYLLO_FLAG_ACK, 0x60, 1, &u), PHYLLO_E_SEQ);
	PTEST_EXPECT_EQ(log_n, 1);
	PTEST_EXPECT_EQ(log_hdr[0][1], 0);
	PTEST_EXPECT_EQ(log_hdr[0][2], PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK | PHYLLO_FLAG_NAK);
	PTEST_EXPECT_EQ(stats.tx_naks, 1);
	PTEST_EXPECT_EQ(peer(0, 0, PHYLLO_FLAG_ACK, 0x60, 2, &u), 1);
	PTEST_EXPECT(u.type == 0x60 && u.len == 2 && u.data[0] == 0xAB);
}

static void arq_peer_restart_resets_and_reports_loss(void)
{
	uint8_t x = 0;

	arq_open_by_hand(4);
	phyllo_arq_send(&a, 0x60, &x, 1, 0);
	phyllo_arq_send(&a, 0x60, &x, 1, 0);
	peer(0, 0, PHYLLO_FLAG_ACK, 0x60, 1, NULL);
	/* a SYN with a new nonce: the peer restarted */
	PTEST_EXPECT_EQ(peer(0x78, 0, PHYLLO_FLAG_SYN, 0, 2, NULL), 0);
	PTEST_EXPECT_EQ(stats.peer_resets, 1);
	PTEST_EXPECT_EQ(stats.tx_reset_lost, 2);
	PTEST_EXPECT_EQ(stats.sessions, 2);
	PTEST_EXPECT_EQ(a.tx_retired_total, 2);
	PTEST_EXPECT_EQ(a.rx_next, 0);
	PTEST_EXPECT_EQ(a.tx_count, 0);
}

static void arq_repeated_syn_answered_without_reset(void)
{
	uint8_t x = 0;

	arq_fresh(true, 4);
	peer(0x55, 0, PHYLLO_FLAG_SYN, 0, 0, NULL);
	peer(0x55, 0x42, PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK, 0, 0, NULL);
	log_n = 0;
	peer(0x55, 0, PHYLLO_FLAG_SYN, 0, 1, NULL);
	PTEST_EXPECT_EQ(stats.sessions, 1);
	PTEST_EXPECT_EQ(stats.peer_resets, 0);
	PTEST_EXPECT_EQ(log_n, 1);
	PTEST_EXPECT_EQ(log_hdr[0][2], PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK);
	/* even after data: a delayed copy of the session's SYN (a lossy,
	 * reordering link) must not reset it */
	peer(0, 0, PHYLLO_FLAG_ACK, 0x60, 2, NULL);
	phyllo_arq_send(&a, 0x60, &x, 1, 2);
	peer(0x55, 0, PHYLLO_FLAG_SYN, 0, 3, NULL);
	PTEST_EXPECT_EQ(stats.sessions, 1);
	PTEST_EXPECT_EQ(a.rx_next, 1);
	PTEST_EXPECT_EQ(a.tx_count, 1);
}

static void arq_syn_carries_32_bit_nonces(void)
{
	/* SYN from the peer: window 4, nonce 0x01020355 (low byte in seq) */
	static const uint8_t syn[] = { 0x55, 0, PHYLLO_FLAG_SYN, 0, 4, 0x01, 0x02, 0x03, 0x55 };
	/* the same low byte, another nonce: a restart, not a repeat */
	static const uint8_t syn2[] = { 0x55, 0, PHYLLO_FLAG_SYN, 0, 4, 0x09, 0x02, 0x03, 0x55 };
	/* its answer to our SYN: window, its nonce, ours (0x42) */
	static const uint8_t synack[] = { 0x55, 0x42, PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK, 0,
					  4, 0x01, 0x02, 0x03, 0x55, 0, 0, 0, 0x42 };
	struct phyllo_unit u;

	arq_fresh(true, 4);
	log_n = 0;
	PTEST_EXPECT_EQ(peer_raw(syn, sizeof(syn), 0, &u), 0);
	PTEST_EXPECT(a.peer_nonce == 0x01020355UL);
	PTEST_EXPECT_EQ(log_len[1], 9);		/* window, our nonce, theirs */
	PTEST_EXPECT_EQ(log_hdr[1][1], 0x55);
	PTEST_EXPECT_EQ(peer_raw(synack, sizeof(synack), 0, &u), 0);
	PTEST_EXPECT_EQ(stats.sessions, 1);
	PTEST_EXPECT_EQ(peer_raw(syn2, sizeof(syn2), 1, &u), 0);
	PTEST_EXPECT_EQ(stats.sessions, 2);
	PTEST_EXPECT_EQ(stats.peer_resets, 1);
}

/* RST payload: the sender's nonce, then the receiver's (0x77 and 0x42
 * in the session arq_open_by_hand() makes). */
static void arq_rst_restarts_handshake(void)
{
	static const uint8_t rst[] = { 0, 0, PHYLLO_FLAG_NOS | PHYLLO_FLAG_RST, 0,
				       0, 0, 0, 0x77, 0, 0, 0, 0x42 };

	arq_open_by_hand(4);
	PTEST_EXPECT_EQ(peer_raw(rst, sizeof(rst), 1, NULL), 0);
	PTEST_EXPECT_EQ(a.state, PHYLLO_ARQ_SYN_SENT);
	PTEST_EXPECT_EQ(log_n, 1);
	PTEST_EXPECT_EQ(log_hdr[0][2], PHYLLO_FLAG_SYN);
	PTEST_EXPECT_EQ(log_hdr[0][0], 0x43);	/* new nonce */
	PTEST_EXPECT_EQ(stats.rx_ctrl_stale, 0);
}

static void arq_hold_refuses_then_naks_on_release(void)
{
	struct phyllo_unit u;

	arq_open_by_hand(4);
	phyllo_arq_hold(&a, true);
	PTEST_EXPECT_EQ(peer(0, 0, PHYLLO_FLAG_ACK, 0x60, 1, &u), PHYLLO_E_HOLD);
	phyllo_arq_poll(&a, 50);
	PTEST_EXPECT_EQ(log_n, 0);	/* never acknowledged */
	phyllo_arq_hold(&a, false);
	PTEST_EXPECT_EQ(log_n, 0);		/* owed: the poll sends it */
	phyllo_arq_poll(&a, 50);
	PTEST_EXPECT_EQ(log_n, 1);
	PTEST_EXPECT_EQ(log_hdr[0][2], PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK | PHYLLO_FLAG_NAK);
	PTEST_EXPECT_EQ(peer(0, 0, PHYLLO_FLAG_ACK, 0x60, 51, &u), 1);
}

static void arq_unreliable_bypasses_sequence(void)
{
	struct phyllo_unit u;

	arq_open_by_hand(4);
	PTEST_EXPECT_EQ(peer(0x33, 0, PHYLLO_FLAG_NOS, 0x60, 1, &u), 1);
	PTEST_EXPECT_EQ(a.rx_next, 0);
	PTEST_EXPECT_EQ(phyllo_arq_send_unreliable(&a, 0x60, (const uint8_t *)"z", 1), 0);
	PTEST_EXPECT_EQ(log_hdr[0][2], PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK);
	PTEST_EXPECT_EQ(a.tx_count, 0);
}

static void arq_rejects_unknown_flags_and_truncation(void)
{
	static const uint8_t ext[] = { 0, 0, PHYLLO_FLAG_EXT | PHYLLO_FLAG_NOS, 0x60, 2, 9, 9, 0x55 };
	static const uint8_t ext_short[] = { 0, 0, PHYLLO_FLAG_EXT | PHYLLO_FLAG_NOS, 0x60, 5, 9 };
	struct phyllo_unit u;

	arq_open_by_hand(4);
	PTEST_EXPECT_EQ(peer(0, 0, PHYLLO_FLAG_FIN, 0x60, 1, &u), PHYLLO_E_FLAGS);
	PTEST_EXPECT_EQ(peer(0, 0, PHYLLO_FLAG_SAK, 0x60, 1, &u), PHYLLO_E_FLAGS);
	PTEST_EXPECT_EQ(phyllo_arq_receive(&a, ext, 3, 1, &u), PHYLLO_E_LENGTH);
	PTEST_EXPECT_EQ(phyllo_arq_receive(&a, ext_short, sizeof(ext_short), 1, &u), PHYLLO_E_LENGTH);
	/* the extension is skipped, the payload follows it */
	PTEST_EXPECT_EQ(phyllo_arq_receive(&a, ext, sizeof(ext), 1, &u), 1);
	PTEST_EXPECT(u.len == 1 && u.data[0] == 0x55);
}

static void arq_without_handshake_starts_open(void)
{
	struct phyllo_unit u;

	arq_fresh(false, 4);
	PTEST_EXPECT_EQ(a.state, PHYLLO_ARQ_OPEN);
	PTEST_EXPECT_EQ(peer(0, 0, 0, 0x60, 1, &u), 1);	/* public host: no ACK flag */
	PTEST_EXPECT_EQ(peer(5, 0, 0, 0x60, 1, &u), PHYLLO_E_SEQ);
}

static void arq_data_before_handshake_refused(void)
{
	struct phyllo_unit u;

	arq_fresh(true, 4);
	phyllo_arq_poll(&a, 0);
	PTEST_EXPECT_EQ(peer(0, 0, PHYLLO_FLAG_ACK, 0x60, 1, &u), PHYLLO_E_NOSESSION);
}

static void arq_max_retries_declares_link_lost(void)
{
	struct phyllo_arq_config cfg = PHYLLO_ARQ_CONFIG_DEFAULT;
	uint8_t x = 0;
	uint32_t t = 0;
	int i;

	cfg.max_retries = 3;
	memset(&stats, 0, sizeof(stats));
	phyllo_arq_init(&a, &cfg, &test_link, &stats, 0x42);
	phyllo_arq_poll(&a, 0);
	peer(0x77, 0x42, PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK, 0, 0, NULL);
	phyllo_arq_send(&a, 0x60, &x, 1, 0);
	for (i = 0; i < 20 && a.state == PHYLLO_ARQ_OPEN; i++) {
		t += 1000;
		phyllo_arq_poll(&a, t);
	}
	PTEST_EXPECT_EQ(a.state, PHYLLO_ARQ_SYN_SENT);
	PTEST_EXPECT_EQ(stats.tx_timeouts, 3);
	PTEST_EXPECT_EQ(stats.tx_reset_lost, 1);
}

static void arq_syn_carries_window_and_peer_limits_ours(void)
{
	static const uint8_t synack[] = { 0x77, 0x42, PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK, 0, 2 };
	struct phyllo_unit u;
	uint8_t i;

	arq_fresh(true, 4);
	phyllo_arq_poll(&a, 0);
	PTEST_EXPECT_EQ(log_len[0], 5);		/* our SYN: window 4 and nonce */
	for (i = 0; i < 4; i++)			/* queued before the answer */
		PTEST_EXPECT_EQ(phyllo_arq_send(&a, 0x60, &i, 1, 0), 0);
	log_n = 0;
	PTEST_EXPECT_EQ(peer_raw(synack, sizeof(synack), 1, &u), 0);
	/* the SYN|ACK, and the peer takes 2: two go out, two wait */
	PTEST_EXPECT_EQ(log_n, 3);
	PTEST_EXPECT_EQ(phyllo_arq_room(&a), 0);
	peer(0, 1, PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK, 0, 2, NULL);
	PTEST_EXPECT_EQ(log_n, 4);
	PTEST_EXPECT_EQ(log_hdr[3][0], 2);
	PTEST_EXPECT_EQ(a.tx_sent, 2);
}

static void arq_hold_until_room_checks_after_the_ack(void)
{
	struct phyllo_arq_config cfg = PHYLLO_ARQ_CONFIG_DEFAULT;
	struct phyllo_unit u;
	uint8_t x = 0;

	cfg.window = 2;
	cfg.hold_until_room = true;
	memset(&stats, 0, sizeof(stats));
	phyllo_arq_init(&a, &cfg, &test_link, &stats, 0x42);
	phyllo_arq_poll(&a, 0);
	peer(0x77, 0x42, PHYLLO_FLAG_SYN | PHYLLO_FLAG_ACK, 0, 0, NULL);
	phyllo_arq_send(&a, 0x60, &x, 1, 0);
	phyllo_arq_send(&a, 0x60, &x, 1, 0);		/* our window is full */
	/* data whose ACK frees a slot is taken: room after the ACK */
	PTEST_EXPECT_EQ(peer(0, 1, PHYLLO_FLAG_ACK, 0x60, 1, &u), 1);
	phyllo_arq_send(&a, 0x60, &x, 1, 1);		/* full again */
	/* data with no new ACK is refused, and not acknowledged */
	PTEST_EXPECT_EQ(peer(1, 1, PHYLLO_FLAG_ACK, 0x60, 2, &u), PHYLLO_E_HOLD);
	PTEST_EXPECT_EQ(a.rx_next, 1);
	log_n = 0;
	/* a pure ACK makes room: the refused unit is asked for at once */
	peer(0, 2, PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK, 0, 3, NULL);
	PTEST_EXPECT_EQ(log_n, 1);
	PTEST_EXPECT_EQ(log_hdr[0][2], PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK | PHYLLO_FLAG_NAK);
	PTEST_EXPECT_EQ(log_hdr[0][1], 1);
	PTEST_EXPECT_EQ(peer(1, 2, PHYLLO_FLAG_ACK, 0x60, 4, &u), 1);
}

static void arq_default_window_fits_window_max(void)
{
	static const struct phyllo_arq_config def = PHYLLO_ARQ_CONFIG_DEFAULT;

	PTEST_EXPECT(def.window >= 1 && def.window <= PHYLLO_ARQ_WINDOW_MAX);
}

static const struct ptest_case arq_cases[] = {
	PTEST_CASE(arq_hold_until_room_checks_after_the_ack),
	PTEST_CASE(arq_default_window_fits_window_max),
	PTEST_CASE(arq_syn_carries_window_and_peer_limits_ours),
	PTEST_CASE(arq_handshake_opens_on_synack),
	PTEST_CASE(arq_answers_syn_and_backs_off),
	PTEST_CASE(arq_connecting_side_opens_only_on_its_answer),
	PTEST_CASE(arq_closed_side_answers_syn_and_connects),
	PTEST_CASE(arq_queues_before_open_and_sends_on_open),
	PTEST_CASE(arq_window_full_returns_again),
	PTEST_CASE(arq_timeout_resends_whole_window_in_order),
	PTEST_CASE(arq_nak_resends_once_until_progress),
	PTEST_CASE(arq_out_of_order_dropped_with_one_nak),
	PTEST_CASE(arq_peer_restart_resets_and_reports_loss),
	PTEST_CASE(arq_repeated_syn_answered_without_reset),
	PTEST_CASE(arq_syn_carries_32_bit_nonces),
	PTEST_CASE(arq_rst_restarts_handshake),
	PTEST_CASE(arq_hold_refuses_then_naks_on_release),
	PTEST_CASE(arq_unreliable_bypasses_sequence),
	PTEST_CASE(arq_rejects_unknown_flags_and_truncation),
	PTEST_CASE(arq_without_handshake_starts_open),
	PTEST_CASE(arq_data_before_handshake_refused),
	PTEST_CASE(arq_max_retries_declares_link_lost),
};

PTEST_SUITE(phyllo_suite_arq, "phyllo_arq", arq_cases);
