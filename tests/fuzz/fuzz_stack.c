// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * fuzz_stack.c - libFuzzer target for the whole standard-preset stack
 * (core/phyllo_stack.h over core/phyllo_arq.h).
 *
 * The input is a script. Its first six bytes configure the run (window
 * 1..8, handshake on or off, one stack or two, link-loss retries, hold
 * until room, a clock that wraps, nonces); every later byte pair or group
 * is one operation. With one stack (L), the script plays L's peer:
 *   FRAME   a CRC-valid frame with any reliable flags (ACK NAK SYN RST NOS
 *           EXT, now and then FIN or SAK), seq/ack/type/payload chosen by
 *           the peer model below, fed in two pieces;
 *   BURST   2..12 such frames in one buffer;
 *   RAW     bytes as they come, then a delimiter;
 *   REPLAY  one of the last 16 frames again (a delayed duplicate);
 *   ADVANCE the clock by up to 8 s, then poll;  POLL;
 *   SEND    L's application sends a unit, reliable or not;
 *   HOLD    L's application holds or releases (phyllo_arq_hold), and/or
 *           refuses the next unit delivered (phyllo_stack_refuse).
 * Every receive call is followed by a poll, as the contract asks.
 * With two stacks (A and B) the script is the application of both and
 * a FIFO line between them that it delivers in pieces, drops frames from
 * or flips bits in; A and B are both checked.
 *
 * The peer model: the peer's reliable units are numbered k = 0, 1, ...
 * in each session of L; unit k always goes out with seq k mod 256 and the
 * same type and bytes (a tag naming the session and k, then filler), so a
 * retransmission is indistinguishable from the original, as on a real
 * line. The peer only sends units within 100 behind and 63 ahead of what L
 * expects (8-bit seq can tell those apart). SYN, SYN|ACK and RST name
 * the session's nonces, a new, the previous or any nonce, any window.
 *
 * Invariants (abort() with a message; see fuzz_stack.h for the bounds):
 *  - a unit of the peer is delivered at most once and in order within a
 *    session: the next delivered k is the next one not of an internal
 *    type; every unit L accepted (rx_next moved) was delivered, unless of
 *    an internal type; a duplicate is legal only across a session change
 *    (stats.sessions), or after raw bytes (which may hold any frame);
 *  - a NOS unit of the peer is delivered, exactly once per frame; a
 *    refused reliable unit is unaccepted (rx_next back), a NOS one cannot
 *    be refused;
 *  - two stacks: units of the other side arrive in order, at most once;
 *    after the script the line turns perfect: within 40 s (the SYN
 *    backoff's bound and 10 s) both sides are idle and every reliable
 *    unit arrived or was reported lost (no unit vanishes silently);
 *  - tx_sent <= tx_count <= window, nothing in flight outside a session,
 *    in flight <= the window the peer's opening SYN advertised (later
 *    SYNs change nothing);
 *  - output is whole valid frames after every call; receive writes
 *    nothing, send one frame, poll at most PHYLLO_ARQ_POLL_FRAMES(w); the
 *    whole run stays within the budget; the events taken after each call
 *    match what changed (EV_OPEN: a session opened, EV_RESET: an open one
 *    ended, EV_ROOM: units retired);
 *  - phyllo_stack_send() succeeds whenever phyllo_stack_room() says so;
 *    phyllo_stack_poll() asks to be called again within 1000 ms.
 */
#include "fuzz_stack.h"

enum { OP_FRAME, OP_FRAME2, OP_BURST, OP_RAW, OP_REPLAY, OP_ADVANCE, OP_POLL, OP_SEND, OP_HOLD,
       OP_N };
enum { OP2_SEND_A, OP2_SEND_B, OP2_TO_B, OP2_TO_A, OP2_ADVANCE, OP2_POLL_A, OP2_POLL_B,
       OP2_FAULT, OP2_N };

#define FZ_BACK_MAX 100		/* oldest unit the peer sends, behind L's next */
#define FZ_AHEAD_MAX 63		/* newest, ahead of it */
#define FZ_HISTORY 16
#define FZ_BURST_MAX 12
/* phyllo_arq_poll(): at most 1000, or the next SYN while no peer answers */
#define FZ_POLL_MAX_MS PHYLLO_ARQ_SYN_IDLE_MS
/*
 * Two stacks, after the script: the line made perfect for this long. A
 * side still connecting on a line gone quiet sends its next SYN up to
 * PHYLLO_ARQ_SYN_IDLE_MS after its last (the backoff for a silent line);
 * then 10 s for the session to move what is queued. (It was 20 s, from
 * before that backoff: a lost SYN|ACK late in a script then failed.)
 */
