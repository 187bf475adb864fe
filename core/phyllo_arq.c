// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo_arq.c - reliable buffer: Go-Back-N with a SYN handshake.
 *
 * Sender: units wait in a ring of slots from tx_base; every unit sent is
 * resent, in order, when the single retransmit timer (oldest unit) expires
 * or a NAK asks for it. Receiver window 1: only rx_next is accepted.
 * Session handshake, restart detection and timers: docs/reliable.md.
 *
 * Order of work: receive only changes state and marks what it owes in
 * `due`; poll writes it, in this order: SYN|ACK, NAK, the window resent,
 * new units, a pure ACK if nothing carried one. So what one poll writes is
 * bounded by the window whatever was received, and a glue that keeps room
 * for one poll never truncates a frame.
 */
#include "phyllo_arq.h"

#define ARQ_DUE_SYNACK 0x01	/* answer the peer's SYN */
#define ARQ_DUE_NAK    0x02	/* ask for rx_next */
#define ARQ_DUE_RESEND 0x04	/* a NAK asked for the window again */

static uint8_t slot_index(const struct phyllo_arq *a, uint8_t i)
{
	uint16_t k = (uint16_t)a->slot_head + i;

	return (uint8_t)(k >= PHYLLO_ARQ_WINDOW_MAX ? k - PHYLLO_ARQ_WINDOW_MAX : k);
}

static void arq_emit(struct phyllo_arq *a, uint8_t seq, uint8_t ack, uint8_t flags,
		     uint8_t type, const uint8_t *data, uint16_t len)
{
	uint8_t hdr[PHYLLO_RELIABLE_HDR];

	/* Every unit of an open session carries the cumulative ACK. */
	if (a->state == PHYLLO_ARQ_OPEN && !(flags & PHYLLO_FLAG_SYN)) {
		flags |= PHYLLO_FLAG_ACK;
		ack = a->rx_next;
		a->ack_pending = false;
		a->ack_delayed = false;
	}
	hdr[0] = seq;
	hdr[1] = ack;
	hdr[2] = flags;
	hdr[3] = type;
	a->link.send(a->link.ctx, hdr, sizeof(hdr), data, len);
}

static void arq_emit_control(struct phyllo_arq *a, uint8_t flags)
{
	arq_emit(a, 0, 0, PHYLLO_FLAG_NOS | flags, PHYLLO_TYPE_CONTROL, NULL, 0);
	PHYLLO_TRACE(a->trace_ctx, PHYLLO_TP_TX_CONTROL, a->rx_next,
		     PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK | flags);
}

/* Units we refused while full: ask for them now rather than at the peer's
 * timeout.
 */
static void arq_ask_again(struct phyllo_arq *a)
{
	a->hold_dropped = false;
	if (a->state == PHYLLO_ARQ_OPEN)
		a->due |= ARQ_DUE_NAK;
}

static void arq_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t arq_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A peer nonce (and window) accepted; a changed nonce retires the old. */
static void arq_set_peer(struct phyllo_arq *a, uint32_t nonce, uint8_t window)
{
	if (a->peer_known && nonce != a->peer_nonce) {
		a->old_peer_nonce = a->peer_nonce;
		a->old_peer_valid = true;
	}
	a->peer_known = true;
	a->peer_nonce = nonce;
	a->peer_window = window;
}

/*
 * SYN:     seq = our nonce's low byte; payload = window, our nonce (32 bits).
 * SYN|ACK: ack = the peer's nonce's low byte; payload adds the peer's nonce.
 */
static void arq_emit_syn(struct phyllo_arq *a, bool ack)
{
	uint8_t body[9];

	body[0] = a->cfg.window;
	arq_put32(body + 1, a->local_nonce);
	arq_put32(body + 5, a->peer_nonce);
	arq_emit(a, (uint8_t)a->local_nonce, ack ? (uint8_t)a->peer_nonce : 0,
		 PHYLLO_FLAG_SYN | (ack ? PHYLLO_FLAG_ACK : 0), PHYLLO_TYPE_CONTROL,
		 body, ack ? 9 : 5);
}

