/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * uart_ring.h - the two rings behind uart.h, shared by the AVR USART
 * drivers: uart.c (ATmega328P, ATmega32U4) and megaavr/mega0_usart.c
 * (ATmega4809). A driver keeps its registers, its set-up and its interrupt
 * vectors; the rings, the receive handler's ring work, the main loop's
 * peek/consume and the batched write are here, once. (The transmit
 * handler stays with each driver: it writes the data register between
 * taking the byte and moving the tail, which saves it a register.)
 *
 * Not an ordinary header: it defines the ring state (static) and the
 * uart.h functions that touch only the rings, so exactly one .c file of an
 * image includes it, the UART driver, after defining four primitives:
 *
 *   FW_IRQ_OFF()    interrupts off
 *   FW_IRQ_ON()     interrupts on
 *   FW_SLEEP()      entered with interrupts off: turn them on and sleep
 *                   as one step (sei; sleep), so an interrupt that came
 *                   after the caller's test still wakes it. Sleep itself
 *                   is enabled once, by the driver's init.
 *   FW_TX_START()   enable the data-register-empty interrupt; called with
 *                   interrupts off, as its handler clears the same bit
 *
 * The state and helpers are static and the uart.h functions defined in the
 * driver's own translation unit, so the compiler sees and inlines them as
 * it did when each driver carried its own copy (the same code, byte for
 * byte, on the Uno, the Micro and the Nano Every).
 *
 * Single producer, single consumer per ring: a handler owns one index, the
 * main loop the other, and each index is one byte, so no access needs a
 * critical section except the transmit kick and the sleep-until-room test.
 */
#ifndef PHYLLO_FW_UART_RING_H
#define PHYLLO_FW_UART_RING_H

#include <stdint.h>

#include "fw_config.h"
#include "uart.h"
#include "wake.h"

#if !defined(FW_IRQ_OFF) || !defined(FW_IRQ_ON) || !defined(FW_SLEEP) || !defined(FW_TX_START)
#error "uart_ring.h: define FW_IRQ_OFF, FW_IRQ_ON, FW_SLEEP and FW_TX_START first"
#endif

#define RX_MASK (PHYLLO_FW_RX_RING - 1)
#define TX_MASK (PHYLLO_FW_TX_RING - 1)

static uint8_t rx_buf[PHYLLO_FW_RX_RING];
static volatile uint8_t rx_tail;   /* written by the main loop */
static uint8_t tx_buf[PHYLLO_FW_TX_RING];
static volatile uint8_t tx_head;   /* written by the main loop */
static volatile uint8_t rx_ring_full;
/* The indices the handlers write are variables too, unless the driver
 * keeps them in registers (uart.c: FW_REG_HEADS, with fw_rx_head() and
 * fw_tx_tail() reading them, and its own receive handler). */
#ifndef FW_REG_HEADS
static volatile uint8_t rx_head;   /* written by the receive handler */
static volatile uint8_t tx_tail;   /* written by the transmit handler */
#define fw_rx_head() rx_head
#define fw_tx_tail() tx_tail
#endif

/*
 * The receive handler's work once it has read the byte: store it, or count
 * it dropped when the ring is full; wake the main loop on a delimiter and
 * every half ring (a frame may be complete, or the ring is filling up).
 * uart.c's handler does the same in assembly.
 */
#ifndef FW_REG_HEADS
static inline void uart_ring_rx_put(uint8_t byte)
{
	uint8_t head = rx_head;
	uint8_t next = (uint8_t)(head + 1) & RX_MASK;

	if (next == rx_tail) {
		rx_ring_full++;
		return;
	}
	rx_buf[head] = byte;
	rx_head = next;
	if (byte == 0 || !(next & (PHYLLO_FW_RX_RING / 2 - 1)))
		phyllo_fw_wake |= PHYLLO_FW_WAKE_RX;
}
#endif

const uint8_t *phyllo_fw_uart_rx_peek(uint8_t *n)
{
	uint8_t head = fw_rx_head();
	uint8_t tail = rx_tail;

	*n = head >= tail ? (uint8_t)(head - tail) : (uint8_t)(PHYLLO_FW_RX_RING - tail);
	return &rx_buf[tail];
}

void phyllo_fw_uart_rx_consume(uint8_t n)
{
	rx_tail = (uint8_t)(rx_tail + n) & RX_MASK;
}

uint8_t phyllo_fw_uart_rx_fill(void)
{
	return (uint8_t)(fw_rx_head() - rx_tail) & RX_MASK;
}

