// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo_msgpack.c - MessagePack writer and reader without heap, recursion
 * or floating point. See phyllo_msgpack.h for the contract.
 */
#include "phyllo_msgpack.h"

void phyllo_mp_writer_init(struct phyllo_mp_writer *w, uint8_t *buf, uint16_t cap)
{
	w->buf = buf;
	w->cap = cap;
	w->len = 0;
	w->err = 0;
}

static bool mp_room(struct phyllo_mp_writer *w, uint32_t n)
{
	if (w->err || n > (uint32_t)(w->cap - w->len)) {
		w->err = PHYLLO_E_NOSPACE;
		return false;
	}
	return true;
}

/* A marker byte followed by the low nbytes of v, big-endian. */
static void mp_put(struct phyllo_mp_writer *w, uint8_t marker, uint64_t v, uint8_t nbytes)
{
	if (!mp_room(w, 1u + nbytes))
		return;
	w->buf[w->len++] = marker;
	while (nbytes--)
		w->buf[w->len++] = (uint8_t)(v >> (8 * nbytes));
}

/* Pick the smallest of the 8/16/32-bit length forms starting at marker. */
static void mp_put_len(struct phyllo_mp_writer *w, uint8_t marker, uint32_t n)
{
	if (n < 0x100)
		mp_put(w, marker, n, 1);
	else if (n < 0x10000)
		mp_put(w, (uint8_t)(marker + 1), n, 2);
	else
		mp_put(w, (uint8_t)(marker + 2), n, 4);
}

void phyllo_mp_write_nil(struct phyllo_mp_writer *w)
{
	mp_put(w, 0xc0, 0, 0);
}

void phyllo_mp_write_bool(struct phyllo_mp_writer *w, bool v)
{
	mp_put(w, v ? 0xc3 : 0xc2, 0, 0);
}

void phyllo_mp_write_uint(struct phyllo_mp_writer *w, uint64_t v)
{
	if (v < 0x80)
		mp_put(w, (uint8_t)v, 0, 0);
	else if (v < 0x100)
		mp_put(w, 0xcc, v, 1);
	else if (v < 0x10000)
		mp_put(w, 0xcd, v, 2);
	else if (v < 0x100000000ULL)
		mp_put(w, 0xce, v, 4);
	else
		mp_put(w, 0xcf, v, 8);
}

void phyllo_mp_write_int(struct phyllo_mp_writer *w, int64_t v)
{
	if (v >= 0)
		phyllo_mp_write_uint(w, (uint64_t)v);
	else if (v >= -32)
		mp_put(w, (uint8_t)(0xe0 | (v & 0x1f)), 0, 0);
	else if (v >= -128)
		mp_put(w, 0xd0, (uint64_t)v, 1);
	else if (v >= -32768)
		mp_put(w, 0xd1, (uint64_t)v, 2);
	else if (v >= -2147483647LL - 1)
		mp_put(w, 0xd2, (uint64_t)v, 4);
	else
		mp_put(w, 0xd3, (uint64_t)v, 8);
}

void phyllo_mp_write_f32_bits(struct phyllo_mp_writer *w, uint32_t bits)
{
	mp_put(w, 0xca, bits, 4);
}

void phyllo_mp_write_f64_bits(struct phyllo_mp_writer *w, uint64_t bits)
{
	mp_put(w, 0xcb, bits, 8);
}

static void mp_put_bytes(struct phyllo_mp_writer *w, const uint8_t *s, uint32_t n)
{
	if (!mp_room(w, n))
		return;
	if (n)
		memcpy(w->buf + w->len, s, n);
	w->len += (uint16_t)n;
}

void phyllo_mp_write_str(struct phyllo_mp_writer *w, const uint8_t *s, uint32_t n)
{
	if (n < 32)
		mp_put(w, (uint8_t)(0xa0 | n), 0, 0);
	else
		mp_put_len(w, 0xd9, n);
	mp_put_bytes(w, s, n);
}

void phyllo_mp_write_bin(struct phyllo_mp_writer *w, const uint8_t *s, uint32_t n)
{
	mp_put_len(w, 0xc4, n);
	mp_put_bytes(w, s, n);
}

void phyllo_mp_write_array(struct phyllo_mp_writer *w, uint32_t n)
{
	if (n < 16)
		mp_put(w, (uint8_t)(0x90 | n), 0, 0);
	else
		mp_put(w, n < 0x10000 ? 0xdc : 0xdd, n, n < 0x10000 ? 2 : 4);
}

void phyllo_mp_write_map(struct phyllo_mp_writer *w, uint32_t n)
{
	if (n < 16)
		mp_put(w, (uint8_t)(0x80 | n), 0, 0);
	else
		mp_put(w, n < 0x10000 ? 0xde : 0xdf, n, n < 0x10000 ? 2 : 4);
}

void phyllo_mp_reader_init(struct phyllo_mp_reader *r, const uint8_t *buf, uint16_t len)
{
	r->buf = buf;
	r->len = len;
	r->pos = 0;
}

/* Read an n-byte big-endian integer. */
static int mp_take(struct phyllo_mp_reader *r, uint8_t n, uint64_t *v)
{
	if (n > r->len - r->pos)
		return PHYLLO_E_MSGPACK;
	*v = 0;
	while (n--)
		*v = (*v << 8) | r->buf[r->pos++];
	return 0;
}

