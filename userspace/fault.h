/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * fault.h - seeded fault injection on whole frames (00 chunk 00), in
 * either direction, for `phyllo peer` and the soak test.
 *
 * Per frame offered, in this order:
 *  1. blackout: while one lasts (blackout_ms) every frame, both directions,
 *     is dropped; each frame may start one (blackout_ppm).
 *  2. burst: a run of 2..burst_max consecutive frames of one direction,
 *     all dropped or all corrupted (one or the other per burst); each frame
 *     may start one (burst_ppm).
 *  3. drop (drop_ppm), corrupt (corrupt_ppm), delay (delay_ppm: held for
 *     delay_ms or until four later frames overtook it), duplicate (dup_ppm:
 *     the same bytes, damage included, passed on twice in a row).
 * Corruption: with corrupt_bits 0 one bit of one chunk byte, never making
 * it 0x00 (one damaged frame is then exactly one damaged chunk); with
 * corrupt_bits 1..8, 1..corrupt_bits distinct bits anywhere in the frame,
 * delimiters included, and one event in four aims at the framing: it makes
 * a chunk byte 0x00 (the frame splits) or a delimiter non-zero (the frame
 * runs into its neighbour), as on a noisy wire.
 *
 * Accounting (struct fault_counts, exact, per direction): every frame
 * offered is dropped or passed on; a damaged copy passed on is of one
 * class: merge (a delimiter made non-zero), else split (a chunk byte made
 * 0x00), else inner. The injector also chunks what it passed on, as the
 * receiver will: `chunks` non-empty chunks, `bad_chunks` of them not a
 * chunk it was given. A receiver fed only by this injector counts one
 * receive error per bad chunk, so
 *   rx_overflow + rx_framing + rx_length + rx_crc + rx_type + rx_flags
 *     == bad_chunks                         (exact; CRC-32 misses 2^-32)
 *   rx_frames == chunks
 *   inner + split <= bad_chunks <= corrupted + zeros_made
 * the last equal to `corrupted` when no byte became 0x00 and no delimiter
 * was hit (always so with corrupt_bits 0). The lower bound needs chunks
 * of more than eight bytes, so that a split leaves a piece (every frame of
 * the reduced and standard presets has eleven at least). Bytes that were already damaged
 * before the injector saw them (a frame cut by a peer's restart) add one
 * error each that it cannot know of.
 *
 * Probabilities are in parts per million; the same seed and the same
 * frames at the same times give the same faults.
 */
#ifndef PHYLLO_FAULT_H
#define PHYLLO_FAULT_H

#include <stdint.h>
#include <stdio.h>

enum fault_dir { FAULT_TX = 0, FAULT_RX = 1 };

#define FAULT_BITS_MAX 8	/* most bits one corruption flips */
#define FAULT_BURST_DEFAULT 8	/* longest burst, frames */

struct fault_cfg {
	uint32_t drop_ppm, corrupt_ppm, dup_ppm, delay_ppm;
	uint32_t burst_ppm, blackout_ppm;
	uint32_t delay_ms, blackout_ms;
	unsigned int corrupt_bits;	/* 0: gentle (see above), 1..8 */
	unsigned int burst_max;		/* 2..: longest burst (0: default) */
	uint32_t seed;
	unsigned int dirs;	/* bit 0: tx, bit 1: rx */
};

struct fault_counts {
	uint64_t frames;	/* frames offered */
	uint64_t dropped;	/* not passed on, whatever the cause */
	uint64_t corrupted;	/* damaged copies passed on (a duplicate of a
				 * damaged frame is a second one) */
	uint64_t duplicated, delayed;
	uint64_t inner, split, merge;	/* classes of the corrupted copies */
	uint64_t bits;		/* bits flipped, over the corrupted copies */
	uint64_t zeros_made;	/* chunk bytes made 0x00 */
	uint64_t delims_hit;	/* delimiters made non-zero */
	uint64_t bursts, burst_frames;	/* bursts started, frames they hit */
	uint64_t blackouts, blackout_dropped;
	uint64_t chunks, bad_chunks;	/* what the receiver's chunker sees */
};

typedef void (*fault_emit_fn)(void *ctx, enum fault_dir dir, const uint8_t *frame, uint16_t n);

struct fault;

struct fault *fault_new(const struct fault_cfg *cfg, fault_emit_fn emit, void *ctx);
void fault_free(struct fault *f);
/* A frame (00 chunk 00) going dir: passed on, changed or held. */
void fault_frame(struct fault *f, enum fault_dir dir, const uint8_t *frame, uint16_t n,
		 uint32_t now_ms);
/* Pass on the delayed frames that are due; returns ms until the next one
 * (or 1000). */
uint32_t fault_release(struct fault *f, uint32_t now_ms);
const struct fault_counts *fault_counts(const struct fault *f, enum fault_dir dir);
void fault_json(FILE *out, const struct fault *f);
/* Parse a percentage like "5" or "0.5" into ppm; exits 2 on bad input. */
uint32_t fault_parse_pct(const char *opt, const char *s);

#endif