static void arq_emit_slot(struct phyllo_arq *a, uint8_t i)
{
	const struct phyllo_arq_slot *sl = &a->slot[slot_index(a, i)];

	arq_emit(a, (uint8_t)(a->tx_base + i), 0, 0, sl->type, sl->data, sl->len);
}

/* Send what is queued but not yet sent; start the clocks. */
static void arq_transmit_new(struct phyllo_arq *a, uint32_t now)
{
	if (a->state != PHYLLO_ARQ_OPEN)
		return;
	while (a->tx_sent < a->tx_count && a->tx_sent < phyllo_arq_window(a)) {
		arq_emit_slot(a, a->tx_sent);
		if (!a->rtt_timing) {
			a->rtt_timing = true;
			a->rtt_seq = (uint8_t)(a->tx_base + a->tx_sent);
			a->rtt_start = now;
		}
		a->tx_sent++;
	}
	if (a->tx_sent && !a->rto_armed) {
		a->rto_armed = true;
		a->rto_due = now + a->rto;
	}
}

/* Go back N: everything sent and unacknowledged goes out again, in order
 * (timeout: why, for the trace).
 */
static void arq_resend_all(struct phyllo_arq *a, uint32_t now, bool timeout)
{
	uint8_t i;

	PHYLLO_TRACE(a->trace_ctx, PHYLLO_TP_RETRANSMIT, a->tx_sent, timeout);

	for (i = 0; i < a->tx_sent; i++)
		arq_emit_slot(a, i);
	a->stats->tx_retransmits += a->tx_sent;
	a->resend_time = now;
	a->rtt_timing = false;	/* Karn: no sample from a resent unit */
	a->rto_armed = a->tx_sent != 0;
	a->rto_due = now + a->rto;
}

static uint16_t clamp16(uint32_t v, uint16_t lo, uint16_t hi)
{
	return (uint16_t)(v < lo ? lo : v > hi ? hi : v);
}

/*
 * The timeout the round-trip estimate gives, without backoff:
 * SRTT + max(4 RTTVAR, rto_min) + a largest frame's time each way. On a
 * steady link RTTVAR decays to nothing, and a bare SRTT + 4 RTTVAR would
 * fire on the first larger unit or busy moment of the peer; the variance
 * floor is rto_min (as TCP floors it), and a unit's own serialization in
 * both directions is part of any round trip it can have.
 */
static uint16_t arq_rto_estimate(const struct phyllo_arq *a)
{
	uint32_t var4 = a->rttvar4 > a->cfg.rto_min_ms ? a->rttvar4 : a->cfg.rto_min_ms;

	if (!a->rtt_valid)
		return a->cfg.rto_init_ms;
	return clamp16((uint32_t)(a->srtt8 >> 3) + var4 + 2u * a->cfg.line_ms,
		       a->cfg.rto_min_ms, a->cfg.rto_max_ms);
}

/*
 * Jacobson/Karels with shifts only: srtt8 = 8 * SRTT, rttvar4 = 4 * RTTVAR,
 * RTO = SRTT + 4 * RTTVAR, within the configured bounds. 16-bit arithmetic
 * on purpose (an 8-bit MCU does it per ACK): with samples capped at 8 s,
 * srtt8 stays <= 64,000 and rttvar4 <= 32,000.
 */
static void arq_rtt_sample(struct phyllo_arq *a, uint32_t sample)
{
	uint16_t r = sample > 8000 ? 8000 : (uint16_t)sample;
	uint16_t srtt8 = a->srtt8, var4 = a->rttvar4;

	if (!a->rtt_valid) {
		srtt8 = (uint16_t)(r << 3);
		var4 = (uint16_t)(r << 1);
		a->rtt_valid = true;
	} else {
		uint16_t s = srtt8 >> 3;
		uint16_t err = r > s ? r - s : s - r;

		srtt8 = (uint16_t)(srtt8 - (srtt8 >> 3) + r);
		var4 = (uint16_t)(var4 - (var4 >> 2) + err);
	}
	a->srtt8 = srtt8;
	a->rttvar4 = var4;
	a->rto = arq_rto_estimate(a);
	a->stats->rtt_ms = srtt8 >> 3;
	a->stats->rto_ms = a->rto;
}

