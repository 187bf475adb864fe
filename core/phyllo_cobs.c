// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo_cobs.c - Consistent Overhead Byte Stuffing.
 *
 * A group is a code byte c (1..255) followed by c - 1 non-zero bytes; a
 * group with c < 255 stands for its bytes plus one zero, except the last
 * group of the frame. See phyllo_cobs.h for the contract.
 */
#include "phyllo_cobs.h"

/* Leading non-zero bytes of p[0..rem), at most max. memchr: the C
 * library's loop is the faster one on the AVR (assembly, 8 cycles a byte
 * where this loop in C took 11). No call for nothing: p may be NULL.
 */
static uint8_t cobs_scan(const uint8_t *p, uint16_t rem, uint8_t max)
{
	uint8_t lim = rem < max ? (uint8_t)rem : max;
	const uint8_t *z = lim ? memchr(p, PHYLLO_DELIMITER, lim) : NULL;

	return z ? (uint8_t)(z - p) : lim;
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
		/* (no arithmetic on a NULL body, not even + 0: it is UB) */
		if (!in_body && n0 == rem) {
			rem = nb - n1;
			in_body = true;
			if (!rem)
				return written;
			p = body + n1;
		} else if (n0) {
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
EXPORT_SYMBOL_IF_KUNIT(phyllo_cobs_write);

void phyllo_cobs_rx_init(struct phyllo_cobs_rx *r)
{
	r->len = 0;
	r->wire = 0;
	r->left = 0;
	r->zero = false;
	r->skip = false;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_cobs_rx_init);

/* A code byte: the zero the last group stands for, then a new group. A
 * group that would take the chunk past its limit starts the skipping.
 */
static void cobs_rx_code(struct phyllo_cobs_rx *r, uint8_t code)
{
	uint16_t wire = r->wire + code;

	if (wire > PHYLLO_CHUNK_MAX) {
		r->skip = true;
		r->wire++;
		return;
	}
	if (r->zero)
		r->buf[r->len++] = 0;
	r->zero = code != 0xff;
	r->left = (uint8_t)(code - 1);
	r->wire = wire;
}

/* Copy up to k bytes of a group, stopping before a delimiter; returns how
 * many. Its own function, so the loop owns the pointer registers.
 */
static uint8_t cobs_rx_run(uint8_t *o, const uint8_t *q, uint8_t k)
{
	uint8_t rest = k;

	do {
		uint8_t b = *q++;

		if (b == PHYLLO_DELIMITER)
			break;
		*o++ = b;
	} while (--rest);
	return (uint8_t)(k - rest);
}

/* Copy the current group's bytes that are here, up to a delimiter. The
 * limit checked at the code byte makes room for them.
 */
static const uint8_t *cobs_rx_copy(struct phyllo_cobs_rx *r, const uint8_t *p,
				   const uint8_t *end)
{
	uint8_t k = r->left;

	if (k > end - p)
		k = (uint8_t)(end - p);
	k = cobs_rx_run(r->buf + r->len, p, k);
	r->left -= k;
	r->len += k;
	return p + k;
}

/* An over-long chunk: count its bytes (to a ceiling) up to a delimiter. */
static const uint8_t *cobs_rx_skip(struct phyllo_cobs_rx *r, const uint8_t *p,
				   const uint8_t *end)
{
	const uint8_t *z = memchr(p, PHYLLO_DELIMITER, (size_t)(end - p));
	uint16_t k;

	if (!z)
		z = end;
	k = (uint16_t)(z - p);
	r->wire += k > PHYLLO_CHUNK_MAX ? PHYLLO_CHUNK_MAX : k;
	if (r->wire > PHYLLO_CHUNK_MAX + 1)
		r->wire = PHYLLO_CHUNK_MAX + 1;
	return z;
}

/* The delimiter: the verdict on the chunk it ends, and a fresh start. */
static int cobs_rx_end(struct phyllo_cobs_rx *r)
{
	uint16_t wire = r->skip ? r->wire : r->wire - r->left;
	int ret = !wire ? 0 : wire > PHYLLO_CHUNK_MAX ? PHYLLO_E_OVERFLOW :
		  r->skip || r->left ? PHYLLO_E_FRAMING : 1;
	uint16_t len = r->len;

	phyllo_cobs_rx_init(r);
	if (ret == 1)
		r->len = len;	/* the frame, until the next call */
	return ret;
}

/* phyllo_cobs_rx_feed(), or with hold, phyllo_cobs_rx_take(): a delimiter
 * that ends a non-empty chunk is then left where it is.
 */
static int cobs_rx_bytes(struct phyllo_cobs_rx *r, const uint8_t *buf, uint16_t n,
			 uint16_t *used, bool hold)
{
	const uint8_t *p = buf, *end = buf + n;

	if (!r->wire)
		r->len = 0;	/* the last frame returned is done with */
	while (p != end) {
		if (*p == PHYLLO_DELIMITER) {
			int ret;

			if (hold && r->wire)
				break;
			ret = cobs_rx_end(r);
			p++;
			if (ret) {
				*used = (uint16_t)(p - buf);
				return ret;
			}
		} else if (r->skip) {
			p = cobs_rx_skip(r, p, end);
		} else if (r->left) {
			p = cobs_rx_copy(r, p, end);
		} else {
			cobs_rx_code(r, *p++);
		}
	}
	*used = (uint16_t)(p - buf);
	return 0;
}

int phyllo_cobs_rx_feed(struct phyllo_cobs_rx *r, const uint8_t *buf, uint16_t n,
			uint16_t *used)
{
	return cobs_rx_bytes(r, buf, n, used, false);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_cobs_rx_feed);

uint16_t phyllo_cobs_rx_take(struct phyllo_cobs_rx *r, const uint8_t *buf, uint16_t n)
{
	uint16_t used;

	cobs_rx_bytes(r, buf, n, &used, true);
	return used;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_cobs_rx_take);

int phyllo_cobs_rx_take_frame(struct phyllo_cobs_rx *r, uint8_t *dst, uint16_t cap)
{
	uint16_t len = r->len;

	/* cobs_rx_end()'s verdict 1: a chunk, its last group complete (a
	 * group never takes it past PHYLLO_CHUNK_MAX, cobs_rx_code)
	 */
	if (!r->wire || r->skip || r->left || len > cap)
		return PHYLLO_E_NOSPACE;
	memcpy(dst, r->buf, len);
	phyllo_cobs_rx_init(r);
	return len;
}
