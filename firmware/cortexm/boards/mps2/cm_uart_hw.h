/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * cm_uart_hw.h - the Arm CMSDK APB UART (Cortex-M System Design Kit TRM,
 * "APB UART"), UART0 of the MPS2 images. Registers, 32 bits each:
 *   0x00 DATA      byte in / byte out
 *   0x04 STATE     bit 0 TX buffer full, bit 1 RX buffer full, 2/3 overruns
 *   0x08 CTRL      bit 0 TX enable, 1 RX enable, 2 TX interrupt enable,
 *                  3 RX interrupt enable
 *   0x0C INTSTATUS read; INTCLEAR write 1 to clear: bit 0 TX, bit 1 RX
 *   0x10 BAUDDIV   clock / baud, at least 16
 * The transmit interrupt fires once each time the buffer empties (an event,
 * not a level), which cm_uart.c allows for. One byte each way is buffered.
 */
#ifndef PHYLLO_CM_UART_HW_H
#define PHYLLO_CM_UART_HW_H

#include "cm_arch.h"

#define CMSDK_UART0       0x40004000u
#define CMSDK_DATA        CM_REG32(CMSDK_UART0 + 0x00u)
#define CMSDK_STATE       CM_REG32(CMSDK_UART0 + 0x04u)
#define CMSDK_CTRL        CM_REG32(CMSDK_UART0 + 0x08u)
#define CMSDK_INTCLEAR    CM_REG32(CMSDK_UART0 + 0x0Cu)
#define CMSDK_BAUDDIV     CM_REG32(CMSDK_UART0 + 0x10u)
#define CMSDK_STATE_TXFULL (1u << 0)
#define CMSDK_STATE_RXFULL (1u << 1)
#define CMSDK_CTRL_TXEN    (1u << 0)
#define CMSDK_CTRL_RXEN    (1u << 1)
#define CMSDK_CTRL_TXIE    (1u << 2)
#define CMSDK_CTRL_RXIE    (1u << 3)
#define CMSDK_INT_ALL      0xFu

static inline void cm_uart_hw_init(uint32_t baud)
{
	CMSDK_BAUDDIV = (PHYLLO_CM_CORE_HZ + baud / 2u) / baud;
	CMSDK_INTCLEAR = CMSDK_INT_ALL;
	CMSDK_CTRL = CMSDK_CTRL_TXEN | CMSDK_CTRL_RXEN | CMSDK_CTRL_RXIE;
}

static inline void cm_uart_hw_irq_ack(void)
{
	CMSDK_INTCLEAR = CMSDK_INT_ALL;
}

static inline bool cm_uart_hw_rx_ready(void)
{
	return CMSDK_STATE & CMSDK_STATE_RXFULL;
}

static inline uint8_t cm_uart_hw_rx_get(void)
{
	return (uint8_t)CMSDK_DATA;
}

static inline bool cm_uart_hw_tx_ready(void)
{
	return !(CMSDK_STATE & CMSDK_STATE_TXFULL);
}

static inline void cm_uart_hw_tx_put(uint8_t b)
{
	CMSDK_DATA = b;
}

static inline void cm_uart_hw_tx_irq(bool on)
{
	if (on)
		CMSDK_CTRL |= CMSDK_CTRL_TXIE;
	else
		CMSDK_CTRL &= ~CMSDK_CTRL_TXIE;
}

#endif
