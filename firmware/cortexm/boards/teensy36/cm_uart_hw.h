/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * cm_uart_hw.h - the K66's UART0 (K66 reference manual, "UART"), base
 * 0x4006A000, 8-bit registers, clocked by the system clock:
 *   0x0 BDH, 0x1 BDL  13-bit divider SBR: baud = clock / (16 x (SBR + BRFA/32))
 *   0x3 C2   bit 7 TIE, 5 RIE, 3 TE, 2 RE
 *   0x4 S1   bit 7 TDRE, 5 RDRF, 3 OR, 1 FE
 *   0x7 D    data        0xA C4  BRFA bits 4:0
 * RDRF and OR clear by reading S1 then D, which every receive does. TDRE is
 * a level: TIE is on only while the ring holds bytes. The FIFOs stay off.
 */
#ifndef PHYLLO_CM_UART_HW_H
#define PHYLLO_CM_UART_HW_H

#include "kinetis.h"

#define K_UART0        0x4006A000u
#define K_UART_BDH     CM_REG8(K_UART0 + 0x0u)
#define K_UART_BDL     CM_REG8(K_UART0 + 0x1u)
#define K_UART_C2      CM_REG8(K_UART0 + 0x3u)
#define K_UART_S1      CM_REG8(K_UART0 + 0x4u)
#define K_UART_D       CM_REG8(K_UART0 + 0x7u)
#define K_UART_C4      CM_REG8(K_UART0 + 0xAu)
#define K_C2_TIE       (1u << 7)
#define K_C2_RIE       (1u << 5)
#define K_C2_TE        (1u << 3)
#define K_C2_RE        (1u << 2)
#define K_S1_TDRE      (1u << 7)
#define K_S1_RDRF      (1u << 5)
#define K_S1_OR        (1u << 3)

static inline void cm_uart_hw_init(uint32_t baud)
{
	/* divider in 1/32 steps: 32 x clock / (16 x baud), rounded */
	uint32_t div32 = (2u * PHYLLO_CM_CORE_HZ + baud / 2u) / baud;
	uint32_t sbr = div32 / 32u;

	SIM_SCGC4 |= SIM_SCGC4_UART0;
	K_UART_C2 = 0;
	K_UART_BDH = (uint8_t)((sbr >> 8) & 0x1Fu);
	K_UART_BDL = (uint8_t)sbr;
	K_UART_C4 = (uint8_t)(div32 % 32u);
	K_UART_C2 = K_C2_TE | K_C2_RE | K_C2_RIE;
}

static inline void cm_uart_hw_irq_ack(void)
{
}

static inline bool cm_uart_hw_rx_ready(void)
{
	return K_UART_S1 & (K_S1_RDRF | K_S1_OR);
}

static inline uint8_t cm_uart_hw_rx_get(void)
{
	return K_UART_D;
}

static inline bool cm_uart_hw_tx_ready(void)
{
	return K_UART_S1 & K_S1_TDRE;
}

static inline void cm_uart_hw_tx_put(uint8_t b)
{
	K_UART_D = b;
}

static inline void cm_uart_hw_tx_irq(bool on)
{
	if (on)
		K_UART_C2 |= K_C2_TIE;
	else
		K_UART_C2 &= (uint8_t)~K_C2_TIE;
}

#endif
