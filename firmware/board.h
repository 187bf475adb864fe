/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * board.h - the only file that knows which chip the firmware runs on.
 *
 *   ATmega328P (Arduino Uno, Nano): USART0, LED on PB5 (D13)
 *   ATmega32U4 (Arduino Micro, Leonardo): USART1 on pins 0/1, LED on PC7 (D13)
 *   ATmega4809 (Arduino Nano Every): USART3 on PB4/PB5 (the board's USB
 *       bridge), LED on PE2 (D13); its USART driver is megaavr/mega0_usart.c
 *       and its clock megaavr/mega0_clock.c (the FW_U* names below are the
 *       older USART's and are not defined for it)
 *
 * The 32U4's USB port is left alone: the protocol runs on the hardware UART
 * so that both boards share one code path and one timing model.
 */
#ifndef PHYLLO_FW_BOARD_H
#define PHYLLO_FW_BOARD_H

#include <avr/io.h>
#include <avr/wdt.h>

#if defined(__AVR_ATmega328P__) || defined(__AVR_ATmega328__) || \
	defined(__AVR_ATmega168__) || defined(__AVR_ATmega168P__)
#define FW_UDR      UDR0
#define FW_UCSRA    UCSR0A
#define FW_UCSRB    UCSR0B
#define FW_UCSRC    UCSR0C
#define FW_UBRR     UBRR0
#define FW_U2X      U2X0
#define FW_RXEN     RXEN0
#define FW_TXEN     TXEN0
#define FW_RXCIE    RXCIE0
#define FW_UDRIE    UDRIE0
#define FW_UCSZ0    UCSZ00
#define FW_UCSZ1    UCSZ01
#define FW_FE       FE0
#define FW_DOR      DOR0
#define FW_RX_vect  USART_RX_vect
#define FW_UDRE_vect USART_UDRE_vect
#define FW_LED_DDR  DDRB
#define FW_LED_PORT PORTB
#define FW_LED_BIT  PB5
#elif defined(__AVR_ATmega32U4__)
#define FW_UDR      UDR1
#define FW_UCSRA    UCSR1A
#define FW_UCSRB    UCSR1B
#define FW_UCSRC    UCSR1C
#define FW_UBRR     UBRR1
#define FW_U2X      U2X1
#define FW_RXEN     RXEN1
#define FW_TXEN     TXEN1
#define FW_RXCIE    RXCIE1
#define FW_UDRIE    UDRIE1
#define FW_UCSZ0    UCSZ10
#define FW_UCSZ1    UCSZ11
#define FW_FE       FE1
#define FW_DOR      DOR1
#define FW_RX_vect  USART1_RX_vect
#define FW_UDRE_vect USART1_UDRE_vect
#define FW_LED_DDR  DDRC
#define FW_LED_PORT PORTC
#define FW_LED_BIT  PC7
#elif defined(__AVR_ATmega4809__)
#define FW_LED_DDR  VPORTE.DIR
#define FW_LED_PORT VPORTE.OUT
#define FW_LED_BIT  2
#else
#error "unsupported MCU: the firmware knows the ATmega328P, ATmega32U4 and ATmega4809"
#endif

/*
 * Undo what a bootloader may leave behind: a running watchdog (it would
 * reset us every few hundred ms) and, on the 32U4, an enabled USB
 * controller whose interrupts have no handler in this firmware.
 */
static inline void phyllo_fw_board_init(void)
{
#if defined(__AVR_ATmega4809__)
	/* Reset flags are cleared by writing them; the main clock (the 16 MHz
	 * oscillator the Nano Every's fuses select) starts divided by 6: take
	 * the prescaler off (a protected register: the CCP key first). USART3
	 * goes to its alternate pins PB4 (TX, an output) and PB5 (RX). */
	RSTCTRL.RSTFR = RSTCTRL.RSTFR;
	wdt_disable();
	_PROTECTED_WRITE(CLKCTRL.MCLKCTRLB, 0);
	PORTMUX.USARTROUTEA = (PORTMUX.USARTROUTEA & (uint8_t)~PORTMUX_USART3_gm) |
			      PORTMUX_USART3_ALT1_gc;
	PORTB.DIRSET = PIN4_bm;
	PORTB.PIN5CTRL = PORT_PULLUPEN_bm;
#else
	MCUSR = 0;
	wdt_disable();
#endif
#if defined(__AVR_ATmega32U4__)
	UDIEN = 0;
	USBCON = 0;
#endif
	FW_LED_DDR |= _BV(FW_LED_BIT);
}

#endif /* PHYLLO_FW_BOARD_H */
