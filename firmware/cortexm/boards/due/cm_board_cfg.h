/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * cm_board_cfg.h - Arduino Due (Atmel/Microchip SAM3X8E, Cortex-M3): the
 * core at 84 MHz from the 12 MHz crystal (PLLA x14 / 2), the UART of the
 * "programming port" (PA8 URXD, PA9 UTXD, wired to the board's ATmega16U2
 * USB bridge), peripheral ID and interrupt line 8.
 * Built, never run: no board and no emulator of the SAM3X here.
 */
#ifndef PHYLLO_CM_BOARD_CFG_H
#define PHYLLO_CM_BOARD_CFG_H

#define PHYLLO_CM_CORE_HZ  84000000u
#define PHYLLO_CM_IRQS     45
#define PHYLLO_CM_UART_IRQ 8

#endif
