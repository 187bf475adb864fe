/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * wake.h - why the main loop should leave its sleep.
 *
 * Interrupt handlers set a bit; the main loop reads and clears the byte with
 * interrupts off and sleeps while it is zero. Every interrupt wakes the CPU,
 * but only these two make it do work: a byte-by-byte wake-up would cost more
 * cycles than parsing the frame.
 */
#ifndef PHYLLO_FW_WAKE_H
#define PHYLLO_FW_WAKE_H

#include <stdint.h>

#define PHYLLO_FW_WAKE_RX_BIT 0
#define PHYLLO_FW_WAKE_RX   (1 << PHYLLO_FW_WAKE_RX_BIT)  /* delimiter received,
							 * or half a ring more */
#define PHYLLO_FW_WAKE_TICK 0x02  /* the millisecond clock moved */
#define PHYLLO_FW_WAKE_HELD 0x04  /* a frame's delimiter was left in the ring
				   * during a write (main_loop.h) */

/*
 * On the AVR the byte is GPIOR0, a general-purpose I/O register within
 * reach of sbi and sbis: a handler sets its bit in one instruction that
 * needs no register and leaves the flags alone, and the loops that test
 * it after every interrupt read it in one cycle (a byte in RAM took
 * lds/ori/sts). Elsewhere it is a variable, defined by main_loop.h.
 */
#ifdef __AVR__
#include <avr/io.h>
#define phyllo_fw_wake GPIOR0
#else
extern volatile uint8_t phyllo_fw_wake;
#endif

/*
 * Called by the AVR UART's write (uart_ring.h) while it waits for room in
 * the transmit ring and a receive wake is pending: the main loop's node
 * takes in what has arrived meanwhile (main_loop.h), so a long reply never
 * lets the receive ring overrun. Interrupts are on when it is called.
 */
void phyllo_fw_rx_during_tx(void);

#endif /* PHYLLO_FW_WAKE_H */