#define FZ_SETTLE_STEP_MS 100
#define FZ_SETTLE_ROUNDS ((PHYLLO_ARQ_SYN_IDLE_MS + 10000) / FZ_SETTLE_STEP_MS)

struct fz_hist {
	uint8_t buf[PHYLLO_WIRE_MAX];
	uint16_t len;
	uint16_t epoch;
	uint32_t k;
	bool data;		/* a reliable unit of the model */
};

/* The peer of L (one-stack mode) and what it knows of L's session. */
struct fz_peer {
	uint32_t nonce, prev_nonce, salt, nos_k;
	uint8_t win;
	uint16_t epoch;		/* model session: the tags' epoch */
	uint32_t sessions;	/* L's stats.sessions for this epoch */
	uint32_t rcv_u;		/* L's rx_next, unwrapped */
	uint32_t exp_k;		/* next unit L should deliver */
	uint32_t sess_nonce;
	uint8_t sess_win;
	struct fz_hist hist[FZ_HISTORY];
	uint8_t hist_at;
};

/* What the FRAME operation sent, for the checks after it. */
struct fz_meta {
	bool syn;
	uint32_t syn_nonce;	/* the nonce L reads from it */
	uint8_t syn_win;	/* window byte, 0 when absent */
	bool nos_unit;		/* a NOS unit L must deliver */
};

static struct {
	struct fz_node n[2];	/* L, or A and B */
	struct fz_wire w[2];	/* A to B, B to A */
	struct fz_peer peer;
	struct fz_meta meta;
	uint32_t now;
	uint64_t elapsed;
	bool two, handshake, hold_room, resync, refuse_next;
	int op;
	uint32_t nos_got;
} R;

static uint8_t fz_buf[FZ_BURST_MAX * PHYLLO_WIRE_MAX + 64];
static uint8_t fz_body[PHYLLO_RELIABLE_MAX];

static uint32_t fz_mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	return x ^ x >> 16;
}

static uint32_t unit_hash(uint16_t epoch, uint32_t k)
{
	return fz_mix(R.peer.salt ^ epoch * 0x9e3779b9u ^ k * 0x85ebca6bu);
}

/* One unit in sixteen has an internal type: accepted, never delivered. */
static uint8_t unit_type(uint32_t h)
{
	return (h & 15) == 0 ? (uint8_t)(h >> 4 & 0x0f) : (uint8_t)(0x10 + (h >> 8) % 0xf0);
}

static bool unit_internal(uint16_t epoch, uint32_t k)
{
	return unit_type(unit_hash(epoch, k)) <= PHYLLO_TYPE_INTERNAL_MAX;
}

static uint16_t unit_len(uint32_t h)
{
	return (uint16_t)(FZ_TAG_LEN + ((h >> 20 & 15) == 0 ? (h >> 24) % 236 : (h >> 24) % 24));
}

/* ------------------------------------------------------------------ */
/* Calls into the stack, each checked whole                            */

static void on_unit(struct fz_node *nd, const struct phyllo_unit *u);
static void peer_sync(void);
static void fz_poll(struct fz_node *nd);

static void fz_feed(struct fz_node *nd, const uint8_t *buf, uint16_t n)
{
	uint16_t at = 0;

	nd->in_total += n;
	while (at < n) {
		struct phyllo_unit u;
		bool got;
		uint16_t used;

		fz_call_begin(nd, "receive", FZ_RECEIVE_OUT_MAX);
		used = phyllo_stack_receive(&nd->st, buf + at, n - at, R.now, &u, &got);
		fz_call_end(nd);
		FUZZ_CHECK(used > 0 && used <= n - at, "receive used %u of %u", used, n - at);
		at += used;
		if (!R.two)
			peer_sync();
		if (got)
			on_unit(nd, &u);
		fz_poll(nd);	/* the contract: poll after every receive */
	}
}

static void fz_poll(struct fz_node *nd)
{
	uint16_t next;

	fz_call_begin(nd, "poll", FZ_POLL_OUT_MAX(nd->win));
	next = phyllo_stack_poll(&nd->st, R.now);
	fz_call_end(nd);
	FUZZ_CHECK(next <= FZ_POLL_MAX_MS, "node %c: poll again in %u ms", nd->name, next);
	if (!R.two)
		peer_sync();
}

