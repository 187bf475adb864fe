/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * cm_arch.h - what every Cortex-M (ARMv6-M, ARMv7-M, ARMv7E-M) has at the
 * same address: SysTick, the NVIC and the system control block, all in the
 * System Control Space at 0xE000E000 (ARMv7-M / ARMv6-M Architecture
 * Reference Manuals, B3.2-B3.4), and the three instructions the firmware
 * needs: interrupts off, interrupts on, wait for an interrupt.
 *
 * The sleep idiom that needs no race-free flag test: with interrupts off
 * (PRIMASK), WFI still wakes on a pending interrupt, so "off; test; wfi;
 * on" cannot sleep through an interrupt that arrived after the test.
 */
#ifndef PHYLLO_CM_ARCH_H
#define PHYLLO_CM_ARCH_H

#include <stdint.h>

#define CM_REG32(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

#define CM_SYST_CSR    CM_REG32(0xE000E010u)  /* control and status */
#define CM_SYST_RVR    CM_REG32(0xE000E014u)  /* reload value, 24 bits */
#define CM_SYST_CVR    CM_REG32(0xE000E018u)  /* current value */
#define CM_SYST_CSR_ENABLE    (1u << 0)
#define CM_SYST_CSR_TICKINT   (1u << 1)
#define CM_SYST_CSR_CLKSOURCE (1u << 2)       /* 1: the processor clock */

#define CM_NVIC_ISER(n) CM_REG32(0xE000E100u + 4u * (n)) /* set-enable */
#define CM_NVIC_ICPR(n) CM_REG32(0xE000E280u + 4u * (n)) /* clear-pending */

#define CM_SCB_VTOR    CM_REG32(0xE000ED08u)  /* vector table offset */
#define CM_SCB_AIRCR   CM_REG32(0xE000ED0Cu)
#define CM_SCB_AIRCR_RESET (0x05FAu << 16 | 1u << 2) /* VECTKEY | SYSRESETREQ */

static inline void cm_irq_off(void)
{
	__asm__ __volatile__("cpsid i" ::: "memory");
}

static inline void cm_irq_on(void)
{
	__asm__ __volatile__("cpsie i" ::: "memory");
}

static inline void cm_wfi(void)
{
	__asm__ __volatile__("wfi" ::: "memory");
}

/* Enable external interrupt irq (0-based, after the 16 system exceptions). */
static inline void cm_nvic_enable(unsigned int irq)
{
	CM_NVIC_ICPR(irq / 32u) = 1u << (irq % 32u);
	CM_NVIC_ISER(irq / 32u) = 1u << (irq % 32u);
}

#endif /* PHYLLO_CM_ARCH_H */
