// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * test_cobs.c - COBS and chunked-stream tests: the shared vectors, the
 * 253/254/255-byte edges, streaming encoder == buffer encoder, bad input,
 * and the one-pass receive decoder == chunking then decoding (with and
 * without phyllo_cobs_rx_take() before each feed).
 *
 * The AVR runs this suite in 2 KB of RAM, so the cases' buffers share one
 * union: no two cases need theirs at the same time.
 */
#include <string.h>
#include "ptest.h"
#include "test_rng.h"
#include "phyllo_cobs.h"
#include "phyllo_chunk.h"
#include "phyllo_vectors.h"

static union {
	struct {
		uint8_t in[300], enc[310], dec[310];
	} big;
	struct phyllo_chunk chunk;
	struct {
		struct phyllo_chunk chunk;
		struct phyllo_cobs_rx rx;
		uint8_t stream[300];
	} rx;
} mem;
#define big_in mem.big.in
#define big_enc mem.big.enc
#define big_dec mem.big.dec

static void cobs_encode_matches_vectors(void)
{
	uint8_t out[16];
	unsigned int i;

	for (i = 0; i < PHYLLO_ARRAY_SIZE(phyllo_vec_cobs); i++) {
		const struct phyllo_vec_pair *v = &phyllo_vec_cobs[i];
		int n = phyllo_cobs_encode(v->raw, v->raw_len, out, sizeof(out));

		PTEST_EXPECT_EQ(n, v->enc_len);
		PTEST_EXPECT_MEM(out, v->enc, v->enc_len);
	}
}

static void cobs_decode_matches_vectors(void)
{
	uint8_t out[16];
	unsigned int i;

	for (i = 0; i < PHYLLO_ARRAY_SIZE(phyllo_vec_cobs); i++) {
		const struct phyllo_vec_pair *v = &phyllo_vec_cobs[i];
		int n = phyllo_cobs_decode(v->enc, v->enc_len, out, sizeof(out));

		PTEST_EXPECT_EQ(n, v->raw_len);
		PTEST_EXPECT_MEM(out, v->raw, v->raw_len);
	}
}

static void cobs_decode_rejects_bad_vectors(void)
{
	uint8_t out[16];
	unsigned int i;

	for (i = 0; i < PHYLLO_ARRAY_SIZE(phyllo_vec_cobs_bad); i++) {
		const struct phyllo_vec_bad *v = &phyllo_vec_cobs_bad[i];

		PTEST_EXPECT_EQ(phyllo_cobs_decode(v->in, v->len, out, sizeof(out)),
				PHYLLO_E_FRAMING);
	}
}

/* n non-zero bytes (optionally with zeros at the ends) round-trip, and the
 * encoded size is exactly n + 1 + (n - 1) / 254 for a zero-free run. */
static void cobs_roundtrip_len(uint16_t n, bool lead0, bool trail0)
{
	uint16_t i;
	int e, d;

	for (i = 0; i < n; i++)
		big_in[i] = (uint8_t)(1 + i % 255);
	if (lead0 && n)
		big_in[0] = 0;
	if (trail0 && n)
		big_in[n - 1] = 0;
	e = phyllo_cobs_encode(big_in, n, big_enc, sizeof(big_enc));
	if (!lead0 && !trail0)
		PTEST_EXPECT_EQ(e, n ? n + 1 + (n - 1) / 254 : 1);
	PTEST_EXPECT(e <= (int)PHYLLO_COBS_MAX_ENCODED(n));
	PTEST_EXPECT(memchr(big_enc, 0, (size_t)e) == NULL);
	d = phyllo_cobs_decode(big_enc, (uint16_t)e, big_dec, sizeof(big_dec));
	PTEST_EXPECT_EQ(d, n);
	PTEST_EXPECT_MEM(big_dec, big_in, n);
}

static void cobs_roundtrip_253_254_255(void)
{
	uint16_t n;

	for (n = 252; n <= 256; n++) {
		cobs_roundtrip_len(n, false, false);
		cobs_roundtrip_len(n, true, false);
		cobs_roundtrip_len(n, false, true);
	}
	big_in[0] = 1;
	PTEST_EXPECT_EQ(phyllo_cobs_encode(big_in, 254, big_enc, sizeof(big_enc)), 255);
	PTEST_EXPECT_EQ(big_enc[0], 0xff);
}