static void fz_send(struct fz_node *nd, struct fuzz_in *in)
{
	uint8_t sel = fuzz_u8(in), type = (uint8_t)(0x10 + fuzz_u8(in) % 0xf0);
	uint16_t len = FZ_TAG_LEN + (sel & 0x80 ? fuzz_u8(in) % 236 : (sel >> 1) % 24);
	struct fz_tag t = { nd->name, sel & 1, 0, nd->app_next[sel & 1] };
	uint8_t room = phyllo_stack_room(&nd->st);
	int ret;

	if (t.k >= FZ_MAX_UNITS)
		return;
	fz_tag_fill(fz_body, len, &t);
	nd->app_next[t.reliable]++;	/* the unit may go out during the call */
	fz_call_begin(nd, "send", FZ_SEND_OUT_MAX);
	ret = phyllo_stack_send(&nd->st, type, fz_body, len, t.reliable, R.now);
	fz_call_end(nd);
	FUZZ_CHECK(ret == 0 || (t.reliable && !room && ret == PHYLLO_E_AGAIN),
		   "node %c: send of %u bytes with room %u: %d", nd->name, len, room, ret);
	if (ret == 0)
		nd->sends++;
	else
		nd->app_next[t.reliable]--;
	if (!R.two)
		peer_sync();
}

/* ------------------------------------------------------------------ */
/* Deliveries                                                          */

/* A unit of the peer model delivered by L. */
static void on_peer_unit(const struct phyllo_unit *u, const struct fz_tag *t)
{
	struct fz_peer *pe = &R.peer;
	uint32_t j;

	if (!t->reliable) {
		R.nos_got++;
		if (R.refuse_next)	/* a NOS unit cannot be refused */
			FUZZ_CHECK(phyllo_stack_refuse(&R.n[0].st) == PHYLLO_E_INVAL,
				   "a NOS unit was refused");
		R.refuse_next = false;
		return;
	}
	FUZZ_CHECK(u->type == unit_type(unit_hash(t->epoch, t->k)),
		   "unit %u delivered with type %#x", t->k, u->type);
	if (t->epoch != pe->epoch) {
		/* an old session's frame, delayed: legal only across sessions */
		FUZZ_CHECK(R.op == OP_BURST || R.op == OP_REPLAY,
			   "unit %u of session %u delivered in session %u", t->k, t->epoch,
			   pe->epoch);
		R.resync = true;
		return;
	}
	FUZZ_CHECK(t->k >= pe->exp_k, "unit %u delivered again (session %u, next expected %u)",
		   t->k, pe->epoch, pe->exp_k);
	for (j = pe->exp_k; j < t->k; j++)
		FUZZ_CHECK(unit_internal(pe->epoch, j),
			   "unit %u delivered, but unit %u before it never was (session %u)", t->k,
			   j, pe->epoch);
	if (R.refuse_next) {
		/* not taken after all: the peer keeps it, L asks again */
		R.refuse_next = false;
		FUZZ_CHECK(!phyllo_stack_refuse(&R.n[0].st), "refusing unit %u", t->k);
		pe->rcv_u--;
		FUZZ_CHECK(R.n[0].st.arq.rx_next == (uint8_t)pe->rcv_u,
			   "unit %u refused, rx_next still %u", t->k, R.n[0].st.arq.rx_next);
		return;
	}
	pe->exp_k = t->k + 1;
}

/* A unit of the other node delivered (two-stack mode). */
static void on_node_unit(struct fz_node *nd, const struct fz_tag *t)
{
	uint32_t sessions = nd->st.stats.sessions;

	if (!t->reliable) {
		FUZZ_CHECK(!nd->nos_any || t->k > nd->nos_last,
			   "node %c: NOS unit %u delivered after %u", nd->name, t->k, nd->nos_last);
		nd->nos_any = true;
		nd->nos_last = t->k;
		return;
	}
	if (sessions != nd->rx_sessions) {
		nd->rx_sessions = sessions;
		nd->rx_any = false;
	}
	FUZZ_CHECK(!nd->rx_any || t->k > nd->rx_last,
		   "node %c: unit %u delivered after unit %u in session %u", nd->name, t->k,
		   nd->rx_last, sessions);
	FUZZ_CHECK(t->k < FZ_MAX_UNITS && !(nd->seen[t->k / 8] & 1 << t->k % 8),
		   "node %c: unit %u delivered twice (FIFO line, no duplicates)", nd->name, t->k);
	nd->seen[t->k / 8] |= (uint8_t)(1 << t->k % 8);
	nd->rx_any = true;
	nd->rx_count++;
	nd->rx_last = t->k;
}

