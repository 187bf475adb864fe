// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * host_lossy.c - two standard-preset stacks joined in memory by a seeded
 * channel that drops, corrupts, duplicates and reorders frames. Simulated
 * time in 1 ms steps, so every run is the same run.
 *
 * Checks: every message arrives exactly once and in order; across peer
 * restarts, only units the sender reported lost (stats.tx_reset_lost) may be
 * missing, and none sent after the new session began.
 */
#include <string.h>
#include "ptest.h"
#include "phyllo_stack.h"

#define QMAX 256
#define FRAME_MAX (PHYLLO_WIRE_MAX + 8)

struct frame {
	uint32_t due;
	uint16_t len;
	uint8_t b[FRAME_MAX];
};

/* One direction of the channel: a pending frame being written, and the
 * frames in flight ordered by delivery time. */
struct pipe {
	uint8_t cur[FRAME_MAX];
	uint16_t cur_len;
	struct frame q[QMAX];
	unsigned int n;
	uint32_t drops, corrupts, dups;
};

struct peer {
	struct phyllo_stack st;
	struct pipe *tx;
	uint32_t next_send;	/* counter of the next message to send */
	uint32_t epoch;		/* bumped at every restart of this peer */
	uint32_t next_recv;	/* lowest counter acceptable from the other side */
	uint32_t received, missing, last_sessions, mark;
	uint32_t peer_epoch;
	bool order_error;
};

static struct pipe pipes[2];
static struct peer peers[2];
static uint32_t now, rng;
static unsigned int pct_drop, pct_corrupt, pct_dup, pct_reorder;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static void pipe_push(struct pipe *p, const uint8_t *b, uint16_t len, uint32_t due)
{
	unsigned int i;

	if (p->n == QMAX)
		return;	/* a full channel drops, like a line */
	i = p->n++;
	while (i > 0 && p->q[i - 1].due > due) {
		p->q[i] = p->q[i - 1];
		i--;
	}
	p->q[i].due = due;
	p->q[i].len = len;
	memcpy(p->q[i].b, b, len);
}

/* A whole frame came out of a stack: apply the faults, then queue it. */
static void pipe_frame(struct pipe *p)
{
	uint32_t due = now + 1 + rnd() % 2;

	if (rnd() % 100 < pct_drop) {
		p->drops++;
		return;
	}
	if (rnd() % 100 < pct_corrupt) {
		p->cur[1 + rnd() % (p->cur_len - 2)] ^= (uint8_t)(1 << (rnd() % 8));
		p->corrupts++;
	}
	if (rnd() % 100 < pct_reorder)
		due += 3;	/* overtaken by the frames sent after it */
	pipe_push(p, p->cur, p->cur_len, due);
	if (rnd() % 100 < pct_dup) {
		p->dups++;
		pipe_push(p, p->cur, p->cur_len, due + 1);
	}
}

static void sink_write(void *ctx, const uint8_t *buf, uint16_t n)
{
	struct pipe *p = ctx;

	if (p->cur_len + n > FRAME_MAX) {	/* the core never writes more */
		PTEST_EXPECT(p->cur_len + n <= FRAME_MAX);
		p->cur_len = 0;
		return;
	}
	memcpy(p->cur + p->cur_len, buf, n);
	p->cur_len += n;
	/* frames are written as 00 ... 00: the closing delimiter ends one */
	if (n == 1 && buf[0] == 0 && p->cur_len > 1) {
		pipe_frame(p);
		p->cur_len = 0;
	}
}

static void peer_start(struct peer *pe, int side, uint8_t nonce)
{
	struct phyllo_arq_config cfg = PHYLLO_ARQ_CONFIG_DEFAULT;
	struct phyllo_out out = { sink_write, &pipes[side] };

	cfg.window = 8;
	pe->tx = &pipes[side];
	pe->tx->cur_len = 0;
	PTEST_EXPECT_EQ(phyllo_stack_init(&pe->st, PHYLLO_PRESET_STANDARD, &cfg, &out, nonce, now), 0);
	pe->last_sessions = 0;
}

