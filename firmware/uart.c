// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uart.c - the UART rings of the bare firmware (see uart.h).
 *
 * Single producer, single consumer per ring: the ISR owns one index, the
 * main loop the other, and each index is one byte, so no access needs a
 * critical section except the sleep-until-room handshake.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

#include "board.h"
#include "fw_config.h"
#include "uart.h"
#include "wake.h"

#define RX_MASK (PHYLLO_FW_RX_RING - 1)
#define TX_MASK (PHYLLO_FW_TX_RING - 1)

/* U2X halves the bit time error at every rate we use. */
#define FW_UBRR_VALUE ((F_CPU + 4UL * PHYLLO_FW_BAUD) / (8UL * PHYLLO_FW_BAUD) - 1UL)
#if FW_UBRR_VALUE > 4095
#error "PHYLLO_FW_BAUD too low for this F_CPU"
#endif

static uint8_t rx_buf[PHYLLO_FW_RX_RING];
static volatile uint8_t rx_head;   /* written by the ISR */
static volatile uint8_t rx_tail;   /* written by the main loop */
static uint8_t tx_buf[PHYLLO_FW_TX_RING];
static volatile uint8_t tx_head;   /* written by the main loop */
static volatile uint8_t tx_tail;   /* written by the ISR */
static volatile uint8_t rx_ring_full;

void phyllo_fw_uart_init(void)
{
	FW_UBRR = FW_UBRR_VALUE;
	FW_UCSRA = _BV(FW_U2X);
	FW_UCSRC = _BV(FW_UCSZ1) | _BV(FW_UCSZ0);          /* 8N1 */
	FW_UCSRB = _BV(FW_RXEN) | _BV(FW_TXEN) | _BV(FW_RXCIE);
	set_sleep_mode(SLEEP_MODE_IDLE);
}

/*
 * The two handlers run once per byte, so they are kept to the fewest
 * registers: every register a handler touches costs a push and a pop.
 */
ISR(FW_RX_vect)
{
	uint8_t byte = FW_UDR;
	uint8_t head = rx_head;
	uint8_t next = (uint8_t)(head + 1) & RX_MASK;

	if (next == rx_tail) {
		rx_ring_full++;
		return;
	}
	rx_buf[head] = byte;
	rx_head = next;
	/* A frame may be complete; or a long chunk needs draining before the
	 * ring fills (every RX_RING / 2 bytes). */
	if (byte == 0 || !(next & (PHYLLO_FW_RX_RING / 2 - 1)))
		phyllo_fw_wake |= PHYLLO_FW_WAKE_RX;
}

/* Enabled only while the ring holds bytes (see tx_kick). */
ISR(FW_UDRE_vect)
{
	uint8_t tail = tx_tail;

	FW_UDR = tx_buf[tail];
	tail = (uint8_t)(tail + 1) & TX_MASK;
	tx_tail = tail;
	if (tail == tx_head)
		FW_UCSRB &= (uint8_t)~_BV(FW_UDRIE);
}

const uint8_t *phyllo_fw_uart_rx_peek(uint8_t *n)
{
	uint8_t head = rx_head;
	uint8_t tail = rx_tail;

	*n = head >= tail ? head - tail : PHYLLO_FW_RX_RING - tail;
	return &rx_buf[tail];
}

void phyllo_fw_uart_rx_consume(uint8_t n)
{
	rx_tail = (uint8_t)(rx_tail + n) & RX_MASK;
}

/* Publish the new head and let the handler drain the ring. UCSRB is set
 * with interrupts off: the handler clears UDRIE in the same register. */
static void tx_kick(uint8_t head)
{
	cli();
	tx_head = head;
	FW_UCSRB |= _BV(FW_UDRIE);
	sei();
}

/* Sleep until the handler has freed want slots: refilling in batches
 * keeps the per-call overhead off each byte. Test and sleep are one step
 * (sei; sleep), so the wake-up cannot fall between them. */
static void tx_wait(uint8_t head, uint8_t want)
{
	for (;;) {
		cli();
		if (((uint8_t)(tx_tail - head - 1) & TX_MASK) >= want)
			break;
		sleep_enable();
		sei();
		sleep_cpu();
		sleep_disable();
	}
	sei();
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
