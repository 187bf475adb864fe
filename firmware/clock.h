/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * clock.h - the firmware's millisecond clock (Timer0, compare match A).
 *
 * The core never reads a clock: the main loop reads this one and passes the
 * value in. It wraps after 49 days, which the core's time comparisons allow.
 * The tick also wakes the CPU from idle sleep once per millisecond, which is
 * what lets the main loop run the protocol timers while it sleeps.
 */
#ifndef PHYLLO_FW_CLOCK_H
#define PHYLLO_FW_CLOCK_H

#include <stdint.h>

void phyllo_fw_clock_init(void);
uint32_t phyllo_fw_clock_ms(void);

#endif /* PHYLLO_FW_CLOCK_H */
