// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * main_avr.c - runs the portable core suites on a simulated AVR.
 *
 * One suite per binary (-DPTEST_AVR_SUITE=phyllo_suite_cobs, ...), each
 * within the ATmega328P's 2 KB of RAM (ptest keeps its strings in flash
 * there; the vector tables stay in RAM).
 * stdout goes to USART0 by polling (no interrupts, no rings: the test needs
 * nothing of the firmware). When the suites are done the CPU sleeps with
 * interrupts off, which ends the simulation; the last line is the ptest
 * summary "N passed, N failed" that tests/firmware/run.sh checks.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/pgmspace.h>
#include <avr/sleep.h>
#include <stdio.h>

#include "avr_stdout.h"
#include "suites.h"

#ifdef PTEST_AVR_SUITE
extern const struct ptest_suite PTEST_AVR_SUITE;
#define AVR_SUITES &PTEST_AVR_SUITE
#else
#define AVR_SUITES PHYLLO_CORE_SUITES
#endif

int main(void)
{
	static const struct ptest_suite *const suites[] = { AVR_SUITES };
	unsigned int failed;

	avr_stdout_init();
	printf_P(PSTR("phyllo core suites on the AVR\n"));
	failed = ptest_run(suites, sizeof(suites) / sizeof(suites[0]));
	(void)failed;
	cli();
	sleep_enable();
	sleep_cpu();
	return 0;
}
