// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo_cobs.c - Consistent Overhead Byte Stuffing.
 *
 * A group is a code byte c (1..255) followed by c - 1 non-zero bytes; a
 * group with c < 255 stands for its bytes plus one zero, except the last
 * group of the frame. See phyllo_cobs.h for the contract.
 */
#include "phyllo_cobs.h"

int phyllo_cobs_encode(const uint8_t *in, uint16_t n, uint8_t *out, uint16_t cap)
{
	uint16_t code_at = 0, o = 1, i;
	uint8_t code = 1;

	if (cap < 1)
		return PHYLLO_E_NOSPACE;
	for (i = 0; i < n; i++) {
		if (in[i] != 0) {
			if (o >= cap)
				return PHYLLO_E_NOSPACE;
			out[o++] = in[i];
			code++;
		}
		/* Close the group on a zero, or when it is full and more
		 * bytes follow (a full group at the very end needs no next). */
		if (in[i] == 0 || (code == 0xff && i + 1 < n)) {
			out[code_at] = code;
			if (o >= cap)
				return PHYLLO_E_NOSPACE;
			code_at = o++;
			code = 1;
		}
	}
	out[code_at] = code;
	return o;
}

int phyllo_cobs_decode(const uint8_t *in, uint16_t n, uint8_t *out, uint16_t cap)
{
	uint16_t i = 0, o = 0;

	while (i < n) {
		uint8_t code = in[i++];
		uint8_t k;

		if (code == 0 || (uint16_t)(code - 1) > n - i)
			return PHYLLO_E_FRAMING;
		if ((uint16_t)(code - 1) > cap - o)
			return PHYLLO_E_NOSPACE;
		for (k = 1; k < code; k++) {
			if (in[i] == 0)
				return PHYLLO_E_FRAMING;
			out[o++] = in[i++];
		}
		if (code != 0xff && i < n) {
			if (o >= cap)
				return PHYLLO_E_NOSPACE;
			out[o++] = 0;
		}
	}
	return o;
}

/* Byte k of the virtual concatenation head ++ body. */
static uint8_t cobs_at(const uint8_t *head, uint16_t nh, const uint8_t *body, uint16_t k)
{
	return k < nh ? head[k] : body[k - nh];
}

/* Write src[k..k+len) of head ++ body, in at most two pieces. */
static void cobs_emit(const struct phyllo_out *out, const uint8_t *head, uint16_t nh,
		      const uint8_t *body, uint16_t k, uint16_t len)
{
	if (k < nh) {
		uint16_t first = nh - k < len ? nh - k : len;

		out->write(out->ctx, head + k, first);
		k += first;
		len -= first;
	}
	if (len)
		out->write(out->ctx, body + (k - nh), len);
}

uint16_t phyllo_cobs_write(const struct phyllo_out *out, const uint8_t *head, uint16_t nh,
			   const uint8_t *body, uint16_t nb)
{
	uint16_t n = nh + nb, k = 0, written = 0;

	for (;;) {
		uint16_t run = 0;
		uint8_t code;

		while (k + run < n && run < 254 && cobs_at(head, nh, body, k + run) != 0)
			run++;
		code = (uint8_t)(run + 1);
		out->write(out->ctx, &code, 1);
		cobs_emit(out, head, nh, body, k, run);
		written += 1 + run;
		k += run;
		if (k >= n)
			return written;
		if (run < 254)
			k++;	/* the zero this group stands for */
		else if (k == n)
			return written;
	}
}
