// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo_cobs_buf.c - COBS of a whole buffer at once: the reference forms
 * of encode and decode. The stacks use the streaming writer and decoder of
 * phyllo_cobs.c; these serve the tests (the streaming code's results are
 * checked against them), fuzzers, benches and tools. Not in phyllo.ko.
 * See phyllo_cobs.h for the contract.
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
		 * bytes follow (a full group at the very end needs no next).
		 */
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