/* Retire n acknowledged units from the front of the window. */
static void arq_release(struct phyllo_arq *a, uint8_t n, uint32_t now)
{
	if (a->rtt_timing && (uint8_t)(a->rtt_seq - a->tx_base) < n) {
		arq_rtt_sample(a, now - a->rtt_start);
		a->rtt_timing = false;
	}
	a->slot_head = slot_index(a, n);
	a->tx_base = (uint8_t)(a->tx_base + n);
	a->tx_count -= n;
	a->tx_sent -= n;
	a->tx_retired_total += n;
	/* Progress: the link works again, so drop any timeout backoff. */
	if (a->retries) {
		a->rto = arq_rto_estimate(a);
		a->stats->rto_ms = a->rto;
	}
	a->retries = 0;
	a->events |= PHYLLO_EV_ROOM;
	a->rto_armed = a->tx_sent != 0;
	a->rto_due = now + a->rto;
}

static void arq_on_ack(struct phyllo_arq *a, uint8_t ack, bool nak, uint32_t now)
{
	uint8_t n = (uint8_t)(ack - a->tx_base);

	if (n > a->tx_sent) {
		a->stats->rx_ack_stale++;
		return;
	}
	if (n || nak)
		PHYLLO_TRACE(a->trace_ctx, PHYLLO_TP_RX_ACK, ack, (n << 1) | (nak ? 1 : 0));
	if (n) {
		/* Units held back by the peer's window go out at the poll. */
		arq_release(a, n, now);
		if (a->cfg.hold_until_room && a->hold_dropped && !a->hold)
			arq_ask_again(a);	/* room again: the refused unit, now */
	}
	if (nak) {
		a->stats->rx_naks++;
		/*
		 * One resend per NAK'd position. The same position again is
		 * honoured only once the resend has had a whole timeout to
		 * arrive: NAKs for frames that were queued before it must not
		 * pile resend upon resend on a slow, buffered line. A new
		 * position means the peer took units, so resends on NAK never
		 * outnumber units retired plus one per timeout; and however
		 * many NAKs one buffer holds, the poll resends once.
		 */
		if (a->tx_sent && (!a->nak_resent || a->nak_pos != ack ||
				   now - a->resend_time >= a->rto)) {
			a->due |= ARQ_DUE_RESEND;
			a->nak_resent = true;
			a->nak_pos = ack;
			a->resend_time = now;
		}
	}
}

/* Units sent in the session that just ended are lost: count and retire
 * them. Queued units never sent stay for the next session.
 */
static void arq_drop_inflight(struct phyllo_arq *a)
{
	uint8_t n = a->tx_sent;

	if (a->state == PHYLLO_ARQ_OPEN)
		a->events |= PHYLLO_EV_RESET;
	if (n)
		a->events |= PHYLLO_EV_ROOM;

	a->stats->tx_reset_lost += n;
	a->tx_retired_total += n;
	a->slot_head = slot_index(a, n);
	a->tx_count -= n;
	a->tx_sent = 0;
}

static void arq_open(struct phyllo_arq *a, uint32_t now)
{
	a->state = PHYLLO_ARQ_OPEN;
	a->stats->sessions++;
	a->events |= PHYLLO_EV_OPEN;
	a->due &= ARQ_DUE_SYNACK;
	a->hold_dropped = false;
	a->tx_base = 0;
	a->tx_sent = 0;
	a->rx_next = 0;
	a->ack_pending = false;
	a->ack_delayed = false;
	a->pingpong = false;
	a->rx_unanswered = false;
	a->nak_sent = false;
	a->rto_armed = false;
	a->rtt_timing = false;
	a->retries = 0;
	a->nak_resent = false;
	(void)now;	/* queued units go out at the next poll */
}