static void cobs_decode_in_place(void)
{
	int e, d;

	memcpy(big_in, "\x11\x22\x00\x33\x00\x00\x44", 7);
	e = phyllo_cobs_encode(big_in, 7, big_enc, sizeof(big_enc));
	d = phyllo_cobs_decode(big_enc, (uint16_t)e, big_enc, sizeof(big_enc));
	PTEST_EXPECT_EQ(d, 7);
	PTEST_EXPECT_MEM(big_enc, big_in, 7);
}

static void cobs_encode_rejects_small_buffer(void)
{
	uint8_t out[4];

	PTEST_EXPECT_EQ(phyllo_cobs_encode((const uint8_t *)"\x11\x22\x33\x44", 4, out, 4),
			PHYLLO_E_NOSPACE);
	PTEST_EXPECT_EQ(phyllo_cobs_decode((const uint8_t *)"\x05\x11\x22\x33\x44", 5, out, 3),
			PHYLLO_E_NOSPACE);
}

static uint16_t sink_len;
static void sink_write(void *ctx, const uint8_t *buf, uint16_t n)
{
	(void)ctx;
	if (sink_len + n <= sizeof(big_dec))
		memcpy(big_dec + sink_len, buf, n);
	sink_len += n;
}

/* The gather encoder equals the buffer encoder for every split point. */
static void cobs_write_matches_encode(void)
{
	const struct phyllo_out out = { sink_write, NULL };
	uint16_t n, split;

	for (n = 0; n <= 260; n += (n < 8 || n > 250) ? 1 : 37) {
		int e;

		for (split = 0; split < n; split++)
			big_in[split] = (uint8_t)((split * 7) % 5 ? split : 0);
		e = phyllo_cobs_encode(big_in, n, big_enc, sizeof(big_enc));
		for (split = 0; split <= n; split += (n > 16 ? 13 : 1)) {
			sink_len = 0;
			PTEST_EXPECT_EQ(phyllo_cobs_write(&out, big_in, split, big_in + split,
							  n - split), e);
			PTEST_EXPECT_EQ(sink_len, e);
			PTEST_EXPECT_MEM(big_dec, big_enc, (size_t)e);
		}
	}
}

static void chunk_splits_at_delimiters(void)
{
	struct phyllo_chunk *const c = &mem.chunk;
	static const uint8_t in[] = { 0x00, 0x01, 0x00, 0x00, 0x02, 0x03, 0x00 };
	int got[7];
	unsigned int i;

	phyllo_chunk_init(c);
	for (i = 0; i < sizeof(in); i++)
		got[i] = phyllo_chunk_push(c, in[i]);
	/* docs/protocol.md: chunks 01 and 02 03; the empty chunk is ignored */
	PTEST_EXPECT_EQ(got[0], 0);
	PTEST_EXPECT_EQ(got[2], 1);
	PTEST_EXPECT_EQ(got[3], 0);
	PTEST_EXPECT_EQ(got[6], 2);
	PTEST_EXPECT_EQ(c->buf[0], 0x02);
}

static void chunk_overflow_resyncs(void)
{
	struct phyllo_chunk *const c = &mem.chunk;
	uint16_t i;

	phyllo_chunk_init(c);
	for (i = 0; i < 300; i++)
		PTEST_EXPECT_EQ(phyllo_chunk_push(c, 0x55), 0);
	PTEST_EXPECT_EQ(phyllo_chunk_push(c, 0), PHYLLO_E_OVERFLOW);
	PTEST_EXPECT_EQ(phyllo_chunk_push(c, 0x42), 0);
	PTEST_EXPECT_EQ(phyllo_chunk_push(c, 0), 1);
	PTEST_EXPECT_EQ(c->buf[0], 0x42);
	/* exactly 255 bytes is still a chunk */
	for (i = 0; i < 255; i++)
		phyllo_chunk_push(c, 0x77);
	PTEST_EXPECT_EQ(phyllo_chunk_push(c, 0), 255);
}

