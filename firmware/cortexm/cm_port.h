/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * cm_port.h - the driver seam between the Cortex-M firmware and a board.
 *
 * The firmware (cm_main.c, cm_uart.c, cm_clock.c, cm_start.c) is the same
 * on every Cortex-M; a board is one folder under boards/ that provides:
 *
 *   cm_board_cfg.h  PHYLLO_CM_CORE_HZ (the core clock after board init),
 *                   PHYLLO_CM_IRQS (external interrupts in the vector
 *                   table), PHYLLO_CM_UART_IRQ (and PHYLLO_CM_UART_IRQ2 when
 *                   receive and transmit have separate lines)
 *   cm_uart_hw.h    static inline register access to its UART, included by
 *                   cm_uart.c only (the functions listed below)
 *   board.c         the three functions declared here
 *   board.ld        MEMORY and anything that must sit at a fixed flash
 *                   address, then INCLUDE cm_sections.ld
 *
 * cm_uart_hw.h contract (interrupt context or interrupts off, except init):
 *   void cm_uart_hw_init(uint32_t baud)  8N1, receiver on with its
 *                                        interrupt, transmit interrupt off
 *   void cm_uart_hw_irq_ack(void)        clear sticky interrupt flags that
 *                                        the reads below do not clear
 *   bool cm_uart_hw_rx_ready(void)       a received byte is waiting
 *   uint8_t cm_uart_hw_rx_get(void)      take it
 *   bool cm_uart_hw_tx_ready(void)       the transmitter takes a byte now
 *   void cm_uart_hw_tx_put(uint8_t b)    give it one
 *   void cm_uart_hw_tx_irq(bool on)      interrupt when it takes one again
 * A transmit interrupt may be level (Kinetis, LPUART, SAM) or an event that
 * fires once per byte sent (CMSDK, nRF51): cm_uart.c starts every burst by
 * pushing bytes itself, so both kinds work.
 */
#ifndef PHYLLO_CM_PORT_H
#define PHYLLO_CM_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "cm_board_cfg.h"

/* First thing after reset, before .data and .bss exist: stop a watchdog
 * that would fire before start-up is done. Must not use RAM variables. */
void phyllo_cm_board_early(void);
/* Clocks to PHYLLO_CM_CORE_HZ, UART and LED pins. */
void phyllo_cm_board_init(void);
/* The board's LED (the blink endpoint). */
void phyllo_cm_board_led(bool on);

#endif /* PHYLLO_CM_PORT_H */
