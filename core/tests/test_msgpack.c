// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * test_msgpack.c - MessagePack writer and reader: the benchmark tuple,
 * every width boundary, round trips, and malformed input.
 */
#include <string.h>
#include "ptest.h"
#include "phyllo_msgpack.h"
#include "phyllo_vectors.h"
#include "phyllo_tuples.h"
#include "phyllo_pubsub.h"

static uint8_t buf[300];

static void msgpack_writes_small_tuple(void)
{
	struct phyllo_mp_writer w;

	phyllo_mp_writer_init(&w, buf, sizeof(buf));
	phyllo_mp_write_array(&w, 4);
	phyllo_mp_write_str(&w, (const uint8_t *)"hello", 5);
	phyllo_mp_write_uint(&w, 123);
	phyllo_mp_write_uint(&w, 456);
	phyllo_mp_write_int(&w, 789);
	PTEST_EXPECT_EQ(w.err, 0);
	PTEST_EXPECT_EQ(w.len, sizeof(phyllo_vec_tuple_small));
	PTEST_EXPECT_MEM(buf, phyllo_vec_tuple_small, sizeof(phyllo_vec_tuple_small));
}

static void msgpack_writes_string8_example(void)
{
	struct phyllo_mp_writer w;

	phyllo_mp_writer_init(&w, buf, sizeof(buf));
	phyllo_mp_write_str(&w, (const uint8_t *)"abcd", 4);
	PTEST_EXPECT_EQ(w.len, 5);
	PTEST_EXPECT_MEM(buf, phyllo_vec_document + 2, 5);
}

struct int_case {
	int64_t v;
	uint8_t len;
	uint8_t marker;
};

static const struct int_case int_cases[] = {
	{ 0, 1, 0x00 }, { 127, 1, 0x7f }, { 128, 2, 0xcc }, { 255, 2, 0xcc },
	{ 256, 3, 0xcd }, { 65535, 3, 0xcd }, { 65536, 5, 0xce },
	{ 4294967295LL, 5, 0xce }, { 4294967296LL, 9, 0xcf },
	{ -1, 1, 0xff }, { -32, 1, 0xe0 }, { -33, 2, 0xd0 }, { -128, 2, 0xd0 },
	{ -129, 3, 0xd1 }, { -32768, 3, 0xd1 }, { -32769, 5, 0xd2 },
	{ -2147483648LL, 5, 0xd2 }, { -2147483649LL, 9, 0xd3 },
};

static void msgpack_int_widths_roundtrip(void)
{
	struct phyllo_mp_writer w;
	struct phyllo_mp_reader r;
	struct phyllo_mp_obj o;
	unsigned int i;

	for (i = 0; i < PHYLLO_ARRAY_SIZE(int_cases); i++) {
		const struct int_case *c = &int_cases[i];

		phyllo_mp_writer_init(&w, buf, sizeof(buf));
		phyllo_mp_write_int(&w, c->v);
		PTEST_EXPECT_EQ(w.len, c->len);
		PTEST_EXPECT_EQ(buf[0], c->marker);
		phyllo_mp_reader_init(&r, buf, w.len);
		PTEST_EXPECT_EQ(phyllo_mp_read(&r, &o), 0);
		if (c->v < 0) {
			PTEST_EXPECT_EQ(o.kind, PHYLLO_MP_INT);
			PTEST_EXPECT(o.i == c->v);
		} else {
			PTEST_EXPECT_EQ(o.kind, PHYLLO_MP_UINT);
			PTEST_EXPECT(o.u == (uint64_t)c->v);
		}
		PTEST_EXPECT_EQ(r.pos, w.len);
		/* the 32-bit writers give the same bytes where they apply */
		if (c->v >= -2147483647LL - 1 && c->v <= 4294967295LL) {
			uint8_t b32[9];
			struct phyllo_mp_writer w32;

			phyllo_mp_writer_init(&w32, b32, sizeof(b32));
			if (c->v < 0 || c->v <= 2147483647LL)
				phyllo_mp_write_i32(&w32, (int32_t)c->v);
			else
				phyllo_mp_write_u32(&w32, (uint32_t)c->v);
			PTEST_EXPECT_EQ(w32.len, w.len);
			PTEST_EXPECT_MEM(b32, buf, w.len);
		}
	}
}

