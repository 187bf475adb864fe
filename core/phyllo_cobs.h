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

#define PHYLLO_COBS_MAX_ENCODED(n) ((n) + 1 + (n) / 254)

/* A sink for encoded bytes: must take all n bytes. */
struct phyllo_out {
	void (*write)(void *ctx, const uint8_t *buf, uint16_t n);
	void *ctx;
};

/* Encode in[0..n) into out (cap bytes). Returns the encoded length or
 * PHYLLO_E_NOSPACE. */
int phyllo_cobs_encode(const uint8_t *in, uint16_t n, uint8_t *out, uint16_t cap);

/* Decode in[0..n) into out (cap bytes; out may equal in). Returns the decoded
 * length, PHYLLO_E_FRAMING for a zero or a group past the end, or
 * PHYLLO_E_NOSPACE. */
int phyllo_cobs_decode(const uint8_t *in, uint16_t n, uint8_t *out, uint16_t cap);

/*
 * Stream the COBS encoding of head[0..nh) followed by body[0..nb) to out,
 * without a staging buffer (the AVR has no RAM to spare for one). Writes
 * neither delimiter. Returns the number of bytes written.
 */
uint16_t phyllo_cobs_write(const struct phyllo_out *out, const uint8_t *head, uint16_t nh,
			   const uint8_t *body, uint16_t nb);

#endif /* PHYLLO_COBS_H */
