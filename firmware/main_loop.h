/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * main_loop.h - the firmware's node and main loop, the same on every board:
 * the AVR firmware's main.c and the Cortex-M firmware's cortexm/cm_main.c
 * start their board (clocks, pins, UART, interrupts on) and call
 * main_loop_run() with the UART's write and the LED hook.
 *
 * The loop, in order: when a frame may be complete (a delimiter came in, wake.h),
 * feed the received bytes to the node, which answers each unit before
 * parsing the next; run the protocol timers when they are due (right after
 * any input, else when the last poll said); otherwise sleep (the UART and
 * the 1 ms clock interrupts wake it). Nothing is allocated at run time:
 * the node is in .bss and shows in the size tables.
 *
 * The node is fed from the receive ring in place, not through
 * phyllo_node_feed(): the bytes of a unit are released before the unit is
 * answered (the stack has copied them), so the whole ring is free for what
 * arrives while the reply is being sent.
 *
 * Not an ordinary header: it defines the node and phyllo_fw_wake (wake.h;
 * on the AVR a register),
 * so exactly one .c file of an image includes it, its main, which also
 * defines static uint32_t boot_nonce(void) (the reliable layer's session
 * nonce: it must differ at every restart) and, before the #include:
 *
 *   FW_IRQ_OFF(), FW_IRQ_ON()
 *   FW_SLEEP()        entered with interrupts off: turn them on and sleep
 *                     as one step, so an interrupt that came after the
 *                     wake test still wakes it (AVR: sei; sleep, as sei
 *                     takes effect after the next instruction; Cortex-M:
 *                     wfi; cpsie i, as WFI wakes on an interrupt pending
 *                     while masked)
 *   FW_WORK_BEGIN(), FW_WORK_END()
 *                     bracket the protocol work (parse, reply, timers), so
 *                     a simulator counts its cycles apart from interrupts
 *                     and idle wake-ups
 *   FW_RX_PEEK(n), FW_RX_CONSUME(n), FW_RX_COUNT
 *                     the UART's receive ring and its count type: uart.h
 *                     (uint8_t, the AVR's rings are at most 256 bytes) or
 *                     cortexm/cm_uart.h (uint16_t)
 *   FW_RX_FILL()      optional: the bytes in the receive ring; a main that
 *                     defines it gets phyllo_fw_rx_during_tx() (wake.h),
 *                     which its UART's write calls (the AVR: its 128-byte
 *                     ring is shorter than a frame)
 *
 * The functions are static and called once, so the compiler inlines them
 * into main: the sleep test runs after every UART interrupt and stays a
 * few instructions. (The node's set-up is here too, not in each main:
 * measured, that is also the smallest code on the Uno, the Micro and the
 * Nano Every.)
 */
#ifndef PHYLLO_FW_MAIN_LOOP_H
#define PHYLLO_FW_MAIN_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "fw_config.h"
#include "phyllo_node.h"
#include "wake.h"

#if !defined(FW_IRQ_OFF) || !defined(FW_IRQ_ON) || !defined(FW_SLEEP) || \
	!defined(FW_WORK_BEGIN) || !defined(FW_WORK_END) || \
	!defined(FW_RX_PEEK) || !defined(FW_RX_CONSUME) || !defined(FW_RX_COUNT)
#error "main_loop.h: define the FW_* primitives it lists first"
#endif

static uint32_t boot_nonce(void);

static struct phyllo_node node;
#ifndef phyllo_fw_wake		/* not a register (wake.h) */
volatile uint8_t phyllo_fw_wake;
#endif

/*
 * A short frame completed during a write (a pure ACK or NAK, or a unit of
 * a few bytes: PHYLLO_FW_ASIDE_MAX decoded) is set aside here, so the
 * decoder goes on with the frame behind it; main_loop_feed() climbs it
 * before anything else. Without it, a pure ACK followed by a full-size
 * request while a reply went out left the request waiting in the ring
 * behind the held ACK, and the ring overran. aside_n is the frame's
 * length + 1, 0 when empty.
 */
#if defined(FW_RX_FILL) && PHYLLO_FW_PRESET == 2
#define FW_ASIDE 1
#define PHYLLO_FW_ASIDE_MAX 16
static uint8_t aside[PHYLLO_FW_ASIDE_MAX];
static uint8_t aside_n;
#else
#define FW_ASIDE 0
#endif

/* Climb a frame set aside during a write, which came before anything in
 * the decoder or the ring. Emptied only once handled: a write meanwhile
 * sets nothing aside, so the unit stays valid. */
static bool main_loop_aside(uint32_t now)
{
#if FW_ASIDE
	struct phyllo_unit u;

	if (!aside_n)
		return false;
	if (phyllo_stack_receive_frame(&node.stack, aside, aside_n - 1, now, &u))
		phyllo_node_handle(&node, &u, now);
	aside_n = 0;
	return true;
#else
	(void)now;
	return false;
#endif
}

/* Hand the bytes in the ring to the node, one unit at a time, each
 * released before it is answered. Bytes are not chased one by one as they
 * trickle in (at 1 Mbaud a call per byte cost more than the frame's
 * parsing): without a unit, one more look is taken only for the part of
 * the ring past its wrap; the rest waits for the next wake (the frame's
 * delimiter, or half a ring). The clock is read again after each unit
 * answered (its reply's write may take milliseconds, and with a window of
 * requests the loop may answer many before it returns): a stale time
 * made the reliable layer's round-trip samples too short and its
 * retransmit deadline too early (at 1 Mbaud, 5,000 very large echoes with
 * a pure ACK before each request resent 34 frames, all from spurious
 * timeouts). Returns the time last read. */
