/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * cm_board_cfg.h - ARM MPS2 FPGA images AN385 (Cortex-M3), AN386 (M4) and
 * AN500 (M7), as qemu-system-arm models them: a 25 MHz system clock, the
 * CMSDK APB UART0 at 0x40004000 with its receive interrupt on line 0 and
 * its transmit interrupt on line 1, 32 external interrupts.
 */
#ifndef PHYLLO_CM_BOARD_CFG_H
#define PHYLLO_CM_BOARD_CFG_H

#define PHYLLO_CM_CORE_HZ   25000000u
#define PHYLLO_CM_IRQS      32
#define PHYLLO_CM_UART_IRQ  0   /* UART0 receive */
#define PHYLLO_CM_UART_IRQ2 1   /* UART0 transmit */

#endif
