/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * cm_uart_hw.h - the KL26's UART0 (KL26 reference manual, "UART0"), which
 * differs from its UART1/2 and from the K66's UART0: a programmable
 * oversampling ratio and write-one-to-clear error flags. Base 0x40054000,
 * 8-bit registers, clocked from OSCERCLK (SIM_SOPT2 UART0SRC = 2):
 *   0x0 BDH, 0x1 BDL  SBR: baud = clock / ((OSR + 1) x SBR)
 *   0x3 C2   bit 7 TIE, 5 RIE, 3 TE, 2 RE
 *   0x4 S1   bit 7 TDRE, 5 RDRF, 3 OR (w1c), 1 FE (w1c)
 *   0x7 D    data        0xA C4  OSR bits 4:0
 * 16 MHz / (23 x 6) = 115,942 baud (+0.6%): OSR 22, SBR 6. While OR is
 * set the receiver takes nothing more, so the handler clears it.
 */
#ifndef PHYLLO_CM_UART_HW_H
#define PHYLLO_CM_UART_HW_H

#include "kinetis.h"

#define KL_UART0       0x40054000u
#define KL_UART_BDH    CM_REG8(KL_UART0 + 0x0u)
#define KL_UART_BDL    CM_REG8(KL_UART0 + 0x1u)
#define KL_UART_C2     CM_REG8(KL_UART0 + 0x3u)
#define KL_UART_S1     CM_REG8(KL_UART0 + 0x4u)
#define KL_UART_D      CM_REG8(KL_UART0 + 0x7u)
#define KL_UART_C4     CM_REG8(KL_UART0 + 0xAu)
#define KL_C2_TIE      (1u << 7)
#define KL_C2_RIE      (1u << 5)
#define KL_C2_TE       (1u << 3)
#define KL_C2_RE       (1u << 2)
#define KL_S1_TDRE     (1u << 7)
#define KL_S1_RDRF     (1u << 5)
#define KL_S1_OR       (1u << 3)
#define KL_S1_FE       (1u << 1)
#define KL_SOPT2_UART0SRC_OSCER (2u << 26)
#define KL_OSR         23u

static inline void cm_uart_hw_init(uint32_t baud)
{
	uint32_t sbr = (PHYLLO_CM_CORE_HZ + KL_OSR * baud / 2u) / (KL_OSR * baud);

	SIM_SOPT2 = (SIM_SOPT2 & ~(3u << 26)) | KL_SOPT2_UART0SRC_OSCER;
	SIM_SCGC4 |= SIM_SCGC4_UART0;
	KL_UART_C2 = 0;
	KL_UART_C4 = (uint8_t)(KL_OSR - 1u);
	KL_UART_BDH = (uint8_t)((sbr >> 8) & 0x1Fu);
	KL_UART_BDL = (uint8_t)sbr;
	KL_UART_C2 = KL_C2_TE | KL_C2_RE | KL_C2_RIE;
}

static inline void cm_uart_hw_irq_ack(void)
{
	uint8_t s1 = KL_UART_S1;

	if (s1 & (KL_S1_OR | KL_S1_FE))
		KL_UART_S1 = s1 & (KL_S1_OR | KL_S1_FE);
}

static inline bool cm_uart_hw_rx_ready(void)
{
	return KL_UART_S1 & KL_S1_RDRF;
}

static inline uint8_t cm_uart_hw_rx_get(void)
{
	return KL_UART_D;
}

static inline bool cm_uart_hw_tx_ready(void)
{
	return KL_UART_S1 & KL_S1_TDRE;
}

static inline void cm_uart_hw_tx_put(uint8_t b)
{
	KL_UART_D = b;
}

static inline void cm_uart_hw_tx_irq(bool on)
{
	if (on)
		KL_UART_C2 |= KL_C2_TIE;
	else
		KL_UART_C2 &= (uint8_t)~KL_C2_TIE;
}

#endif
