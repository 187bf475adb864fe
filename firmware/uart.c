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
	/* Idle sleep keeps the UART and the timers running. SE stays set:
	 * the main loop sleeps after every interrupt that brings no work,
	 * and toggling it there costs six cycles each time. */
	set_sleep_mode(SLEEP_MODE_IDLE);
	sleep_enable();
}

/*
 * The two handlers run once per byte each way, so they are written in
 * assembly: a C handler saves and restores registers it does not need
 * (r0, r1, call-clobbered scratch), which was a third of the firmware's
 * busy time on a small echo. Each touches SREG and four registers at most.
 * Same logic as C would say:
 *
 *   RX:   byte = UDR; next = (head + 1) & RX_MASK;
 *         if (next == tail) { rx_ring_full++; return; }
 *         buf[head] = byte; head = next;
 *         if (byte == 0 || !(next & (RX_RING / 2 - 1))) wake |= WAKE_RX;
 *   UDRE: UDR = buf[tail]; tail = (tail + 1) & TX_MASK;
 *         if (tail == head) UCSRB &= ~UDRIE;   (the ring is empty)
 */
ISR(FW_RX_vect, ISR_NAKED)
{
	__asm__ __volatile__(
		"push r24\n\t"
		"in   r24, __SREG__\n\t"
		"push r24\n\t"
		"push r25\n\t"
		"push r30\n\t"
		"push r31\n\t"
		"lds  r25, %[udr]\n\t"
		"lds  r30, %[head]\n\t"
		"mov  r24, r30\n\t"
		"inc  r24\n\t"
		"andi r24, %[mask]\n\t"
		"lds  r31, %[tail]\n\t"
		"cp   r24, r31\n\t"
		"breq 2f\n\t"
		"ldi  r31, 0\n\t"
		"subi r30, lo8(-(%[buf]))\n\t"
		"sbci r31, hi8(-(%[buf]))\n\t"
		"st   Z, r25\n\t"
		"sts  %[head], r24\n\t"
		"tst  r25\n\t"
		"breq 1f\n\t"
		"andi r24, %[half]\n\t"
		"brne 3f\n"
		"1:\n\t"
		"lds  r24, %[wake]\n\t"
		"ori  r24, %[wake_rx]\n\t"
		"sts  %[wake], r24\n\t"
		"rjmp 3f\n"
		"2:\n\t"
		"lds  r24, %[full]\n\t"
		"inc  r24\n\t"
		"sts  %[full], r24\n"
		"3:\n\t"
		"pop  r31\n\t"
		"pop  r30\n\t"
		"pop  r25\n\t"
		"pop  r24\n\t"
		"out  __SREG__, r24\n\t"
		"pop  r24\n\t"
		"reti\n\t"
		:
		: [udr] "n" (_SFR_MEM_ADDR(FW_UDR)), [head] "i" (&rx_head),
		  [tail] "i" (&rx_tail), [buf] "i" (rx_buf), [full] "i" (&rx_ring_full),
		  [wake] "i" (&phyllo_fw_wake), [mask] "M" (RX_MASK),
		  [half] "M" (PHYLLO_FW_RX_RING / 2 - 1), [wake_rx] "M" (PHYLLO_FW_WAKE_RX));
}

/* Enabled only while the ring holds bytes (see tx_kick). */
ISR(FW_UDRE_vect, ISR_NAKED)
{
	__asm__ __volatile__(
		"push r24\n\t"
		"in   r24, __SREG__\n\t"
		"push r24\n\t"
		"push r30\n\t"
		"push r31\n\t"
		"lds  r24, %[tail]\n\t"
		"mov  r30, r24\n\t"
		"ldi  r31, 0\n\t"
		"subi r30, lo8(-(%[buf]))\n\t"
		"sbci r31, hi8(-(%[buf]))\n\t"
		"ld   r30, Z\n\t"
		"sts  %[udr], r30\n\t"
		"inc  r24\n\t"
		"andi r24, %[mask]\n\t"
		"sts  %[tail], r24\n\t"
		"lds  r30, %[head]\n\t"
		"cp   r24, r30\n\t"
		"brne 1f\n\t"
		"lds  r30, %[ucsrb]\n\t"
		"andi r30, %[no_udrie]\n\t"
		"sts  %[ucsrb], r30\n"
		"1:\n\t"
		"pop  r31\n\t"
		"pop  r30\n\t"
		"pop  r24\n\t"
		"out  __SREG__, r24\n\t"
		"pop  r24\n\t"
		"reti\n\t"
		:
		: [udr] "n" (_SFR_MEM_ADDR(FW_UDR)), [ucsrb] "n" (_SFR_MEM_ADDR(FW_UCSRB)),
		  [head] "i" (&tx_head), [tail] "i" (&tx_tail), [buf] "i" (tx_buf),
		  [mask] "M" (TX_MASK), [no_udrie] "n" (0xff & ~_BV(FW_UDRIE)));
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
 * (sei; sleep), so the wake-up cannot fall between them. Sleep stays
 * enabled (phyllo_fw_uart_init): only these loops and main's execute it. */
static void tx_wait(uint8_t head, uint8_t want)
{
	for (;;) {
		cli();
		if (((uint8_t)(tx_tail - head - 1) & TX_MASK) >= want)
			break;
		sei();
		sleep_cpu();
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
