/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo_chunk.h - chunked stream (type 0x12): splitting a byte stream at
 * 0x00 delimiters.
 *
 * Contract: feed every received byte to phyllo_chunk_push(). A chunk is
 * complete at a delimiter; empty chunks are ignored. A chunk longer than
 * PHYLLO_CHUNK_MAX is discarded up to the next delimiter and reported once,
 * so line noise costs at most one chunk and the stream always resyncs.
 *
 * This is the layer on its own. The stack's receive path chunks and
 * decodes COBS in one pass (phyllo_cobs_rx_feed()), and the tests hold
 * that path to this layer followed by phyllo_cobs_decode().
 */
#ifndef PHYLLO_CHUNK_H
#define PHYLLO_CHUNK_H

#include "phyllo_types.h"
#include "phyllo_wire.h"

struct phyllo_chunk {
	uint8_t buf[PHYLLO_CHUNK_MAX];
	uint16_t len;
	bool overflow;  /* discarding until the next delimiter */
};

void phyllo_chunk_init(struct phyllo_chunk *c);

/*
 * Returns 0 while a chunk is incomplete (or on an empty chunk), the chunk
 * length (> 0, bytes in c->buf) when one completes, or PHYLLO_E_OVERFLOW at
 * the delimiter that ends an over-long chunk.
 */
int phyllo_chunk_push(struct phyllo_chunk *c, uint8_t byte);

/*
 * The same for many bytes at once (the fast path): consumes bytes up to and
 * including the delimiter that completes a chunk or ends an over-long one,
 * sets *used, and returns as phyllo_chunk_push() would for that delimiter;
 * 0 with *used == n when the bytes ran out first.
 */
int phyllo_chunk_feed(struct phyllo_chunk *c, const uint8_t *buf, uint16_t n, uint16_t *used);

#endif /* PHYLLO_CHUNK_H */
