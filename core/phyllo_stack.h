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
 *  - phyllo_stack_receive() consumes bytes until one unit is ready (then it
 *    stops, so the caller handles one unit at a time) or the bytes run out.
 *    The unit points into the stack and stays valid until the next receive.
 *  - phyllo_stack_send() writes a whole frame to the output sink at once (or
 *    queues it in the send window, standard preset).
 *  - phyllo_stack_poll() runs timers; call it again within the milliseconds
 *    it returns, or sooner.
 * The output sink must take every byte it is given; size it for at least
 * PHYLLO_WIRE_MAX bytes per frame (a full window resent is window frames).
 */
#ifndef PHYLLO_STACK_H
#define PHYLLO_STACK_H

#include "phyllo_types.h"
#include "phyllo_wire.h"
#include "phyllo_cobs.h"
#include "phyllo_datagram.h"
#include "phyllo_arq.h"
#include "phyllo_stats.h"

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
/* Send one unit; reliable is ignored below the standard preset (every unit
 * is then a datagram). Returns 0 or a negative enum phyllo_err. */
int phyllo_stack_send(struct phyllo_stack *s, uint8_t type, const uint8_t *data,
		      uint16_t len, bool reliable, uint32_t now_ms);
/* Units that phyllo_stack_send() accepts now (255 when unlimited). */
uint8_t phyllo_stack_room(const struct phyllo_stack *s);
/* True when everything sent reliably has been acknowledged. */
bool phyllo_stack_idle(const struct phyllo_stack *s);
uint16_t phyllo_stack_poll(struct phyllo_stack *s, uint32_t now_ms);

#endif /* PHYLLO_STACK_H */
