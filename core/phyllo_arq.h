/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo_arq.h - reliable buffer (type 0x23): Go-Back-N with a session
 * handshake. The protocol it implements is documented in docs/reliable.md.
 *
 * Contract, in order of use:
 *  1. phyllo_arq_init() with a config and a sink (link) for outgoing units.
 *  2. phyllo_arq_send() queues a reliable unit in the caller-owned window;
 *     PHYLLO_E_AGAIN when the window is full. Units queued before the
 *     handshake completes go out when it does.
 *  3. phyllo_arq_receive() takes one received reliable-buffer payload and
 *     says whether it carries a unit for the application. It never sends:
 *     what a received unit calls for (ACK, NAK, resend, SYN|ACK, units the
 *     peer's ACK made room for) is owed and goes out at the next poll, so
 *     no input can make the layer write more than one poll's worth.
 *  4. phyllo_arq_poll() runs the timers and writes what is owed: at most
 *     PHYLLO_ARQ_POLL_FRAMES(window) units per call. Call it after every
 *     receive, and at least by the time it returns.
 *  5. phyllo_arq_take_events() tells the glue what happened since it last
 *     asked (session opened or reset, room to send), so no glue has to
 *     guess from counters.
 *  6. Back-pressure, one rule everywhere: a receiver that cannot take a
 *     reliable unit refuses it (phyllo_arq_refuse() right after receive, or
 *     phyllo_arq_hold() for everything); the unit stays unacknowledged, the
 *     peer keeps it, and the layer asks for it again (NAK) once
 *     phyllo_arq_hold(a, false) says there is room.
 * Time is always the caller's millisecond clock, passed in; it may wrap.
 */
#ifndef PHYLLO_ARQ_H
#define PHYLLO_ARQ_H

#include "phyllo_types.h"
#include "phyllo_wire.h"
#include "phyllo_datagram.h"
#include "phyllo_stats.h"
#include "phyllo_trace.h"

/* Send window storage, in units; the configured window may be smaller. */
#ifndef PHYLLO_ARQ_WINDOW_MAX
#define PHYLLO_ARQ_WINDOW_MAX 8
#endif
#if PHYLLO_ARQ_WINDOW_MAX < 1 || PHYLLO_ARQ_WINDOW_MAX > 64
#error "PHYLLO_ARQ_WINDOW_MAX must be 1..64"
#endif

/*
 * The longest wait between SYNs while no peer answers, ms: the retries
 * grow twofold from rto_init_ms to rto_max_ms, then on to this bound, so a
 * link with no peer sleeps; a peer that appears sends its own SYN and is
 * answered at once.
 */
#ifndef PHYLLO_ARQ_SYN_IDLE_MS
#define PHYLLO_ARQ_SYN_IDLE_MS 30000
#endif
#if PHYLLO_ARQ_SYN_IDLE_MS < 1 || PHYLLO_ARQ_SYN_IDLE_MS > 65535
#error "PHYLLO_ARQ_SYN_IDLE_MS must be 1..65535"
#endif

/* Most units one poll writes: a resent or new window, SYN|ACK, NAK, ACK. */
#define PHYLLO_ARQ_POLL_FRAMES(window) ((window) + 3)

/* A largest frame's time on a line of `baud` (8N1: 10 bits a byte), in
 * whole ms rounded up: the value for phyllo_arq_config.line_ms.
 */
#define PHYLLO_LINE_MS(baud) \
	((uint16_t)(((uint32_t)PHYLLO_WIRE_MAX * 10000u + (uint32_t)(baud) - 1) / (uint32_t)(baud)))

/* Events, as bits, collected until phyllo_arq_take_events(). */
#define PHYLLO_EV_OPEN   0x01  /* a session opened */
#define PHYLLO_EV_RESET  0x02  /* an open session ended (peer restart, RST,
				* link loss, local reset): units in flight
				* were lost, counted in stats->tx_reset_lost
				*/
#define PHYLLO_EV_ROOM   0x04  /* units were retired: room to queue more */

enum phyllo_arq_state {
	PHYLLO_ARQ_CLOSED = 0,   /* not started */
	PHYLLO_ARQ_SYN_SENT = 1, /* handshake under way */
	PHYLLO_ARQ_OPEN = 2,     /* session established */
};