/* The first SYN goes out at the next poll (syn_due = now). */
static void arq_start_handshake(struct phyllo_arq *a, uint32_t now)
{
	a->state = PHYLLO_ARQ_SYN_SENT;
	a->due = 0;
	a->syn_interval = 0;	/* the first retry waits rto_init_ms */
	a->syn_due = now;
}

/*
 * A connecting side that hears its peer (units resent into a session we
 * gave up, NOS traffic, a stray answer) sends its SYNs at most rto_max_ms
 * apart: the long idle backoff is for a silent line. A line that comes
 * back after minutes (a cable replugged) then reconnects within
 * rto_max_ms of the peer's first frame, not PHYLLO_ARQ_SYN_IDLE_MS.
 */
static void arq_peer_heard(struct phyllo_arq *a)
{
	if (a->syn_interval > a->cfg.rto_max_ms) {
		/* syn_due - syn_interval is when the last SYN went out */
		a->syn_due -= a->syn_interval - a->cfg.rto_max_ms;
		a->syn_interval = a->cfg.rto_max_ms;
	}
}

/* Session control that fits neither the state nor the nonces: dropped. */
static void arq_stale_control(struct phyllo_arq *a)
{
	a->stats->rx_ctrl_stale++;
}

/* The sender's nonce in a SYN or SYN|ACK: all 32 bits when the peer sends
 * them, else the low byte in seq.
 */
static uint32_t arq_syn_nonce(const uint8_t *p, const uint8_t *body, uint16_t nbody)
{
	return nbody >= 5 ? arq_get32(body + 1) : p[0];
}

/* SYN|ACK: opens the session only when it answers our SYN under way. */
static void arq_on_synack(struct phyllo_arq *a, const uint8_t *p, const uint8_t *body,
			  uint16_t nbody, uint32_t now)
{
	uint32_t nonce = arq_syn_nonce(p, body, nbody);
	bool ours = nbody >= 9 ? arq_get32(body + 5) == a->local_nonce
			       : p[1] == (uint8_t)a->local_nonce;

	if (a->state == PHYLLO_ARQ_SYN_SENT && ours) {
		arq_set_peer(a, nonce, nbody ? body[0] : 0);
		arq_open(a, now);
		/*
		 * And answer the peer's SYN, seen or not: a peer that is
		 * connecting too opens only on that answer, and may never have
		 * had its SYN reach us (sent before we listened). An open peer
		 * takes it as a repeat.
		 */
		a->due |= ARQ_DUE_SYNACK;
	} else if (!(a->state == PHYLLO_ARQ_OPEN && ours && nonce == a->peer_nonce)) {
		/* (a second answer to our repeated SYN is harmless) */
		arq_stale_control(a);
	}
}

static void arq_on_syn(struct phyllo_arq *a, const uint8_t *p, const uint8_t *body,
		       uint16_t nbody, uint32_t now)
{
	uint32_t nonce = arq_syn_nonce(p, body, nbody);

	if (a->state == PHYLLO_ARQ_OPEN && a->peer_known && nonce == a->peer_nonce) {
		/*
		 * The SYN of this very session, repeated or delayed: answer it
		 * again and keep the session. A restarted peer has a new nonce
		 * (random, or a boot counter), so only a new nonce ends it.
		 */
		a->due |= ARQ_DUE_SYNACK;
		return;
	}
	if (a->old_peer_valid && nonce == a->old_peer_nonce) {
		/* A SYN from before the peer's last restart, delivered late. */
		arq_stale_control(a);
		return;
	}
	if (a->state != PHYLLO_ARQ_OPEN) {
		/*
		 * Connecting: answer, but open only on the answer to our own
		 * SYN. This SYN may be one the peer sent before it opened a
		 * session with another nonce of ours (a tty moved to another
		 * link): opening on it would start a session the peer does
		 * not have, and take the units of the peer's other session
		 * into this one. Our next SYN goes at once if it was backed
		 * off further than a first retry: the peer is there now.
		 */
		if (a->state == PHYLLO_ARQ_CLOSED)
			arq_start_handshake(a, now);
		arq_set_peer(a, nonce, nbody ? body[0] : 0);
		a->due |= ARQ_DUE_SYNACK;
		if (!phyllo_time_reached(now, a->syn_due) &&
		    a->syn_due - now > a->cfg.rto_init_ms)
			a->syn_due = now;
		return;
	}
	/* open with another nonce: the peer has restarted */
	a->stats->peer_resets++;
	arq_drop_inflight(a);
	arq_set_peer(a, nonce, nbody ? body[0] : 0);
	a->due |= ARQ_DUE_SYNACK;
	arq_open(a, now);
}

