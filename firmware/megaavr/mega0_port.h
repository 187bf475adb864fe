/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * mega0_port.h - where the megaAVR 0-series driver meets the machine.
 *
 * On the chip: the USART block the board uses (the Nano Every's USB bridge
 * is on USART3, 0x0860), interrupts and idle sleep from avr-libc. On the
 * host (the driver's tests): a struct the test owns, and hooks the test
 * implements, so that "sleep until the transmitter takes a byte" can be
 * played by the test as the hardware would.
 */
#ifndef PHYLLO_MEGA0_PORT_H
#define PHYLLO_MEGA0_PORT_H

#include "mega0_usart.h"

#ifdef __AVR__
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

#define MEGA0_USART (*(struct mega0_usart *)0x0860)   /* USART3 */
#define mega0_irq_off() cli()
#define mega0_irq_on()  sei()
#define mega0_sleep()   sleep_cpu()
static inline void mega0_sleep_setup(void)
{
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
}
#else
extern struct mega0_usart phyllo_mega0_fake;
#define MEGA0_USART phyllo_mega0_fake
void mega0_irq_off(void);
void mega0_irq_on(void);
void mega0_sleep(void);
void mega0_sleep_setup(void);
#endif

#endif /* PHYLLO_MEGA0_PORT_H */