/* ---- the one-pass receive decoder ---------------------------------------- */

static uint32_t rng_state;

/* A frame of len random bytes (about one in eight zero), encoded at
 * out[0..cap); rx.buf is free scratch while a stream is being made. */
static uint16_t rx_make_frame(uint8_t *out, uint16_t cap, uint16_t len)
{
	uint8_t *raw = mem.rx.rx.buf;
	uint16_t i;
	int e;

	for (i = 0; i < len; i++)
		raw[i] = (test_rng_next(&rng_state) & 7) ? (uint8_t)(1 + test_rng_next(&rng_state) % 255) : 0;
	e = phyllo_cobs_encode(raw, len, out, cap);
	return e < 0 ? 0 : (uint16_t)e;
}

/* A stream of up to 300 bytes: frames whole and cut short, runs of noise
 * too long to be a chunk, random bytes and spare delimiters. */
static uint16_t rx_make_stream(void)
{
	uint8_t *st = mem.rx.stream;
	uint16_t n = 0, cap = sizeof(mem.rx.stream), k, i;

	while (n < cap - 8) {
		uint16_t room = (uint16_t)(cap - n - 1);

		switch (test_rng_next(&rng_state) % 6) {
		case 0:	/* short frame */
		case 1:	/* any frame, maybe cut short */
			st[n++] = 0;
			k = (uint16_t)(test_rng_next(&rng_state) % 2 ? test_rng_next(&rng_state) % 12 : test_rng_next(&rng_state) % 255);
			k = rx_make_frame(st + n, room, k);
			if (k && test_rng_next(&rng_state) % 4 == 0)
				k = (uint16_t)(test_rng_next(&rng_state) % k);
			n += k;
			break;
		case 2:	/* noise, often past the chunk limit */
			k = (uint16_t)(test_rng_next(&rng_state) % 300);
			for (i = 0; i < k && n < cap; i++)
				st[n++] = (uint8_t)(1 + test_rng_next(&rng_state) % 255);
			break;
		case 3:	/* anything */
			k = (uint16_t)(test_rng_next(&rng_state) % 20);
			for (i = 0; i < k && n < cap; i++)
				st[n++] = (uint8_t)((test_rng_next(&rng_state) & 3) ? test_rng_next(&rng_state) : 0);
			break;
		default:
			st[n++] = 0;
			break;
		}
	}
	return n;
}

/*
 * The same stream, in the same random pieces, into the one-pass decoder and
 * into chunking + decoding: every call consumes as much and returns the
 * same, and every frame has the same bytes. Every outcome must occur.
 */
static void cobs_rx_matches_chunk_then_decode(void)
{
	struct phyllo_chunk *const c = &mem.rx.chunk;
	struct phyllo_cobs_rx *const r = &mem.rx.rx;
	uint16_t round, frames = 0, overflows = 0, framing = 0, empty = 0, takes_held = 0;

	rng_state = 0x9E3779B9UL;
	for (round = 0; round < 400 / PTEST_SCALE; round++) {
		uint16_t len = rx_make_stream(), pos = 0;

		phyllo_chunk_init(c);
		phyllo_cobs_rx_init(r);
		while (pos < len) {
			uint16_t piece = (uint16_t)(1 + test_rng_next(&rng_state) % 64), used_c, used_r;
			int ret_c, ret_r, want;

			if (piece > len - pos)
				piece = (uint16_t)(len - pos);
			ret_c = phyllo_chunk_feed(c, mem.rx.stream + pos, piece, &used_c);
			want = ret_c;
			if (ret_c > 0) {
				ret_c = phyllo_cobs_decode(c->buf, (uint16_t)ret_c, c->buf,
							   sizeof(c->buf));
				want = ret_c < 0 ? ret_c : 1;
			}
			/* Every other piece goes through phyllo_cobs_rx_take()
			 * first: it must stop exactly before a delimiter that
			 * ends a non-empty chunk, and change no outcome. */
			if (round & 1) {
				uint16_t k = phyllo_cobs_rx_take(r, mem.rx.stream + pos, piece);

				if (k < piece) {
					PTEST_EXPECT_EQ(mem.rx.stream[pos + k], 0);
					PTEST_EXPECT(r->wire != 0);
					takes_held++;
				}
				ret_r = phyllo_cobs_rx_feed(r, mem.rx.stream + pos + k,
							    (uint16_t)(piece - k), &used_r);
				used_r = (uint16_t)(used_r + k);
			} else {
				ret_r = phyllo_cobs_rx_feed(r, mem.rx.stream + pos, piece, &used_r);
			}
			PTEST_EXPECT_EQ(used_r, used_c);
			if (want == 1) {	/* a frame, maybe empty */
				PTEST_EXPECT_EQ(ret_r, 1);
				PTEST_EXPECT_EQ(r->len, ret_c);
				PTEST_EXPECT_MEM(r->buf, c->buf, (size_t)ret_c);
				frames++;
				empty += !ret_c;
			} else {
				PTEST_EXPECT_EQ(ret_r, ret_c);
				overflows += ret_c == PHYLLO_E_OVERFLOW;
				framing += ret_c == PHYLLO_E_FRAMING;
			}
			if (used_r != used_c || ret_r != want) {
				PTEST_LOG("    round %u at byte %u of %u\n", round, pos, len);
				return;
			}
			pos += used_c;
		}
	}
	PTEST_LOG("    %u frames (%u empty), %u over-long, %u cut short, %u takes held\n", frames,
		  empty, overflows, framing, takes_held);
	PTEST_EXPECT(frames > 200 / PTEST_SCALE && empty && overflows && framing && takes_held);
}