/*
 * RST: honoured only in an open session with handshake, and only when it
 * names both nonces of this session (an RST from an earlier session, or
 * from anyone who does not know them, is stale).
 */
static void arq_on_rst(struct phyllo_arq *a, const uint8_t *body, uint16_t nbody,
		       uint32_t now)
{
	if (a->state != PHYLLO_ARQ_OPEN || !a->cfg.handshake || nbody < 8 ||
	    arq_get32(body) != a->peer_nonce || arq_get32(body + 4) != a->local_nonce) {
		arq_stale_control(a);
		return;
	}
	phyllo_arq_reset(a, false, now);
}

/*
 * How long a pure ACK may wait for a unit to carry it: ack_delay_ms, but
 * never more than a quarter of our retransmit timeout, so that on a fast
 * link (small RTO) a delayed ACK stays well inside the peer's own.
 */
static uint16_t arq_ack_delay(const struct phyllo_arq *a)
{
	uint16_t bound = a->rto >> 2;

	return a->cfg.ack_delay_ms < bound ? a->cfg.ack_delay_ms : bound;
}

/*
 * The quick-ACK policy for a new unit (docs/reliable.md), in order:
 *  1. a second unit while an ACK is pending: acknowledge both at once,
 *     so a streaming sender never waits on our timer;
 *  2. the application has been answering promptly (pingpong): wait up to
 *     arq_ack_delay() for its reply to carry the ACK;
 *  3. otherwise nothing is likely to carry it soon: acknowledge at once.
 * "At once" is the poll the glue runs after this receive, which also
 * sends what is queued first, so queued units carry the ACK for free.
 */
static void arq_ack_schedule(struct phyllo_arq *a, uint32_t now)
{
	uint16_t delay = arq_ack_delay(a);

	a->ack_delayed = !a->ack_pending && a->pingpong && delay;
	a->ack_due = a->ack_delayed ? now + delay : now;
	a->ack_pending = true;
}

static int arq_on_data(struct phyllo_arq *a, uint8_t seq, uint32_t now)
{
	uint8_t behind = (uint8_t)(a->rx_next - seq);

	if (seq == a->rx_next) {
		if (a->hold || (a->cfg.hold_until_room && a->tx_count >= phyllo_arq_window(a))) {
			a->hold_dropped = true;
			return PHYLLO_E_HOLD;
		}
		a->undo_valid = true;
		a->undo_ack_pending = a->ack_pending;
		a->undo_ack_due = a->ack_due;
		a->undo_nak_sent = a->nak_sent;
		a->undo_ack_delayed = a->ack_delayed;
		a->rx_next++;
		a->nak_sent = false;
		a->rx_time = (uint16_t)now;
		a->rx_unanswered = true;
		arq_ack_schedule(a, now);
		return 0;
	}
	if (behind <= 128) {
		/* Our ACK was lost: repeat it at once so the sender moves on. */
		a->ack_pending = true;
		a->ack_due = now;
		return PHYLLO_E_DUP;
	}
	/* Ahead of rx_next: something was lost, or refused while held (then
	 * the release asks for it). Ask once, and again only if the gap
	 * outlives our own retransmit timeout (which has learnt how slow the
	 * line is).
	 */
	if (a->hold_dropped)
		return PHYLLO_E_HOLD;
	if (!a->nak_sent || now - a->nak_time >= a->rto) {
		a->due |= ARQ_DUE_NAK;
		a->nak_sent = true;
		a->nak_time = now;
	}
	return PHYLLO_E_SEQ;
}

