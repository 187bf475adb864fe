// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * test_fault.c - the fault injector of `phyllo peer`: a delayed frame is
 * overtaken by at most four later frames (the bound the reliable layer's
 * 8-bit sequence numbers need), and no frame is lost or repeated on the way.
 */
#include <string.h>
#include "ptest.h"
#include "fault.h"

#define FRAMES 2000

static uint16_t order[FRAMES];	/* frame numbers in the order passed on */
static unsigned int passed;

/* Frames are 00 hi lo 00, both bytes non-zero: 7 bits of the number each. */
static void record(void *ctx, enum fault_dir dir, const uint8_t *frame, uint16_t n)
{
	(void)ctx;
	(void)dir;
	if (n == 4 && passed < FRAMES)
		order[passed] = (uint16_t)((frame[1] - 1) << 7 | (frame[2] - 1));
	passed++;
}

static void fault_delay_overtaken_by_four_at_most(void)
{
	struct fault_cfg cfg = { .delay_ppm = 200000, .delay_ms = 60000, .seed = 7, .dirs = 3 };
	struct fault *f = fault_new(&cfg, record, NULL);
	static bool seen[FRAMES];
	unsigned int i, j, worst = 0, once = 0;

	passed = 0;
	for (i = 0; i < FRAMES; i++) {
		uint8_t frame[4] = { 0, (uint8_t)(1 + (i >> 7)), (uint8_t)(1 + (i & 0x7f)), 0 };

		fault_frame(f, FAULT_TX, frame, sizeof(frame), 0);
	}
	/* the frames still held go out when their time is up */
	fault_release(f, 60000);
	PTEST_EXPECT_EQ(passed, FRAMES);
	for (i = 0; i < FRAMES && i < passed; i++) {
		once += order[i] < FRAMES && !seen[order[i]];
		if (order[i] < FRAMES)
			seen[order[i]] = true;
	}
	PTEST_EXPECT_EQ(once, FRAMES);
	PTEST_EXPECT(fault_counts(f, FAULT_TX)->delayed > FRAMES / 10);
	for (i = 0; i < FRAMES; i++) {
		unsigned int ahead = 0;

		/* later frames passed on before frame order[i] */
		for (j = 0; j < i; j++)
			ahead += order[j] > order[i];
		if (ahead > worst)
			worst = ahead;
	}
	printf("    %u frames, %llu delayed, overtaken by %u at most\n", FRAMES,
	       (unsigned long long)fault_counts(f, FAULT_TX)->delayed, worst);
	PTEST_EXPECT(worst >= 1 && worst <= 4);
	fault_free(f);
}

static const struct ptest_case fault_cases[] = {
	PTEST_CASE(fault_delay_overtaken_by_four_at_most),
};

PTEST_SUITE(phyllo_suite_fault, "phyllo_fault", fault_cases);

int main(void)
{
	static const struct ptest_suite *const suites[] = { &phyllo_suite_fault };

	return ptest_run(suites, 1) ? 1 : 0;
}
