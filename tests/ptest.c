// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * ptest.c - runner for ptest.h suites. Prints each failing case with the
 * values involved, then "N passed, N failed".
 */
#include "ptest.h"

unsigned int ptest_failures;

void ptest_fail(const char *file, int line, const char *expr, long a, long b)
{
	if (ptest_failures++ < 5)
		PTEST_LOG("    " PTEST_S ":%d: expected " PTEST_S " (got %ld, %ld)\n", file, line,
			  expr, a, b);
}

unsigned int ptest_run(const struct ptest_suite *const *suites, unsigned int n)
{
	unsigned int s, c, passed = 0, failed = 0;

	for (s = 0; s < n; s++) {
		for (c = 0; c < suites[s]->n; c++) {
			const struct ptest_case *tc = &suites[s]->cases[c];

			ptest_failures = 0;
			tc->fn();
			if (ptest_failures) {
				if (tc->name)
					PTEST_LOG("FAIL %s.%s\n", suites[s]->name, tc->name);
				else
					PTEST_LOG("FAIL %s.#%u\n", suites[s]->name, c);
				failed++;
			} else {
				passed++;
			}
		}
	}
	PTEST_LOG("%u passed, %u failed\n", passed, failed);
	return failed;
}
