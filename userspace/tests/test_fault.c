// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * test_fault.c - the fault injector of `phyllo peer`, frame in, known
 * damage out, with fixed seeds: a delayed frame is overtaken by four later
 * frames at most; gentle corruption is one bit inside the chunk; hostile
 * corruption flips 1..8 bits and its counters say exactly what it did;
 * the injector's chunk counts agree with an independent chunker run over
 * what it passed on; bursts and blackouts hit what they say they hit.
 */
#include <string.h>
#include "ptest.h"
#include "fault.h"
#include "phyllo_wire.h"

#define FRAMES 2000
#define STREAM_MAX (4 * FRAMES * PHYLLO_WIRE_MAX)

/* What the injector passed on: the copies in order, and one byte stream. */
static struct {
	unsigned int copies;
	uint8_t last[PHYLLO_WIRE_MAX];
	uint16_t last_n;
	uint8_t stream[STREAM_MAX];
	size_t len;
} out;

static void record(void *ctx, enum fault_dir dir, const uint8_t *frame, uint16_t n)
{
	(void)ctx;
	(void)dir;
	out.copies++;
	memcpy(out.last, frame, n);
	out.last_n = n;
	if (out.len + n <= sizeof(out.stream)) {
		memcpy(out.stream + out.len, frame, n);
		out.len += n;
	}
}

static void out_reset(void)
{
	out.copies = 0;
	out.len = 0;
	out.last_n = 0;
}

static uint32_t test_rng = 1;

static uint32_t test_rand(void)
{
	test_rng ^= test_rng << 13;
	test_rng ^= test_rng >> 17;
	test_rng ^= test_rng << 5;
	return test_rng;
}

/* Frame i: 00, 11..255 non-zero chunk bytes (the first two carry i), 00.
 * Frames differ in most of their bits, so no damage turns one into
 * another. */
static uint16_t make_frame(unsigned int i, uint8_t *b)
{
	uint16_t n, k;

	test_rng = 0x9e3779b9u ^ (i * 2654435761u);
	if (!test_rng)
		test_rng = 1;
	n = (uint16_t)(11 + test_rand() % (PHYLLO_CHUNK_MAX - 10));
	b[0] = 0;
	b[1] = (uint8_t)(1 + (i >> 7));
	b[2] = (uint8_t)(1 + (i & 0x7f));
	for (k = 3; k <= n; k++)
		b[k] = (uint8_t)(1 + test_rand() % 255);
	b[n + 1] = 0;
	return (uint16_t)(n + 2);
}

static unsigned int frame_index(const uint8_t *chunk)
{
	return (unsigned int)((chunk[0] - 1) << 7 | (chunk[1] - 1));
}

static unsigned int bits_between(const uint8_t *a, const uint8_t *b, uint16_t n)
{
	unsigned int bits = 0;
	uint16_t i;

	for (i = 0; i < n; i++)
		bits += (unsigned int)__builtin_popcount(a[i] ^ b[i]);
	return bits;
}

static uint16_t order[FRAMES];	/* frame numbers in the order passed on */
static unsigned int passed;

/* Frames are 00 hi lo 00, both bytes non-zero: 7 bits of the number each. */
static void record_order(void *ctx, enum fault_dir dir, const uint8_t *frame, uint16_t n)
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
	struct fault *f = fault_new(&cfg, record_order, NULL);
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

/* Without corrupt_bits: one bit of one chunk byte, which stays non-zero. */
static void fault_gentle_corrupts_one_chunk_bit(void)
{
	struct fault_cfg cfg = { .corrupt_ppm = 1000000, .seed = 3, .dirs = 1 };
	struct fault *f = fault_new(&cfg, record, NULL);
	const struct fault_counts *c = fault_counts(f, FAULT_TX);
	uint8_t in[PHYLLO_WIRE_MAX];
	unsigned int i, bad = 0;

	out_reset();
	for (i = 0; i < FRAMES; i++) {
		uint16_t n = make_frame(i, in), k;

		fault_frame(f, FAULT_TX, in, n, 0);
		bad += out.last_n != n || bits_between(in, out.last, n) != 1 ||
		       out.last[0] || out.last[n - 1];
		for (k = 1; k + 1 < n; k++)
			bad += !out.last[k];
	}
	PTEST_EXPECT_EQ(bad, 0);
	PTEST_EXPECT_EQ(c->corrupted, FRAMES);
	PTEST_EXPECT_EQ(c->inner, FRAMES);
	PTEST_EXPECT_EQ(c->bits, FRAMES);
	PTEST_EXPECT_EQ(c->chunks, FRAMES);
	PTEST_EXPECT_EQ(c->bad_chunks, FRAMES);
	fault_free(f);
}

/* What one damaged copy did, recounted from the bytes. */
struct recount {
	unsigned long bits, zeros, delims, inner, split, merge;
};

