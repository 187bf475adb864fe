/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * cm_board_cfg.h - BBC micro:bit (nRF51822, Cortex-M0) as qemu-system-arm
 * models it: a 16 MHz core clock, UART0 at 0x40002000 on interrupt line 2.
 * Here only as the emulated stand-in for an ARMv6-M board (the Teensy LC):
 * a real nRF51's M0 has no SysTick, which cm_clock.c uses.
 */
#ifndef PHYLLO_CM_BOARD_CFG_H
#define PHYLLO_CM_BOARD_CFG_H

#define PHYLLO_CM_CORE_HZ  16000000u
#define PHYLLO_CM_IRQS     32
#define PHYLLO_CM_UART_IRQ 2

#endif