/* Message: epoch (4) + counter (4) + filler whose length depends on it. */
static uint16_t msg_build(uint8_t *m, uint32_t epoch, uint32_t counter)
{
	uint16_t len = (uint16_t)(8 + counter % 200), i;

	memcpy(m, &epoch, 4);
	memcpy(m + 4, &counter, 4);
	for (i = 8; i < len; i++)
		m[i] = (uint8_t)(counter + i);
	return len;
}

static void peer_got(struct peer *pe, const struct phyllo_unit *u)
{
	uint32_t epoch, counter;
	uint8_t expect[PHYLLO_RELIABLE_MAX];

	memcpy(&epoch, u->data, 4);
	memcpy(&counter, u->data + 4, 4);
	if (u->len != msg_build(expect, epoch, counter) || memcmp(expect, u->data, u->len)) {
		pe->order_error = true;
		return;
	}
	if (epoch != pe->peer_epoch) {	/* the sender restarted: counters anew */
		pe->peer_epoch = epoch;
		pe->next_recv = 0;
	}
	if (counter < pe->next_recv)
		pe->order_error = true;	/* duplicate or reordered */
	pe->missing += counter - pe->next_recv;
	pe->next_recv = counter + 1;
	pe->received++;
}

static void deliver(struct pipe *p, struct peer *to)
{
	while (p->n && p->q[0].due <= now) {
		struct frame f = p->q[0];
		uint16_t used = 0;

		memmove(&p->q[0], &p->q[1], (p->n - 1) * sizeof(p->q[0]));
		p->n--;
		while (used < f.len) {
			struct phyllo_unit u;
			bool got;

			used += phyllo_stack_receive(&to->st, f.b + used, f.len - used, now, &u, &got);
			if (got)
				peer_got(to, &u);
		}
	}
}

static void peer_step(struct peer *pe, uint32_t total)
{
	uint8_t m[PHYLLO_RELIABLE_MAX];

	/* a new session of ours: what we send from here on must all arrive */
	if (pe->st.stats.sessions != pe->last_sessions) {
		pe->last_sessions = pe->st.stats.sessions;
		pe->mark = pe->next_send;
	}
	while (pe->next_send < total && phyllo_stack_room(&pe->st)) {
		uint16_t len = msg_build(m, pe->epoch, pe->next_send);

		if (phyllo_stack_send(&pe->st, 0x60, m, len, true, now) != 0)
			break;
		pe->next_send++;
	}
	phyllo_stack_poll(&pe->st, now);
}

static void run_setup(uint32_t seed, unsigned int drop, unsigned int corrupt,
		      unsigned int dup, unsigned int reorder)
{
	memset(pipes, 0, sizeof(pipes));
	memset(peers, 0, sizeof(peers));
	rng = seed;
	now = 0;
	pct_drop = drop;
	pct_corrupt = corrupt;
	pct_dup = dup;
	pct_reorder = reorder;
	peer_start(&peers[0], 0, 0x11);
	peer_start(&peers[1], 1, 0x22);
}

/* Run until both sides have sent total and everything is acknowledged. */
static bool run_until(uint32_t total, uint32_t restart_at, int restart_who)
{
	uint32_t limit = now + 4000000;

	while (now < limit) {
		int i;

		if (restart_at && peers[0].received >= restart_at) {
			for (i = 0; i < 2; i++) {
				if (restart_who != i && restart_who != 2)
					continue;
				peers[i].epoch++;
				peers[i].next_send = 0;
				peer_start(&peers[i], i, (uint8_t)(0x30 + peers[i].epoch));
			}
			restart_at = 0;
		}
		deliver(&pipes[0], &peers[1]);
		deliver(&pipes[1], &peers[0]);
		for (i = 0; i < 2; i++)
			peer_step(&peers[i], total);
		if (peers[0].next_send == total && peers[1].next_send == total &&
		    phyllo_stack_idle(&peers[0].st) && phyllo_stack_idle(&peers[1].st) &&
		    !pipes[0].n && !pipes[1].n)
			return true;
		now++;
	}
	return false;
}

