// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * test_cobs.c - COBS and chunked-stream tests: the shared vectors, the
 * 253/254/255-byte edges, streaming encoder == buffer encoder, bad input.
 */
#include <string.h>
#include "ptest.h"
#include "phyllo_cobs.h"
#include "phyllo_chunk.h"
#include "phyllo_vectors.h"

static uint8_t big_in[300], big_enc[310], big_dec[310];

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
	static struct phyllo_chunk c;
	static const uint8_t in[] = { 0x00, 0x01, 0x00, 0x00, 0x02, 0x03, 0x00 };
	int got[7];
	unsigned int i;

	phyllo_chunk_init(&c);
	for (i = 0; i < sizeof(in); i++)
		got[i] = phyllo_chunk_push(&c, in[i]);
	/* PROTOCOL.md: chunks 01 and 02 03; the empty chunk is ignored */
	PTEST_EXPECT_EQ(got[0], 0);
	PTEST_EXPECT_EQ(got[2], 1);
	PTEST_EXPECT_EQ(got[3], 0);
	PTEST_EXPECT_EQ(got[6], 2);
	PTEST_EXPECT_EQ(c.buf[0], 0x02);
}

static void chunk_overflow_resyncs(void)
{
	static struct phyllo_chunk c;
	uint16_t i;

	phyllo_chunk_init(&c);
	for (i = 0; i < 300; i++)
		PTEST_EXPECT_EQ(phyllo_chunk_push(&c, 0x55), 0);
	PTEST_EXPECT_EQ(phyllo_chunk_push(&c, 0), PHYLLO_E_OVERFLOW);
	PTEST_EXPECT_EQ(phyllo_chunk_push(&c, 0x42), 0);
	PTEST_EXPECT_EQ(phyllo_chunk_push(&c, 0), 1);
	PTEST_EXPECT_EQ(c.buf[0], 0x42);
	/* exactly 255 bytes is still a chunk */
	for (i = 0; i < 255; i++)
		phyllo_chunk_push(&c, 0x77);
	PTEST_EXPECT_EQ(phyllo_chunk_push(&c, 0), 255);
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
};

PTEST_SUITE(phyllo_suite_cobs, "phyllo_cobs", cobs_cases);
