// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * util.c - see util.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
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

static bool util_is_negative_number(const char *s)
{
	return s[0] == '-' && (isdigit((unsigned char)s[1]) ||
			       (s[1] == '.' && isdigit((unsigned char)s[2])));
}

/* Does the option arg (one argv word starting with '-') take the next
 * word as its value? */
static bool util_opt_takes_next(const char *arg, const char *optstring,
				const struct option *longopts)
{
	const char *p;

	if (arg[1] == '-') {
		size_t n = strcspn(arg + 2, "=");

		if (arg[2 + n] == '=')
			return false;
		for (; longopts->name; longopts++)
			if (strlen(longopts->name) == n && !strncmp(longopts->name, arg + 2, n))
				return longopts->has_arg == required_argument;
		return false;
	}
	/* a cluster of short options: the first that takes a value ends it */
	for (arg++; *arg; arg++) {
		p = strchr(optstring, *arg);
		if (p && p[1] == ':')
			return arg[1] == 0;
	}
	return false;
}

/* The copy util_args_numbers() made: it lives until exit */
static char **util_argv;

char **util_args_numbers(int *argc, char **argv, const char *optstring,
			 const struct option *longopts)
{
	char **out = calloc((size_t)*argc + 2, sizeof(*out)), **pos;
	int i, n = 1, np = 0;

	pos = calloc((size_t)*argc + 1, sizeof(*pos));
	if (!out || !pos) {
		perror("phyllo");
		exit(1);
	}
	out[0] = argv[0];
	for (i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], "--")) {
			while (++i < *argc)
				pos[np++] = argv[i];
			break;
		}
		if (argv[i][0] != '-' || !argv[i][1] || util_is_negative_number(argv[i])) {
			pos[np++] = argv[i];
			continue;
		}
		out[n++] = argv[i];
		if (util_opt_takes_next(argv[i], optstring, longopts) && i + 1 < *argc)
			out[n++] = argv[++i];
	}
	out[n++] = "--";
	for (i = 0; i < np; i++)
		out[n++] = pos[i];
	free(pos);
	*argc = n;
	free(util_argv);
	util_argv = out;
	return out;
}

static __attribute__((noreturn)) void util_usage_line(const char *who, const char *usage)
{
	const char *cmd = strncmp(who, "phyllo ", 7) ? who : who + 7;

	fprintf(stderr, "%.*s\n", (int)strcspn(usage, "\n"), usage);
	fprintf(stderr, "Run 'phyllo %s --help' for every option, or see phyllo(1).\n", cmd);
	exit(2);
}

void util_usage_error(const char *who, const char *usage, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", who);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	util_usage_line(who, usage);
}

void util_usage_hint(const char *who, const char *usage)
{
	util_usage_line(who, usage);
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
