// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * board.c - Arduino Due (SAM3X8E), from the SAM3X/A datasheet:
 *  - early: the watchdog runs from reset; WDT_MR (0x400E1A54) is writable
 *    once, and WDDIS (bit 15) stops it for good;
 *  - clock: flash wait states for 84 MHz first (EEFC0/1 FMR, FWS = 4), then
 *    the 12 MHz crystal oscillator (CKGR_MOR: key 0x37, MOSCXTEN, start-up
 *    time), the main clock switched to it (MOSCSEL), PLLA = 12 MHz x 14
 *    (MULA 13, DIVA 1), MCK = PLLA / 2: prescaler first, then the source,
 *    each step waiting for its ready flag in PMC_SR;
 *  - UART pins PA8/PA9 to peripheral A, the UART's and PIOB's clocks on;
 *  - LED "L" (pin 13) is PB27, active high.
 * Written from the datasheet, compiled, never run on a board.
 */
#include "cm_arch.h"
#include "cm_port.h"

#define SAM_WDT_MR      CM_REG32(0x400E1A54u)
#define SAM_WDT_WDDIS   (1u << 15)
#define SAM_EEFC0_FMR   CM_REG32(0x400E0A00u)
#define SAM_EEFC1_FMR   CM_REG32(0x400E0C00u)
#define SAM_FMR_FWS(n)  ((uint32_t)(n) << 8)
#define SAM_PMC         0x400E0600u
#define SAM_PMC_PCER0   CM_REG32(SAM_PMC + 0x10u)
#define SAM_CKGR_MOR    CM_REG32(SAM_PMC + 0x20u)
#define SAM_CKGR_PLLAR  CM_REG32(SAM_PMC + 0x28u)
#define SAM_PMC_MCKR    CM_REG32(SAM_PMC + 0x30u)
#define SAM_PMC_SR      CM_REG32(SAM_PMC + 0x68u)
#define SAM_MOR_KEY     (0x37u << 16)
#define SAM_MOR_MOSCXTEN (1u << 0)
#define SAM_MOR_MOSCRCEN (1u << 3)
#define SAM_MOR_MOSCXTST(n) ((uint32_t)(n) << 8)
#define SAM_MOR_MOSCSEL (1u << 24)
#define SAM_PLLAR_ONE   (1u << 29)
#define SAM_PLLAR(mul, div, count) \
	(SAM_PLLAR_ONE | ((uint32_t)(mul) - 1u) << 16 | (uint32_t)(count) << 8 | (uint32_t)(div))
#define SAM_MCKR_CSS_MASK 3u
#define SAM_MCKR_CSS_MAIN 1u
#define SAM_MCKR_CSS_PLLA 2u
#define SAM_MCKR_PRES_MASK (7u << 4)
#define SAM_MCKR_PRES_2 (1u << 4)
#define SAM_SR_MOSCXTS  (1u << 0)
#define SAM_SR_LOCKA    (1u << 1)
#define SAM_SR_MCKRDY   (1u << 3)
#define SAM_SR_MOSCSELS (1u << 16)
#define SAM_ID_UART     8u
#define SAM_ID_PIOA     11u
#define SAM_ID_PIOB     12u
#define SAM_PIOA        0x400E0E00u
#define SAM_PIOB        0x400E1000u
#define SAM_PIO_PER(p)  CM_REG32((p) + 0x00u)
#define SAM_PIO_PDR(p)  CM_REG32((p) + 0x04u)
#define SAM_PIO_OER(p)  CM_REG32((p) + 0x10u)
#define SAM_PIO_SODR(p) CM_REG32((p) + 0x30u)
#define SAM_PIO_CODR(p) CM_REG32((p) + 0x34u)
#define SAM_PIO_PUER(p) CM_REG32((p) + 0x64u)
#define SAM_PIO_ABSR(p) CM_REG32((p) + 0x70u)
#define UART_PINS       (1u << 8 | 1u << 9)
#define LED_PIN         (1u << 27)

extern uint32_t __vectors[];

/* The boot ROM reads the table through the flash's alias at 0: point
 * VTOR at its real place. */
void phyllo_cm_board_early(void)
{
	SAM_WDT_MR = SAM_WDT_WDDIS;
	CM_SCB_VTOR = (uint32_t)(uintptr_t)__vectors;
}

static void wait_pmc(uint32_t flag)
{
	while (!(SAM_PMC_SR & flag))
		;
}

void phyllo_cm_board_init(void)
{
	SAM_EEFC0_FMR = SAM_FMR_FWS(4);
	SAM_EEFC1_FMR = SAM_FMR_FWS(4);
	SAM_CKGR_MOR = SAM_MOR_KEY | SAM_MOR_MOSCXTST(8) | SAM_MOR_MOSCRCEN | SAM_MOR_MOSCXTEN;
	wait_pmc(SAM_SR_MOSCXTS);
	SAM_CKGR_MOR = SAM_MOR_KEY | SAM_MOR_MOSCXTST(8) | SAM_MOR_MOSCRCEN | SAM_MOR_MOSCXTEN |
		       SAM_MOR_MOSCSEL;
	wait_pmc(SAM_SR_MOSCSELS);
	SAM_PMC_MCKR = (SAM_PMC_MCKR & ~SAM_MCKR_CSS_MASK) | SAM_MCKR_CSS_MAIN;
	wait_pmc(SAM_SR_MCKRDY);
	SAM_CKGR_PLLAR = SAM_PLLAR(14, 1, 0x3F);
	wait_pmc(SAM_SR_LOCKA);
	SAM_PMC_MCKR = SAM_MCKR_PRES_2 | SAM_MCKR_CSS_MAIN;
	wait_pmc(SAM_SR_MCKRDY);
	SAM_PMC_MCKR = SAM_MCKR_PRES_2 | SAM_MCKR_CSS_PLLA;
	wait_pmc(SAM_SR_MCKRDY);

	SAM_PMC_PCER0 = 1u << SAM_ID_UART | 1u << SAM_ID_PIOA | 1u << SAM_ID_PIOB;
	SAM_PIO_ABSR(SAM_PIOA) &= ~UART_PINS;	/* peripheral A */
	SAM_PIO_PUER(SAM_PIOA) = 1u << 8;
	SAM_PIO_PDR(SAM_PIOA) = UART_PINS;
	SAM_PIO_CODR(SAM_PIOB) = LED_PIN;
	SAM_PIO_OER(SAM_PIOB) = LED_PIN;
	SAM_PIO_PER(SAM_PIOB) = LED_PIN;
}

void phyllo_cm_board_led(bool on)
{
	if (on)
		SAM_PIO_SODR(SAM_PIOB) = LED_PIN;
	else
		SAM_PIO_CODR(SAM_PIOB) = LED_PIN;
}
