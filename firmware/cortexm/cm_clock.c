// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * cm_clock.c - the millisecond clock of firmware/clock.h on SysTick, which
 * every Cortex-M has: reload PHYLLO_CM_CORE_HZ / 1000 - 1 on the processor
 * clock, one interrupt a millisecond; or, on a board whose cm_board_cfg.h
 * names PHYLLO_CM_SYSTICK_REF_HZ, on SysTick's reference clock (the i.MX
 * RT's 100 kHz), which does not depend on how fast the core was set. The tick also wakes the main loop
 * from WFI, which runs the protocol timers while it sleeps. A 32-bit
 * aligned load is atomic, so reading the count needs no critical section.
 */
#include "clock.h"
#include "cm_arch.h"
#include "cm_port.h"
#include "wake.h"

#ifdef PHYLLO_CM_SYSTICK_REF_HZ
#define CLOCK_HZ     PHYLLO_CM_SYSTICK_REF_HZ
#define CLOCK_SOURCE 0u
#else
#define CLOCK_HZ     PHYLLO_CM_CORE_HZ
#define CLOCK_SOURCE CM_SYST_CSR_CLKSOURCE
#endif
#define CLOCK_RELOAD (CLOCK_HZ / 1000u - 1u)
#if CLOCK_RELOAD > 0xFFFFFFu || CLOCK_HZ % 1000u
#error "SysTick's clock must be a multiple of 1 kHz, at most 16.777 GHz"
#endif

static volatile uint32_t ms;

void phyllo_cm_systick_isr(void);

void phyllo_cm_systick_isr(void)
{
	ms++;
	phyllo_fw_wake |= PHYLLO_FW_WAKE_TICK;
}

void phyllo_fw_clock_init(void)
{
	CM_SYST_RVR = CLOCK_RELOAD;
	CM_SYST_CVR = 0;
	CM_SYST_CSR = CLOCK_SOURCE | CM_SYST_CSR_TICKINT | CM_SYST_CSR_ENABLE;
}

uint32_t phyllo_fw_clock_ms(void)
{
	return ms;
}
