// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * test_json.c - JSON <-> MessagePack for `phyllo pub` / `phyllo sub`: exact
 * bytes for the documented examples, round trips, and every refusal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptest.h"
#include "json.h"
#include "phyllo_vectors.h"

static uint8_t buf[256];
static char out[512];

static int to_mp(const char *text, uint16_t cap, char *err)
{
	struct phyllo_mp_writer w;
	int ret;

	phyllo_mp_writer_init(&w, buf, cap);
	ret = phyllo_json_parse(text, &w, err, 128);
	return ret ? -1 : w.len;
}

/* JSON -> MessagePack -> JSON */
static const char *roundtrip(const char *text)
{
	struct phyllo_mp_reader r;
	char err[128];
	int n = to_mp(text, sizeof(buf), err);
	FILE *f = fmemopen(out, sizeof(out), "w");

	if (n < 0) {
		fclose(f);
		return "ERR";
	}
	phyllo_mp_reader_init(&r, buf, (uint16_t)n);
	if (phyllo_json_print(&r, f))
		fputs("MALFORMED", f);
	fclose(f);
	return out;
}

static void json_small_tuple_gives_benchmark_bytes(void)
{
	char err[128];

	PTEST_EXPECT_EQ(to_mp("[\"hello\", 123, 456, 789]", sizeof(buf), err),
			sizeof(phyllo_vec_tuple_small));
	PTEST_EXPECT_MEM(buf, phyllo_vec_tuple_small, sizeof(phyllo_vec_tuple_small));
	PTEST_EXPECT_EQ(to_mp("\"abcd\"", sizeof(buf), err), 5);
	PTEST_EXPECT_MEM(buf, phyllo_vec_document + 2, 5);
}

/* Bug: a number ending the text was read as a float64 (cb 40 56 ...). */
static void json_integer_at_end_is_an_integer(void)
{
	static const uint8_t ninety[] = { 0x5a }, one[] = { 0x01 };
	static const uint8_t arr[] = { 0x91, 0x5a }, neg[] = { 0xd0, 0x9c };
	static const uint8_t real[] = { 0xcb, 0x40, 0x56, 0x80, 0, 0, 0, 0, 0 };
	char err[128];

	PTEST_EXPECT_EQ(to_mp("90", sizeof(buf), err), 1);
	PTEST_EXPECT_MEM(buf, ninety, 1);
	PTEST_EXPECT_EQ(to_mp("1", sizeof(buf), err), 1);
	PTEST_EXPECT_MEM(buf, one, 1);
	PTEST_EXPECT_EQ(to_mp(" 90 ", sizeof(buf), err), 1);
	PTEST_EXPECT_EQ(to_mp("[90]", sizeof(buf), err), 2);
	PTEST_EXPECT_MEM(buf, arr, 2);
	PTEST_EXPECT_EQ(to_mp("-100", sizeof(buf), err), 2);
	PTEST_EXPECT_MEM(buf, neg, 2);
	/* and a real stays a real */
	PTEST_EXPECT_EQ(to_mp("90.0", sizeof(buf), err), 9);
	PTEST_EXPECT_MEM(buf, real, 9);
}

static void json_roundtrips_every_kind(void)
{
	static const char *const same[] = {
		"null", "true", "false", "0", "-1", "127", "128", "-33", "65536",
		"-2147483649", "4294967296",
		"\"\"", "\"a\\\"b\\\\c\"", "[]", "{}", "[1,[2,[3]]]",
		"{\"on\":true,\"n\":[1,2]}", "0.125", "-2.5", "1.0", "0.1", "1e+100",
		"\"\u20ac\"", "9223372036854775807", "-9223372036854775808",
		/* unsigned 64-bit, past jansson's signed integers */
		"9223372036854775808", "18446744073709551615", "[1,18446744073709551615,2]",
		"{\"a\":18446744073709551615}", "\"18446744073709551615\"", "[2.5,-2,1e+100]",
	};
	unsigned int i;

	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		const char *got = roundtrip(same[i]);

		if (strcmp(got, same[i])) {
			printf("    roundtrip '%s' gave '%s'\n", same[i], got);
			PTEST_EXPECT(0);
		}
	}
	PTEST_EXPECT(!strcmp(roundtrip(" [ 1 , 2 ] "), "[1,2]"));
	PTEST_EXPECT(!strcmp(roundtrip("\"\\n\\u0041\""), "\"\\u000aA\""));
}

