// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * clock.c - Timer0 in CTC mode at 1 kHz: F_CPU / 64 / (OCR0A + 1).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "clock.h"
#include "wake.h"

#define CLOCK_OCR ((F_CPU / 64UL / 1000UL) - 1UL)
#if CLOCK_OCR > 255 || (F_CPU / 64UL) % 1000UL
#error "F_CPU must be a multiple of 64 kHz, at most 16.384 MHz"
#endif

static volatile uint32_t ms;

ISR(TIMER0_COMPA_vect)
{
	ms++;
	phyllo_fw_wake |= PHYLLO_FW_WAKE_TICK;
}

void phyllo_fw_clock_init(void)
{
	TCCR0A = _BV(WGM01);               /* CTC, TOP = OCR0A */
	OCR0A = CLOCK_OCR;
	TCCR0B = _BV(CS01) | _BV(CS00);    /* clk / 64 */
	TIMSK0 = _BV(OCIE0A);
}

uint32_t phyllo_fw_clock_ms(void)
{
	uint32_t v;

	ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
		v = ms;
	}
	return v;
}