int phyllo_arq_receive(struct phyllo_arq *a, const uint8_t *p, uint16_t n,
		       uint32_t now_ms, struct phyllo_unit *out)
{
	uint8_t flags, hdr = PHYLLO_RELIABLE_HDR;
	int ret;

	a->undo_valid = false;
	if (n < PHYLLO_RELIABLE_HDR)
		return PHYLLO_E_LENGTH;
	flags = p[2];
	if (flags & PHYLLO_FLAG_EXT) {
		if (n < PHYLLO_RELIABLE_HDR + 1 || n < (uint16_t)(PHYLLO_RELIABLE_HDR + 1 + p[4]))
			return PHYLLO_E_LENGTH;
		hdr = (uint8_t)(PHYLLO_RELIABLE_HDR + 1 + p[4]);
	}
	if ((flags | PHYLLO_FLAGS_KNOWN) != PHYLLO_FLAGS_KNOWN)
		return PHYLLO_E_FLAGS;
	if (a->state == PHYLLO_ARQ_SYN_SENT)
		arq_peer_heard(a);
	if (flags & PHYLLO_FLAG_RST) {
		arq_on_rst(a, p + hdr, n - hdr, now_ms);
		return 0;
	}
	if (flags & PHYLLO_FLAG_SYN) {
		if (flags & PHYLLO_FLAG_ACK)
			arq_on_synack(a, p, p + hdr, n - hdr, now_ms);
		else
			arq_on_syn(a, p, p + hdr, n - hdr, now_ms);
		return 0;
	}
	if (a->state != PHYLLO_ARQ_OPEN && !(flags & PHYLLO_FLAG_NOS))
		return PHYLLO_E_NOSESSION;
	if (a->state == PHYLLO_ARQ_OPEN) {
		if (flags & PHYLLO_FLAG_ACK)
			arq_on_ack(a, p[1], flags & PHYLLO_FLAG_NAK, now_ms);
	}
	if (!(flags & PHYLLO_FLAG_NOS)) {
		ret = arq_on_data(a, p[0], now_ms);
		if (ret < 0)
			return ret;
	}
	if (p[3] <= PHYLLO_TYPE_INTERNAL_MAX)
		return 0;
	out->type = p[3];
	out->data = p + hdr;
	out->len = n - hdr;
	return 1;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_receive);

static uint16_t arq_until(uint16_t next, uint32_t now, uint32_t due)
{
	uint32_t d = phyllo_time_reached(now, due) ? 0 : due - now;

	return d < next ? (uint16_t)d : next;
}

static void arq_on_timeout(struct phyllo_arq *a, uint32_t now)
{
	a->stats->tx_timeouts++;
	if (a->retries < 255)
		a->retries++;	/* also marks the RTO as backed off */
	PHYLLO_TRACE(a->trace_ctx, PHYLLO_TP_TIMEOUT, a->rto, a->retries);
	if (a->cfg.max_retries && a->retries >= a->cfg.max_retries) {
		phyllo_arq_reset(a, true, now);
		return;
	}
	a->rto = clamp16((uint32_t)a->rto << 1, a->cfg.rto_min_ms, a->cfg.rto_max_ms);
	a->stats->rto_ms = a->rto;
	a->nak_resent = false;
	arq_resend_all(a, now, true);
}

