// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * mega0_clock.c - firmware/clock.h on the megaAVR 0-series: timer/counter
 * B0 in periodic-interrupt mode on CLK_PER, CCMP = F_CPU / 1000 - 1, one
 * CAPT interrupt a millisecond (its flag is cleared by writing it).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "clock.h"
#include "wake.h"

#define CLOCK_TOP (F_CPU / 1000UL - 1UL)
#if CLOCK_TOP > 65535UL || F_CPU % 1000UL
#error "F_CPU must be a multiple of 1 kHz, at most 65.536 MHz"
#endif

static volatile uint32_t ms;

ISR(TCB0_INT_vect)
{
	TCB0.INTFLAGS = TCB_CAPT_bm;
	ms++;
	phyllo_fw_wake |= PHYLLO_FW_WAKE_TICK;
}

void phyllo_fw_clock_init(void)
{
	TCB0.CCMP = CLOCK_TOP;
	TCB0.CTRLB = TCB_CNTMODE_INT_gc;
	TCB0.INTCTRL = TCB_CAPT_bm;
	TCB0.CTRLA = TCB_CLKSEL_CLKDIV1_gc | TCB_ENABLE_bm;
}

uint32_t phyllo_fw_clock_ms(void)
{
	uint32_t v;

	ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
		v = ms;
	}
	return v;
}