static void on_unit(struct fz_node *nd, const struct phyllo_unit *u)
{
	struct fz_tag t;
	bool tagged = fz_tag_read(u->data, u->len, &t);

	FUZZ_CHECK(u->type > PHYLLO_TYPE_INTERNAL_MAX, "node %c delivered type %#x", nd->name,
		   u->type);
	if (!R.two && R.op == OP_RAW) {
		R.resync = true;	/* raw bytes may hold any frame */
		return;
	}
	FUZZ_CHECK(tagged && t.kind == (R.two ? R.n[nd == R.n].name : FZ_KIND_PEER),
		   "node %c delivered a unit nobody sent (%u bytes, type %#x)", nd->name, u->len,
		   u->type);
	if (R.two)
		on_node_unit(nd, &t);
	else
		on_peer_unit(u, &t);
}

/* ------------------------------------------------------------------ */
/* The peer model (one-stack mode)                                     */

static void peer_set_limit(void)
{
	struct fz_node *L = &R.n[0];
	uint8_t w = R.peer.sess_win;

	L->limit = w && w < L->win ? w : L->win;
}

/* Follow L's session and rx_next after each call. */
static void peer_sync(void)
{
	struct fz_peer *pe = &R.peer;
	const struct phyllo_stack *s = &R.n[0].st;
	uint8_t d;

	if (s->stats.sessions != pe->sessions) {
		pe->sessions = s->stats.sessions;
		pe->epoch++;
		pe->rcv_u = s->arq.rx_next;
		pe->exp_k = 0;
		if (R.op == OP_FRAME && R.meta.syn) {
			pe->sess_nonce = R.meta.syn_nonce;
			pe->sess_win = R.meta.syn_win;
		} else {
			pe->sess_nonce = s->arq.peer_nonce;	/* from bytes we cannot read */
			pe->sess_win = s->arq.peer_window;
			R.resync = true;
		}
		peer_set_limit();
		return;
	}
	d = (uint8_t)(s->arq.rx_next - (uint8_t)pe->rcv_u);
	FUZZ_CHECK(d < 128, "L's rx_next went back from %u to %u within session %u",
		   (uint8_t)pe->rcv_u, s->arq.rx_next, pe->epoch);
	pe->rcv_u += d;
}

/* After each operation: what L accepted, it delivered. */
static void peer_settle(void)
{
	struct fz_peer *pe = &R.peer;
	uint32_t j;

	if (R.resync) {
		pe->exp_k = pe->rcv_u;
		R.resync = false;
	}
	FUZZ_CHECK(pe->exp_k <= pe->rcv_u, "L delivered unit %u but expects %u next",
		   pe->exp_k - 1, pe->rcv_u);
	for (j = pe->exp_k; j < pe->rcv_u; j++)
		FUZZ_CHECK(unit_internal(pe->epoch, j),
			   "L accepted unit %u (rx_next %u) but never delivered it", j, pe->rcv_u);
	if (R.op == OP_FRAME && R.meta.nos_unit)
		FUZZ_CHECK(R.nos_got == 1, "a NOS unit was delivered %u times", R.nos_got);
}

static uint8_t peer_ack(struct fuzz_in *in)
{
	const struct phyllo_arq *a = &R.n[0].st.arq;
	uint8_t sel = fuzz_u8(in);

	if (sel >= 0xf0)
		return fuzz_u8(in);
	return (uint8_t)(a->tx_base + sel % (a->tx_sent + 1));
}

/* A reliable unit of the model, near what L expects. */
static void peer_data(struct fuzz_in *in, struct fz_frame *f, struct fz_hist *h)
{
	struct fz_peer *pe = &R.peer;
	int32_t delta = (int8_t)fuzz_u8(in);
	int64_t k = (int64_t)pe->rcv_u + (delta < -FZ_BACK_MAX ? -FZ_BACK_MAX :
					  delta > FZ_AHEAD_MAX ? FZ_AHEAD_MAX : delta);
	uint32_t hsh;
	struct fz_tag t = { FZ_KIND_PEER, true, pe->epoch, 0 };

	t.k = k < 0 ? 0 : (uint32_t)k;
	hsh = unit_hash(pe->epoch, t.k);
	f->seq = (uint8_t)t.k;
	f->type = unit_type(hsh);
	f->nb = unit_len(hsh);
	fz_tag_fill(fz_body, f->nb, &t);
	h->data = true;
	h->epoch = pe->epoch;
	h->k = t.k;
}

