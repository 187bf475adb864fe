/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * cm_uart_hw.h - LPUART6 of the i.MX RT1062 (RT1060 reference manual,
 * "LPUART"), base 0x40198000, 32-bit registers:
 *   0x10 BAUD  SBR bits 12:0, OSR bits 28:24: baud = clock / ((OSR+1) x SBR)
 *   0x14 STAT  bit 23 TDRE, 21 RDRF, 19 OR (w1c), 17 FE (w1c)
 *   0x18 CTRL  bit 23 TIE, 21 RIE, 19 TE, 18 RE
 *   0x1C DATA  bits 7:0
 * 24 MHz / (16 x 13) = 115,385 baud (+0.2%). While OR is set the receiver
 * stores nothing more, so the handler clears it. TDRE is a level: TIE is on
 * only while the ring holds bytes. The FIFOs stay off.
 */
#ifndef PHYLLO_CM_UART_HW_H
#define PHYLLO_CM_UART_HW_H

#include "cm_arch.h"

#define LPUART6        0x40198000u
#define LPUART_BAUD    CM_REG32(LPUART6 + 0x10u)
#define LPUART_STAT    CM_REG32(LPUART6 + 0x14u)
#define LPUART_CTRL    CM_REG32(LPUART6 + 0x18u)
#define LPUART_DATA    CM_REG32(LPUART6 + 0x1Cu)
#define LPUART_OSR16   (15u << 24)
#define LPUART_STAT_TDRE (1u << 23)
#define LPUART_STAT_RDRF (1u << 21)
#define LPUART_STAT_OR   (1u << 19)
#define LPUART_STAT_FE   (1u << 17)
#define LPUART_CTRL_TIE  (1u << 23)
#define LPUART_CTRL_RIE  (1u << 21)
#define LPUART_CTRL_TE   (1u << 19)
#define LPUART_CTRL_RE   (1u << 18)

static inline void cm_uart_hw_init(uint32_t baud)
{
	LPUART_CTRL = 0;
	LPUART_BAUD = LPUART_OSR16 | (PHYLLO_CM_UART_CLOCK_HZ + 8u * baud) / (16u * baud);
	LPUART_STAT = LPUART_STAT_OR | LPUART_STAT_FE;
	LPUART_CTRL = LPUART_CTRL_TE | LPUART_CTRL_RE | LPUART_CTRL_RIE;
}

static inline void cm_uart_hw_irq_ack(void)
{
	uint32_t stat = LPUART_STAT;

	if (stat & (LPUART_STAT_OR | LPUART_STAT_FE))
		LPUART_STAT = stat & (LPUART_STAT_OR | LPUART_STAT_FE);
}

static inline bool cm_uart_hw_rx_ready(void)
{
	return LPUART_STAT & LPUART_STAT_RDRF;
}

static inline uint8_t cm_uart_hw_rx_get(void)
{
	return (uint8_t)LPUART_DATA;
}

static inline bool cm_uart_hw_tx_ready(void)
{
	return LPUART_STAT & LPUART_STAT_TDRE;
}

static inline void cm_uart_hw_tx_put(uint8_t b)
{
	LPUART_DATA = b;
}

static inline void cm_uart_hw_tx_irq(bool on)
{
	if (on)
		LPUART_CTRL |= LPUART_CTRL_TIE;
	else
		LPUART_CTRL &= ~LPUART_CTRL_TIE;
}

#endif
