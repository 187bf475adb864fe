// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * mega0_usart.c - firmware/uart.h on the megaAVR 0-series USART: two rings,
 * the handlers only move bytes (see uart.h for the contract and uart.c for
 * the ATmega328P's twin, whose handlers are hand-written assembly; these
 * are C, and tested on the host against a fake register block).
 *
 * Single producer, single consumer per ring; each index is one byte, so
 * only the transmit kick and the sleep-until-room test need interrupts off.
 * Receive: RXDATAH is read before RXDATAL (reading RXDATAL pops the byte
 * and its flags); a byte the hardware lost (BUFOVF) or got with a framing
 * error is counted, and the protocol's CRC and COBS decide about the rest.
 */
#include "fw_config.h"
#include "mega0_port.h"
#include "uart.h"
#include "wake.h"

#define RX_MASK (PHYLLO_FW_RX_RING - 1)
#define TX_MASK (PHYLLO_FW_TX_RING - 1)

#ifndef F_CPU
#define F_CPU 16000000UL
#endif
#if MEGA0_BAUD(F_CPU, PHYLLO_FW_BAUD) < 64 || MEGA0_BAUD(F_CPU, PHYLLO_FW_BAUD) > 65535
#error "PHYLLO_FW_BAUD out of range for F_CPU (BAUD must be 64..65535)"
#endif

static uint8_t rx_buf[PHYLLO_FW_RX_RING];
static volatile uint8_t rx_head;   /* written by the handler */
static volatile uint8_t rx_tail;   /* written by the main loop */
static uint8_t tx_buf[PHYLLO_FW_TX_RING];
static volatile uint8_t tx_head;   /* written by the main loop */
static volatile uint8_t tx_tail;   /* written by the handler */
static volatile uint8_t rx_ring_full;
static volatile uint8_t hw_errors;

void phyllo_fw_uart_init(void)
{
	rx_head = rx_tail = tx_head = tx_tail = 0;
	rx_ring_full = hw_errors = 0;
	MEGA0_USART.baud = (uint16_t)MEGA0_BAUD(F_CPU, PHYLLO_FW_BAUD);
	MEGA0_USART.ctrlc = MEGA0_CTRLC_8N1;
	MEGA0_USART.ctrla = MEGA0_CTRLA_RXCIE;
	MEGA0_USART.ctrlb = MEGA0_CTRLB_RXEN | MEGA0_CTRLB_TXEN;
	mega0_sleep_setup();
}

void phyllo_mega0_usart_rxc(void)
{
	uint8_t flags = MEGA0_USART.rxdatah;
	uint8_t byte = MEGA0_USART.rxdatal;
	uint8_t head = rx_head;
	uint8_t next = (uint8_t)(head + 1) & RX_MASK;

	if (flags & (MEGA0_RXDATAH_BUFOVF | MEGA0_RXDATAH_FERR))
		hw_errors++;
	if (next == rx_tail) {
		rx_ring_full++;
		return;
	}
	rx_buf[head] = byte;
	rx_head = next;
	if (byte == 0 || !(next & (PHYLLO_FW_RX_RING / 2 - 1)))
		phyllo_fw_wake |= PHYLLO_FW_WAKE_RX;
}

/* Enabled only while the ring holds bytes (see tx_kick). */
void phyllo_mega0_usart_dre(void)
{
	uint8_t tail = tx_tail;

	MEGA0_USART.txdatal = tx_buf[tail];
	tail = (uint8_t)(tail + 1) & TX_MASK;
	tx_tail = tail;
	if (tail == tx_head)
		MEGA0_USART.ctrla &= (uint8_t)~MEGA0_CTRLA_DREIE;
}

const uint8_t *phyllo_fw_uart_rx_peek(uint8_t *n)
{
	uint8_t head = rx_head;
	uint8_t tail = rx_tail;

	*n = head >= tail ? (uint8_t)(head - tail) : (uint8_t)(PHYLLO_FW_RX_RING - tail);
	return &rx_buf[tail];
}

void phyllo_fw_uart_rx_consume(uint8_t n)
{
	rx_tail = (uint8_t)(rx_tail + n) & RX_MASK;
}

static void tx_kick(uint8_t head)
{
	mega0_irq_off();
	tx_head = head;
	MEGA0_USART.ctrla |= MEGA0_CTRLA_DREIE;
	mega0_irq_on();
}

/* Sleep until the handler has freed want slots (test and sleep as one
 * step: the wake-up cannot fall between them). */
static void tx_wait(uint8_t head, uint8_t want)
{
	for (;;) {
		mega0_irq_off();
		if (((uint8_t)(tx_tail - head - 1) & TX_MASK) >= want)
			break;
		mega0_irq_on();
		mega0_sleep();
	}
	mega0_irq_on();
}

void phyllo_fw_uart_write(void *ctx, const uint8_t *buf, uint16_t n)
{
	uint8_t head = tx_head;

	(void)ctx;
	while (n) {
		uint8_t room = (uint8_t)(tx_tail - head - 1) & TX_MASK;

		if (!room) {
			tx_wait(head, n < PHYLLO_FW_TX_RING / 2 ? (uint8_t)n : PHYLLO_FW_TX_RING / 2);
			continue;
		}
		if (room > n)
			room = (uint8_t)n;
		n -= room;
		do {
			tx_buf[head] = *buf++;
			head = (uint8_t)(head + 1) & TX_MASK;
		} while (--room);
		tx_kick(head);
	}
}

uint8_t phyllo_fw_uart_rx_dropped(void)
{
	return rx_ring_full;
}

uint8_t phyllo_mega0_usart_hw_errors(void)
{
	return hw_errors;
}

#ifdef __AVR__
ISR(USART3_RXC_vect)
{
	phyllo_mega0_usart_rxc();
}

ISR(USART3_DRE_vect)
{
	phyllo_mega0_usart_dre();
}
#endif
