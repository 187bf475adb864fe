/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * cm_uart_hw.h - the SAM3X8E UART (SAM3X/A datasheet, "Universal
 * Asynchronous Receiver Transmitter"), base 0x400E0800. Offsets:
 *   0x00 CR    bit 2 RSTRX, 3 RSTTX, 4 RXEN, 6 TXEN, 8 RSTSTA
 *   0x04 MR    PAR bits 11:9 (4 = none), CHMODE 15:14 (0 = normal)
 *   0x08 IER   0x0C IDR: bit 0 RXRDY, bit 1 TXRDY
 *   0x14 SR    bit 0 RXRDY, 1 TXRDY, 5 OVRE, 6 FRAME
 *   0x18 RHR   0x1C THR   0x20 BRGR (CD: MCK / (16 x baud))
 * TXRDY is a level: the transmit interrupt is enabled only while the ring
 * holds bytes. An overrun or framing error stays flagged until RSTSTA.
 */
#ifndef PHYLLO_CM_UART_HW_H
#define PHYLLO_CM_UART_HW_H

#include "cm_arch.h"

#define SAM_UART       0x400E0800u
#define SAM_UART_CR    CM_REG32(SAM_UART + 0x00u)
#define SAM_UART_MR    CM_REG32(SAM_UART + 0x04u)
#define SAM_UART_IER   CM_REG32(SAM_UART + 0x08u)
#define SAM_UART_IDR   CM_REG32(SAM_UART + 0x0Cu)
#define SAM_UART_SR    CM_REG32(SAM_UART + 0x14u)
#define SAM_UART_RHR   CM_REG32(SAM_UART + 0x18u)
#define SAM_UART_THR   CM_REG32(SAM_UART + 0x1Cu)
#define SAM_UART_BRGR  CM_REG32(SAM_UART + 0x20u)
#define SAM_CR_RSTRX   (1u << 2)
#define SAM_CR_RSTTX   (1u << 3)
#define SAM_CR_RXEN    (1u << 4)
#define SAM_CR_TXEN    (1u << 6)
#define SAM_CR_RSTSTA  (1u << 8)
#define SAM_MR_NO_PARITY (4u << 9)
#define SAM_SR_RXRDY   (1u << 0)
#define SAM_SR_TXRDY   (1u << 1)
#define SAM_SR_ERRORS  (1u << 5 | 1u << 6 | 1u << 7)

static inline void cm_uart_hw_init(uint32_t baud)
{
	SAM_UART_CR = SAM_CR_RSTRX | SAM_CR_RSTTX | SAM_CR_RSTSTA;
	SAM_UART_MR = SAM_MR_NO_PARITY;
	SAM_UART_BRGR = (PHYLLO_CM_CORE_HZ + 8u * baud) / (16u * baud);
	SAM_UART_IDR = 0xFFFFFFFFu;
	SAM_UART_IER = SAM_SR_RXRDY;
	SAM_UART_CR = SAM_CR_RXEN | SAM_CR_TXEN;
}

static inline void cm_uart_hw_irq_ack(void)
{
	if (SAM_UART_SR & SAM_SR_ERRORS)
		SAM_UART_CR = SAM_CR_RSTSTA;
}

static inline bool cm_uart_hw_rx_ready(void)
{
	return SAM_UART_SR & SAM_SR_RXRDY;
}

static inline uint8_t cm_uart_hw_rx_get(void)
{
	return (uint8_t)SAM_UART_RHR;
}

static inline bool cm_uart_hw_tx_ready(void)
{
	return SAM_UART_SR & SAM_SR_TXRDY;
}

static inline void cm_uart_hw_tx_put(uint8_t b)
{
	SAM_UART_THR = b;
}

static inline void cm_uart_hw_tx_irq(bool on)
{
	if (on)
		SAM_UART_IER = SAM_SR_TXRDY;
	else
		SAM_UART_IDR = SAM_SR_TXRDY;
}

#endif