/* Point o at the o->len raw bytes that follow a str or bin header. */
static int mp_take_bytes(struct phyllo_mp_reader *r, struct phyllo_mp_obj *o)
{
	if (o->len > (uint32_t)(r->len - r->pos))
		return PHYLLO_E_MSGPACK;
	o->data = r->buf + r->pos;
	r->pos += (uint16_t)o->len;
	return 0;
}

static int mp_signed(struct phyllo_mp_reader *r, uint8_t width, struct phyllo_mp_obj *o)
{
	uint64_t v;

	if (mp_take(r, width, &v))
		return PHYLLO_E_MSGPACK;
	if (width < 8 && ((v >> (8 * width - 1)) & 1))
		v |= ~0ULL << (8 * width);
	o->i = (int64_t)v;
	o->kind = o->i < 0 ? PHYLLO_MP_INT : PHYLLO_MP_UINT;
	o->u = o->i < 0 ? 0 : v;
	return 0;
}

/* A header whose length (or value) follows the marker in width bytes. */
static int mp_sized(struct phyllo_mp_reader *r, uint8_t kind, uint8_t width,
		    struct phyllo_mp_obj *o)
{
	uint64_t v;

	if (mp_take(r, width, &v))
		return PHYLLO_E_MSGPACK;
	o->kind = kind;
	if (kind == PHYLLO_MP_UINT || kind == PHYLLO_MP_F32 || kind == PHYLLO_MP_F64) {
		o->u = v;
		return 0;
	}
	o->len = (uint32_t)v;
	return (kind == PHYLLO_MP_STR || kind == PHYLLO_MP_BIN) ? mp_take_bytes(r, o) : 0;
}

static int mp_read_marker(struct phyllo_mp_reader *r, uint8_t b, struct phyllo_mp_obj *o)
{
	switch (b) {
	case 0xc0: o->kind = PHYLLO_MP_NIL; return 0;
	case 0xc2: case 0xc3: o->kind = PHYLLO_MP_BOOL; o->b = b & 1; return 0;
	case 0xc4: case 0xc5: case 0xc6:
		return mp_sized(r, PHYLLO_MP_BIN, (uint8_t)(1 << (b - 0xc4)), o);
	case 0xca: return mp_sized(r, PHYLLO_MP_F32, 4, o);
	case 0xcb: return mp_sized(r, PHYLLO_MP_F64, 8, o);
	case 0xcc: case 0xcd: case 0xce: case 0xcf:
		return mp_sized(r, PHYLLO_MP_UINT, (uint8_t)(1 << (b - 0xcc)), o);
	case 0xd0: case 0xd1: case 0xd2: case 0xd3:
		return mp_signed(r, (uint8_t)(1 << (b - 0xd0)), o);
	case 0xd9: case 0xda: case 0xdb:
		return mp_sized(r, PHYLLO_MP_STR, (uint8_t)(1 << (b - 0xd9)), o);
	case 0xdc: case 0xdd:
		return mp_sized(r, PHYLLO_MP_ARRAY, (uint8_t)(2 << (b - 0xdc)), o);
	case 0xde: case 0xdf:
		return mp_sized(r, PHYLLO_MP_MAP, (uint8_t)(2 << (b - 0xde)), o);
	default:	/* 0xc1 never used; extension types refused */
		return PHYLLO_E_MSGPACK;
	}
}

int phyllo_mp_read(struct phyllo_mp_reader *r, struct phyllo_mp_obj *o)
{
	uint8_t b;

	memset(o, 0, sizeof(*o));
	if (r->pos >= r->len)
		return PHYLLO_E_MSGPACK;
	b = r->buf[r->pos++];
	if (b <= 0x7f) {
		o->kind = PHYLLO_MP_UINT;
		o->u = b;
	} else if (b >= 0xe0) {
		o->kind = PHYLLO_MP_INT;
		o->i = (int8_t)b;
	} else if (b <= 0x8f) {
		o->kind = PHYLLO_MP_MAP;
		o->len = b & 0x0f;
	} else if (b <= 0x9f) {
		o->kind = PHYLLO_MP_ARRAY;
		o->len = b & 0x0f;
	} else if (b <= 0xbf) {
		o->kind = PHYLLO_MP_STR;
		o->len = b & 0x1f;
		return mp_take_bytes(r, o);
	} else {
		return mp_read_marker(r, b, o);
	}
	return 0;
}

int phyllo_mp_skip(struct phyllo_mp_reader *r)
{
	struct phyllo_mp_obj o;
	uint32_t pending = 1;

	while (pending) {
		if (phyllo_mp_read(r, &o))
			return PHYLLO_E_MSGPACK;
		pending--;
		if (o.kind == PHYLLO_MP_ARRAY)
			pending += o.len;
		else if (o.kind == PHYLLO_MP_MAP)
			pending += o.len * 2;
		/* Every pending item needs a byte: refuse impossible counts
		 * before they can wrap. */
		if (pending > (uint32_t)(r->len - r->pos))
			return PHYLLO_E_MSGPACK;
	}
	return 0;
}

int phyllo_mp_check(const uint8_t *buf, uint16_t len)
{
	struct phyllo_mp_reader r;

	phyllo_mp_reader_init(&r, buf, len);
	if (phyllo_mp_skip(&r) || r.pos != len)
		return PHYLLO_E_MSGPACK;
	return 0;
}
