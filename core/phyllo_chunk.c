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
	int ret;

	if (byte != PHYLLO_DELIMITER) {
		if (c->len < sizeof(c->buf))
			c->buf[c->len++] = byte;
		else
			c->overflow = true;
		return 0;
	}
	/* Delimiter: report what ended, then start afresh. */
	ret = c->overflow ? PHYLLO_E_OVERFLOW : (int)c->len;
	c->len = 0;
	c->overflow = false;
	return ret;
}
