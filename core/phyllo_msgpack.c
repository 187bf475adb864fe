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

static void mp_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* A marker byte followed by the low nbytes (<= 4) of v, big-endian.
 * 32-bit on purpose: 64-bit shifts are library loops on an 8-bit MCU.
 */
static void mp_put(struct phyllo_mp_writer *w, uint8_t marker, uint32_t v, uint8_t nbytes)
{
	uint8_t *p;

	if (!mp_room(w, 1u + nbytes))
		return;
	p = w->buf + w->len;
	w->len += 1u + nbytes;
	*p++ = marker;
	switch (nbytes) {
	case 4:
		mp_be32(p, v);
		break;
	case 2:
		p[0] = (uint8_t)(v >> 8);
		p[1] = (uint8_t)v;
		break;
	case 1:
		p[0] = (uint8_t)v;
		break;
	default:
		break;
	}
}

/* A marker and eight bytes, as two 32-bit halves. */
static void mp_put64(struct phyllo_mp_writer *w, uint8_t marker, uint64_t v)
{
	uint8_t *p;

	if (!mp_room(w, 9))
		return;
	p = w->buf + w->len;
	w->len += 9;
	p[0] = marker;
	mp_be32(p + 1, (uint32_t)(v >> 32));
	mp_be32(p + 5, (uint32_t)v);
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

void phyllo_mp_write_u32(struct phyllo_mp_writer *w, uint32_t v)
{
	if (v < 0x80)
		mp_put(w, (uint8_t)v, 0, 0);
	else if (v < 0x100)
		mp_put(w, 0xcc, v, 1);
	else if (v < 0x10000)
		mp_put(w, 0xcd, v, 2);
	else
		mp_put(w, 0xce, v, 4);
}

void phyllo_mp_write_i32(struct phyllo_mp_writer *w, int32_t v)
{
	if (v >= 0)
		phyllo_mp_write_u32(w, (uint32_t)v);
	else if (v >= -32)
		mp_put(w, (uint8_t)(0xe0 | (v & 0x1f)), 0, 0);
	else if (v >= -128)
		mp_put(w, 0xd0, (uint32_t)v, 1);
	else if (v >= -32768)
		mp_put(w, 0xd1, (uint32_t)v, 2);
	else
		mp_put(w, 0xd2, (uint32_t)v, 4);
}

void phyllo_mp_write_uint(struct phyllo_mp_writer *w, uint64_t v)
{
	if (v > 0xffffffffULL)
		mp_put64(w, 0xcf, v);
	else
		phyllo_mp_write_u32(w, (uint32_t)v);
}

void phyllo_mp_write_int(struct phyllo_mp_writer *w, int64_t v)
{
	if (v >= 0)
		phyllo_mp_write_uint(w, (uint64_t)v);
	else if (v < -2147483647LL - 1)
		mp_put64(w, 0xd3, (uint64_t)v);
	else
		phyllo_mp_write_i32(w, (int32_t)v);
}

void phyllo_mp_write_f32_bits(struct phyllo_mp_writer *w, uint32_t bits)
{
	mp_put(w, 0xca, bits, 4);
}

void phyllo_mp_write_f64_bits(struct phyllo_mp_writer *w, uint64_t bits)
{
	mp_put64(w, 0xcb, bits);
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

/*
 * Markers 0xc0..0xdf: what follows the marker. Low 4 bits: how many bytes
 * (0, 1, 2, 4 or 8); high bits: a value of that size, a str/bin length
 * whose bytes then follow, or an array or map count.
 */
#define MP_VAL 0x00
#define MP_LEN 0x10
#define MP_ARR 0x20
#define MP_MAP 0x30
#define MP_BAD 0xff

static const uint8_t mp_info[32] PHYLLO_ROM = {
	MP_VAL | 0, MP_BAD, MP_VAL | 0, MP_VAL | 0,			/* nil, -, false, true */
	MP_LEN | 1, MP_LEN | 2, MP_LEN | 4,				/* bin 8/16/32 */
	MP_BAD, MP_BAD, MP_BAD,						/* ext: refused */
	MP_VAL | 4, MP_VAL | 8,						/* f32, f64 bits */
	MP_VAL | 1, MP_VAL | 2, MP_VAL | 4, MP_VAL | 8,			/* uint */
	MP_VAL | 1, MP_VAL | 2, MP_VAL | 4, MP_VAL | 8,			/* int */
	MP_BAD, MP_BAD, MP_BAD, MP_BAD, MP_BAD,				/* fixext */
	MP_LEN | 1, MP_LEN | 2, MP_LEN | 4,				/* str 8/16/32 */
	MP_ARR | 2, MP_ARR | 4, MP_MAP | 2, MP_MAP | 4,
};

/* Read an n-byte (n <= 4) big-endian number. */
static int mp_take32(struct phyllo_mp_reader *r, uint8_t n, uint32_t *v)
{
	const uint8_t *p = r->buf + r->pos;

	if (n > r->len - r->pos)
		return PHYLLO_E_MSGPACK;
	r->pos += n;
	*v = 0;
	while (n--)
		*v = (*v << 8) | *p++;
	return 0;
}

static int mp_take(struct phyllo_mp_reader *r, uint8_t n, uint64_t *v)
{
	uint32_t hi = 0, lo;

	if (n == 8 && mp_take32(r, 4, &hi))
		return PHYLLO_E_MSGPACK;
	if (mp_take32(r, n == 8 ? 4 : n, &lo))
		return PHYLLO_E_MSGPACK;
	*v = (uint64_t)hi << 32 | lo;
	return 0;
}

static int mp_advance(struct phyllo_mp_reader *r, uint32_t n)
{
	if (n > (uint32_t)(r->len - r->pos))
		return PHYLLO_E_MSGPACK;
	r->pos += (uint16_t)n;
	return 0;
}

/* Point o at the o->len raw bytes that follow a str or bin header. */
static int mp_take_bytes(struct phyllo_mp_reader *r, struct phyllo_mp_obj *o)
{
	o->data = r->buf + r->pos;
	return mp_advance(r, o->len);
}

static int mp_read_value(struct phyllo_mp_reader *r, uint8_t b, uint8_t width,
			 struct phyllo_mp_obj *o)
{
	uint64_t v;

	if (mp_take(r, width, &v))
		return PHYLLO_E_MSGPACK;
	if (b <= 0xc3) {
		o->kind = b == 0xc0 ? PHYLLO_MP_NIL : PHYLLO_MP_BOOL;
		o->b = b & 1;
	} else if (b <= 0xcb) {
		o->kind = b == 0xca ? PHYLLO_MP_F32 : PHYLLO_MP_F64;
		o->u = v;
	} else if (b <= 0xcf) {
		o->kind = PHYLLO_MP_UINT;
		o->u = v;
	} else {
		/* sign-extend, then keep non-negative values as UINT */
		if (width < 8 && ((v >> (8 * width - 1)) & 1))
			v |= ~0ULL << (8 * width);
		o->i = (int64_t)v;
		o->kind = o->i < 0 ? PHYLLO_MP_INT : PHYLLO_MP_UINT;
		o->u = o->i < 0 ? 0 : v;
	}
	return 0;
}

static int mp_read_marker(struct phyllo_mp_reader *r, uint8_t b, struct phyllo_mp_obj *o)
{
	uint8_t info = phyllo_rom_byte(&mp_info[b - 0xc0]);
	uint32_t n;

	if (info == MP_BAD)
		return PHYLLO_E_MSGPACK;
	if ((info & 0xf0) == MP_VAL)
		return mp_read_value(r, b, info & 0x0f, o);
	if (mp_take32(r, info & 0x0f, &n))
		return PHYLLO_E_MSGPACK;
	o->len = n;
	switch (info & 0xf0) {
	case MP_ARR:
		o->kind = PHYLLO_MP_ARRAY;
		return 0;
	case MP_MAP:
		o->kind = PHYLLO_MP_MAP;
		return 0;
	default:
		o->kind = b >= 0xd9 ? PHYLLO_MP_STR : PHYLLO_MP_BIN;
		return mp_take_bytes(r, o);
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

/*
 * The bytes that follow a 0xc0..0xdf marker at p[-1]: *skip bytes to pass
 * over and *items the container holds. Counts are checked against the
 * rem bytes left (every item needs one), so they fit 16 bits.
 */
static int mp_skip_marker(const uint8_t *p, uint16_t rem, uint8_t b, uint16_t *skip,
			  uint16_t *items)
{
	uint8_t info = phyllo_rom_byte(&mp_info[b - 0xc0]), w = info & 0x0f;
	uint32_t n = 0;

	if (info == MP_BAD || w > rem)
		return PHYLLO_E_MSGPACK;
	if ((info & 0xf0) == MP_VAL) {
		*skip = w;
		return 0;
	}
	while (w--)
		n = n << 8 | *p++;
	w = info & 0x0f;
	rem -= w;
	if ((info & 0xf0) == MP_MAP ? n > rem / 2 : n > rem)
		return PHYLLO_E_MSGPACK;
	*skip = w;
	if ((info & 0xf0) == MP_LEN)
		*skip += (uint16_t)n;	/* the str/bin bytes */
	else
		*items = (uint16_t)((info & 0xf0) == MP_MAP ? 2 * n : n);
	return 0;
}

/*
 * One object, token by token: pending counts the items still to pass, and
 * can never exceed the bytes left (each item needs at least one). 16-bit
 * counts and a pointer: this runs on every received document.
 */
int phyllo_mp_skip(struct phyllo_mp_reader *r)
{
	const uint8_t *p = r->buf + r->pos, *end = r->buf + r->len;
	uint16_t pending = 1;

	while (pending) {
		uint16_t skip = 0, items = 0, rem;
		uint8_t b;

		if (p == end)
			return PHYLLO_E_MSGPACK;
		b = *p++;
		pending--;
		if (b > 0x7f && b < 0xe0) {	/* a fixint is the byte alone */
			if (b <= 0x9f)		/* a map: 2 per entry */
				items = (uint16_t)((b & 0x0f) << (b <= 0x8f));
			else if (b <= 0xbf)
				skip = b & 0x1f;
			else if (mp_skip_marker(p, (uint16_t)(end - p), b, &skip, &items))
				return PHYLLO_E_MSGPACK;
		}
		rem = (uint16_t)(end - p);
		if (skip > rem)
			return PHYLLO_E_MSGPACK;
		p += skip;
		rem -= skip;
		if (pending > rem || items > rem - pending)
			return PHYLLO_E_MSGPACK;
		pending += items;
	}
	r->pos = (uint16_t)(p - r->buf);
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
