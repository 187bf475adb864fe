/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * cm_uart.h - interrupt-driven UART with two rings, for every Cortex-M board
 * (the register access is the board's cm_uart_hw.h, see cm_port.h).
 *
 * The contract of the AVR firmware's uart.h, with 16-bit counts:
 *  - Receive: phyllo_cm_uart_rx_peek() hands out the longest contiguous run
 *    of received bytes, in place; phyllo_cm_uart_rx_consume() releases what
 *    was used. Only the main loop calls them. A byte that finds the ring
 *    full is dropped and counted (the protocol resyncs at the next
 *    delimiter). The handler sets PHYLLO_FW_WAKE_RX (wake.h) on a delimiter
 *    and every 64 bytes.
 *  - Transmit: phyllo_cm_uart_write() takes every byte it is given (a
 *    struct phyllo_out sink); when the ring is full it waits for interrupts
 *    (WFI) until the handler makes room.
 * The rings default to 1 KB each: a whole window of replies fits the
 * transmit ring, so the main loop goes back to parsing while it drains.
 */
#ifndef PHYLLO_CM_UART_H
#define PHYLLO_CM_UART_H

#include <stdbool.h>
#include <stdint.h>

#ifndef PHYLLO_CM_RX_RING
#define PHYLLO_CM_RX_RING 1024
#endif
#ifndef PHYLLO_CM_TX_RING
#define PHYLLO_CM_TX_RING 1024
#endif
#if PHYLLO_CM_RX_RING < 64 || PHYLLO_CM_RX_RING > 32768 || \
	(PHYLLO_CM_RX_RING & (PHYLLO_CM_RX_RING - 1))
#error "PHYLLO_CM_RX_RING must be a power of two, 64..32768"
#endif
#if PHYLLO_CM_TX_RING < 64 || PHYLLO_CM_TX_RING > 32768 || \
	(PHYLLO_CM_TX_RING & (PHYLLO_CM_TX_RING - 1))
#error "PHYLLO_CM_TX_RING must be a power of two, 64..32768"
#endif

void phyllo_cm_uart_init(void);
const uint8_t *phyllo_cm_uart_rx_peek(uint16_t *n);
void phyllo_cm_uart_rx_consume(uint16_t n);
void phyllo_cm_uart_write(void *ctx, const uint8_t *buf, uint16_t n);
/* Bytes dropped because the receive ring was full. */
uint32_t phyllo_cm_uart_rx_dropped(void);
/* The interrupt handler (the board's UART vector, see cm_start.c). */
void phyllo_cm_uart_isr(void);

#endif /* PHYLLO_CM_UART_H */