static uint32_t main_loop_feed(uint32_t now)
{
	const uint8_t *p;
	FW_RX_COUNT n;
	uint8_t looks = 2;
	/* Set once, out of the loop: read only when a call said got, and
	 * clearing it each turn cost 25 cycles a turn on the AVR. */
	struct phyllo_unit u = { .data = NULL };

	for (;;) {
		bool got;
		uint16_t used;

		if (main_loop_aside(now)) {
			now = phyllo_fw_clock_ms();
			continue;	/* each reply's write may set one aside */
		}
		p = FW_RX_PEEK(&n);
		if (!looks || !n)
			return now;
		used = phyllo_stack_receive(&node.stack, p, n, now, &u, &got);
		FW_RX_CONSUME((FW_RX_COUNT)used);
		if (got) {
			phyllo_node_handle(&node, &u, now);
			now = phyllo_fw_clock_ms();
		} else {
			looks--;
		}
	}
}

/*
 * While a reply is being written (the UART's write serves a receive wake,
 * wake.h), take in what arrived: every byte up to the delimiter that would
 * complete a frame goes into the stack's decoder, so a frame as long as
 * the largest reply fits although the receive ring is shorter. The
 * completing delimiter is left in the ring for main_loop_feed(), which
 * climbs the layers once the write is done: nothing above the decoder
 * runs inside a write. The main loop is told by PHYLLO_FW_WAKE_HELD, a
 * bit the write does not serve (it would spin on it). Only the standard
 * preset: its replies are copies in the send window, so the decoder's
 * buffer (the last unit received) is free during a write; the other
 * presets send a unit's reply from that buffer.
 */
#ifdef FW_RX_FILL
void phyllo_fw_rx_during_tx(void)
{
#if PHYLLO_FW_PRESET == 2
	FW_RX_COUNT left = FW_RX_FILL(), n;
	const uint8_t *p;

	/* A few bytes (a frame's leading delimiter, most often) wait for the
	 * main loop, as a call costs more than they are worth: with nearly
	 * all the ring free, the next wake comes long before it can fill. */
	if (left <= PHYLLO_FW_RX_RING / 8) {
		FW_IRQ_OFF();
		phyllo_fw_wake |= PHYLLO_FW_WAKE_HELD;
		FW_IRQ_ON();
		return;
	}
	/* What is there now, no more: bytes that arrive meanwhile wait for
	 * the next wake, rather than being chased one call each. */
	while (left && ((p = FW_RX_PEEK(&n)), n)) {
		FW_RX_COUNT k;

		if (n > left)
			n = left;
		k = (FW_RX_COUNT)phyllo_stack_receive_partial(&node.stack, p, n);
		FW_RX_CONSUME(k);
		left -= k;
		if (k < n) {	/* a delimiter that ends a frame */
			/* (the length tested here first: a request's frame is
			 * held, and the call would cost it more) */
			int len = aside_n || node.stack.rx.len > sizeof(aside) ? -1 :
				  phyllo_stack_receive_set_aside(&node.stack, aside, sizeof(aside));

			if (len >= 0) {	/* short: go on behind it */
				aside_n = (uint8_t)(len + 1);
				FW_RX_CONSUME(1);
				left--;
				FW_IRQ_OFF();
				phyllo_fw_wake |= PHYLLO_FW_WAKE_HELD;
				FW_IRQ_ON();
				continue;
			}
			FW_IRQ_OFF();
			phyllo_fw_wake |= PHYLLO_FW_WAKE_HELD;
			FW_IRQ_ON();
			return;
		}
	}
#endif
}
#endif

/* Set the node up and serve it, forever. Interrupts must be on. */
__attribute__((noreturn))
static void main_loop_run(const struct phyllo_out *out,
			  const struct phyllo_node_hooks *hooks)
{
	struct phyllo_arq_config cfg = PHYLLO_ARQ_CONFIG_DEFAULT;
	uint32_t next_poll;

	cfg.window = PHYLLO_FW_WINDOW;
	cfg.line_ms = PHYLLO_LINE_MS(PHYLLO_FW_BAUD);
	next_poll = phyllo_fw_clock_ms();
	phyllo_node_init(&node, PHYLLO_FW_PRESET, PHYLLO_FW_APP_PUBSUB, &cfg, out,
			 hooks, boot_nonce(), next_poll);
	for (;;) {
		uint32_t now;
		uint8_t wake;

		/* Test and sleep as one step (FW_SLEEP): an interrupt in
		 * between would otherwise be slept through. */
		FW_IRQ_OFF();
		wake = phyllo_fw_wake;
		if (!wake) {
			FW_SLEEP();
			continue;
		}
		phyllo_fw_wake = 0;
		FW_IRQ_ON();
		now = phyllo_fw_clock_ms();
		FW_WORK_BEGIN();
		if (wake & (PHYLLO_FW_WAKE_RX | PHYLLO_FW_WAKE_HELD)) {
			now = main_loop_feed(now);
			next_poll = now;    /* receiving and sending move the timers */
		}
		if (phyllo_time_reached(now, next_poll))
			next_poll = now + phyllo_node_poll(&node, now);
		FW_WORK_END();
	}
}

#endif /* PHYLLO_FW_MAIN_LOOP_H */
