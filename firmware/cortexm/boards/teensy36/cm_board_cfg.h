/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * cm_board_cfg.h - Teensy 3.6 (NXP MK66FX1M0, Cortex-M4F): the core at
 * 16 MHz from the crystal (kinetis.h: FBE; the 180 MHz PLL set-up is left
 * for later), UART0 on pins 0/1 (Serial1), its status interrupt line 31.
 * Built, never run: no board and no emulator of the K66 here.
 */
#ifndef PHYLLO_CM_BOARD_CFG_H
#define PHYLLO_CM_BOARD_CFG_H

#define PHYLLO_CM_CORE_HZ  16000000u
#define PHYLLO_CM_IRQS     32
#define PHYLLO_CM_UART_IRQ 31

#endif
