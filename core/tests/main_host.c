// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * main_host.c - host runner: the portable core suites plus the host-only
 * ones (two full stacks over a lossy channel do not fit an AVR).
 */
#include "suites.h"

extern const struct ptest_suite phyllo_suite_lossy, phyllo_suite_fuzz;

int main(void)
{
	static const struct ptest_suite *const suites[] = {
		PHYLLO_CORE_SUITES, &phyllo_suite_fuzz, &phyllo_suite_lossy,
	};

	return ptest_run(suites, sizeof(suites) / sizeof(suites[0])) ? 1 : 0;
}
