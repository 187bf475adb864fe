// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * fuzz_msgpack.c - libFuzzer target for the MessagePack reader and writer
 * (core/phyllo_msgpack.h).
 *
 * Input: the bytes, read as a document body. Three readers must agree on
 * where the first object ends, or that there is none:
 *  - ref_end() here, written from the MessagePack spec (64-bit pending
 *    count, ext refused as the core documents);
 *  - phyllo_mp_skip() (and phyllo_mp_check(): 0 exactly when the object
 *    fills the buffer);
 *  - a walk of phyllo_mp_read() tokens, each str/bin pointing inside.
 * The walk writes every token back with the writer: that re-encoding is
 * never longer than the original (the writer picks the smallest form),
 * is one well-formed object, reads back token for token to the same
 * values, re-encodes to itself (canonical), and with a buffer one byte
 * short the writer reports PHYLLO_E_NOSPACE without writing past it.
 */
#include "fuzz_util.h"
#include "phyllo_msgpack.h"

#define MP_FUZZ_MAX 1024

static uint8_t in_buf[MP_FUZZ_MAX], enc_buf[MP_FUZZ_MAX], enc2_buf[MP_FUZZ_MAX];

/* Bytes after the marker b: *w of length/count, then *k of value. */
static int ref_marker(uint8_t b, uint8_t *w, uint8_t *k, uint8_t *items_per)
{
	static const uint8_t val[] = { 0, 0xff, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 4, 8,
				       1, 2, 4, 8, 1, 2, 4, 8 };

	*w = *k = *items_per = 0;
	if (b <= 0xd3) {
		if (b >= 0xc4 && b <= 0xc6) {
			*w = (uint8_t)(1 << (b - 0xc4));	/* bin 8/16/32 */
			return 0;
		}
		*k = val[b - 0xc0];
		return *k == 0xff ? -1 : 0;
	}
	if (b <= 0xd8)
		return -1;	/* fixext */
	if (b <= 0xdb) {
		*w = (uint8_t)(1 << (b - 0xd9));	/* str 8/16/32 */
		return 0;
	}
	*w = b & 1 ? 4 : 2;	/* array 16/32, map 16/32 */
	*items_per = b <= 0xdd ? 1 : 2;
	return 0;
}

/* Where the first object of p[0..n) ends, or -1. */
static int ref_end(const uint8_t *p, uint16_t n)
{
	uint64_t pending = 1, len;
	uint16_t pos = 0;

	while (pending--) {
		uint8_t b, w, k, per, i;

		if (pos >= n)
			return -1;
		b = p[pos++];
		if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3)
			continue;
		if (b <= 0x9f) {
			pending += (uint64_t)(b & 0x0f) << (b <= 0x8f);
			continue;
		}
		if (b <= 0xbf) {
			w = 0, k = b & 0x1f, per = 0;
		} else if (ref_marker(b, &w, &k, &per)) {
			return -1;
		}
		if (w > n - pos)
			return -1;
		for (len = 0, i = 0; i < w; i++)
			len = len << 8 | p[pos++];
		if (per) {
			pending += len * per;	/* the items follow */
			continue;
		}
		if (!w)
			len = k;		/* a fixed-size value */
		if (len > (uint64_t)(n - pos))
			return -1;
		pos += (uint16_t)len;
	}
	return pos;
}

static void write_token(struct phyllo_mp_writer *w, const struct phyllo_mp_obj *o)
{
	switch (o->kind) {
	case PHYLLO_MP_NIL: phyllo_mp_write_nil(w); break;
	case PHYLLO_MP_BOOL: phyllo_mp_write_bool(w, o->b); break;
	case PHYLLO_MP_UINT: phyllo_mp_write_uint(w, o->u); break;
	case PHYLLO_MP_INT: phyllo_mp_write_int(w, o->i); break;
	case PHYLLO_MP_F32: phyllo_mp_write_f32_bits(w, (uint32_t)o->u); break;
	case PHYLLO_MP_F64: phyllo_mp_write_f64_bits(w, o->u); break;
	case PHYLLO_MP_STR: phyllo_mp_write_str(w, o->data, o->len); break;
	case PHYLLO_MP_BIN: phyllo_mp_write_bin(w, o->data, o->len); break;
	case PHYLLO_MP_ARRAY: phyllo_mp_write_array(w, o->len); break;
	case PHYLLO_MP_MAP: phyllo_mp_write_map(w, o->len); break;
	default: FUZZ_CHECK(0, "token of kind %u", o->kind);
	}
}

