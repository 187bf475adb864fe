// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * board.c - Teensy LC (MKL26Z64), from the KL26 reference manual:
 *  - early: the COP watchdog runs from reset; SIM_COPC (writable once)
 *    = 0 turns it off;
 *  - clock: 16 MHz crystal, FBE (kinetis.h); SIM_CLKDIV1 = 0 puts core
 *    and bus at 16 MHz (the bus may run up to 24);
 *  - pins: UART0 on PTB16/PTB17, LED on PTC5 (kinetis.h);
 *  - the flash configuration field; FOPT 0xFB turns the NMI pin off.
 * Written from the manual, compiled, never run on a board.
 */
#include "cm_port.h"
#include "kinetis.h"

#define SIM_COPC CM_REG32(0x40048100u)

__attribute__((section(".flashcfg"), used))
static const uint8_t flash_config[16] = KINETIS_FLASHCFG(0xFB);

void phyllo_cm_board_early(void)
{
	SIM_COPC = 0;
}

void phyllo_cm_board_init(void)
{
	kinetis_board_init();
}

void phyllo_cm_board_led(bool on)
{
	kinetis_led(on);
}
