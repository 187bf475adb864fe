/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * stream.h - `phyllo peer --stream`: send COUNT reliable messages one way,
 * as fast as the window allows or one every INTERVAL ms, and time how long
 * each waits for its acknowledgement. This is the far end of the "slow
 * application" benchmark: it sees how quickly the other side's stack
 * acknowledges, whatever its application is doing.
 *
 * The core retires a unit when it is acknowledged or lost to a session
 * reset; the glue says which (stream_retired() up to the loss, then
 * stream_lost()), so a lost unit is counted as such, never timed as
 * acknowledged.
 */
#ifndef PHYLLO_STREAM_H
#define PHYLLO_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "payload.h"

struct stream {
	struct payload_spec payload;
	uint64_t count, interval_us;
	uint64_t sent, bytes, next_us;
	uint64_t done, acked, lost;	/* retired = acknowledged + lost to resets */
	uint64_t *send_us;		/* per message: when it was sent */
	uint64_t *ack_us;		/* per acknowledgement: its latency */
	uint32_t retired_base;		/* the core's tx_retired_total at the start */
	uint64_t t_first, t_last;
};

int stream_init(struct stream *s, const struct payload_spec *spec, uint64_t count,
		uint64_t interval_ms, uint32_t retired_now);
void stream_free(struct stream *s);
/* True when the next message is due (count and pacing allow it). */
bool stream_due(const struct stream *s, uint64_t now_us);
uint16_t stream_next(const struct stream *s, uint8_t *type, uint8_t *buf);
void stream_sent(struct stream *s, uint16_t bytes, uint64_t now_us);
/* The core says `retired` units are done in total: time the new ones. */
void stream_retired(struct stream *s, uint32_t retired, uint64_t now_us);
/* The next n units not yet retired were lost to a session reset. */
void stream_lost(struct stream *s, uint64_t n);
bool stream_done(const struct stream *s);
void stream_json(FILE *f, struct stream *s);

#endif
