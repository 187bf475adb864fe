// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * fuzz_cobs.c - libFuzzer target for COBS (core/phyllo_cobs.h).
 *
 * Input: two bytes seed the piece sizes, one byte picks a head/body split,
 * the rest is the data. Every input is used three ways:
 *  1. as a byte stream with delimiters, fed to phyllo_cobs_rx_feed() in
 *     random pieces (each copied to the end of a static buffer, so ASan
 *     sees a read past a piece); every verdict must equal the reference: split at zeros,
 *     a chunk over PHYLLO_CHUNK_MAX is PHYLLO_E_OVERFLOW, else what
 *     phyllo_cobs_decode() makes of it;
 *  2. each zero-free chunk through phyllo_cobs_decode(): the group walk
 *     here must agree on framing errors, the length is below the input's,
 *     in place and exact-cap decodes agree, a cap one short is
 *     PHYLLO_E_NOSPACE, and encode(decode(x)) == x except for the two
 *     non-canonical forms (the empty chunk, and a 01 group after a final
 *     ff group);
 *  3. as data: phyllo_cobs_encode() has no zero, fits
 *     PHYLLO_COBS_MAX_ENCODED (and a chunk, for a frame), is refused with a
 *     cap one short, equals phyllo_cobs_write() at any head/body split, and
 *     decodes back.
 */
#include "fuzz_util.h"
#include "phyllo_cobs.h"
#include "test_rng.h"

/* Longest data or chunk looked at (libFuzzer's -max_len may pass more). */
#define COBS_FUZZ_MAX 4096

#define COBS_ENC_MAX PHYLLO_COBS_MAX_ENCODED(COBS_FUZZ_MAX)

static uint32_t rng;
/* Buffers used at their tail (FUZZ_TAIL): the redzone follows each. */
static uint8_t piece_buf[COBS_FUZZ_MAX], chunk_buf[COBS_FUZZ_MAX], data_buf[COBS_FUZZ_MAX];
static uint8_t out_buf[COBS_FUZZ_MAX], inplace_buf[COBS_FUZZ_MAX], cap_buf[COBS_FUZZ_MAX];
static uint8_t back_buf[COBS_FUZZ_MAX], enc_buf[COBS_ENC_MAX], w_buf[COBS_ENC_MAX];

/* The reference for one chunk ending at a delimiter: 0 for an empty one,
 * else the rx decoder's verdict with the frame in out. */
static int ref_chunk(const uint8_t *c, uint16_t len, uint8_t *out, uint16_t *olen)
{
	int d;

	*olen = 0;
	if (!len)
		return 0;
	if (len > PHYLLO_CHUNK_MAX)
		return PHYLLO_E_OVERFLOW;
	d = phyllo_cobs_decode(c, len, out, PHYLLO_FRAME_MAX);
	FUZZ_CHECK(d != PHYLLO_E_NOSPACE, "a %u-byte chunk cannot outgrow a frame", len);
	if (d < 0)
		return d;
	*olen = (uint16_t)d;
	return 1;
}

/* Next reference verdict from pos on, skipping empty chunks; sets *end past
 * the delimiter. Returns 0 when no delimiter is left. */
static int ref_next(const uint8_t *s, uint16_t n, uint16_t pos, uint16_t *end, uint8_t *out,
		    uint16_t *olen)
{
	while (pos < n) {
		const uint8_t *z = memchr(s + pos, 0, n - pos);
		int v;

		if (!z)
			return 0;
		v = ref_chunk(s + pos, (uint16_t)(z - s - pos), out, olen);
		pos = (uint16_t)(z - s + 1);
		*end = pos;
		if (v)
			return v;
	}
	return 0;
}