/* The limits exactly: 255 encoded bytes decode, 256 overflow, and the
 * stream resyncs after either error. */
static void cobs_rx_limits_and_resync(void)
{
	static const uint8_t cut[] = { 0x00, 0x05, 0x11, 0x22, 0x00, 0x02, 0x33, 0x00 };
	struct phyllo_cobs_rx *const r = &mem.rx.rx;
	uint8_t *st = mem.rx.stream;
	uint16_t used, i;

	phyllo_cobs_rx_init(r);
	st[0] = 0;
	st[1] = 0xff;
	for (i = 2; i < 256; i++)
		st[i] = (uint8_t)i;
	st[256] = 0;
	PTEST_EXPECT_EQ(phyllo_cobs_rx_feed(r, st, 257, &used), 1);
	PTEST_EXPECT_EQ(used, 257);
	PTEST_EXPECT_EQ(r->len, 254);
	PTEST_EXPECT_MEM(r->buf, st + 2, 254);
	/* one more group: 256 encoded bytes */
	st[256] = 0x01;
	st[257] = 0;
	PTEST_EXPECT_EQ(phyllo_cobs_rx_feed(r, st, 258, &used), PHYLLO_E_OVERFLOW);
	PTEST_EXPECT_EQ(used, 258);
	/* a group cut short, then a good frame: 33 */
	PTEST_EXPECT_EQ(phyllo_cobs_rx_feed(r, cut, sizeof(cut), &used), PHYLLO_E_FRAMING);
	PTEST_EXPECT_EQ(used, 5);
	PTEST_EXPECT_EQ(phyllo_cobs_rx_feed(r, cut + 5, 3, &used), 1);
	PTEST_EXPECT_EQ(r->len, 1);
	PTEST_EXPECT_EQ(r->buf[0], 0x33);
}

static const struct ptest_case cobs_cases[] = {
	PTEST_CASE(cobs_encode_matches_vectors),
	PTEST_CASE(cobs_decode_matches_vectors),
	PTEST_CASE(cobs_decode_rejects_bad_vectors),
	PTEST_CASE(cobs_roundtrip_253_254_255),
	PTEST_CASE(cobs_decode_in_place),
	PTEST_CASE(cobs_encode_rejects_small_buffer),
	PTEST_CASE(cobs_write_matches_encode),
	PTEST_CASE(chunk_splits_at_delimiters),
	PTEST_CASE(chunk_overflow_resyncs),
	PTEST_CASE(cobs_rx_matches_chunk_then_decode),
	PTEST_CASE(cobs_rx_limits_and_resync),
};

PTEST_SUITE(phyllo_suite_cobs, "phyllo_cobs", cobs_cases);