/* What received units owed: answers first, then the window. */
static void arq_pay_dues(struct phyllo_arq *a, uint32_t now)
{
	uint8_t due = a->due;

	a->due = 0;
	if (due & ARQ_DUE_SYNACK)
		arq_emit_syn(a, true);
	if (due & ARQ_DUE_NAK) {
		arq_emit_control(a, PHYLLO_FLAG_NAK);
		a->stats->tx_naks++;
	}
	if ((due & ARQ_DUE_RESEND) && a->tx_sent)
		arq_resend_all(a, now, false);
}

uint16_t phyllo_arq_poll(struct phyllo_arq *a, uint32_t now_ms)
{
	uint16_t next = 1000;

	if (a->state == PHYLLO_ARQ_CLOSED)
		arq_start_handshake(a, now_ms);
	if (a->state == PHYLLO_ARQ_SYN_SENT) {
		if (phyllo_time_reached(now_ms, a->syn_due)) {
			arq_emit_syn(a, false);
			a->syn_interval = a->syn_interval ?
				clamp16((uint32_t)a->syn_interval << 1, a->cfg.rto_min_ms,
					a->cfg.rto_max_ms > PHYLLO_ARQ_SYN_IDLE_MS ?
					a->cfg.rto_max_ms : PHYLLO_ARQ_SYN_IDLE_MS) :
				a->cfg.rto_init_ms;
			a->syn_due = now_ms + a->syn_interval;
		}
		/*
		 * Our SYN first, then the answer to the peer's: the peer,
		 * connecting, meets our SYN before the answer that opens its
		 * session, so it cannot open and send units before it has
		 * answered us, units we would drop as not yet in a session.
		 */
		if (a->due & ARQ_DUE_SYNACK) {
			a->due &= (uint8_t)~ARQ_DUE_SYNACK;
			arq_emit_syn(a, true);
		}
		/* the next SYN, however far: a link with no peer sleeps */
		return arq_until(0xFFFF, now_ms, a->syn_due);
	}
	arq_pay_dues(a, now_ms);
	if (a->rto_armed && phyllo_time_reached(now_ms, a->rto_due))
		arq_on_timeout(a, now_ms);
	if (a->state != PHYLLO_ARQ_OPEN)
		return 0;	/* the link was declared lost: SYN next poll */
	arq_transmit_new(a, now_ms);
	if (a->ack_pending && phyllo_time_reached(now_ms, a->ack_due)) {
		/* A delay that ran out: no reply came, stop expecting one. */
		if (a->ack_delayed)
			a->pingpong = false;
		arq_emit_control(a, 0);
		a->stats->tx_acks++;
	}
	if (a->ack_pending)
		next = arq_until(next, now_ms, a->ack_due);
	if (a->rto_armed)
		next = arq_until(next, now_ms, a->rto_due);
	return next;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_poll);

