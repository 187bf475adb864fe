// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * main.c - the bare AVR firmware: UART + millisecond clock + one phyllo
 * node. The board's part: start-up, the LED, the boot nonce in EEPROM and
 * the primitives of main_loop.h, whose loop it runs (the same as the
 * Cortex-M firmware's).
 */
#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

#include "board.h"
#include "clock.h"
#include "uart.h"

/* Sleep stays enabled (phyllo_fw_uart_init): the sleep test runs after
 * every UART byte, so it is kept to a few instructions. GPIOR1 brackets
 * the protocol work for the simulator's cycle count: a general-purpose
 * register with no pin behind it, no effect on the board (GPIOR0 is the
 * wake byte, wake.h). */
#define FW_IRQ_OFF()    cli()
#define FW_IRQ_ON()     sei()
#define FW_SLEEP()      do { sei(); sleep_cpu(); } while (0)
#define FW_WORK_BEGIN() (GPIOR1 = 1)
#define FW_WORK_END()   (GPIOR1 = 0)
#define FW_RX_PEEK      phyllo_fw_uart_rx_peek
#define FW_RX_CONSUME   phyllo_fw_uart_rx_consume
#define FW_RX_COUNT     uint8_t
#define FW_RX_FILL      phyllo_fw_uart_rx_fill
#include "main_loop.h"

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

int main(void)
{
	static const struct phyllo_out out = { .write = phyllo_fw_uart_write };
	static const struct phyllo_node_hooks hooks = { .led = led_set };

	phyllo_fw_board_init();
	phyllo_fw_clock_init();
	phyllo_fw_uart_init();
	sei();
	main_loop_run(&out, &hooks);
}
