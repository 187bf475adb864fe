// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * board.c - the MPS2 images under qemu: nothing to clock (the FPGA's 25 MHz
 * is fixed), no watchdog running, the LED is bit 0 of the FPGA IO block's
 * LED register (0x40028000).
 */
#include "cm_arch.h"
#include "cm_port.h"

#define MPS2_FPGAIO_LED CM_REG32(0x40028000u)

void phyllo_cm_board_early(void)
{
}

void phyllo_cm_board_init(void)
{
	MPS2_FPGAIO_LED = 0;
}

void phyllo_cm_board_led(bool on)
{
	MPS2_FPGAIO_LED = on ? 1u : 0u;
}
