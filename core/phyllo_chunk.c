// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo_chunk.c - split a byte stream into chunks at 0x00 delimiters.
 * See phyllo_chunk.h for the contract.
 */
#include "phyllo_chunk.h"

void phyllo_chunk_init(struct phyllo_chunk *c)
{
	c->len = 0;
	c->overflow = false;
}

int phyllo_chunk_push(struct phyllo_chunk *c, uint8_t byte)
{
	uint16_t used;

	return phyllo_chunk_feed(c, &byte, 1, &used);
}

/* Append a run of non-zero bytes, as much as fits; the rest overflows. */
static void chunk_append(struct phyllo_chunk *c, const uint8_t *p, uint16_t run)
{
	uint16_t room = (uint16_t)(sizeof(c->buf) - c->len);

	if (run > room) {
		run = room;
		c->overflow = true;
	}
	memcpy(c->buf + c->len, p, run);
	c->len += run;
}

int phyllo_chunk_feed(struct phyllo_chunk *c, const uint8_t *buf, uint16_t n, uint16_t *used)
{
	const uint8_t *p = buf, *end = buf + n;
	int ret;

	/* memchr and memcpy rather than a byte loop: the C library's are
	 * tuned, and an 8-bit MCU spends most of its receive time here.
	 */
	while (p != end) {
		const uint8_t *z = *p == PHYLLO_DELIMITER ? p :	/* a frame's leading 0 */
				   memchr(p, PHYLLO_DELIMITER, (size_t)(end - p));

		if (z != p)
			chunk_append(c, p, (uint16_t)((z ? z : end) - p));
		if (!z)
			break;
		p = z + 1;
		ret = c->overflow ? PHYLLO_E_OVERFLOW : (int)c->len;
		c->len = 0;
		c->overflow = false;
		if (ret) {
			*used = (uint16_t)(p - buf);
			return ret;
		}
	}
	*used = n;
	return 0;
}
