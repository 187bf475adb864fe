/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * util.h - small helpers shared by the phyllo tool's subcommands: the
 * monotonic clock, errors, the map from core errors to errno, JSON output
 * of the link counters.
 */
#ifndef PHYLLO_UTIL_H
#define PHYLLO_UTIL_H

#include <getopt.h>
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

/* Parse an unsigned number in [lo, hi]; prints an error naming opt and
 * exits with status 2 on bad input. */
unsigned long util_parse_num(const char *opt, const char *s, unsigned long lo, unsigned long hi);
/* One range per kind of option, whatever the command: -n/--count is 1 to
 * 10^8 messages, -t/--timeout 1 to 86,400 seconds (a day). A command with
 * no limit by default (sub waits for ever) has it when the option is not
 * given; 0 is never a value. */
#define UTIL_COUNT_MAX 100000000UL
#define UTIL_TIMEOUT_MAX 86400UL
#define util_parse_count(s) util_parse_num("--count", (s), 1, UTIL_COUNT_MAX)
#define util_parse_timeout(s) util_parse_num("--timeout", (s), 1, UTIL_TIMEOUT_MAX)
/* Parse a preset name; exits with status 2 on bad input. */
uint8_t util_parse_preset(const char *s);
const char *util_preset_name(uint8_t preset);

/* Negative numbers as arguments (`phyllo pub servo -5`): a copy of argv
 * whose arguments that look like one ("-5", "-0.5", "-1e3") and are no
 * option's value come after a "--", in their order, so getopt_long()
 * leaves them alone; options and their values keep theirs. *argc grows
 * by one when a "--" is added. The copy lives until exit. */
char **util_args_numbers(int *argc, char **argv, const char *optstring,
			 const struct option *longopts);
/* A command line that is wrong: "WHO: what is wrong", the usage's first
 * line, a pointer to --help; exits with status 2. */
void util_usage_error(const char *who, const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
/* After getopt_long() printed what it did not like: the usage's first
 * line and the pointer to --help; exits with status 2. */
void util_usage_hint(const char *who, const char *usage) __attribute__((noreturn));

/* Percentile (0..100) of n values, sorting them in place. */
uint64_t util_percentile(uint64_t *v, size_t n, unsigned int pct);

#endif