static void recount_copy(struct recount *r, const uint8_t *in, const uint8_t *o, uint16_t n)
{
	unsigned int zeros = 0, delims = 0;
	uint16_t k;

	for (k = 0; k < n; k++) {
		zeros += in[k] && !o[k];
		delims += !in[k] && o[k];
	}
	r->bits += bits_between(in, o, n);
	r->zeros += zeros;
	r->delims += delims;
	r->merge += delims != 0;
	r->split += !delims && zeros;
	r->inner += !delims && !zeros;
}

/* corrupt_bits 8: 1..8 bits a frame, every class seen, and the counters
 * equal to what the bytes show. */
static void fault_bits_counted_by_class(void)
{
	struct fault_cfg cfg = { .corrupt_ppm = 1000000, .corrupt_bits = 8, .seed = 5, .dirs = 2 };
	struct fault *f = fault_new(&cfg, record, NULL);
	const struct fault_counts *c = fault_counts(f, FAULT_RX);
	struct recount r = { 0 };
	uint8_t in[PHYLLO_WIRE_MAX];
	unsigned int i, out_of_range = 0, hist[FAULT_BITS_MAX + 1] = { 0 };

	out_reset();
	for (i = 0; i < FRAMES; i++) {
		uint16_t n = make_frame(i, in);
		unsigned int bits;

		fault_frame(f, FAULT_RX, in, n, 0);
		bits = bits_between(in, out.last, n);
		out_of_range += bits < 1 || bits > FAULT_BITS_MAX;
		if (bits <= FAULT_BITS_MAX)
			hist[bits]++;
		recount_copy(&r, in, out.last, n);
	}
	printf("    %u frames: %llu inner, %llu split, %llu merge; "
	       "bits 1..8: %u %u %u %u %u %u %u %u\n", FRAMES, (unsigned long long)c->inner,
	       (unsigned long long)c->split, (unsigned long long)c->merge, hist[1], hist[2],
	       hist[3], hist[4], hist[5], hist[6], hist[7], hist[8]);
	PTEST_EXPECT_EQ(out_of_range, 0);
	PTEST_EXPECT(hist[1] > 0 && hist[8] > 0);
	PTEST_EXPECT_EQ(c->corrupted, FRAMES);
	PTEST_EXPECT_EQ(c->bits, r.bits);
	PTEST_EXPECT_EQ(c->zeros_made, r.zeros);
	PTEST_EXPECT_EQ(c->delims_hit, r.delims);
	PTEST_EXPECT_EQ(c->inner, r.inner);
	PTEST_EXPECT_EQ(c->split, r.split);
	PTEST_EXPECT_EQ(c->merge, r.merge);
	PTEST_EXPECT(r.inner > 0 && r.split > 0 && r.merge > 0);
	fault_free(f);
}

/* Split the stream at zeros, as a receiver does; a chunk is good when it is
 * exactly the chunk of the frame its first two bytes name. */
static void reference_chunks(unsigned long *chunks, unsigned long *bad)
{
	uint8_t in[PHYLLO_WIRE_MAX];
	size_t i, start = 0;

	*chunks = *bad = 0;
	for (i = 0; i < out.len; i++) {
		size_t len = i - start;

		if (out.stream[i]) {
			continue;
		}
		if (len) {
			bool good = false;

			if (len >= 2 && frame_index(out.stream + start) < FRAMES) {
				uint16_t n = make_frame(frame_index(out.stream + start), in);

				good = len == (size_t)(n - 2) &&
				       !memcmp(in + 1, out.stream + start, len);
			}
			(*chunks)++;
			*bad += !good;
		}
		start = i + 1;
	}
}

/* Drops, hostile corruption, duplicates and bursts: the injector's chunk
 * counts equal an independent chunker's, and the documented bounds hold. */
static void fault_chunks_match_a_reference_chunker(void)
{
	struct fault_cfg cfg = { .drop_ppm = 50000, .corrupt_ppm = 200000, .corrupt_bits = 8,
				 .dup_ppm = 50000, .burst_ppm = 10000, .seed = 11, .dirs = 1 };
	struct fault *f = fault_new(&cfg, record, NULL);
	const struct fault_counts *c = fault_counts(f, FAULT_TX);
	uint8_t in[PHYLLO_WIRE_MAX];
	unsigned long chunks, bad;
	unsigned int i;

	out_reset();
	for (i = 0; i < FRAMES; i++) {
		uint16_t n = make_frame(i, in);

		fault_frame(f, FAULT_TX, in, n, 0);
	}
	reference_chunks(&chunks, &bad);
	printf("    %u frames: %llu dropped, %llu corrupted (%llu inner, %llu split, %llu merge), "
	       "%lu chunks, %lu bad\n", FRAMES, (unsigned long long)c->dropped,
	       (unsigned long long)c->corrupted, (unsigned long long)c->inner,
	       (unsigned long long)c->split, (unsigned long long)c->merge, chunks, bad);
	PTEST_EXPECT_EQ(c->frames, FRAMES);
	PTEST_EXPECT_EQ(out.copies, c->frames - c->dropped + c->duplicated);
	PTEST_EXPECT_EQ(c->chunks, chunks);
	PTEST_EXPECT_EQ(c->bad_chunks, bad);
	PTEST_EXPECT(c->inner + c->split <= c->bad_chunks);
	PTEST_EXPECT(c->bad_chunks <= c->corrupted + c->zeros_made);
	PTEST_EXPECT(c->merge > 0 && c->split > 0);
	PTEST_EXPECT_EQ(chunks - bad, c->frames - c->dropped + c->duplicated - c->corrupted);
	fault_free(f);
}