struct phyllo_arq_config {
	uint8_t window;         /* 1..PHYLLO_ARQ_WINDOW_MAX units in flight */
	bool handshake;         /* false: start open at seq 0 (public peers) */
	uint16_t rto_min_ms;    /* adaptive retransmit timeout bounds */
	uint16_t rto_max_ms;
	uint16_t rto_init_ms;   /* before the first round-trip sample */
	uint16_t ack_delay_ms;  /* longest wait of a pure ACK for a unit to
				 * carry it, used only while the application
				 * answers promptly (quick-ACK policy,
				 * docs/reliable.md); 0: never wait
				 */
	uint8_t max_retries;    /* timeouts without progress before the session
				 * is declared lost; 0 = never
				 */
	bool hold_until_room;   /* accept a reliable unit only while our send
				 * window has room once its ACK is applied: for
				 * a peer that answers every unit (an echo
				 * server) and has nowhere else to put it
				 */
	uint16_t line_ms;       /* time a largest frame takes on the line, one
				 * way (0: unknown or instant, e.g. a pty); the
				 * RTO never goes below SRTT plus a frame each
				 * way plus rto_min_ms
				 */
};

/* Defaults: Go-Back-N as the public host, adaptive timeout; the window
 * shrinks to fit a smaller PHYLLO_ARQ_WINDOW_MAX.
 */
#define PHYLLO_ARQ_CONFIG_DEFAULT { \
	.window = PHYLLO_ARQ_WINDOW_MAX < 4 ? PHYLLO_ARQ_WINDOW_MAX : 4, .handshake = true, \
	.rto_min_ms = 10, .rto_max_ms = 1000, .rto_init_ms = 100, \
	.ack_delay_ms = 4, .max_retries = 0 }

/* Where the reliable layer sends a unit: hdr is the 4-byte reliable header
 * (plus ext, never sent by us), body the payload.
 */
struct phyllo_arq_link {
	void (*send)(void *ctx, const uint8_t *hdr, uint8_t nhdr,
		     const uint8_t *body, uint16_t nbody);
	void *ctx;
};

struct phyllo_arq_slot {
	uint8_t type;
	uint8_t len;
	uint8_t data[PHYLLO_RELIABLE_MAX];
};

struct phyllo_arq {
	struct phyllo_arq_config cfg;
	struct phyllo_arq_link link;
	struct phyllo_stats *stats;
	uint8_t state;          /* enum phyllo_arq_state */
	uint32_t local_nonce;   /* our session identifier (sent in SYN) */
	uint32_t peer_nonce;    /* peer's, learnt from its SYN or SYN|ACK */
	uint32_t old_peer_nonce;/* the one before: its delayed SYNs are stale */
	bool old_peer_valid;
	bool peer_known;        /* peer_nonce was learnt */
	uint8_t peer_window;    /* units the peer takes in flight (0: unsaid) */
	bool hold;              /* receiver full: do not accept or ack data */
	/* transmit side */
	uint8_t tx_base;        /* oldest unacknowledged seq */
	uint8_t tx_count;       /* units queued (seq tx_base .. +count-1) */
	uint8_t tx_sent;        /* of those, sent at least once */
	uint8_t slot_head;      /* slot index holding tx_base */
	uint8_t retries;        /* timeouts since the last progress */
	bool rto_armed;
	bool nak_resent;        /* a NAK made us resend from nak_pos */
	uint8_t nak_pos;
	uint8_t due;            /* frames owed to the next poll (ARQ_DUE_*) */
	uint8_t events;         /* PHYLLO_EV_* not yet taken */
	uint32_t resend_time;   /* when the window was last resent */
	bool rtt_timing;        /* a round-trip sample is running */
	uint8_t rtt_seq;
	uint32_t rtt_start;
	uint32_t rto_due;
	uint16_t rto;           /* current timeout, ms */
	bool rtt_valid;         /* srtt8/rttvar4 hold a sample */
	uint16_t srtt8;         /* smoothed RTT x 8 */
	uint16_t rttvar4;       /* RTT variation x 4 */
	/* receive side */
	uint8_t rx_next;        /* next seq expected */
	bool ack_pending;
	bool nak_sent;          /* NAK sent for the current rx_next */
	uint32_t nak_time;      /* when; repeated after rto_min_ms */
	bool hold_dropped;      /* data refused while held: NAK on release */
	bool ack_delayed;       /* the pending ACK waits for a reply on purpose */
	bool pingpong;          /* the application answered the last unit
				 * within the delay: expect it to again
				 */
	uint32_t ack_due;
	uint16_t rx_time;       /* when the last new unit was accepted (low bits) */
	bool rx_unanswered;     /* nothing sent since: the next send replies */
	/* undo of the unit receive just accepted, for phyllo_arq_refuse() */
	bool undo_valid;
	bool undo_ack_pending;
	bool undo_nak_sent;
	bool undo_ack_delayed;
	uint32_t undo_ack_due;
	/* handshake */
	uint32_t syn_due;
	uint16_t syn_interval;
	/*
	 * Totals for "has everything I sent been dealt with": a unit is retired
	 * when acknowledged or when a session reset loses it (then also counted
	 * in stats->tx_reset_lost and visible as a new stats->sessions).
	 */
	uint32_t tx_queued_total;
	uint32_t tx_retired_total;
	struct phyllo_arq_slot slot[PHYLLO_ARQ_WINDOW_MAX];
	void *trace_ctx;        /* the glue's, for its trace hook; NULL if none */
};

