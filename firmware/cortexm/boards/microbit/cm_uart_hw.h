/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * cm_uart_hw.h - the nRF51 UART (nRF51 Series Reference Manual, "UART"):
 * tasks start the receiver and transmitter, events say a byte came in
 * (RXDRDY) or went out (TXDRDY). An event stays set until software clears
 * it and raises the interrupt while it is enabled in INTEN. Offsets:
 *   0x000 TASKS_STARTRX  0x008 TASKS_STARTTX
 *   0x108 EVENTS_RXDRDY  0x11C EVENTS_TXDRDY
 *   0x304 INTENSET 0x308 INTENCLR (bit 2 RXDRDY, bit 7 TXDRDY)
 *   0x500 ENABLE (4)  0x50C PSELTXD  0x514 PSELRXD  0x518 RXD  0x51C TXD
 *   0x524 BAUDRATE (0x01D7E000 is 115200)
 * RXDRDY is cleared before RXD is read: reading RXD may raise it again
 * for the next byte. There is no "transmitter free" flag: it is free until
 * a byte is written and again when TXDRDY comes.
 * The micro:bit's interface chip is on P0.24 (TX) and P0.25 (RX).
 */
#ifndef PHYLLO_CM_UART_HW_H
#define PHYLLO_CM_UART_HW_H

#include "cm_arch.h"

#define NRF_UART0          0x40002000u
#define NRF_STARTRX        CM_REG32(NRF_UART0 + 0x000u)
#define NRF_STARTTX        CM_REG32(NRF_UART0 + 0x008u)
#define NRF_RXDRDY         CM_REG32(NRF_UART0 + 0x108u)
#define NRF_TXDRDY         CM_REG32(NRF_UART0 + 0x11Cu)
#define NRF_INTENSET       CM_REG32(NRF_UART0 + 0x304u)
#define NRF_INTENCLR       CM_REG32(NRF_UART0 + 0x308u)
#define NRF_ENABLE         CM_REG32(NRF_UART0 + 0x500u)
#define NRF_PSELTXD        CM_REG32(NRF_UART0 + 0x50Cu)
#define NRF_PSELRXD        CM_REG32(NRF_UART0 + 0x514u)
#define NRF_RXD            CM_REG32(NRF_UART0 + 0x518u)
#define NRF_TXD            CM_REG32(NRF_UART0 + 0x51Cu)
#define NRF_BAUDRATE       CM_REG32(NRF_UART0 + 0x524u)
#define NRF_INT_RXDRDY     (1u << 2)
#define NRF_INT_TXDRDY     (1u << 7)
#define NRF_BAUD_115200    0x01D7E000u

static bool nrf_tx_busy;

static inline void cm_uart_hw_init(uint32_t baud)
{
	(void)baud;	/* only 115200 is wired (fw_config.h's default) */
	NRF_PSELTXD = 24;
	NRF_PSELRXD = 25;
	NRF_BAUDRATE = NRF_BAUD_115200;
	NRF_ENABLE = 4;
	NRF_RXDRDY = 0;
	NRF_TXDRDY = 0;
	NRF_INTENSET = NRF_INT_RXDRDY;
	NRF_STARTRX = 1;
	NRF_STARTTX = 1;
}

static inline void cm_uart_hw_irq_ack(void)
{
}

static inline bool cm_uart_hw_rx_ready(void)
{
	return NRF_RXDRDY != 0;
}

static inline uint8_t cm_uart_hw_rx_get(void)
{
	NRF_RXDRDY = 0;
	return (uint8_t)NRF_RXD;
}

static inline bool cm_uart_hw_tx_ready(void)
{
	if (!nrf_tx_busy)
		return true;
	if (!NRF_TXDRDY)
		return false;
	NRF_TXDRDY = 0;
	nrf_tx_busy = false;
	return true;
}

static inline void cm_uart_hw_tx_put(uint8_t b)
{
	nrf_tx_busy = true;
	NRF_TXD = b;
}

static inline void cm_uart_hw_tx_irq(bool on)
{
	if (on)
		NRF_INTENSET = NRF_INT_TXDRDY;
	else
		NRF_INTENCLR = NRF_INT_TXDRDY;
}

#endif
