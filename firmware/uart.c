// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * uart.c - uart.h on the USART of the ATmega328P and ATmega32U4: set-up,
 * the two interrupt handlers (in assembly) and the primitives of the rings,
 * which are uart_ring.h's (shared with the ATmega4809's driver).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

#include "board.h"

/*
 * r4 to r7 belong to the two handlers: firmware.mk builds every object of
 * the image with -ffixed-r4 ... -ffixed-r7, so the compiler never
 * allocates them, and tests/firmware/fixed-regs.sh checks the linked
 * image (the C library and libgcc included) for any other write to them.
 * A handler saves SREG in r4 and takes its byte in r5, so it pushes only
 * Z; r6 is the receive ring's head and r7 the transmit ring's tail, the
 * indices the handlers write (the main loop only reads them, with a mov),
 * so neither needs a load or a store. (As measured: of the register sets
 * tried, these cost the rest of the image least for what they save.)
 */
#if !PHYLLO_FW_FIXED_R4_R7
#error "uart.c: build with -ffixed-r4 ... -ffixed-r7 -DPHYLLO_FW_FIXED_R4_R7=1 (firmware.mk)"
#endif
#define FW_R_SREG "r4"
#define FW_R_BYTE "r5"

/* UCSRB is set with interrupts off: the UDRE handler clears UDRIE in the
 * same register. Sleep stays enabled (phyllo_fw_uart_init): only the
 * rings' wait and main's loop execute it. */
#define FW_IRQ_OFF()  cli()
#define FW_IRQ_ON()   sei()
#define FW_SLEEP()    do { sei(); sleep_cpu(); } while (0)
#define FW_TX_START() (FW_UCSRB |= _BV(FW_UDRIE))
/* The handlers' indices, read with a compiler barrier as a volatile
 * would be. */
#define FW_REG_HEADS 1
#define FW_REG_READ(r) ({ uint8_t v_; __asm__ __volatile__("mov %0, " r : "=r" (v_) : : "memory"); v_; })
#define fw_rx_head() FW_REG_READ("r6")
#define fw_tx_tail() FW_REG_READ("r7")
#include "uart_ring.h"

/* U2X halves the bit time error at every rate we use. */
#define FW_UBRR_VALUE ((F_CPU + 4UL * PHYLLO_FW_BAUD) / (8UL * PHYLLO_FW_BAUD) - 1UL)
#if FW_UBRR_VALUE > 4095
#error "PHYLLO_FW_BAUD too low for this F_CPU"
#endif

void phyllo_fw_uart_init(void)
{
	/* both rings empty (registers are not cleared at reset) */
	__asm__ __volatile__("clr r6\n\tclr r7" : : : "memory");
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
 * assembly, and save nothing but Z (SREG goes to r4). In C they would
 * read (as the ATmega4809's driver has them):
 *
 *   RX:   uart_ring_rx_put(UDR);     (uart_ring.h; rx_head is r6)
 *   UDRE: UDR = tx_buf[tail]; tail = (tail + 1) & TX_MASK;   (tail: r7)
 *         if (tail == tx_head) UCSRB &= ~UDRIE;      (the ring is empty)
 *
 * The receive handler stores the byte before it tests for room: the slot
 * at the head is free even when the ring is full (one slot always is).
 */
ISR(FW_RX_vect, ISR_NAKED)
{
	__asm__ __volatile__(
		"in   " FW_R_SREG ", __SREG__\n\t"
		"lds  " FW_R_BYTE ", %[udr]\n\t"
		"push r30\n\t"
		"push r31\n\t"
		"mov  r30, r6\n\t"
		"ldi  r31, 0\n\t"
		"subi r30, lo8(-(%[buf]))\n\t"
		"sbci r31, hi8(-(%[buf]))\n\t"
		"st   Z, " FW_R_BYTE "\n\t"
		"subi r30, lo8(%[buf] - 1)\n\t"
		"andi r30, %[mask]\n\t"
		"lds  r31, %[tail]\n\t"
		"cp   r30, r31\n\t"
		"breq 2f\n\t"
		"mov  r6, r30\n\t"
		"tst  " FW_R_BYTE "\n\t"
		"breq 1f\n\t"
		"andi r30, %[half]\n\t"
		"brne 3f\n"
		"1:\n\t"
		"sbi  %[wake], %[wake_rx]\n\t"
		"rjmp 3f\n"
		"2:\n\t"
		"lds  r30, %[full]\n\t"
		"inc  r30\n\t"
		"sts  %[full], r30\n"
		"3:\n\t"
		"pop  r31\n\t"
		"pop  r30\n\t"
		"out  __SREG__, " FW_R_SREG "\n\t"
		"reti\n\t"
		:
		: [udr] "n" (_SFR_MEM_ADDR(FW_UDR)),
		  [tail] "i" (&rx_tail), [buf] "i" (rx_buf), [full] "i" (&rx_ring_full),
		  [wake] "I" (_SFR_IO_ADDR(phyllo_fw_wake)), [mask] "M" (RX_MASK),
		  [half] "M" (PHYLLO_FW_RX_RING / 2 - 1), [wake_rx] "I" (PHYLLO_FW_WAKE_RX_BIT));
}

/* Enabled only while the ring holds bytes (FW_TX_START). */
ISR(FW_UDRE_vect, ISR_NAKED)
{
	__asm__ __volatile__(
		"in   " FW_R_SREG ", __SREG__\n\t"
		"push r30\n\t"
		"push r31\n\t"
		"mov  r30, r7\n\t"
		"ldi  r31, 0\n\t"
		"subi r30, lo8(-(%[buf]))\n\t"
		"sbci r31, hi8(-(%[buf]))\n\t"
		"ld   " FW_R_BYTE ", Z\n\t"
		"sts  %[udr], " FW_R_BYTE "\n\t"
		"subi r30, lo8(%[buf] - 1)\n\t"
		"andi r30, %[mask]\n\t"
		"mov  r7, r30\n\t"
		"lds  r31, %[head]\n\t"
		"cp   r30, r31\n\t"
		"brne 1f\n\t"
		"lds  r30, %[ucsrb]\n\t"
		"andi r30, %[no_udrie]\n\t"
		"sts  %[ucsrb], r30\n"
		"1:\n\t"
		"pop  r31\n\t"
		"pop  r30\n\t"
		"out  __SREG__, " FW_R_SREG "\n\t"
		"reti\n\t"
		:
		: [udr] "n" (_SFR_MEM_ADDR(FW_UDR)), [ucsrb] "n" (_SFR_MEM_ADDR(FW_UCSRB)),
		  [head] "i" (&tx_head), [buf] "i" (tx_buf),
		  [mask] "M" (TX_MASK), [no_udrie] "n" (0xff & ~_BV(FW_UDRIE)));
}
