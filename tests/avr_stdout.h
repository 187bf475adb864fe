/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * avr_stdout.h - stdout on USART0 by polling, for the AVR test and
 * benchmark programs (simavr prints what they write). Include it in one
 * file and call avr_stdout_init() first thing.
 */
#ifndef PHYLLO_AVR_STDOUT_H
#define PHYLLO_AVR_STDOUT_H

#include <avr/io.h>
#include <stdio.h>

static int avr_stdout_put(char c, FILE *f)
{
	(void)f;
	while (!(UCSR0A & _BV(UDRE0)))
		;
	UDR0 = (uint8_t)c;
	return 0;
}

static FILE avr_stdout_file = FDEV_SETUP_STREAM(avr_stdout_put, NULL, _FDEV_SETUP_WRITE);

/* 1 Mbaud at 16 MHz with U2X: the simulator does not care, a chip would. */
static inline void avr_stdout_init(void)
{
	UBRR0 = 0;
	UCSR0A = _BV(U2X0);
	UCSR0B = _BV(TXEN0);
	stdout = &avr_stdout_file;
}

#endif
