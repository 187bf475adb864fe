// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * board.c - Teensy 3.6 (MK66FX1M0), from the K66 reference manual:
 *  - early: the watchdog runs from reset and must be unlocked (two keys
 *    to WDOG_UNLOCK, 0xC520 then 0xD928) and disabled (WDOG_STCTRLH:
 *    ALLOWUPDATE, WDOGEN clear) within a few bus clocks;
 *  - clock: 16 MHz crystal, FBE (kinetis.h), all SIM dividers /1;
 *  - pins: UART0 on PTB16/PTB17, LED on PTC5 (kinetis.h);
 *  - the flash configuration field; FOPT 0xF9 turns the NMI pin and the
 *    EzPort off (neither is ours on a Teensy).
 * Written from the manual, compiled, never run on a board.
 */
#include "cm_port.h"
#include "kinetis.h"

#define CM_REG16(addr) (*(volatile uint16_t *)(uintptr_t)(addr))
#define WDOG_STCTRLH   CM_REG16(0x40052000u)
#define WDOG_UNLOCK    CM_REG16(0x4005200Eu)
#define WDOG_ALLOWUPDATE 0x0010u

__attribute__((section(".flashcfg"), used))
static const uint8_t flash_config[16] = KINETIS_FLASHCFG(0xF9);

void phyllo_cm_board_early(void)
{
	WDOG_UNLOCK = 0xC520u;
	WDOG_UNLOCK = 0xD928u;
	__asm__ __volatile__("nop\n\tnop");
	WDOG_STCTRLH = WDOG_ALLOWUPDATE;
}

void phyllo_cm_board_init(void)
{
	kinetis_board_init();
}

void phyllo_cm_board_led(bool on)
{
	kinetis_led(on);
}
