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

int phyllo_chunk_feed(struct phyllo_chunk *c, const uint8_t *buf, uint16_t n, uint16_t *used)
{
	const uint8_t *p = buf, *end = buf + n;
	int ret;

	while (p != end) {
		uint8_t byte = *p++;

		if (byte != PHYLLO_DELIMITER) {
			if (c->len < sizeof(c->buf))
				c->buf[c->len++] = byte;
			else
				c->overflow = true;
			continue;
		}
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
