/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * uart.h - interrupt-driven UART with two rings; the ISRs only move bytes.
 *
 * Contract:
 *  - Receive: phyllo_fw_uart_rx_peek() hands out the longest contiguous run
 *    of received bytes, in place; phyllo_fw_uart_rx_consume() releases what
 *    was used. Only the main loop calls them. A byte that finds the ring full
 *    is dropped and counted (the protocol resyncs at the next delimiter).
 *    The ISR sets PHYLLO_FW_WAKE_RX (wake.h) when parsing is worth it.
 *  - Transmit: phyllo_fw_uart_write() takes every byte it is given (it is a
 *    struct phyllo_out sink); when the ring is full it sleeps until the
 *    transmit interrupt makes room, so waiting costs no CPU cycles.
 */
#ifndef PHYLLO_FW_UART_H
#define PHYLLO_FW_UART_H

#include <stdbool.h>
#include <stdint.h>

void phyllo_fw_uart_init(void);
const uint8_t *phyllo_fw_uart_rx_peek(uint8_t *n);
void phyllo_fw_uart_rx_consume(uint8_t n);
/* Bytes in the receive ring now. */
uint8_t phyllo_fw_uart_rx_fill(void);
void phyllo_fw_uart_write(void *ctx, const uint8_t *buf, uint16_t n);
/* Bytes dropped because the receive ring was full (wraps at 256). */
uint8_t phyllo_fw_uart_rx_dropped(void);

#endif /* PHYLLO_FW_UART_H */
