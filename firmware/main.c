// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * main.c - the bare firmware: UART + millisecond clock + one phyllo node.
 *
 * The main loop, in order: run the protocol timers once per millisecond;
 * feed received bytes to the node (at most one unit per pass, so the reply
 * goes out before more input is parsed); sleep when there is nothing to
 * do (the UART and the clock interrupts wake it). Nothing is allocated at
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

static struct phyllo_node node;

static void led_set(void *ctx, bool on)
{
	(void)ctx;
	if (on)
		FW_LED_PORT |= _BV(FW_LED_BIT);
	else
		FW_LED_PORT &= (uint8_t)~_BV(FW_LED_BIT);
}

/* A boot counter in EEPROM byte 0 tells the peer a restart from a repeated
 * handshake (the reliable layer's session nonce). */
static uint8_t boot_nonce(void)
{
	uint8_t *const addr = (uint8_t *)0;
	uint8_t n = (uint8_t)(eeprom_read_byte(addr) + 1);

	eeprom_update_byte(addr, n);
	return n;
}

static void idle_sleep(void)
{
	cli();
	if (phyllo_fw_uart_rx_empty()) {
		sleep_enable();
		sei();
		sleep_cpu();
		sleep_disable();
	}
	sei();
}

int main(void)
{
	static const struct phyllo_out out = { .write = phyllo_fw_uart_write };
	static const struct phyllo_node_hooks hooks = { .led = led_set };
	struct phyllo_arq_config cfg = PHYLLO_ARQ_CONFIG_DEFAULT;
	uint32_t polled;

	FW_LED_DDR |= _BV(FW_LED_BIT);
	phyllo_fw_clock_init();
	phyllo_fw_uart_init();
	sei();
	cfg.window = PHYLLO_FW_WINDOW;
	polled = phyllo_fw_clock_ms();
	phyllo_node_init(&node, PHYLLO_FW_PRESET, PHYLLO_FW_APP_PUBSUB, &cfg, &out,
			 &hooks, boot_nonce(), polled);
	for (;;) {
		uint32_t now = phyllo_fw_clock_ms();
		const uint8_t *p;
		uint8_t n;

		if (now != polled) {
			phyllo_node_poll(&node, now);
			polled = now;
		}
		p = phyllo_fw_uart_rx_peek(&n);
		if (n)
			phyllo_fw_uart_rx_consume((uint8_t)phyllo_node_feed(&node, p, n, now));
		else
			idle_sleep();
	}
}