/* Feed one piece; every verdict it produces must be the next reference one. */
static void feed_piece(struct phyllo_cobs_rx *r, const uint8_t *s, uint16_t n, uint16_t at,
		       uint16_t k, uint16_t *ref_pos)
{
	uint8_t *piece = FUZZ_TAIL_COPY(piece_buf, s + at, k), want[PHYLLO_FRAME_MAX];
	uint16_t off = 0, used, wlen, wend = 0;

	while (off < k) {
		int ret = phyllo_cobs_rx_feed(r, piece + off, k - off, &used);

		FUZZ_CHECK(used <= k - off && r->len <= PHYLLO_FRAME_MAX, "used %u of %u", used,
			   k - off);
		off += used;
		if (!ret) {
			FUZZ_CHECK(off == k, "0 returned with bytes left (%u of %u)", off, k);
			break;
		}
		FUZZ_CHECK(piece[off - 1] == 0, "verdict %d not at a delimiter", ret);
		FUZZ_CHECK(ref_next(s, n, *ref_pos, &wend, want, &wlen) == ret &&
				   wend == at + off,
			   "rx verdict %d at %u, reference says otherwise", ret, at + off);
		FUZZ_CHECK(ret != 1 || (r->len == wlen && !memcmp(r->buf, want, wlen)),
			   "frame of %u bytes differs from the decode (%u)", r->len, wlen);
		*ref_pos = wend;
	}
}

static void check_stream(const uint8_t *s, uint16_t n)
{
	struct phyllo_cobs_rx r;
	uint16_t at = 0, ref_pos = 0, end, olen;
	uint8_t scratch[PHYLLO_FRAME_MAX];

	phyllo_cobs_rx_init(&r);
	while (at < n) {
		uint32_t x = test_rng_next(&rng);
		uint16_t k = (x & 3) ? 1 + (uint16_t)(x >> 8) % 64 : n - at;

		if (k > n - at)
			k = n - at;
		feed_piece(&r, s, n, at, k, &ref_pos);
		at += k;
	}
	FUZZ_CHECK(!ref_next(s, n, ref_pos, &end, scratch, &olen),
		   "the reference has a verdict at %u the rx decoder never gave", end);
}

/* Walk the groups: framing error or not, and where the last two begin. */
static bool groups_ok(const uint8_t *c, uint16_t len, uint16_t *last, uint16_t *prev)
{
	uint16_t i = 0;

	*last = *prev = 0xffff;
	while (i < len) {
		*prev = *last;
		*last = i;
		if (c[i] - 1 > len - i - 1)
			return false;
		i += c[i];
	}
	return true;
}

static void check_caps(const uint8_t *c, uint16_t len, const uint8_t *want, int d)
{
	uint16_t caps[2] = { (uint16_t)d, (uint16_t)(test_rng_next(&rng) % (d + 1)) };
	unsigned int i;

	for (i = 0; i < PHYLLO_ARRAY_SIZE(caps); i++) {
		uint8_t *o = FUZZ_TAIL(cap_buf, caps[i]);
		int e = phyllo_cobs_decode(c, len, o, caps[i]);

		FUZZ_CHECK(caps[i] < d ? e == PHYLLO_E_NOSPACE : e == d && !memcmp(o, want, d),
			   "cap %u: %d, full decode %d", caps[i], e, d);
	}
}

static void check_canonical(const uint8_t *c, uint16_t len, const uint8_t *dec, int d)
{
	uint16_t cap = PHYLLO_COBS_MAX_ENCODED(d), last, prev, keep = len;
	uint8_t *enc = FUZZ_TAIL(enc_buf, cap);
	int e = phyllo_cobs_encode(dec, (uint16_t)d, enc, cap);

	groups_ok(c, len, &last, &prev);
	if (!len)
		keep = 1;	/* "" decodes to nothing, which encodes to 01 */
	else if (last == len - 1 && c[last] == 1 && prev != 0xffff && c[prev] == 0xff)
		keep = len - 1;	/* a 01 after a final ff group adds nothing */
	FUZZ_CHECK(e == keep && (len == 0 ? enc[0] == 1 : !memcmp(enc, c, keep)),
		   "encode(decode(x)) is %d bytes, x %u (kept %u)", e, len, keep);
}

