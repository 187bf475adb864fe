// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * cm_main.c - the Cortex-M firmware: UART + millisecond clock + one node,
 * the same loop as the AVR's firmware/main.c.
 *
 * In order: when a frame may be complete (a delimiter came in, wake.h),
 * feed the received bytes to the node, which answers each unit before
 * parsing the next; run the protocol timers when they are due (right
 * after any input, else when the last poll said); otherwise wait for an
 * interrupt (the UART and the 1 ms SysTick wake it). Nothing is allocated
 * at run time: all RAM is .data/.bss and shows in the size table.
 *
 * phyllo_cm_work_begin()/_end() bracket the protocol work, as GPIOR0 does
 * on the AVR: qemu's instruction-counting plugin (tests/cortexm/) watches
 * their addresses. They cost a call and a return each.
 */
#include "clock.h"
#include "cm_arch.h"
#include "cm_port.h"
#include "cm_uart.h"
#include "fw_config.h"
#include "phyllo_node.h"
#include "wake.h"

static struct phyllo_node node;
volatile uint8_t phyllo_fw_wake;

void phyllo_cm_work_begin(void);
void phyllo_cm_work_end(void);

/* noipa: never inlined, cloned or merged (they are identical), so each
 * keeps its own address for the plugin. */
__attribute__((noipa)) void phyllo_cm_work_begin(void)
{
	__asm__ __volatile__("" ::: "memory");
}

__attribute__((noipa)) void phyllo_cm_work_end(void)
{
	__asm__ __volatile__("" ::: "memory");
}

static void led_set(void *ctx, bool on)
{
	(void)ctx;
	phyllo_cm_board_led(on);
}

/*
 * The session nonce must change at every restart. A boot counter in RAM
 * that no start-up code touches survives a reset; after a power cycle the
 * magic word is (almost surely) wrong and the counter starts from what
 * the RAM held, which differs from one power-up to the next.
 */
#define NONCE_MAGIC 0x70687931u
static uint32_t boot_count[2] __attribute__((section(".noinit")));

static uint32_t boot_nonce(void)
{
	if (boot_count[0] != NONCE_MAGIC) {
		boot_count[0] = NONCE_MAGIC;
		boot_count[1] ^= 0x9E3779B9u;
	}
	return ++boot_count[1];
}

/* Hand every byte in the ring to the node, one unit at a time; the bytes
 * of a unit are released before it is answered (the stack copied them). */
static void feed_all(uint32_t now)
{
	const uint8_t *p;
	uint16_t n;

	while ((p = phyllo_cm_uart_rx_peek(&n)), n) {
		struct phyllo_unit u = { .data = NULL };
		bool got;
		uint16_t used = phyllo_stack_receive(&node.stack, p, n, now, &u, &got);

		phyllo_cm_uart_rx_consume(used);
		if (got)
			phyllo_node_handle(&node, &u, now);
	}
}

int main(void)
{
	static const struct phyllo_out out = { .write = phyllo_cm_uart_write };
	static const struct phyllo_node_hooks hooks = { .led = led_set };
	struct phyllo_arq_config cfg = PHYLLO_ARQ_CONFIG_DEFAULT;
	uint32_t next_poll;

	phyllo_cm_board_init();
	phyllo_fw_clock_init();
	phyllo_cm_uart_init();
	cm_irq_on();
	cfg.window = PHYLLO_FW_WINDOW;
	cfg.line_ms = PHYLLO_LINE_MS(PHYLLO_FW_BAUD);
	next_poll = phyllo_fw_clock_ms();
	phyllo_node_init(&node, PHYLLO_FW_PRESET, PHYLLO_FW_APP_PUBSUB, &cfg, &out,
			 &hooks, boot_nonce(), next_poll);
	for (;;) {
		uint32_t now;
		uint8_t wake;

		cm_irq_off();
		wake = phyllo_fw_wake;
		if (!wake) {
			cm_wfi();
			cm_irq_on();
			continue;
		}
		phyllo_fw_wake = 0;
		cm_irq_on();
		now = phyllo_fw_clock_ms();
		phyllo_cm_work_begin();
		if (wake & PHYLLO_FW_WAKE_RX) {
			feed_all(now);
			next_poll = now;    /* receiving and sending move the timers */
		}
		if (phyllo_time_reached(now, next_poll))
			next_poll = now + phyllo_node_poll(&node, now);
		phyllo_cm_work_end();
	}
}
