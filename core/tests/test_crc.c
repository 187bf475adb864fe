// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * test_crc.c - Ray32sub8: check values, the fast tables against the
 * bitwise reference (seeded property test), incremental use; and
 * phyllo_crc_update() (the AVR's assembly loop where PHYLLO_FAST_AVR is
 * set) against phyllo_crc_update_portable() on the same vectors.
 */
#include <string.h>
#include "ptest.h"
#include "test_rng.h"
#include "phyllo_crc.h"
#include "phyllo_vectors.h"

static uint32_t rng_state;

static void crc_matches_check_values(void)
{
	unsigned int i;

	for (i = 0; i < PHYLLO_ARRAY_SIZE(phyllo_vec_crc); i++) {
		const struct phyllo_vec_crc *v = &phyllo_vec_crc[i];

		PTEST_EXPECT(phyllo_crc32(v->in, v->len) == v->crc);
		PTEST_EXPECT((phyllo_crc_update_portable(PHYLLO_CRC_INIT, v->in, v->len) ^
			      PHYLLO_CRC_XOROUT) == v->crc);
		PTEST_EXPECT((phyllo_crc_update_bitwise(PHYLLO_CRC_INIT, v->in, v->len) ^
			      PHYLLO_CRC_XOROUT) == v->crc);
	}
}

/* Every byte value through one step: the nibble tables equal the byte
 * table the bitwise reference implies. */
static void crc_table_matches_bitwise_every_byte(void)
{
	uint16_t b;

	for (b = 0; b < 256; b++) {
		uint8_t x = (uint8_t)b;
		uint32_t seed = 0x12345678UL * (b + 1);

		PTEST_EXPECT(phyllo_crc_update(seed, &x, 1) ==
			     phyllo_crc_update_bitwise(seed, &x, 1));
		PTEST_EXPECT(phyllo_crc_update_portable(seed, &x, 1) ==
			     phyllo_crc_update_bitwise(seed, &x, 1));
	}
}

static void crc_fast_equals_bitwise_random(void)
{
	static uint8_t buf[256];
	uint16_t round, i;

	rng_state = 0x2545F491UL;
	for (round = 0; round < 200 / PTEST_SCALE; round++) {
		uint16_t n = (uint16_t)(test_rng_next(&rng_state) % sizeof(buf));
		uint32_t seed = test_rng_next(&rng_state);

		for (i = 0; i < n; i++)
			buf[i] = (uint8_t)test_rng_next(&rng_state);
		if (phyllo_crc_update(seed, buf, n) != phyllo_crc_update_bitwise(seed, buf, n) ||
		    phyllo_crc_update_portable(seed, buf, n) != phyllo_crc_update_bitwise(seed, buf, n)) {
			PTEST_LOG("    crc mismatch: round %u len %u seed %08lx\n", round, n,
			       (unsigned long)seed);
			PTEST_EXPECT(0);
		}
	}
}

/* Every length 0..64 (each count of whole four-byte turns and of the
 * 0-3 bytes after them) and every start: fast path against portable. */
static void crc_fast_equals_portable_every_length(void)
{
	static uint8_t buf[72];
	uint16_t n, off;

	rng_state = 0x9E3779B9UL;
	for (n = 0; n < sizeof(buf); n++)
		buf[n] = (uint8_t)test_rng_next(&rng_state);
	for (off = 0; off < 4; off++) {
		for (n = 0; n <= 64; n++) {
			uint32_t seed = test_rng_next(&rng_state);
			uint32_t fast = phyllo_crc_update(seed, buf + off, n);
			uint32_t ref = phyllo_crc_update_portable(seed, buf + off, n);

			if (fast != ref) {
				PTEST_LOG("    fast %08lx portable %08lx: len %u off %u\n",
					  (unsigned long)fast, (unsigned long)ref, n, off);
				PTEST_EXPECT(0);
			}
		}
	}
}

/* Past 1,024 bytes the fast loop's turn count takes its second byte. */
static void crc_fast_equals_portable_long(void)
{
	static const uint16_t lens[] = { 255, 256, 1020, 1023, 1024, 1025, 1027, 1031, 1100 };
	static uint8_t buf[1100];
	uint16_t i;

	rng_state = 0x85EBCA6BUL;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)test_rng_next(&rng_state);
	for (i = 0; i < PHYLLO_ARRAY_SIZE(lens); i++) {
		uint32_t fast = phyllo_crc_update(PHYLLO_CRC_INIT, buf, lens[i]);
		uint32_t ref = phyllo_crc_update_portable(PHYLLO_CRC_INIT, buf, lens[i]);

		if (fast != ref) {
			PTEST_LOG("    fast %08lx portable %08lx: len %u\n", (unsigned long)fast,
				  (unsigned long)ref, lens[i]);
			PTEST_EXPECT(0);
		}
	}
}

static void crc_incremental_equals_whole(void)
{
	const uint8_t *s = (const uint8_t *)"123456789";
	uint16_t split;

	for (split = 0; split <= 9; split++) {
		uint32_t c = phyllo_crc_update(PHYLLO_CRC_INIT, s, split);

		c = phyllo_crc_update(c, s + split, 9 - split) ^ PHYLLO_CRC_XOROUT;
		PTEST_EXPECT(c == 0xB303B455UL);
	}
}

/* 256 16-bit entries; on the AVR they are flash, not RAM. */
static void crc_tables_stay_out_of_avr_ram(void)
{
	PTEST_EXPECT_EQ(phyllo_crc_table_bytes, 512);
#ifdef __AVR__
	PTEST_EXPECT_EQ(phyllo_crc_table_ram_bytes, 0);
#endif
}

/* Found by fuzz_stack under clang: a control unit has no body, and its
 * CRC was computed as NULL + 0, undefined in C. */
static void crc_update_of_nothing_leaves_crc(void)
{
	PTEST_EXPECT(phyllo_crc_update(0x12345678UL, NULL, 0) == 0x12345678UL);
}

static const struct ptest_case crc_cases[] = {
	PTEST_CASE(crc_update_of_nothing_leaves_crc),
	PTEST_CASE(crc_matches_check_values),
	PTEST_CASE(crc_table_matches_bitwise_every_byte),
	PTEST_CASE(crc_fast_equals_bitwise_random),
	PTEST_CASE(crc_fast_equals_portable_every_length),
	PTEST_CASE(crc_fast_equals_portable_long),
	PTEST_CASE(crc_incremental_equals_whole),
	PTEST_CASE(crc_tables_stay_out_of_avr_ram),
};

PTEST_SUITE(phyllo_suite_crc, "phyllo_crc", crc_cases);