static void check_chunk(const uint8_t *c, uint16_t len)
{
	uint8_t *out = FUZZ_TAIL(out_buf, len), *inplace = FUZZ_TAIL_COPY(inplace_buf, c, len);
	uint16_t last, prev;
	int d = phyllo_cobs_decode(c, len, out, len);

	FUZZ_CHECK(d == PHYLLO_E_FRAMING || d >= 0, "decode of a zero-free chunk: %d", d);
	FUZZ_CHECK((d >= 0) == groups_ok(c, len, &last, &prev), "decode %d disagrees with the groups",
		   d);
	if (d >= 0) {
		FUZZ_CHECK(len ? d < len : d == 0, "decoded %d bytes from %u", d, len);
		FUZZ_CHECK(phyllo_cobs_decode(inplace, len, inplace, len) == d &&
				   !memcmp(inplace, out, d),
			   "in-place decode differs");
		check_caps(c, len, out, d);
		check_canonical(c, len, out, d);
	}
}

struct sink {
	uint8_t *buf;
	uint16_t len, cap;
};

static void sink_write(void *ctx, const uint8_t *buf, uint16_t n)
{
	struct sink *s = ctx;

	FUZZ_CHECK(n <= s->cap - s->len, "cobs_write past the encoded size (%u + %u > %u)", s->len,
		   n, s->cap);
	memcpy(s->buf + s->len, buf, n);
	s->len += n;
}

static void check_encode(const uint8_t *data, uint16_t n, uint16_t split)
{
	uint16_t cap = PHYLLO_COBS_MAX_ENCODED(n);
	uint8_t *enc = FUZZ_TAIL(enc_buf, cap), *w = FUZZ_TAIL(w_buf, cap);
	uint8_t *back = FUZZ_TAIL(back_buf, n);
	struct sink s = { w, 0, cap };
	const struct phyllo_out out = { sink_write, &s };
	int e = phyllo_cobs_encode(data, n, enc, cap);

	FUZZ_CHECK(e >= 1 && e <= cap && !memchr(enc, 0, e), "encode of %u bytes: %d", n, e);
	FUZZ_CHECK(n > PHYLLO_FRAME_MAX || e <= PHYLLO_CHUNK_MAX, "a frame of %u bytes takes %d", n,
		   e);
	FUZZ_CHECK(phyllo_cobs_encode(data, n, enc, (uint16_t)(e - 1)) == PHYLLO_E_NOSPACE,
		   "encode fits one byte short of %d", e);
	e = phyllo_cobs_encode(data, n, enc, cap);
	FUZZ_CHECK(phyllo_cobs_write(&out, data, split, data + split, n - split) == e &&
			   s.len == e && !memcmp(w, enc, e),
		   "cobs_write split %u/%u differs from encode", split, n - split);
	FUZZ_CHECK(phyllo_cobs_decode(enc, (uint16_t)e, back, n) == n && !memcmp(back, data, n),
		   "decode(encode(x)) != x for %u bytes", n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	uint16_t n, at = 0, split;

	rng = (uint32_t)fuzz_u16(&in) << 8 | 1;	/* xorshift32 needs a non-zero seed */
	split = fuzz_u8(&in);
	n = (uint16_t)(in.n < COBS_FUZZ_MAX ? in.n : COBS_FUZZ_MAX);
	check_stream(in.p, n);
	while (at <= n) {
		const uint8_t *z = memchr(in.p + at, 0, n - at);
		uint16_t len = z ? (uint16_t)(z - in.p - at) : n - at;

		check_chunk(FUZZ_TAIL_COPY(chunk_buf, in.p + at, len), len);
		at += len + 1;
	}
	check_encode(FUZZ_TAIL_COPY(data_buf, in.p, n), n, split <= n ? split : n);
	return 0;
}
