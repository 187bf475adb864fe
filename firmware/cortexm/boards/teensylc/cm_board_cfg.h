/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * cm_board_cfg.h - Teensy LC (NXP MKL26Z64, Cortex-M0+): the core at 16 MHz
 * from the crystal (kinetis.h: FBE), UART0 on pins 0/1 (Serial1) clocked
 * by the crystal (OSCERCLK), interrupt line 12. 8 KB of RAM: 512-byte
 * rings and a window of 4 (cortexm.mk).
 * Built, never run: no board and no emulator of the KL26 here.
 */
#ifndef PHYLLO_CM_BOARD_CFG_H
#define PHYLLO_CM_BOARD_CFG_H

#define PHYLLO_CM_CORE_HZ  16000000u
#define PHYLLO_CM_IRQS     32
#define PHYLLO_CM_UART_IRQ 12

#endif
