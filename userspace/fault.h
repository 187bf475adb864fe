/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * fault.h - seeded fault injection on whole frames, in both directions:
 * drop, corrupt (one bit, never creating a zero, so one corrupted frame is
 * one receive error), duplicate, delay (which also reorders: a late frame
 * goes out after delay_ms, or once four later frames have overtaken it).
 * Probabilities are in parts per million; the same seed gives the same run.
 */
#ifndef PHYLLO_FAULT_H
#define PHYLLO_FAULT_H

#include <stdint.h>
#include <stdio.h>

enum fault_dir { FAULT_TX = 0, FAULT_RX = 1 };

struct fault_cfg {
	uint32_t drop_ppm, corrupt_ppm, dup_ppm, delay_ppm;
	uint32_t delay_ms;
	uint32_t seed;
	unsigned int dirs;	/* bit 0: tx, bit 1: rx */
};

struct fault_counts {
	uint64_t frames, dropped, corrupted, duplicated, delayed;
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
