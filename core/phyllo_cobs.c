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
	const uint8_t *p = in, *end = in + n;
	uint8_t *o = out, *olim = out + cap;

	/* Pointers, not indices: on an 8-bit MCU every index is a 16-bit add. */
	while (p != end) {
		uint8_t code = *p++, k;

		if (code == 0 || code - 1 > end - p)
			return PHYLLO_E_FRAMING;
		if (code - 1 > olim - o)
			return PHYLLO_E_NOSPACE;
		for (k = code - 1; k; k--) {
			uint8_t b = *p++;

			if (!b)
				return PHYLLO_E_FRAMING;
			*o++ = b;
		}
		if (code != 0xff && p != end) {
			if (o == olim)
				return PHYLLO_E_NOSPACE;
			*o++ = 0;
		}
	}
	return (int)(o - out);
}

/* Leading non-zero bytes of p[0..rem), at most max. */
static uint8_t cobs_scan(const uint8_t *p, uint16_t rem, uint8_t max)
{
	uint8_t k = 0, lim = rem < max ? (uint8_t)rem : max;

	while (k < lim && p[k])
		k++;
	return k;
}

uint16_t phyllo_cobs_write(const struct phyllo_out *out, const uint8_t *head, uint16_t nh,
			   const uint8_t *body, uint16_t nb)
{
	const uint8_t *p = head;
	uint16_t rem = nh, written = 0;
	bool in_body = false;

	/* Each turn writes one group; a group may straddle head and body. */
	for (;;) {
		uint8_t n0, n1 = 0, code;

		if (!rem && !in_body) {
			p = body;
			rem = nb;
			in_body = true;
		}
		n0 = cobs_scan(p, rem, 254);
		if (!in_body && n0 == rem && n0 < 254)
			n1 = cobs_scan(body, nb, (uint8_t)(254 - n0));
		code = (uint8_t)(n0 + n1 + 1);
		out->write(out->ctx, &code, 1);
		if (n0)
			out->write(out->ctx, p, n0);
		if (n1)
			out->write(out->ctx, body, n1);
		written += code;
		if (!in_body && n0 == rem) {
			p = body + n1;
			rem = nb - n1;
			in_body = true;
		} else {
			p += n0;
			rem -= n0;
		}
		if (in_body && !rem)
			return written;
		if (code != 0xff) {	/* the group stands for the zero after it */
			p++;
			rem--;
		}
	}
}
