/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * cm_board_cfg.h - Teensy 4.0 (NXP i.MX RT1062, Cortex-M7): the core runs
 * at whatever the boot ROM left it (this port does not touch the PLLs),
 * so nothing here depends on it: SysTick counts its 100 kHz reference
 * clock and LPUART6 (pins 0/1, Serial1) runs from the 24 MHz oscillator.
 * LPUART6's interrupt is line 25 (LPUART1 is 20).
 * Built, never run: no board and no emulator of the RT1062 here.
 */
#ifndef PHYLLO_CM_BOARD_CFG_H
#define PHYLLO_CM_BOARD_CFG_H

#define PHYLLO_CM_SYSTICK_REF_HZ 100000u
#define PHYLLO_CM_UART_CLOCK_HZ  24000000u
#define PHYLLO_CM_IRQS     32
#define PHYLLO_CM_UART_IRQ 25

#endif