static void expect_exactly_once(int rx, int tx, uint32_t total)
{
	struct peer *r = &peers[rx], *t = &peers[tx];

	if (r->order_error || r->next_recv != total)
		PTEST_LOG("    peer %d: order_error %d next_recv %lu received %lu missing %lu\n", rx,
		       r->order_error, (unsigned long)r->next_recv, (unsigned long)r->received,
		       (unsigned long)r->missing);
	PTEST_EXPECT(!r->order_error);
	PTEST_EXPECT_EQ(r->next_recv, total);
	/* only units the sender reported lost may be missing */
	PTEST_EXPECT(r->missing <= t->st.stats.tx_reset_lost);
}

static void lossy_100k_each_way_exactly_once_in_order(void)
{
	const uint32_t total = 100000 / PTEST_SCALE;

	run_setup(0xC0FFEEu, 5, 10, 1, 2);
	PTEST_EXPECT(run_until(total, 0, -1));
	expect_exactly_once(1, 0, total);
	expect_exactly_once(0, 1, total);
	PTEST_EXPECT_EQ(peers[0].missing + peers[1].missing, 0);
	PTEST_EXPECT_EQ(peers[0].st.stats.sessions, 1);
	PTEST_EXPECT_EQ(peers[1].st.stats.sessions, 1);
	/* the faults really happened, and the receivers saw them */
	PTEST_EXPECT(pipes[0].drops > total / 40 && pipes[0].corrupts > total / 20);
	PTEST_EXPECT(pipes[0].dups > 0 && pipes[1].dups > 0);
	PTEST_EXPECT(peers[1].st.stats.rx_crc + peers[1].st.stats.rx_framing +
		     peers[1].st.stats.rx_length > 0);
	PTEST_EXPECT(peers[1].st.stats.rx_dup > 0 && peers[1].st.stats.rx_seq > 0);
	PTEST_EXPECT(peers[0].st.stats.tx_retransmits > 0);
	PTEST_LOG("    lossy: %lu ms simulated, A->B frames dropped %lu corrupted %lu duplicated %lu, "
	       "retransmits %lu\n", (unsigned long)now, (unsigned long)pipes[0].drops,
	       (unsigned long)pipes[0].corrupts, (unsigned long)pipes[0].dups,
	       (unsigned long)peers[0].st.stats.tx_retransmits);
}

/* who: 0 or 1 restarts alone, 2 both at once. */
static void lossy_restart(int who)
{
	const uint32_t total = 20000;
	int i;

	run_setup(0xBADC0DEu + (uint32_t)who, 5, 10, 1, 2);
	PTEST_EXPECT(run_until(total, 5000, who));
	for (i = 0; i < 2; i++) {
		struct peer *r = &peers[i], *t = &peers[!i];

		PTEST_EXPECT(!r->order_error);
		PTEST_EXPECT_EQ(r->next_recv, total);
		PTEST_EXPECT_EQ(r->peer_epoch, t->epoch);
		/* the survivor's losses are all from before its new session */
		PTEST_EXPECT(r->missing <= t->st.stats.tx_reset_lost ||
			     (who == !i || who == 2));
	}
	/* a survivor saw exactly one peer reset and two sessions */
	for (i = 0; i < 2; i++) {
		if (who == i || who == 2)
			continue;
		PTEST_EXPECT_EQ(peers[i].st.stats.peer_resets, 1);
		PTEST_EXPECT_EQ(peers[i].st.stats.sessions, 2);
		PTEST_EXPECT(peers[i].mark > 0);
	}
}

static void lossy_restart_first_peer(void)
{
	lossy_restart(0);
}

static void lossy_restart_second_peer(void)
{
	lossy_restart(1);
}

static void lossy_restart_both_peers(void)
{
	lossy_restart(2);
}

static const struct ptest_case lossy_cases[] = {
	PTEST_CASE(lossy_100k_each_way_exactly_once_in_order),
	PTEST_CASE(lossy_restart_first_peer),
	PTEST_CASE(lossy_restart_second_peer),
	PTEST_CASE(lossy_restart_both_peers),
};

PTEST_SUITE(phyllo_suite_lossy, "phyllo_lossy", lossy_cases);
