/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * util.h - small helpers shared by the phyllo tool's subcommands: the
 * monotonic clock, errors, the map from core errors to errno, JSON output
 * of the link counters.
 */
#ifndef PHYLLO_UTIL_H
#define PHYLLO_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include "phyllo_stats.h"

uint64_t util_now_us(void);
static inline uint32_t util_now_ms(void)
{
	return (uint32_t)(util_now_us() / 1000);
}

/* The one place a core error becomes an errno value. */
int util_errno_from_phyllo(int err);
const char *util_phyllo_strerror(int err);

/* Print the counters as a JSON object (no newline). */
void util_stats_json(FILE *f, const struct phyllo_stats *st);
/* Number of counters and the name of counter i (same order as the struct). */
extern const char *const util_stats_names[];
extern const unsigned int util_stats_count;

/* Parse an unsigned number in [lo, hi]; prints an error naming opt and
 * exits with status 2 on bad input. */
unsigned long util_parse_num(const char *opt, const char *s, unsigned long lo, unsigned long hi);
/* Parse a preset name; exits with status 2 on bad input. */
uint8_t util_parse_preset(const char *s);
const char *util_preset_name(uint8_t preset);

/* Percentile (0..100) of n values, sorting them in place. */
uint64_t util_percentile(uint64_t *v, size_t n, unsigned int pct);

#endif
