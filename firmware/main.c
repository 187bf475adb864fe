// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * main.c - the bare firmware: UART + millisecond clock + one phyllo node.
 *
 * The main loop, in order: when a frame may be complete (a delimiter came
 * in, see wake.h), feed the received bytes to the node, which answers each unit before
 * parsing the next; run the protocol timers when they are due (right after
 * any input, else when the last poll said); otherwise sleep (the UART and
 * the 1 ms clock interrupts wake it). Nothing is allocated at
 * run time: every byte of RAM is in .data/.bss and shows in avr-size.
 */
#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

#include "board.h"
#include "clock.h"
#include "fw_config.h"
#include "phyllo_node.h"
#include "uart.h"
#include "wake.h"

static struct phyllo_node node;
volatile uint8_t phyllo_fw_wake;

/* GPIOR0 brackets the protocol work (parse, reply, timers) so a simulator
 * can count its cycles apart from interrupts and idle wake-ups. It is a
 * general-purpose register with no pin behind it: no effect on the board. */
#define WORK_BEGIN() (GPIOR0 = 1)
#define WORK_END()   (GPIOR0 = 0)

static void led_set(void *ctx, bool on)
{
	(void)ctx;
	if (on)
		FW_LED_PORT |= _BV(FW_LED_BIT);
	else
		FW_LED_PORT &= (uint8_t)~_BV(FW_LED_BIT);
}

/* A boot counter in EEPROM bytes 0-3 tells the peer a restart from a
 * repeated handshake (the reliable layer's session nonce). */
static uint32_t boot_nonce(void)
{
	uint32_t *const addr = (uint32_t *)0;
	uint32_t n = eeprom_read_dword(addr) + 1;

	eeprom_update_dword(addr, n);
	return n;
}

/*
 * Hand every byte in the ring to the node, one unit at a time. The bytes of
 * a unit are released before it is answered (the stack has copied them), so
 * the whole ring is free for what arrives while the reply is being sent.
 */
static void feed_all(uint32_t now)
{
	const uint8_t *p;
	uint8_t n;

	while ((p = phyllo_fw_uart_rx_peek(&n)), n) {
		struct phyllo_unit u = { .data = NULL };
		bool got;
		uint16_t used = phyllo_stack_receive(&node.stack, p, n, now, &u, &got);

		phyllo_fw_uart_rx_consume((uint8_t)used);
		if (got)
			phyllo_node_handle(&node, &u, now);
	}
}

int main(void)
{
	static const struct phyllo_out out = { .write = phyllo_fw_uart_write };
	static const struct phyllo_node_hooks hooks = { .led = led_set };
	struct phyllo_arq_config cfg = PHYLLO_ARQ_CONFIG_DEFAULT;
	uint32_t next_poll;

	phyllo_fw_board_init();
	phyllo_fw_clock_init();
	phyllo_fw_uart_init();
	sei();
	cfg.window = PHYLLO_FW_WINDOW;
	cfg.line_ms = PHYLLO_LINE_MS(PHYLLO_FW_BAUD);
	next_poll = phyllo_fw_clock_ms();
	phyllo_node_init(&node, PHYLLO_FW_PRESET, PHYLLO_FW_APP_PUBSUB, &cfg, &out,
			 &hooks, boot_nonce(), next_poll);
	for (;;) {
		uint32_t now;
		uint8_t wake;

		/* Test and sleep as one step (sei; sleep): an interrupt in
		 * between would otherwise be slept through. This path runs
		 * after every UART byte, so it is kept short (sleep stays
		 * enabled, see phyllo_fw_uart_init). */
		cli();
		wake = phyllo_fw_wake;
		if (!wake) {
			sei();
			sleep_cpu();
			continue;
		}
		phyllo_fw_wake = 0;
		sei();
		now = phyllo_fw_clock_ms();
		WORK_BEGIN();
		if (wake & PHYLLO_FW_WAKE_RX) {
			feed_all(now);
			next_poll = now;    /* receiving and sending move the timers */
		}
		if (phyllo_time_reached(now, next_poll))
			next_poll = now + phyllo_node_poll(&node, now);
		WORK_END();
	}
}