static void msgpack_containers_and_strings_roundtrip(void)
{
	struct phyllo_mp_writer w;
	struct phyllo_mp_reader r;
	struct phyllo_mp_obj o;
	static const uint32_t lens[] = { 0, 15, 16, 31, 32, 255, 256 };
	unsigned int i;

	for (i = 0; i < PHYLLO_ARRAY_SIZE(lens); i++) {
		phyllo_mp_writer_init(&w, buf, sizeof(buf));
		phyllo_mp_write_array(&w, lens[i]);
		phyllo_mp_write_map(&w, lens[i]);
		if (lens[i] < 40) {
			phyllo_mp_write_str(&w, buf + 200, lens[i]);
			phyllo_mp_write_bin(&w, buf + 200, lens[i]);
		}
		PTEST_EXPECT_EQ(w.err, 0);
		phyllo_mp_reader_init(&r, buf, w.len);
		PTEST_EXPECT_EQ(phyllo_mp_read(&r, &o), 0);
		PTEST_EXPECT(o.kind == PHYLLO_MP_ARRAY && o.len == lens[i]);
		PTEST_EXPECT_EQ(phyllo_mp_read(&r, &o), 0);
		PTEST_EXPECT(o.kind == PHYLLO_MP_MAP && o.len == lens[i]);
		if (lens[i] < 40) {
			PTEST_EXPECT_EQ(phyllo_mp_read(&r, &o), 0);
			PTEST_EXPECT(o.kind == PHYLLO_MP_STR && o.len == lens[i]);
			PTEST_EXPECT_EQ(phyllo_mp_read(&r, &o), 0);
			PTEST_EXPECT(o.kind == PHYLLO_MP_BIN && o.len == lens[i]);
		}
		PTEST_EXPECT_EQ(r.pos, w.len);
	}
}

static void msgpack_floats_keep_bit_patterns(void)
{
	struct phyllo_mp_writer w;
	struct phyllo_mp_reader r;
	struct phyllo_mp_obj o;

	phyllo_mp_writer_init(&w, buf, sizeof(buf));
	phyllo_mp_write_f64_bits(&w, 0x3FC0000000000000ULL);	/* 0.125 */
	phyllo_mp_write_f32_bits(&w, 0x3E000000UL);		/* 0.125f */
	phyllo_mp_write_nil(&w);
	phyllo_mp_write_bool(&w, true);
	PTEST_EXPECT_EQ(w.len, 9 + 5 + 1 + 1);
	PTEST_EXPECT_MEM(buf, "\xcb\x3f\xc0\0\0\0\0\0\0", 9);
	phyllo_mp_reader_init(&r, buf, w.len);
	PTEST_EXPECT_EQ(phyllo_mp_read(&r, &o), 0);
	PTEST_EXPECT(o.kind == PHYLLO_MP_F64 && o.u == 0x3FC0000000000000ULL);
	PTEST_EXPECT_EQ(phyllo_mp_read(&r, &o), 0);
	PTEST_EXPECT(o.kind == PHYLLO_MP_F32 && o.u == 0x3E000000UL);
	PTEST_EXPECT_EQ(phyllo_mp_read(&r, &o), 0);
	PTEST_EXPECT_EQ(o.kind, PHYLLO_MP_NIL);
	PTEST_EXPECT_EQ(phyllo_mp_read(&r, &o), 0);
	PTEST_EXPECT(o.kind == PHYLLO_MP_BOOL && o.b);
}

static void msgpack_writer_reports_overflow(void)
{
	struct phyllo_mp_writer w;

	phyllo_mp_writer_init(&w, buf, 6);
	phyllo_mp_write_str(&w, (const uint8_t *)"hello", 5);
	PTEST_EXPECT_EQ(w.err, 0);
	phyllo_mp_write_uint(&w, 1);
	PTEST_EXPECT_EQ(w.err, PHYLLO_E_NOSPACE);
	PTEST_EXPECT_EQ(w.len, 6);
	phyllo_mp_write_nil(&w);	/* sticky */
	PTEST_EXPECT_EQ(w.err, PHYLLO_E_NOSPACE);
}

