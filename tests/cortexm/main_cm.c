// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * main_cm.c - runs the portable core suites on an emulated Cortex-M.
 *
 * Built per board with the firmware's start-up code and board seam
 * (firmware/cortexm/): stdout goes to the board's UART by polling through
 * cm_uart_hw.h (no interrupts, no rings), newlib-nano formats it
 * (cm_syscalls.c). When the suites are done, a semihosting SYS_EXIT ends
 * qemu (-semihosting-config enable=on): "application exit" (qemu exits 0)
 * when every case passed, "run-time error" (qemu exits 1) otherwise. The
 * last line printed is ptest's "N passed, N failed".
 */
#include <stdio.h>

#include "cm_port.h"
#include "cm_uart_hw.h"
#include "fw_config.h"
#include "suites.h"

int phyllo_cm_test_putc(int c);

int phyllo_cm_test_putc(int c)
{
	while (!cm_uart_hw_tx_ready())
		;
	cm_uart_hw_tx_put((uint8_t)c);
	return c;
}

#define SEMIHOST_SYS_EXIT        0x18u
#define SEMIHOST_APP_EXIT        0x20026u  /* ADP_Stopped_ApplicationExit */
#define SEMIHOST_RUNTIME_ERROR   0x20023u  /* ADP_Stopped_RunTimeErrorUnknown */

static void semihost_exit(bool ok)
{
	register uint32_t op __asm__("r0") = SEMIHOST_SYS_EXIT;
	register uint32_t arg __asm__("r1") = ok ? SEMIHOST_APP_EXIT : SEMIHOST_RUNTIME_ERROR;

	__asm__ __volatile__("bkpt 0xab" : "+r"(op) : "r"(arg) : "memory");
}

int main(void)
{
	static const struct ptest_suite *const suites[] = { PHYLLO_CORE_SUITES };
	unsigned int failed;

	phyllo_cm_board_init();
	cm_uart_hw_init(PHYLLO_FW_BAUD);
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("phyllo core suites on the Cortex-M\n");
	failed = ptest_run(suites, sizeof(suites) / sizeof(suites[0]));
	semihost_exit(failed == 0);
	return 0;
}

/* The vector table names these; the tests never enable either. */
void phyllo_cm_uart_isr(void);
void phyllo_cm_systick_isr(void);

void phyllo_cm_uart_isr(void)
{
}

void phyllo_cm_systick_isr(void)
{
}