/* Bursts only: every frame hit is in a run of two or more, and the burst
 * counters add up. */
static void fault_bursts_hit_runs(void)
{
	struct fault_cfg cfg = { .burst_ppm = 20000, .burst_max = 6, .corrupt_bits = 8,
				 .seed = 13, .dirs = 1 };
	struct fault *f = fault_new(&cfg, record, NULL);
	const struct fault_counts *c = fault_counts(f, FAULT_TX);
	uint8_t in[PHYLLO_WIRE_MAX];
	unsigned int i, run = 0, short_runs = 0, hits = 0;

	out_reset();
	/* (a run still open at the end may be a burst cut short: not checked) */
	for (i = 0; i < FRAMES; i++) {
		uint16_t n = make_frame(i, in);
		unsigned int before = out.copies;
		bool hit;

		fault_frame(f, FAULT_TX, in, n, 0);
		hit = out.copies == before || memcmp(in, out.last, n);
		hits += hit;
		if (hit) {
			run++;
			continue;
		}
		short_runs += run == 1;
		run = 0;
	}
	printf("    %u frames: %llu bursts hit %llu (%llu dropped, %llu corrupted)\n", FRAMES,
	       (unsigned long long)c->bursts, (unsigned long long)c->burst_frames,
	       (unsigned long long)c->dropped, (unsigned long long)c->corrupted);
	PTEST_EXPECT(c->bursts > 10);
	PTEST_EXPECT_EQ(short_runs, 0);
	PTEST_EXPECT_EQ(c->burst_frames, hits);
	PTEST_EXPECT_EQ(c->burst_frames, c->dropped + c->corrupted);
	PTEST_EXPECT(c->burst_frames >= 2 * c->bursts && c->burst_frames <= 6 * c->bursts);
	PTEST_EXPECT(c->dropped > 0 && c->corrupted > 0);
	fault_free(f);
}

#define BLACKOUT_MS 25

/* A frame each way every millisecond; a blackout drops every frame, both
 * ways, from the one that starts it until BLACKOUT_MS later. */
static void fault_blackout_drops_everything_for_its_time(void)
{
	struct fault_cfg cfg = { .blackout_ppm = 2000, .blackout_ms = BLACKOUT_MS, .seed = 17,
				 .dirs = 3 };
	struct fault *f = fault_new(&cfg, record, NULL);
	const struct fault_counts *tx = fault_counts(f, FAULT_TX), *rx = fault_counts(f, FAULT_RX);
	static bool dropped[2 * FRAMES];
	uint8_t in[PHYLLO_WIRE_MAX];
	unsigned int i, starts = 0, wrong = 0;
	uint32_t end = 0;
	bool on = false;

	out_reset();
	for (i = 0; i < 2 * FRAMES; i++) {
		uint16_t n = make_frame(i, in);
		unsigned int before = out.copies;

		fault_frame(f, (enum fault_dir)(i & 1), in, n, i / 2);
		dropped[i] = out.copies == before;
	}
	/* Walk the frames with the rule: the first drop starts a window. */
	for (i = 0; i < 2 * FRAMES; i++) {
		uint32_t t = i / 2;

		if (on && t >= end)
			on = false;
		if (!on && dropped[i]) {
			on = true;
			end = t + BLACKOUT_MS;
			starts++;
		}
		wrong += dropped[i] != on;
	}
	printf("    %u frames: %llu blackouts dropped %llu\n", 2 * FRAMES,
	       (unsigned long long)(tx->blackouts + rx->blackouts),
	       (unsigned long long)(tx->dropped + rx->dropped));
	PTEST_EXPECT_EQ(wrong, 0);
	PTEST_EXPECT(starts > 3);
	PTEST_EXPECT_EQ(starts, tx->blackouts + rx->blackouts);
	PTEST_EXPECT_EQ(tx->blackout_dropped, tx->dropped);
	PTEST_EXPECT_EQ(rx->blackout_dropped, rx->dropped);
	fault_free(f);
}

static const struct ptest_case fault_cases[] = {
	PTEST_CASE(fault_delay_overtaken_by_four_at_most),
	PTEST_CASE(fault_gentle_corrupts_one_chunk_bit),
	PTEST_CASE(fault_bits_counted_by_class),
	PTEST_CASE(fault_chunks_match_a_reference_chunker),
	PTEST_CASE(fault_bursts_hit_runs),
	PTEST_CASE(fault_blackout_drops_everything_for_its_time),
};

PTEST_MAIN(phyllo_suite_fault, "phyllo_fault", fault_cases)