/* The fields a kind defines are equal. */
static bool token_eq(const struct phyllo_mp_obj *a, const struct phyllo_mp_obj *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case PHYLLO_MP_BOOL: return a->b == b->b;
	case PHYLLO_MP_INT: return a->i == b->i;
	case PHYLLO_MP_UINT: case PHYLLO_MP_F32: case PHYLLO_MP_F64: return a->u == b->u;
	case PHYLLO_MP_STR: case PHYLLO_MP_BIN:
		return a->len == b->len && !memcmp(a->data, b->data, a->len);
	case PHYLLO_MP_ARRAY: case PHYLLO_MP_MAP: return a->len == b->len;
	default: return true;
	}
}

/*
 * Read one object token by token from p[0..n), writing each to w (if any)
 * and comparing it with the same token of cmp (if any). Returns the end
 * or -1.
 */
static int walk(const uint8_t *p, uint16_t n, struct phyllo_mp_writer *w,
		struct phyllo_mp_reader *cmp)
{
	struct phyllo_mp_reader r;
	struct phyllo_mp_obj o, c;
	uint64_t pending = 1;

	phyllo_mp_reader_init(&r, p, n);
	while (pending--) {
		if (phyllo_mp_read(&r, &o))
			return -1;
		FUZZ_CHECK(r.pos <= n, "reader at %u of %u", r.pos, n);
		FUZZ_CHECK((o.kind != PHYLLO_MP_STR && o.kind != PHYLLO_MP_BIN) ||
				   (o.data >= p && o.len <= (uint32_t)(p + n - o.data)),
			   "str/bin of %u bytes outside the buffer", (unsigned int)o.len);
		if (o.kind == PHYLLO_MP_ARRAY || o.kind == PHYLLO_MP_MAP)
			pending += (uint64_t)o.len << (o.kind == PHYLLO_MP_MAP);
		if (w)
			write_token(w, &o);
		if (cmp)
			FUZZ_CHECK(!phyllo_mp_read(cmp, &c) && token_eq(&o, &c),
				   "re-encoded token (kind %u) reads back differently", o.kind);
	}
	return r.pos;
}

static void check_reencode(const uint8_t *p, uint16_t end)
{
	struct phyllo_mp_writer w, w2;
	struct phyllo_mp_reader orig;
	uint8_t *enc = FUZZ_TAIL(enc_buf, end), *enc2;
	uint16_t len;

	phyllo_mp_writer_init(&w, enc, end);
	walk(p, end, &w, NULL);
	FUZZ_CHECK(!w.err && w.len <= end, "re-encoding of %u bytes: err %d len %u", end, w.err,
		   w.len);
	len = w.len;
	enc = memmove(FUZZ_TAIL(enc_buf, len), enc, len);
	FUZZ_CHECK(!phyllo_mp_check(enc, len), "the re-encoding (%u bytes) is not one object", len);
	enc2 = FUZZ_TAIL(enc2_buf, len);
	phyllo_mp_writer_init(&w2, enc2, len);
	phyllo_mp_reader_init(&orig, p, end);
	FUZZ_CHECK(walk(enc, len, &w2, &orig) == len && !w2.err && w2.len == len &&
			   !memcmp(enc, enc2, len),
		   "the re-encoding is not its own re-encoding (%u bytes)", len);
	if (!len)
		return;
	enc2 = FUZZ_TAIL(enc2_buf, len - 1);
	phyllo_mp_writer_init(&w2, enc2, len - 1);
	walk(p, end, &w2, NULL);
	FUZZ_CHECK(w2.err == PHYLLO_E_NOSPACE && w2.len <= len - 1,
		   "writer one byte short: err %d len %u", w2.err, w2.len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint16_t n = (uint16_t)(size < MP_FUZZ_MAX ? size : MP_FUZZ_MAX);
	uint8_t *p = FUZZ_TAIL_COPY(in_buf, data, n);
	struct phyllo_mp_reader r;
	int end = ref_end(p, n), skip;

	phyllo_mp_reader_init(&r, p, n);
	skip = phyllo_mp_skip(&r);
	FUZZ_CHECK(end < 0 ? skip == PHYLLO_E_MSGPACK : skip == 0 && r.pos == end,
		   "mp_skip %d (pos %u), reference end %d", skip, r.pos, end);
	FUZZ_CHECK(!phyllo_mp_check(p, n) == (end == n), "mp_check disagrees (end %d of %u)", end,
		   n);
	FUZZ_CHECK(walk(p, n, NULL, NULL) == end, "the mp_read walk disagrees (end %d)", end);
	if (end >= 0)
		check_reencode(p, (uint16_t)end);
	return 0;
}