int phyllo_arq_init(struct phyllo_arq *a, const struct phyllo_arq_config *cfg,
		    const struct phyllo_arq_link *link, struct phyllo_stats *stats,
		    uint32_t nonce)
{
	if (!cfg || !link || !link->send || !stats || cfg->window < 1 ||
	    cfg->window > PHYLLO_ARQ_WINDOW_MAX || cfg->window > 127 ||
	    cfg->rto_min_ms < 1 || cfg->rto_min_ms > cfg->rto_max_ms)
		return PHYLLO_E_INVAL;
	memset(a, 0, sizeof(*a));
	a->cfg = *cfg;
	a->link = *link;
	a->stats = stats;
	a->local_nonce = nonce;
	a->rto = clamp16(cfg->rto_init_ms, cfg->rto_min_ms, cfg->rto_max_ms);
	a->cfg.rto_init_ms = a->rto;
	stats->rto_ms = a->rto;
	if (!cfg->handshake) {
		/* Public peers have no handshake: both sides start at seq 0. */
		a->state = PHYLLO_ARQ_OPEN;
		stats->sessions++;
		a->events = PHYLLO_EV_OPEN;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_init);

uint8_t phyllo_arq_room(const struct phyllo_arq *a)
{
	uint8_t w = phyllo_arq_window(a);

	return (uint8_t)(a->tx_count < w ? w - a->tx_count : 0);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_room);

int phyllo_arq_send(struct phyllo_arq *a, uint8_t type, const uint8_t *data,
		    uint16_t len, uint32_t now_ms)
{
	struct phyllo_arq_slot *sl;

	if (type <= PHYLLO_TYPE_INTERNAL_MAX || (len && !data))
		return PHYLLO_E_INVAL;
	if (len > PHYLLO_RELIABLE_MAX)
		return PHYLLO_E_TOOBIG;
	if (a->tx_count >= phyllo_arq_window(a))
		return PHYLLO_E_AGAIN;
	sl = &a->slot[slot_index(a, a->tx_count)];
	sl->type = type;
	sl->len = (uint8_t)len;
	if (len)
		memcpy(sl->data, data, len);
	a->tx_count++;
	a->tx_queued_total++;
	/*
	 * The first unit sent after one was received is its reply if it
	 * comes within the delay: the next ACK may wait for the next reply
	 * (TCP's pingpong mode). The time is kept in 16 bits: a reply 65 s
	 * late may look prompt, which costs one delayed ACK.
	 */
	if (a->rx_unanswered) {
		a->rx_unanswered = false;
		if ((uint16_t)((uint16_t)now_ms - a->rx_time) <= arq_ack_delay(a))
			a->pingpong = true;
	}
	arq_transmit_new(a, now_ms);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_send);

int phyllo_arq_send_unreliable(struct phyllo_arq *a, uint8_t type,
			       const uint8_t *data, uint16_t len)
{
	if (type <= PHYLLO_TYPE_INTERNAL_MAX || (len && !data))
		return PHYLLO_E_INVAL;
	if (len > PHYLLO_RELIABLE_MAX)
		return PHYLLO_E_TOOBIG;
	arq_emit(a, 0, 0, PHYLLO_FLAG_NOS, type, data, len);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_send_unreliable);

void phyllo_arq_reset(struct phyllo_arq *a, bool rst, uint32_t now_ms)
{
	if (rst && a->state == PHYLLO_ARQ_OPEN) {
		uint8_t body[8];

		/* Both nonces: the peer tells this session's RST from a stale one. */
		arq_put32(body, a->local_nonce);
		arq_put32(body + 4, a->peer_nonce);
		arq_emit(a, 0, 0, PHYLLO_FLAG_NOS | PHYLLO_FLAG_RST, PHYLLO_TYPE_CONTROL,
			 body, sizeof(body));
	}
	arq_drop_inflight(a);
	a->rto_armed = false;
	a->ack_pending = false;
	a->local_nonce++;
	arq_start_handshake(a, now_ms);
}

void phyllo_arq_hold(struct phyllo_arq *a, bool hold)
{
	a->hold = hold;
	if (!hold && a->hold_dropped)
		arq_ask_again(a);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_hold);

int phyllo_arq_refuse(struct phyllo_arq *a)
{
	if (!a->undo_valid)
		return PHYLLO_E_INVAL;
	a->undo_valid = false;
	a->rx_next--;
	a->ack_pending = a->undo_ack_pending;
	a->ack_due = a->undo_ack_due;
	a->ack_delayed = a->undo_ack_delayed;
	a->nak_sent = a->undo_nak_sent;
	a->hold_dropped = true;
	a->stats->rx_hold++;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_refuse);

uint8_t phyllo_arq_take_events(struct phyllo_arq *a)
{
	uint8_t ev = a->events;

	a->events = 0;
	return ev;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_take_events);

void phyllo_arq_set_line_ms(struct phyllo_arq *a, uint16_t line_ms)
{
	a->cfg.line_ms = line_ms;
	if (a->rtt_valid && !a->retries) {
		a->rto = arq_rto_estimate(a);
		a->stats->rto_ms = a->rto;
	}
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_set_line_ms);
