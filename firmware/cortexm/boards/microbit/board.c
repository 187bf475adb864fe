// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * board.c - micro:bit under qemu: the 16 MHz clock needs no set-up, no
 * watchdog runs. The LED is the top-left one of the matrix: row 1 (P0.13)
 * high and column 1 (P0.4) low light it (GPIO at 0x50000000: OUTSET 0x508,
 * OUTCLR 0x50C, DIRSET 0x518).
 */
#include "cm_arch.h"
#include "cm_port.h"

#define NRF_GPIO_OUTSET CM_REG32(0x50000508u)
#define NRF_GPIO_OUTCLR CM_REG32(0x5000050Cu)
#define NRF_GPIO_DIRSET CM_REG32(0x50000518u)
#define LED_ROW1 (1u << 13)
#define LED_COL1 (1u << 4)

void phyllo_cm_board_early(void)
{
}

void phyllo_cm_board_init(void)
{
	NRF_GPIO_OUTCLR = LED_ROW1 | LED_COL1;
	NRF_GPIO_DIRSET = LED_ROW1 | LED_COL1;
}

void phyllo_cm_board_led(bool on)
{
	if (on)
		NRF_GPIO_OUTSET = LED_ROW1;
	else
		NRF_GPIO_OUTCLR = LED_ROW1;
}