/* A NOS or unknown-flag frame: a NOS unit if its type says so. */
static void peer_other(struct fuzz_in *in, struct fz_frame *f)
{
	struct fz_tag t = { FZ_KIND_PEER, false, R.peer.epoch, R.peer.nos_k++ };

	f->seq = fuzz_u8(in);
	f->type = fuzz_u8(in);
	f->nb = fuzz_u8(in) % 32;
	if (f->type > PHYLLO_TYPE_INTERNAL_MAX || f->nb >= FZ_TAG_LEN) {
		f->nb = FZ_TAG_LEN + f->nb % 24;
		fz_tag_fill(fz_body, f->nb, &t);
	} else {
		memset(fz_body, 0xa5, f->nb);
	}
	R.meta.nos_unit = f->flags == (f->flags & (PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK |
						   PHYLLO_FLAG_NAK | PHYLLO_FLAG_EXT)) &&
			  f->type > PHYLLO_TYPE_INTERNAL_MAX;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* The nonce a SYN names: the session's, a restarted peer's, any, L's own,
 * or the peer's previous one (a copy delivered late). */
static uint32_t peer_syn_nonce(struct fuzz_in *in, uint8_t sel)
{
	struct fz_peer *pe = &R.peer;

	switch (sel % 5) {
	case 0: return pe->nonce;
	case 1:
		pe->prev_nonce = pe->nonce;
		pe->nonce += 1 + fuzz_u8(in);
		pe->win = fuzz_u8(in);
		return pe->nonce;
	case 2: return fuzz_u32(in);
	case 3: return R.n[0].st.arq.local_nonce;
	default: return pe->prev_nonce;
	}
}

/* SYN or SYN|ACK: window, nonce and (for an answer) L's nonce echoed. Any
 * window: L learns it only from the SYN that opens a session. */
static void peer_syn(struct fuzz_in *in, struct fz_frame *f)
{
	static const uint8_t lens[3] = { 9, 5, 1 };
	uint8_t sel = fuzz_u8(in), sel2 = fuzz_u8(in);
	uint32_t nonce = peer_syn_nonce(in, sel & 7), local = R.n[0].st.arq.local_nonce;
	uint32_t echo = sel2 & 1 ? local ^ (1u + (sel2 >> 1)) : local;

	f->nb = (sel >> 3 & 3) < 3 ? lens[sel >> 3 & 3] : fuzz_u8(in) % 13;
	f->type = PHYLLO_TYPE_CONTROL;
	f->seq = sel & 0x40 ? fuzz_u8(in) : (uint8_t)nonce;
	f->ack = sel & 0x80 ? fuzz_u8(in) : (uint8_t)echo;
	memset(fz_body, 0, 13);
	fz_body[0] = sel & 0x20 ? fuzz_u8(in) : R.peer.win;
	put32(fz_body + 1, nonce);
	put32(fz_body + 5, echo);
	R.meta.syn = true;
	R.meta.syn_nonce = f->nb >= 5 ? nonce : f->seq;	/* the one L reads */
	R.meta.syn_win = f->nb ? fz_body[0] : 0;
}

/* RST: the sender's nonce and the receiver's, right or not. */
static void peer_rst(struct fuzz_in *in, struct fz_frame *f)
{
	uint8_t sel = fuzz_u8(in);
	uint32_t mine = sel & 1 ? fuzz_u32(in) : sel & 2 ? R.peer.prev_nonce : R.peer.sess_nonce;
	uint32_t yours = sel & 4 ? fuzz_u32(in) : R.n[0].st.arq.local_nonce;

	f->seq = fuzz_u8(in);
	f->type = sel & 8 ? fuzz_u8(in) : PHYLLO_TYPE_CONTROL;
	f->nb = sel & 0x10 ? fuzz_u8(in) % 13 : 8;
	memset(fz_body, 0, 13);
	put32(fz_body, sel & 0x20 ? yours : mine);
	put32(fz_body + 4, sel & 0x20 ? mine : yours);
}

static uint8_t peer_flags(struct fuzz_in *in)
{
	static const uint8_t map[6] = { PHYLLO_FLAG_ACK, PHYLLO_FLAG_NAK, PHYLLO_FLAG_SYN,
					PHYLLO_FLAG_RST, PHYLLO_FLAG_NOS, PHYLLO_FLAG_EXT };
	uint8_t sel = fuzz_u8(in), flags = 0, i;

	for (i = 0; i < 6; i++)
		if (sel & 1 << i)
			flags |= map[i];
	if ((sel & 0xc0) == 0xc0)
		flags |= sel & 1 ? PHYLLO_FLAG_FIN : PHYLLO_FLAG_SAK;
	return flags;
}

/* Build one frame of the peer into out; record it for replays. */
static uint16_t peer_frame(struct fuzz_in *in, uint8_t *out)
{
	struct fz_peer *pe = &R.peer;
	struct fz_hist *h = &pe->hist[pe->hist_at++ % FZ_HISTORY];
	struct fz_frame f = { .body = fz_body };
	uint8_t ext;

	f.flags = peer_flags(in);
	f.ack = peer_ack(in);
	h->data = false;
	if (f.flags & PHYLLO_FLAG_SYN)
		peer_syn(in, &f);
	else if (f.flags & PHYLLO_FLAG_RST)
		peer_rst(in, &f);
	else if (f.flags & (PHYLLO_FLAG_NOS | PHYLLO_FLAG_RST | PHYLLO_FLAG_FIN | PHYLLO_FLAG_SAK))
		peer_other(in, &f);
	else
		peer_data(in, &f, h);
	if (f.flags & PHYLLO_FLAG_EXT) {
		ext = fuzz_u8(in);
		f.next = ext & 7;
		/* a length byte that lies runs past any frame: a reliable
		 * buffer has at most 247 bytes, and 4 + 1 + 248 > 247 */
		f.ext_decl = ext & 0x80 ? (uint8_t)(0xf8 | ext) : f.next;
		R.meta.nos_unit &= !(ext & 0x80);
	}
	if (fz_trace)
		fprintf(stderr, "  <P seq %3u ack %3u flags %#04x type %#04x len %u ext %u/%u\n",
			f.seq, f.ack, f.flags, f.type, f.nb, f.next, f.ext_decl);
	h->len = fz_frame_build(out, &f);
	memcpy(h->buf, out, h->len);
	return h->len;
}

/* ------------------------------------------------------------------ */
/* Operations                                                          */

static void op_frame(struct fuzz_in *in)
{
	uint16_t n = peer_frame(in, fz_buf), cut = fuzz_u8(in) % (n + 1);

	R.op = OP_FRAME;
	fz_feed(&R.n[0], fz_buf, cut);
	fz_feed(&R.n[0], fz_buf + cut, n - cut);
}

static void op_burst(struct fuzz_in *in)
{
	uint8_t count = 2 + fuzz_u8(in) % (FZ_BURST_MAX - 1), i;
	uint16_t n = 0;

	for (i = 0; i < count; i++)
		n += peer_frame(in, fz_buf + n);
	fz_feed(&R.n[0], fz_buf, n);
}

static void op_replay(struct fuzz_in *in)
{
	struct fz_peer *pe = &R.peer;
	const struct fz_hist *h = &pe->hist[fuzz_u8(in) % FZ_HISTORY];

	/* Only what a line could bring back: 8-bit seq tells units apart
	 * within FZ_BACK_MAX behind and FZ_AHEAD_MAX ahead. */
	if (!h->len || (h->data && h->epoch == pe->epoch &&
			(h->k + FZ_BACK_MAX < pe->rcv_u || h->k > pe->rcv_u + FZ_AHEAD_MAX)))
		return;
	memcpy(fz_buf, h->buf, h->len);
	if (fz_trace)
		fprintf(stderr, "  replay of %u bytes, %s unit %u of session %u\n", h->len,
			h->data ? "data" : "no", h->k, h->epoch);
	fz_feed(&R.n[0], fz_buf, h->len);
	/* an old session's unit may have been taken silently (internal type) */
	if (h->data && h->epoch != pe->epoch)
		R.resync = true;
}

static void op_advance(struct fuzz_in *in)
{
	uint8_t d = fuzz_u8(in);
	uint32_t ms = d & 0x80 ? (uint32_t)(d & 0x7f) << 6 : d;
	int i;

	R.now += ms;
	R.elapsed += ms;
	for (i = 0; i < (R.two ? 2 : 1); i++)
		fz_poll(&R.n[i]);
}

/* L's application: hold on or off, and/or refuse the next unit. */
static void op_hold(struct fuzz_in *in)
{
	uint8_t sel = fuzz_u8(in);

	if (sel & 1) {
		fz_call_begin(&R.n[0], "hold", 0);
		phyllo_arq_hold(&R.n[0].st.arq, sel & 2);
		fz_call_end(&R.n[0]);
		fz_poll(&R.n[0]);
	}
	R.refuse_next = sel & 4;
}

static void op_one(struct fuzz_in *in)
{
	uint16_t n;

	R.op = fuzz_u8(in) % OP_N;
	if (fz_trace)
		fprintf(stderr, "op %d at %u ms: L rx_next %u tx_base %u sent %u/%u state %u\n",
			R.op, R.now, R.n[0].st.arq.rx_next, R.n[0].st.arq.tx_base,
			R.n[0].st.arq.tx_sent, R.n[0].st.arq.tx_count, R.n[0].st.arq.state);
	R.meta = (struct fz_meta){ 0 };
	R.nos_got = 0;
	switch (R.op) {
	case OP_FRAME: case OP_FRAME2: op_frame(in); break;
	case OP_BURST: op_burst(in); break;
	case OP_RAW:
		/* closed by a delimiter: no frame of it completes later */
		n = (uint16_t)fuzz_bytes(in, fz_buf, fuzz_u8(in));
		fz_buf[n++] = PHYLLO_DELIMITER;
		fz_feed(&R.n[0], fz_buf, n);
		break;
	case OP_REPLAY: op_replay(in); break;
	case OP_ADVANCE: op_advance(in); break;
	case OP_POLL: fz_poll(&R.n[0]); break;
	case OP_SEND: fz_send(&R.n[0], in); break;
	default: op_hold(in); break;
	}
	peer_settle();
}

/* Two-stack mode: take bytes off the head of a line and deliver them. */
static void op_deliver(struct fuzz_in *in, struct fz_wire *w, struct fz_node *to)
{
	uint8_t sel = fuzz_u8(in);
	uint32_t n = w->len;
	const uint8_t *z;

	if ((sel & 3) == 1 && n > 1 && (z = memchr(w->buf + 1, 0, n - 1)))
		n = (uint32_t)(z - w->buf + 1);	/* the next frame */
	else if ((sel & 3) == 2 && n > (uint32_t)(sel >> 2) + 1)
		n = (sel >> 2) + 1;
	if (n > sizeof(fz_buf))
		n = sizeof(fz_buf);
	memcpy(fz_buf, w->buf, n);
	memmove(w->buf, w->buf + n, w->len - n);
	w->len -= n;
	fz_feed(to, fz_buf, (uint16_t)n);
}

/* A lossy line: drop the next frame, or flip one bit near the head. */
static void op_fault(struct fuzz_in *in)
{
	uint8_t sel = fuzz_u8(in);
	struct fz_wire *w = &R.w[sel & 1];
	const uint8_t *z;

	if (!w->len)
		return;
	if (sel & 2) {
		w->buf[(sel >> 2) % w->len] ^= (uint8_t)(1 << (sel & 7));
		return;
	}
	z = w->len > 1 ? memchr(w->buf + 1, 0, w->len - 1) : NULL;
	if (z) {
		uint32_t n = (uint32_t)(z - w->buf);	/* keep the delimiter */

		memmove(w->buf, w->buf + n, w->len - n);
		w->len -= n;
	}
}

static void op_two(struct fuzz_in *in)
{
	R.op = fuzz_u8(in) % OP2_N;
	if (fz_trace)
		fprintf(stderr, "op %d at %u ms: A->B %u bytes, B->A %u\n", R.op, R.now,
			R.w[0].len, R.w[1].len);
	switch (R.op) {
	case OP2_SEND_A: fz_send(&R.n[0], in); break;
	case OP2_SEND_B: fz_send(&R.n[1], in); break;
	case OP2_TO_B: op_deliver(in, &R.w[0], &R.n[1]); break;
	case OP2_TO_A: op_deliver(in, &R.w[1], &R.n[0]); break;
	case OP2_ADVANCE: op_advance(in); break;
	case OP2_POLL_A: fz_poll(&R.n[0]); break;
	case OP2_POLL_B: fz_poll(&R.n[1]); break;
	default: op_fault(in); break;
	}
}

/* ------------------------------------------------------------------ */
/* Set-up                                                              */

static void node_init(struct fz_node *nd, char name, struct phyllo_arq_config *cfg,
		      uint32_t nonce)
{
	const struct phyllo_out out = { fz_sink, nd };

	nd->name = name;
	nd->win = cfg->window;
	nd->limit = cfg->window;
	fz_call_begin(nd, "init", FZ_POLL_OUT_MAX(nd->win));
	FUZZ_CHECK(!phyllo_stack_init(&nd->st, PHYLLO_PRESET_STANDARD, cfg, &out, nonce, R.now),
		   "stack init");
	fz_call_end(nd);
	nd->rx_sessions = nd->st.stats.sessions;
}

static void fz_setup(struct fuzz_in *in)
{
	struct phyllo_arq_config cfg = PHYLLO_ARQ_CONFIG_DEFAULT;
	uint8_t c0 = fuzz_u8(in), c1 = fuzz_u8(in);
	uint32_t nonce = fuzz_u32(in);

	memset(&R, 0, sizeof(R));
	R.two = c0 & 0x10;
	R.handshake = !(c0 & 0x08);
	R.now = c0 & 0x80 ? 0xfffff000u : 1000;
	cfg.window = (uint8_t)((c0 & 7) + 1);
	cfg.handshake = R.handshake;
	cfg.max_retries = c0 & 0x20 ? 3 : 0;
	cfg.hold_until_room = c0 & 0x40;
	R.hold_room = cfg.hold_until_room;
	R.peer.salt = fz_mix(nonce);
	R.peer.nonce = fz_mix(nonce + 1);
	R.peer.win = c1;
	if (R.two) {
		node_init(&R.n[0], 'A', &cfg, nonce);
		R.n[0].to = &R.w[0];
		cfg.window = (uint8_t)((c1 & 7) + 1);
		node_init(&R.n[1], 'B', &cfg, ~nonce);
		R.n[1].to = &R.w[1];
		if (R.handshake) {
			R.n[0].limit = R.n[0].win < R.n[1].win ? R.n[0].win : R.n[1].win;
			R.n[1].limit = R.n[0].limit;
		}
		return;
	}
	node_init(&R.n[0], 'L', &cfg, nonce);
	R.peer.sessions = R.n[0].st.stats.sessions;
}

static bool fz_quiet(void)
{
	return !R.w[0].len && !R.w[1].len && phyllo_stack_idle(&R.n[0].st) &&
	       phyllo_stack_idle(&R.n[1].st);
}

/*
 * Two stacks: once the line is perfect (everything delivered, nothing
 * dropped) the link recovers within FZ_SETTLE_ROUNDS steps, and then every
 * reliable unit either arrived or was reported lost to a session reset
 * (tx_reset_lost): none vanished silently. Not with hold_until_room on
 * both sides: two full windows that each wait for room can wait forever
 * (a documented hazard of that option, meant for an echo server).
 */
static void fz_settle(void)
{
	int round, i, turns;

	if (R.hold_room)
		return;
	R.op = -1;
	for (round = 0; round < FZ_SETTLE_ROUNDS && !fz_quiet(); round++) {
		for (turns = 0; R.w[0].len || R.w[1].len; turns++) {
			struct fuzz_in none = { NULL, 0 };

			FUZZ_CHECK(turns < 1000, "frames go back and forth forever at %u ms", R.now);
			op_deliver(&none, &R.w[0], &R.n[1]);
			op_deliver(&none, &R.w[1], &R.n[0]);
		}
		R.now += FZ_SETTLE_STEP_MS;
		R.elapsed += FZ_SETTLE_STEP_MS;
		for (i = 0; i < 2; i++)
			fz_poll(&R.n[i]);
	}
	FUZZ_CHECK(fz_quiet(), "no progress in %u ms on a perfect line (A %u/%u queued, B %u/%u)",
		   FZ_SETTLE_ROUNDS * FZ_SETTLE_STEP_MS, R.n[0].st.arq.tx_count,
		   R.n[0].st.arq.tx_sent, R.n[1].st.arq.tx_count, R.n[1].st.arq.tx_sent);
	for (i = 0; i < 2; i++) {
		const struct fz_node *from = &R.n[i], *to = &R.n[!i];

		FUZZ_CHECK(to->rx_count + from->st.stats.tx_reset_lost >= from->app_next[1],
			   "%c sent %u units, %c got %u, %u reported lost: some vanished",
			   from->name, from->app_next[1], to->name, to->rx_count,
			   from->st.stats.tx_reset_lost);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	int i;

	fz_trace = getenv("FZ_TRACE") != NULL;
	fz_setup(&in);
	while (in.n) {
		if (R.two)
			op_two(&in);
		else
			op_one(&in);
		for (i = 0; i < (R.two ? 2 : 1); i++)
			fz_check_node(&R.n[i], R.elapsed);
	}
	if (R.two) {
		fz_settle();
		for (i = 0; i < 2; i++)
			fz_check_node(&R.n[i], R.elapsed);
	}
	return 0;
}