/* nonce: must differ from the one this side used before it (re)started:
 * the peer tells a restart from a repeated or delayed SYN by it alone
 * (kernel and userspace: random; AVR: a boot counter in EEPROM).
 */
int phyllo_arq_init(struct phyllo_arq *a, const struct phyllo_arq_config *cfg,
		    const struct phyllo_arq_link *link, struct phyllo_stats *stats,
		    uint32_t nonce);
/* Units that can still be queued now. */
uint8_t phyllo_arq_room(const struct phyllo_arq *a);
/* Queue a reliable unit; type >= 0x10. Returns 0, PHYLLO_E_AGAIN,
 * PHYLLO_E_TOOBIG or PHYLLO_E_INVAL.
 */
int phyllo_arq_send(struct phyllo_arq *a, uint8_t type, const uint8_t *data,
		    uint16_t len, uint32_t now_ms);
/* Send an unreliable (NOS) unit at once, with a piggybacked ACK. */
int phyllo_arq_send_unreliable(struct phyllo_arq *a, uint8_t type,
			       const uint8_t *data, uint16_t len);
/*
 * Process one reliable-buffer payload. Returns 1 and fills *out when it
 * carries a unit for the application, 0 when it was consumed by the layer
 * (ACK, handshake), or a negative enum phyllo_err for a dropped unit.
 */
int phyllo_arq_receive(struct phyllo_arq *a, const uint8_t *p, uint16_t n,
		       uint32_t now_ms, struct phyllo_unit *out);
/* Units in flight the session allows: ours, or the peer's offer if smaller. */
static inline uint8_t phyllo_arq_window(const struct phyllo_arq *a)
{
	return a->peer_window && a->peer_window < a->cfg.window ? a->peer_window : a->cfg.window;
}

/* Is a timer running (handshake, ACK, retransmit) or a frame owed? When
 * not, the layer needs no poll until something is received or sent, and
 * the 1000 phyllo_arq_poll() returns is no deadline: a glue may sleep.
 */
static inline bool phyllo_arq_has_deadline(const struct phyllo_arq *a)
{
	return a->state != PHYLLO_ARQ_OPEN || a->due || a->ack_pending || a->rto_armed;
}

/* Run the timers; returns milliseconds until the next call is needed
 * (at most 1000, but for the next SYN while no peer answers: at most
 * PHYLLO_ARQ_SYN_IDLE_MS).
 */
uint16_t phyllo_arq_poll(struct phyllo_arq *a, uint32_t now_ms);
/* Drop the session, report what was in flight as lost, start a handshake;
 * with rst the peer is told to do the same.
 */
void phyllo_arq_reset(struct phyllo_arq *a, bool rst, uint32_t now_ms);
/* Receiver back-pressure: while held, new data is neither accepted nor
 * acknowledged, so the peer's window closes instead of data being lost.
 * Releasing the hold asks for what was refused (NAK, at the next poll).
 */
void phyllo_arq_hold(struct phyllo_arq *a, bool hold);
/* The reliable unit the last phyllo_arq_receive() returned cannot be
 * taken: unaccept it, as if held. Returns 0, or PHYLLO_E_INVAL when the
 * last receive accepted no reliable unit (NOS units cannot be refused).
 */
int phyllo_arq_refuse(struct phyllo_arq *a);
/* What happened since the last call: PHYLLO_EV_* bits; clears them. */
uint8_t phyllo_arq_take_events(struct phyllo_arq *a);
/* The line's speed changed: the time a largest frame takes, one way. */
void phyllo_arq_set_line_ms(struct phyllo_arq *a, uint16_t line_ms);

#endif /* PHYLLO_ARQ_H */
