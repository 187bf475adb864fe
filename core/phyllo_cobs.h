/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo_cobs.h - Consistent Overhead Byte Stuffing (frame, type 0x20).
 *
 * Encoding removes every zero: n bytes become n + 1 + n / 254 bytes at most
 * (PHYLLO_COBS_MAX_ENCODED). A run of 254 non-zero bytes at the very end adds
 * no trailing group, as in the original paper and the public implementations.
 * Decoding may work in place (out == in): output never overtakes input.
 */
#ifndef PHYLLO_COBS_H
#define PHYLLO_COBS_H

#include "phyllo_types.h"
#include "phyllo_wire.h"

#define PHYLLO_COBS_MAX_ENCODED(n) ((n) + 1 + (n) / 254)

/* A sink for encoded bytes: must take all n bytes. */
struct phyllo_out {
	void (*write)(void *ctx, const uint8_t *buf, uint16_t n);
	void *ctx;
};

/* Encode in[0..n) into out (cap bytes). Returns the encoded length or
 * PHYLLO_E_NOSPACE.
 */
int phyllo_cobs_encode(const uint8_t *in, uint16_t n, uint8_t *out, uint16_t cap);

/* Decode in[0..n) into out (cap bytes; out may equal in). Returns the decoded
 * length, PHYLLO_E_FRAMING for a zero or a group past the end, or
 * PHYLLO_E_NOSPACE.
 */
int phyllo_cobs_decode(const uint8_t *in, uint16_t n, uint8_t *out, uint16_t cap);

/*
 * Stream the COBS encoding of head[0..nh) followed by body[0..nb) to out,
 * without a staging buffer (the AVR has no RAM to spare for one). Writes
 * neither delimiter. Returns the number of bytes written.
 */
uint16_t phyllo_cobs_write(const struct phyllo_out *out, const uint8_t *head, uint16_t nh,
			   const uint8_t *body, uint16_t nb);

/*
 * The chunked stream and the COBS frame in one pass, for the receive path:
 * stream bytes are decoded straight into buf as they arrive, with no copy
 * of the encoded chunk and no second pass over it. The results are those
 * of phyllo_chunk_feed() followed by phyllo_cobs_decode(), which stay the
 * reference (the tests compare the two on random streams): an empty chunk
 * is ignored, a chunk over PHYLLO_CHUNK_MAX bytes is PHYLLO_E_OVERFLOW and
 * one whose last group the delimiter cuts short is PHYLLO_E_FRAMING, each
 * reported once, at the delimiter that ends it.
 */
struct phyllo_cobs_rx {
	/* The state first: an 8-bit MCU reaches small offsets cheaply. */
	uint16_t len;   /* decoded bytes in buf */
	uint16_t wire;  /* encoded bytes, the current group counted whole; or,
			 * once skipping, the bytes seen (at most CHUNK_MAX + 1)
			 */
	uint8_t left;   /* bytes of the current group still to come */
	bool zero;      /* the current group stands for a zero after it */
	bool skip;      /* over-long: skipping to the delimiter */
	uint8_t buf[PHYLLO_FRAME_MAX];
};

void phyllo_cobs_rx_init(struct phyllo_cobs_rx *r);

/*
 * Consumes bytes up to and including the delimiter that ends a non-empty
 * chunk, sets *used, and returns 1 with the frame in r->buf[0..r->len)
 * (valid until the next call), or a negative enum phyllo_err for that
 * chunk; 0 with *used == n when the bytes ran out first.
 */
int phyllo_cobs_rx_feed(struct phyllo_cobs_rx *r, const uint8_t *buf, uint16_t n,
			uint16_t *used);
/*
 * The same, but it stops before a delimiter that would end a non-empty
 * chunk (the next feed starts with it): it never completes a frame, so
 * it may run while the last frame's bytes are no longer needed but the
 * layers above must not be entered (the AVR firmware, during a write).
 * Returns the bytes taken.
 */
uint16_t phyllo_cobs_rx_take(struct phyllo_cobs_rx *r, const uint8_t *buf, uint16_t n);
/*
 * After a take that stopped before a delimiter: when that delimiter would
 * complete a frame (the chunk is well formed) of at most cap bytes, copy
 * the frame to dst, start afresh as the delimiter would (the caller drops
 * the delimiter from its input) and return the frame's length. Otherwise
 * PHYLLO_E_NOSPACE, and nothing has changed: the delimiter still ends the
 * chunk at the next feed. So a short frame held during a write (a pure
 * ACK) can be set aside, and the decoder takes the next frame meanwhile.
 */
int phyllo_cobs_rx_take_frame(struct phyllo_cobs_rx *r, uint8_t *dst, uint16_t cap);

#endif /* PHYLLO_COBS_H */