static void msgpack_check_accepts_tuple_rejects_malformed(void)
{
	static const uint8_t ext[] = { 0xd4, 0x01, 0x02 };
	static const uint8_t never[] = { 0xc1 };
	static const uint8_t huge[] = { 0xdd, 0xff, 0xff, 0xff, 0xff, 0x00 };
	static const uint8_t trunc_str[] = { 0xa5, 'h', 'e' };
	static const uint8_t trunc_u32[] = { 0xce, 0x01 };
	static const uint8_t two[] = { 0x01, 0x02 };
	uint16_t n;

	PTEST_EXPECT_EQ(phyllo_mp_check(phyllo_vec_tuple_small, sizeof(phyllo_vec_tuple_small)), 0);
	/* every truncation of the tuple is refused */
	for (n = 0; n < sizeof(phyllo_vec_tuple_small); n++)
		PTEST_EXPECT_EQ(phyllo_mp_check(phyllo_vec_tuple_small, n), PHYLLO_E_MSGPACK);
	PTEST_EXPECT_EQ(phyllo_mp_check(ext, sizeof(ext)), PHYLLO_E_MSGPACK);
	PTEST_EXPECT_EQ(phyllo_mp_check(never, sizeof(never)), PHYLLO_E_MSGPACK);
	PTEST_EXPECT_EQ(phyllo_mp_check(huge, sizeof(huge)), PHYLLO_E_MSGPACK);
	PTEST_EXPECT_EQ(phyllo_mp_check(trunc_str, sizeof(trunc_str)), PHYLLO_E_MSGPACK);
	PTEST_EXPECT_EQ(phyllo_mp_check(trunc_u32, sizeof(trunc_u32)), PHYLLO_E_MSGPACK);
	PTEST_EXPECT_EQ(phyllo_mp_check(two, sizeof(two)), PHYLLO_E_MSGPACK);
}

static void msgpack_skip_handles_deep_nesting(void)
{
	uint16_t i;

	/* 200 nested one-element arrays around a nil: no recursion needed */
	for (i = 0; i < 200; i++)
		buf[i] = 0x91;
	buf[200] = 0xc0;
	PTEST_EXPECT_EQ(phyllo_mp_check(buf, 201), 0);
	PTEST_EXPECT_EQ(phyllo_mp_check(buf, 200), PHYLLO_E_MSGPACK);
}

/* docs/protocol.md: bodies of 14, 53 and 233 bytes, pub-sub payloads 22, 61, 241. */
static void tuples_have_the_published_sizes(void)
{
	static const uint16_t body[] = { 14, 53, 233 }, whole[] = { 22, 61, 241 };
	struct phyllo_pubsub m;
	struct phyllo_doc d;
	uint8_t k;

	for (k = 0; k < 3; k++) {
		int n = phyllo_tuple_build(k, buf, sizeof(buf));

		PTEST_EXPECT_EQ(n, whole[k]);
		PTEST_EXPECT_EQ(phyllo_pubsub_parse(buf, (uint16_t)n, &m), 0);
		PTEST_EXPECT(m.type == 0x40 && m.topic_len == 4 && !memcmp(m.topic, "echo", 4));
		PTEST_EXPECT_EQ(phyllo_doc_parse(m.payload, m.len, &d), 0);
		PTEST_EXPECT(d.format == 0x11 && d.schema == 0x60);
		PTEST_EXPECT_EQ(d.len, body[k]);
		PTEST_EXPECT_EQ(phyllo_mp_check(d.body, d.len), 0);
		PTEST_EXPECT_MEM(buf + PHYLLO_TUPLE_TAG_OFFSET(k), "hello", 5);
	}
	PTEST_EXPECT_MEM(buf + 8, "\xdc\x00\xac", 3);	/* 172 items */
	PTEST_EXPECT_EQ(phyllo_tuple_build(0, buf, 21), PHYLLO_E_NOSPACE);
}

static const struct ptest_case msgpack_cases[] = {
	PTEST_CASE(tuples_have_the_published_sizes),
	PTEST_CASE(msgpack_writes_small_tuple),
	PTEST_CASE(msgpack_writes_string8_example),
	PTEST_CASE(msgpack_int_widths_roundtrip),
	PTEST_CASE(msgpack_containers_and_strings_roundtrip),
	PTEST_CASE(msgpack_floats_keep_bit_patterns),
	PTEST_CASE(msgpack_writer_reports_overflow),
	PTEST_CASE(msgpack_check_accepts_tuple_rejects_malformed),
	PTEST_CASE(msgpack_skip_handles_deep_nesting),
};

PTEST_SUITE(phyllo_suite_msgpack, "phyllo_msgpack", msgpack_cases);
