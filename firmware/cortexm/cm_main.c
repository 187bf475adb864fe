// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * cm_main.c - the Cortex-M firmware: UART + millisecond clock + one node.
 * The board's part: start-up, the LED, the boot nonce and the primitives
 * of firmware/main_loop.h, whose loop it runs (the same as the AVR's).
 *
 * phyllo_cm_work_begin()/_end() bracket the protocol work, as GPIOR0 does
 * on the AVR: qemu's instruction-counting plugin (tests/cortexm/) watches
 * their addresses. They cost a call and a return each.
 */
#include "cm_arch.h"
#include "cm_port.h"
#include "cm_uart.h"

void phyllo_cm_work_begin(void);
void phyllo_cm_work_end(void);

/* WFI with interrupts masked still wakes on a pending one (cm_arch.h). */
#define FW_IRQ_OFF()    cm_irq_off()
#define FW_IRQ_ON()     cm_irq_on()
#define FW_SLEEP()      do { cm_wfi(); cm_irq_on(); } while (0)
#define FW_WORK_BEGIN() phyllo_cm_work_begin()
#define FW_WORK_END()   phyllo_cm_work_end()
#define FW_RX_PEEK      phyllo_cm_uart_rx_peek
#define FW_RX_CONSUME   phyllo_cm_uart_rx_consume
#define FW_RX_COUNT     uint16_t
#include "main_loop.h"

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

int main(void)
{
	static const struct phyllo_out out = { .write = phyllo_cm_uart_write };
	static const struct phyllo_node_hooks hooks = { .led = led_set };

	phyllo_cm_board_init();
	phyllo_fw_clock_init();
	phyllo_cm_uart_init();
	cm_irq_on();
	main_loop_run(&out, &hooks);
}
