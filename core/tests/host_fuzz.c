// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * host_fuzz.c - seeded robustness tests under ASan/UBSan: random bytes into
 * every preset (no crash, every byte accounted for), and single-bit flips of
 * valid frames (on the validated presets, a damaged frame is never
 * delivered).
 */
#include <string.h>
#include "ptest.h"
#include "phyllo_stack.h"
#include "test_rng.h"

static uint32_t rng;
static struct phyllo_stack st;
static uint8_t frame[PHYLLO_WIRE_MAX + 8];
static uint16_t frame_len;

static uint32_t rnd(void)
{
	return test_rng_next(&rng);
}

static void sink(void *ctx, const uint8_t *buf, uint16_t n)
{
	(void)ctx;
	if (frame_len + n <= sizeof(frame))
		memcpy(frame + frame_len, buf, n);
	frame_len += n;
}

static uint32_t drops(const struct phyllo_stats *s)
{
	return s->rx_overflow + s->rx_framing + s->rx_length + s->rx_crc + s->rx_type +
	       s->rx_flags + s->rx_seq + s->rx_dup + s->rx_nosession + s->rx_hold;
}

static void fuzz_random_bytes_every_preset(void)
{
	static uint8_t buf[4096];
	const struct phyllo_out out = { sink, NULL };
	uint8_t p;
	int round;

	rng = 0x1234567u;
	for (p = 0; p <= PHYLLO_PRESET_STANDARD; p++) {
		uint32_t fed = 0;

		phyllo_stack_init(&st, p, NULL, &out, 7, 0);
		for (round = 0; round < 200; round++) {
			uint16_t i, used = 0;

			for (i = 0; i < sizeof(buf); i++)	/* zeros 1 in 16: short chunks */
				buf[i] = (rnd() & 15) ? (uint8_t)rnd() : 0;
			while (used < sizeof(buf)) {
				struct phyllo_unit u;
				bool got;

				frame_len = 0;
				used += phyllo_stack_receive(&st, buf + used, sizeof(buf) - used,
							     (uint32_t)round, &u, &got);
			}
			fed += sizeof(buf);
			phyllo_stack_poll(&st, (uint32_t)round);
		}
		PTEST_EXPECT_EQ(st.stats.rx_bytes, fed);
		PTEST_EXPECT(st.stats.rx_units + drops(&st.stats) <= st.stats.rx_frames);
		PTEST_EXPECT(drops(&st.stats) > 0);
	}
}

/* Every single-bit flip of a valid frame: never a wrong unit delivered. */
static void fuzz_bit_flips_never_deliver_damage(void)
{
	static const uint8_t payload[] = "a payload with \0 zeros \0 inside";
	const struct phyllo_out out = { sink, NULL };
	uint8_t p, good[PHYLLO_WIRE_MAX + 8];
	uint16_t good_len, bit;

	for (p = PHYLLO_PRESET_REDUCED; p <= PHYLLO_PRESET_STANDARD; p++) {
		struct phyllo_arq_config cfg = PHYLLO_ARQ_CONFIG_DEFAULT;

		cfg.handshake = false;
		phyllo_stack_init(&st, p, &cfg, &out, 7, 0);
		frame_len = 0;
		phyllo_stack_send(&st, 0x60, payload, sizeof(payload), false, 0);
		good_len = frame_len;
		memcpy(good, frame, good_len);
		for (bit = 8; bit < (good_len - 1) * 8; bit++) {
			struct phyllo_unit u;
			bool got = false;
			uint16_t used = 0;

			memcpy(frame, good, good_len);
			frame[bit / 8] ^= (uint8_t)(1u << (bit % 8));
			while (used < good_len) {
				used += phyllo_stack_receive(&st, frame + used, good_len - used, 0, &u,
							     &got);
				if (got && (u.len != sizeof(payload) ||
					    memcmp(u.data, payload, u.len))) {
					PTEST_LOG("    preset %u bit %u: damaged unit delivered\n", p, bit);
					PTEST_EXPECT(0);
				}
			}
		}
		/* flips that leave the frame intact do not exist: all dropped */
		PTEST_EXPECT_EQ(st.stats.rx_units, 0);
	}
}

static const struct ptest_case fuzz_cases[] = {
	PTEST_CASE(fuzz_random_bytes_every_preset),
	PTEST_CASE(fuzz_bit_flips_never_deliver_damage),
};

PTEST_SUITE(phyllo_suite_fuzz, "phyllo_fuzz", fuzz_cases);
