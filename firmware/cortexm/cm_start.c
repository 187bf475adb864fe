// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * cm_start.c - reset and the vector table, for every Cortex-M board.
 *
 * Reset, in order: the board's early hook (watchdogs), .data copied from
 * flash, .bss zeroed, main(). The table holds the initial stack pointer,
 * the reset handler, SysTick and the board's UART line(s); every other
 * exception or interrupt lands in one handler that stops (a fault is a
 * bug; a real board's watchdog, when one is kept on, would restart it).
 * The symbols come from cm_sections.ld.
 */
#include <stdint.h>

#include "cm_port.h"
#include "cm_uart.h"

extern uint32_t __stack_top[];
extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];

int main(void);
void phyllo_cm_reset(void);
void phyllo_cm_systick_isr(void);
void phyllo_cm_unexpected(void);

void phyllo_cm_reset(void)
{
	uint32_t *src = __data_load;
	uint32_t *dst;

	phyllo_cm_board_early();
	for (dst = __data_start; dst < __data_end; )
		*dst++ = *src++;
	for (dst = __bss_start; dst < __bss_end; )
		*dst++ = 0;
	main();
	for (;;)
		;
}

void phyllo_cm_unexpected(void)
{
	for (;;)
		;
}

typedef void (*cm_vector)(void);

/* Every slot starts as phyllo_cm_unexpected, then the real ones override
 * it: the range initialiser is the readable way to say so. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
__attribute__((section(".vectors"), used))
static const cm_vector cm_vectors[16 + PHYLLO_CM_IRQS] = {
	[0] = (cm_vector)(uintptr_t)__stack_top,
	[1] = phyllo_cm_reset,
	[2 ... 16 + PHYLLO_CM_IRQS - 1] = phyllo_cm_unexpected,
	[15] = phyllo_cm_systick_isr,
	[16 + PHYLLO_CM_UART_IRQ] = phyllo_cm_uart_isr,
#ifdef PHYLLO_CM_UART_IRQ2
	[16 + PHYLLO_CM_UART_IRQ2] = phyllo_cm_uart_isr,
#endif
};
#pragma GCC diagnostic pop