static void json_refuses_bad_input_with_offsets(void)
{
	static const char *const bad[] = {
		"", "[1,", "[1 2]", "{\"a\" 1}", "{1:2}", "tru", "\"open", "1 2",
		"\"\\x\"", "\"\\u7\"", "\"\\u00\"", "nan", "NaN", "inf", "-inf", "Infinity",
		"+5", "01", "-01", ".5", "5.", "1e", "[1,]", "{\"a\":1,}", "{\"a\":1,\"a\":2}",
		"18446744073709551616", "-9223372036854775809", "99999999999999999999999", "1e400",
		"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
	};
	char err[128];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		/* every syntax error names its offset; the depth limit says so */
		if (to_mp(bad[i], sizeof(buf), err) != -1 ||
		    !(strstr(err, "offset") || strstr(err, "nested deeper"))) {
			printf("    accepted '%s' (err '%s')\n", bad[i], err);
			PTEST_EXPECT(0);
		}
	}
	/* too big for the unit: a clear refusal, not a cut */
	PTEST_EXPECT_EQ(to_mp("\"0123456789\"", 8, err), -1);
	PTEST_EXPECT(strstr(err, "longer than") != NULL);
}

/* 2^64 - 1 is MessagePack's uint 64, cf ff ff ff ff ff ff ff ff */
static void json_takes_unsigned_64_bit(void)
{
	static const uint8_t max[] = { 0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t big[] = { 0xcf, 0x80, 0, 0, 0, 0, 0, 0, 0 };
	char err[128];

	PTEST_EXPECT_EQ(to_mp("18446744073709551615", sizeof(buf), err), 9);
	PTEST_EXPECT_MEM(buf, max, 9);
	PTEST_EXPECT_EQ(to_mp("9223372036854775808", sizeof(buf), err), 9);
	PTEST_EXPECT_MEM(buf, big, 9);
	/* the same digits inside a string stay a string */
	PTEST_EXPECT_EQ(to_mp("\"9223372036854775808\"", sizeof(buf), err), 20);
}

/* Strings a board chose: whatever the bytes, valid UTF-8 out, with no
 * byte a terminal would act on (C0, DEL, C1 as \u escapes, invalid
 * UTF-8 as U+FFFD); valid text, accents and emoji, passes unchanged. */
static const struct {
	const char *in;
	size_t len;
	const char *want;
} strings[] = {
	{ "a\"b\\c", 5, "\"a\\\"b\\\\c\"" },
	{ "\x1b]0;PWN\x07", 8, "\"\\u001b]0;PWN\\u0007\"" },
	{ "\x7f", 1, "\"\\u007f\"" },
	{ "\xc2\x9b" "31m", 5, "\"\\u009b31m\"" },		/* C1 CSI, as UTF-8 */
	{ "\x9b" "31m", 4, "\"\\ufffd31m\"" },			/* C1 CSI, a lone byte */
	{ "\xff\xfe", 2, "\"\\ufffd\\ufffd\"" },
	{ "\xc0\xaf", 2, "\"\\ufffd\\ufffd\"" },		/* overlong '/' */
	{ "\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"" },	/* a surrogate */
	{ "\xe2\x80\xa8", 3, "\"\\u2028\"" },
	{ "caf\xc3\xa9 \xf0\x9f\x8c\xb1", 10, "\"caf\xc3\xa9 \xf0\x9f\x8c\xb1\"" },
	{ "\xe2\x82", 2, "\"\\ufffd\\ufffd\"" },		/* cut short */
};

static void json_put_string_escapes_what_a_terminal_would_act_on(void)
{
	size_t i;
	FILE *f;

	for (i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
		memset(out, 0, sizeof(out));
		f = fmemopen(out, sizeof(out), "w");
		phyllo_json_put_string(f, (const uint8_t *)strings[i].in, strings[i].len);
		fclose(f);
		if (strcmp(out, strings[i].want))
			printf("  case %zu: got %s, want %s\n", i, out, strings[i].want);
		PTEST_EXPECT(!strcmp(out, strings[i].want));
	}
}

static const struct ptest_case json_cases[] = {
	PTEST_CASE(json_put_string_escapes_what_a_terminal_would_act_on),
	PTEST_CASE(json_takes_unsigned_64_bit),
	PTEST_CASE(json_small_tuple_gives_benchmark_bytes),
	PTEST_CASE(json_integer_at_end_is_an_integer),
	PTEST_CASE(json_roundtrips_every_kind),
	PTEST_CASE(json_refuses_bad_input_with_offsets),
};

PTEST_MAIN(phyllo_suite_json, "phyllo_json", json_cases)
