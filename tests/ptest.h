/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * ptest.h - the smallest test framework that runs unchanged on the host
 * (under ASan/UBSan) and on a simulated AVR.
 *
 * A suite is an array of cases; PTEST_EXPECT records a failure with the
 * file, line and the values involved and lets the case go on; the runner
 * prints one line per failing case and closes with "N passed, N failed".
 * Output goes through printf: the AVR build routes stdout to its UART.
 */
#ifndef PTEST_H
#define PTEST_H

#include <stdio.h>
#include <stdint.h>
#include <stdbool.h>

/*
 * On the AVR every string literal would sit in its 2 KB of RAM: there the
 * expressions, file names and messages live in flash (PSTR, printed with
 * %S) and cases carry no names (failures print the case's index).
 */
#ifdef __AVR__
#include <avr/pgmspace.h>
#define PTEST_STR(s) PSTR(s)
#define PTEST_S "%S"
#define PTEST_LOG(fmt, ...) printf_P(PSTR(fmt), ##__VA_ARGS__)
#define PTEST_NAME(fn) NULL
#else
#define PTEST_STR(s) (s)
#define PTEST_S "%s"
#define PTEST_LOG(fmt, ...) printf(fmt, ##__VA_ARGS__)
#define PTEST_NAME(fn) #fn
#endif

struct ptest_case {
	const char *name;
	void (*fn)(void);
};

struct ptest_suite {
	const char *name;
	const struct ptest_case *cases;
	unsigned int n;
};

/* Failures in the running case; reset by the runner. */
extern unsigned int ptest_failures;

void ptest_fail(const char *file, int line, const char *expr, long a, long b);
/* Runs every suite; returns the number of failed cases. */
unsigned int ptest_run(const struct ptest_suite *const *suites, unsigned int n);

#define PTEST_EXPECT(cond) do { \
	if (!(cond)) \
		ptest_fail(PTEST_STR(__FILE__), __LINE__, PTEST_STR(#cond), 0, 0); \
} while (0)

/* Integer comparison that prints both sides on failure. */
#define PTEST_EXPECT_EQ(a, b) do { \
	long _pa = (long)(a), _pb = (long)(b); \
	if (_pa != _pb) \
		ptest_fail(PTEST_STR(__FILE__), __LINE__, PTEST_STR(#a " == " #b), _pa, _pb); \
} while (0)

#define PTEST_EXPECT_MEM(a, b, n) do { \
	if (memcmp((a), (b), (n)) != 0) \
		ptest_fail(PTEST_STR(__FILE__), __LINE__, PTEST_STR("memcmp(" #a ", " #b ")"), \
			   0, (long)(n)); \
} while (0)

#define PTEST_CASE(fn) { PTEST_NAME(fn), fn }
#define PTEST_SUITE(var, sname, arr) \
	const struct ptest_suite var = { sname, arr, sizeof(arr) / sizeof(arr[0]) }

/* A test program of one suite: the suite, and a main() that runs it and
 * exits 1 if any case failed. */
#define PTEST_MAIN(var, sname, arr) \
	static PTEST_SUITE(var, sname, arr); \
	int main(void) \
	{ \
		static const struct ptest_suite *const suites_[] = { &var }; \
		return ptest_run(suites_, 1) ? 1 : 0; \
	}

/* Scale loop counts down on a slow target. */
#ifndef PTEST_SCALE
#define PTEST_SCALE 1
#endif

#endif /* PTEST_H */
