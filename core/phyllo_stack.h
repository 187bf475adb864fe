/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo_stack.h - the conventional presets, bytes in and units out.
 *
 *   minimal   chunk + COBS frame + datagram
 *   reduced   minimal + validated datagram (CRC-32)
 *   standard  reduced + reliable buffer (Go-Back-N)
 *
 * A unit handed to or from the application is a type byte (>= 0x10) and a
 * payload of at most phyllo_stack_mtu() bytes; usually type 0x60 (pub-sub).
 *
 * Contract:
 *  - phyllo_stack_init() writes nothing; the first poll starts the
 *    handshake (standard preset).
 *  - phyllo_stack_receive() consumes bytes until one unit is ready (then it
 *    stops, so the caller handles one unit at a time) or the bytes run out.
 *    The unit points into the stack and stays valid until the next receive.
 *    It writes nothing: what the input calls for goes out at the next poll.
 *  - phyllo_stack_send() writes at most one frame (or queues the unit in
 *    the send window, standard preset).
 *  - phyllo_stack_poll() runs timers and writes what is owed, at most
 *    PHYLLO_STACK_POLL_OUT_MAX bytes; call it after every receive and again
 *    within the milliseconds it returns, or sooner.
 *  - phyllo_stack_take_events() and phyllo_stack_refuse(): see
 *    phyllo_arq.h (events, and the one back-pressure rule).
 * The output sink must take every byte it is given: a glue with a bounded
 * buffer calls poll only with PHYLLO_STACK_POLL_OUT_MAX bytes free and
 * send with PHYLLO_WIRE_MAX free, and then never truncates a frame.
 */
#ifndef PHYLLO_STACK_H
#define PHYLLO_STACK_H

#include "phyllo_types.h"
#include "phyllo_wire.h"
#include "phyllo_cobs.h"
#include "phyllo_datagram.h"
#include "phyllo_arq.h"
#include "phyllo_stats.h"

/* The most one poll writes (a full window plus three control frames). */
#define PHYLLO_STACK_POLL_OUT_MAX \
	((uint16_t)PHYLLO_ARQ_POLL_FRAMES(PHYLLO_ARQ_WINDOW_MAX) * PHYLLO_WIRE_MAX)

enum phyllo_preset {
	PHYLLO_PRESET_MINIMAL = 0,
	PHYLLO_PRESET_REDUCED = 1,
	PHYLLO_PRESET_STANDARD = 2,
};

struct phyllo_stack {
	uint8_t preset;               /* enum phyllo_preset */
	struct phyllo_out out;
	struct phyllo_cobs_rx rx;     /* chunks in, decoded frames out */
	struct phyllo_stats stats;
	struct phyllo_arq arq;        /* used by the standard preset only */
	void *trace_ctx;              /* the glue's, for its trace hook; NULL if none */
};

/* arq_cfg may be NULL for the defaults; nonce as for phyllo_arq_init(). */
int phyllo_stack_init(struct phyllo_stack *s, uint8_t preset,
		      const struct phyllo_arq_config *arq_cfg,
		      const struct phyllo_out *out, uint32_t nonce, uint32_t now_ms);
/* Largest application payload of the preset: 252, 247 or 243. */
uint16_t phyllo_stack_mtu(uint8_t preset);
/* Returns the number of bytes consumed; *got is true when *unit is set. */
uint16_t phyllo_stack_receive(struct phyllo_stack *s, const uint8_t *buf, uint16_t n,
			      uint32_t now_ms, struct phyllo_unit *unit, bool *got);
/* Bytes into the frame decoder only, up to (not including) a delimiter that
 * would complete a frame (phyllo_cobs_rx_take()): nothing is climbed or
 * delivered, the next receive goes on from there. For a glue that takes in
 * bytes while its output sink is busy (the AVR firmware); the unit the last
 * receive returned must be done with. Returns the bytes taken.
 */
uint16_t phyllo_stack_receive_partial(struct phyllo_stack *s, const uint8_t *buf, uint16_t n);
/*
 * When a partial receive stopped before a delimiter: set the frame it
 * would complete aside in dst, if it fits in cap bytes, and count the
 * delimiter, which the caller drops from its input
 * (phyllo_cobs_rx_take_frame()); the decoder then takes the next frame.
 * Returns the frame's length, or PHYLLO_E_NOSPACE with nothing changed.
 * The caller climbs the frame with phyllo_stack_receive_frame() before it
 * receives anything else.
 */
int phyllo_stack_receive_set_aside(struct phyllo_stack *s, uint8_t *dst, uint16_t cap);
/* Climb one decoded frame (one set aside), counted as a receive counts
 * it. Returns 1 with *unit set (valid while frame is), else 0.
 */
int phyllo_stack_receive_frame(struct phyllo_stack *s, const uint8_t *frame, uint16_t len,
			       uint32_t now_ms, struct phyllo_unit *unit);
/* Send one unit; reliable is ignored below the standard preset (every unit
 * is then a datagram). Returns 0 or a negative enum phyllo_err.
 */
int phyllo_stack_send(struct phyllo_stack *s, uint8_t type, const uint8_t *data,
		      uint16_t len, bool reliable, uint32_t now_ms);
/* Units that phyllo_stack_send() accepts now (255 when unlimited). */
uint8_t phyllo_stack_room(const struct phyllo_stack *s);
/* True when everything sent reliably has been acknowledged. */
bool phyllo_stack_idle(const struct phyllo_stack *s);
uint16_t phyllo_stack_poll(struct phyllo_stack *s, uint32_t now_ms);
/* PHYLLO_EV_* since the last call (standard preset; 0 otherwise). */
uint8_t phyllo_stack_take_events(struct phyllo_stack *s);
/* The unit the last receive returned cannot be taken now. Reliable units
 * stay with the peer and are asked for again once phyllo_arq_hold(.., false)
 * is called; returns PHYLLO_E_INVAL for units that cannot be refused
 * (below the standard preset, or NOS): the caller then drops and counts.
 */
int phyllo_stack_refuse(struct phyllo_stack *s);

#endif /* PHYLLO_STACK_H */
