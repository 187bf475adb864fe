// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * util.c - see util.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util.h"
#include "phyllo_stack.h"

uint64_t util_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int util_errno_from_phyllo(int err)
{
	switch (err) {
	case PHYLLO_E_TOOBIG:  return EMSGSIZE;
	case PHYLLO_E_AGAIN:   return EAGAIN;
	case PHYLLO_E_NOSPACE: return ENOBUFS;
	case PHYLLO_E_INVAL:   return EINVAL;
	case PHYLLO_E_TOPIC:   return EINVAL;
	default:               return EPROTO;
	}
}

const char *util_phyllo_strerror(int err)
{
	static const char *const names[] = {
		"ok", "invalid argument", "payload too large for the preset",
		"send window full", "chunk overflow", "framing error", "length mismatch",
		"CRC mismatch", "unexpected type", "unsupported flags", "out of order",
		"duplicate", "acknowledgement outside the window", "no session",
		"receiver full", "topic longer than 15 bytes", "malformed MessagePack",
		"buffer too small", "empty",
	};

	if (err > 0 || (unsigned int)-err >= sizeof(names) / sizeof(names[0]))
		return "unknown error";
	return names[-err];
}

#define UTIL_STAT_NAME(f) #f,
const char *const util_stats_names[] = { PHYLLO_STATS_LIST(UTIL_STAT_NAME) };
const unsigned int util_stats_count = sizeof(util_stats_names) / sizeof(util_stats_names[0]);
_Static_assert(sizeof(util_stats_names) / sizeof(util_stats_names[0]) == PHYLLO_STATS_FIELDS,
	       "every counter needs a name");

void util_stats_json(FILE *f, const struct phyllo_stats *st)
{
	uint32_t v[PHYLLO_STATS_FIELDS];
	unsigned int i;

	memcpy(v, st, sizeof(v));
	fputc('{', f);
	for (i = 0; i < util_stats_count; i++)
		fprintf(f, "%s\"%s\":%lu", i ? "," : "", util_stats_names[i], (unsigned long)v[i]);
	fputc('}', f);
}

unsigned long util_parse_num(const char *opt, const char *s, unsigned long lo, unsigned long hi)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi) {
		fprintf(stderr, "phyllo: %s: '%s' is not a number from %lu to %lu\n", opt, s, lo, hi);
		exit(2);
	}
	return v;
}

uint8_t util_parse_preset(const char *s)
{
	if (!strcmp(s, "minimal"))
		return PHYLLO_PRESET_MINIMAL;
	if (!strcmp(s, "reduced"))
		return PHYLLO_PRESET_REDUCED;
	if (!strcmp(s, "standard"))
		return PHYLLO_PRESET_STANDARD;
	fprintf(stderr, "phyllo: --preset: '%s' is not one of minimal, reduced, standard\n", s);
	exit(2);
}

const char *util_preset_name(uint8_t preset)
{
	static const char *const names[] = { "minimal", "reduced", "standard" };

	return preset < 3 ? names[preset] : "?";
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t util_percentile(uint64_t *v, size_t n, unsigned int pct)
{
	size_t i;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	i = (n * pct + 99) / 100;
	return v[i ? i - 1 : 0];
}
