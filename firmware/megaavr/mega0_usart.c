// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * mega0_usart.c - firmware/uart.h on the megaAVR 0-series USART (see uart.h
 * for the contract): the registers, set-up and the two handlers, in C and
 * tested on the host against a fake register block. The rings are
 * uart_ring.h's, shared with the ATmega328P's uart.c, whose handlers do
 * the same in assembly.
 *
 * Receive: RXDATAH is read before RXDATAL (reading RXDATAL pops the byte
 * and its flags); a byte the hardware lost (BUFOVF) or got with a framing
 * error is counted, and the protocol's CRC and COBS decide about the rest.
 */
#include "mega0_port.h"

/* CTRLA is set with interrupts off: the DRE handler clears DREIE in it. */
#define FW_IRQ_OFF()  mega0_irq_off()
#define FW_IRQ_ON()   mega0_irq_on()
#define FW_SLEEP()    do { mega0_irq_on(); mega0_sleep(); } while (0)
#define FW_TX_START() (MEGA0_USART.ctrla |= MEGA0_CTRLA_DREIE)
#include "uart_ring.h"

#ifndef F_CPU
#define F_CPU 16000000UL
#endif
#if MEGA0_BAUD(F_CPU, PHYLLO_FW_BAUD) < 64 || MEGA0_BAUD(F_CPU, PHYLLO_FW_BAUD) > 65535
#error "PHYLLO_FW_BAUD out of range for F_CPU (BAUD must be 64..65535)"
#endif

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

	if (flags & (MEGA0_RXDATAH_BUFOVF | MEGA0_RXDATAH_FERR))
		hw_errors++;
	uart_ring_rx_put(byte);
}

/* Enabled only while the ring holds bytes (FW_TX_START). */
void phyllo_mega0_usart_dre(void)
{
	uint8_t tail = tx_tail;

	MEGA0_USART.txdatal = tx_buf[tail];
	tail = (uint8_t)(tail + 1) & TX_MASK;
	tx_tail = tail;
	if (tail == tx_head)
		MEGA0_USART.ctrla &= (uint8_t)~MEGA0_CTRLA_DREIE;
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