uint8_t phyllo_fw_uart_rx_dropped(void)
{
	return rx_ring_full;
}

/* Copy k >= 1 bytes; returns the source past them. */
static const uint8_t *tx_copy(uint8_t *d, const uint8_t *src, uint8_t k)
{
	do
		*d++ = *src++;
	while (--k);
	return src;
}

/* Publish the new head and let the handler drain the ring. */
static void tx_kick(uint8_t head)
{
	FW_IRQ_OFF();
	tx_head = head;
	FW_TX_START();
	FW_IRQ_ON();
}

/*
 * A receive wake (a delimiter, or half a ring) during a write is served at
 * once by the main loop's phyllo_fw_rx_during_tx(), whether the write
 * waits or not (at 1 Mbaud the interrupts leave the writer about as fast
 * as the line: it may never wait for room, and the receive ring would
 * overrun meanwhile). The bit is taken here; a frame the hook leaves for
 * the main loop sets PHYLLO_FW_WAKE_HELD, which is not served here.
 * Called with interrupts off; returns with them on.
 */
static void tx_serve_rx(void)
{
	phyllo_fw_wake &= (uint8_t)~PHYLLO_FW_WAKE_RX;
	FW_IRQ_ON();
	phyllo_fw_rx_during_tx();
}

/* Sleep until the handler has freed want slots: refilling in batches
 * keeps the per-call overhead off each byte. Test and sleep are one step
 * (FW_SLEEP), so the wake-up cannot fall between them. */
static void tx_wait(uint8_t head, uint8_t want)
{
	for (;;) {
		uint8_t room;

		FW_IRQ_OFF();
		/* 8-bit arithmetic: this runs after every interrupt */
		room = (uint8_t)((uint8_t)(fw_tx_tail() - head - 1) & TX_MASK);
		if (room >= want)
			break;
		if (phyllo_fw_wake & PHYLLO_FW_WAKE_RX) {
			tx_serve_rx();
			continue;
		}
		FW_SLEEP();
	}
	FW_IRQ_ON();
}

/* Any write: serve a pending receive wake, then copy in batches, waiting
 * for room as needed. */
__attribute__((noinline))
static void tx_write(const uint8_t *buf, uint16_t n)
{
	uint8_t head = tx_head;

	if (phyllo_fw_wake & PHYLLO_FW_WAKE_RX) {
		FW_IRQ_OFF();
		tx_serve_rx();
	}
	while (n) {
		uint8_t want = n < PHYLLO_FW_TX_RING / 2 ? (uint8_t)n : PHYLLO_FW_TX_RING / 2;
		uint8_t room = (uint8_t)(fw_tx_tail() - head - 1) & TX_MASK;

		/* Refill in batches: topping the ring up byte by byte as the
		 * handler frees it would spin at the line's pace, and serve no
		 * receive wake meanwhile. */
		if (room < want) {
			tx_wait(head, want);
			continue;
		}
		if (room > n)
			room = (uint8_t)n;
		/* Up to the ring's end at most: one pointer run, no index
		 * arithmetic per byte (a third of the cycles a byte took). */
		if (room > PHYLLO_FW_TX_RING - head)
			room = (uint8_t)(PHYLLO_FW_TX_RING - head);
		n -= room;
		buf = tx_copy(&tx_buf[head], buf, room);
		head = (uint8_t)(head + room) & TX_MASK;
		tx_kick(head);
	}
}

/*
 * Most writes are a few bytes (a frame's delimiters, COBS code bytes and
 * short runs) that fit at once: they take a path that needs no register
 * saved, as tx_write()'s loop does (the call was most of the cost of a
 * short write at 1 Mbaud).
 */
void phyllo_fw_uart_write(void *ctx, const uint8_t *buf, uint16_t n)
{
	uint8_t head = tx_head;
	uint8_t room = (uint8_t)(fw_tx_tail() - head - 1) & TX_MASK;

	(void)ctx;
	if (n && n <= room && n <= (uint8_t)(PHYLLO_FW_TX_RING - head) &&
	    !(phyllo_fw_wake & PHYLLO_FW_WAKE_RX)) {
		tx_copy(&tx_buf[head], buf, (uint8_t)n);
		tx_kick((uint8_t)(head + n) & TX_MASK);
		return;
	}
	tx_write(buf, n);
}

#endif /* PHYLLO_FW_UART_RING_H */
