// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * cm_uart.c - the UART rings of the Cortex-M firmware (see cm_uart.h).
 *
 * Single producer, single consumer per ring: the handler owns the receive
 * head and, with the main loop's transmit kick (interrupts off), the
 * transmit tail; the main loop owns the other two indices. 16-bit aligned
 * stores are atomic on every Cortex-M, so only the kick needs interrupts
 * off.
 *
 * The AVR drivers share firmware/uart_ring.h; these rings are the same
 * idea but not that code: 16-bit indices and counts for 1 KB rings (the
 * AVR's are one byte each, one instruction apiece), one handler for both
 * directions that drains and fills the UART's FIFOs, and a transmit start
 * that pushes bytes itself, because CMSDK and nRF51 transmit interrupts
 * fire once per byte sent rather than while the register is empty.
 * Sharing would make the index type, the ring sizes and uart.h's count
 * type parameters of one template, for a write loop of twenty lines.
 */
#include "cm_arch.h"
#include "cm_port.h"
#include "cm_uart.h"
#include "cm_uart_hw.h"
#include "fw_config.h"
#include "wake.h"

#define RX_MASK (PHYLLO_CM_RX_RING - 1u)
#define TX_MASK (PHYLLO_CM_TX_RING - 1u)
#define RX_WAKE_EVERY 64u

static uint8_t rx_buf[PHYLLO_CM_RX_RING];
static volatile uint16_t rx_head;   /* written by the handler */
static volatile uint16_t rx_tail;   /* written by the main loop */
static uint8_t tx_buf[PHYLLO_CM_TX_RING];
static volatile uint16_t tx_head;   /* written by the main loop */
static volatile uint16_t tx_tail;   /* handler, or main with interrupts off */
static volatile uint32_t rx_dropped;

void phyllo_cm_uart_init(void)
{
	cm_uart_hw_init(PHYLLO_FW_BAUD);
	cm_nvic_enable(PHYLLO_CM_UART_IRQ);
#ifdef PHYLLO_CM_UART_IRQ2
	cm_nvic_enable(PHYLLO_CM_UART_IRQ2);
#endif
}

/* Move bytes from the ring into the transmitter while it takes them. */
static void tx_pump(void)
{
	uint16_t tail = tx_tail;
	uint16_t head = tx_head;

	while (tail != head && cm_uart_hw_tx_ready()) {
		cm_uart_hw_tx_put(tx_buf[tail]);
		tail = (uint16_t)((tail + 1u) & TX_MASK);
	}
	tx_tail = tail;
	cm_uart_hw_tx_irq(tail != head);
}

static void rx_drain(void)
{
	uint16_t head = rx_head;
	uint8_t wake = 0;

	while (cm_uart_hw_rx_ready()) {
		uint8_t b = cm_uart_hw_rx_get();
		uint16_t next = (uint16_t)((head + 1u) & RX_MASK);

		if (next == rx_tail) {
			rx_dropped++;
			continue;
		}
		rx_buf[head] = b;
		head = next;
		if (b == 0 || !(next & (RX_WAKE_EVERY - 1u)))
			wake = PHYLLO_FW_WAKE_RX;
	}
	rx_head = head;
	phyllo_fw_wake |= wake;
}

void phyllo_cm_uart_isr(void)
{
	cm_uart_hw_irq_ack();
	rx_drain();
	tx_pump();
}

const uint8_t *phyllo_cm_uart_rx_peek(uint16_t *n)
{
	uint16_t head = rx_head;
	uint16_t tail = rx_tail;

	*n = head >= tail ? (uint16_t)(head - tail) : (uint16_t)(PHYLLO_CM_RX_RING - tail);
	return &rx_buf[tail];
}

void phyllo_cm_uart_rx_consume(uint16_t n)
{
	rx_tail = (uint16_t)((rx_tail + n) & RX_MASK);
}

/* Publish the new head and start the transmitter: an event-style transmit
 * interrupt only fires after a byte has gone, so the first byte of a burst
 * is pushed from here. */
static void tx_kick(uint16_t head)
{
	cm_irq_off();
	tx_head = head;
	tx_pump();
	cm_irq_on();
}

/* Wait until the handler has freed a slot; test and sleep as one step. */
static void tx_wait(uint16_t head)
{
	cm_irq_off();
	if ((uint16_t)((tx_tail - head - 1u) & TX_MASK) == 0)
		cm_wfi();
	cm_irq_on();
}

void phyllo_cm_uart_write(void *ctx, const uint8_t *buf, uint16_t n)
{
	uint16_t head = tx_head;

	(void)ctx;
	while (n) {
		uint16_t room = (uint16_t)((tx_tail - head - 1u) & TX_MASK);

		if (!room) {
			tx_wait(head);
			continue;
		}
		if (room > n)
			room = n;
		n = (uint16_t)(n - room);
		while (room--) {
			tx_buf[head] = *buf++;
			head = (uint16_t)((head + 1u) & TX_MASK);
		}
		tx_kick(head);
	}
}

uint32_t phyllo_cm_uart_rx_dropped(void)
{
	return rx_dropped;
}
