/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * kinetis.h - what the Teensy 3.6 (MK66FX1M0) and Teensy LC (MKL26Z64)
 * share, from their reference manuals: the system integration module's
 * clock gates and dividers, the oscillator, the multipurpose clock
 * generator (MCG), the port pin multiplexers and GPIO, and the flash
 * configuration field that must sit at flash offset 0x400.
 *
 * Both boards carry a 16 MHz crystal. kinetis_clock_fbe() moves the MCG
 * from its reset mode (FEI: the FLL on the slow internal reference) to FBE
 * (FLL bypassed, external reference): the core runs from the crystal at
 * 16 MHz, an exact clock for the UART without PLL set-up. The steps, each
 * waiting for the MCG's status to confirm it: oscillator on (C2: range
 * "very high", EREFS0 crystal), clock source external (C1: CLKS = 2,
 * IREFS = 0, FRDIV = 4 so the idle FLL's input stays in range).
 * Written from the manuals, compiled, never run on a board.
 */
#ifndef PHYLLO_KINETIS_H
#define PHYLLO_KINETIS_H

#include "cm_arch.h"

#define CM_REG8(addr)  (*(volatile uint8_t *)(uintptr_t)(addr))

#define SIM_SOPT2      CM_REG32(0x40048004u)
#define SIM_SCGC4      CM_REG32(0x40048034u)
#define SIM_SCGC5      CM_REG32(0x40048038u)
#define SIM_CLKDIV1    CM_REG32(0x40048044u)
#define SIM_SCGC4_UART0 (1u << 10)
#define SIM_SCGC5_PORTB (1u << 10)
#define SIM_SCGC5_PORTC (1u << 11)

#define OSC0_CR        CM_REG8(0x40065000u)
#define OSC_ERCLKEN    (1u << 7)
#define OSC_SC2P       (1u << 3)
#define OSC_SC8P       (1u << 1)

#define MCG_C1         CM_REG8(0x40064000u)
#define MCG_C2         CM_REG8(0x40064001u)
#define MCG_S          CM_REG8(0x40064006u)
#define MCG_C1_CLKS_EXT (2u << 6)
#define MCG_C1_FRDIV(n) ((uint8_t)((n) << 3))
#define MCG_C2_RANGE_VHIGH (2u << 4)
#define MCG_C2_EREFS   (1u << 2)
#define MCG_S_OSCINIT  (1u << 1)
#define MCG_S_IREFST   (1u << 4)
#define MCG_S_CLKST_MASK (3u << 2)
#define MCG_S_CLKST_EXT  (2u << 2)

/* Port control: PCR n of port base p; MUX in bits 10:8. */
#define PORTB          0x4004A000u
#define PORTC          0x4004B000u
#define PORT_PCR(p, n) CM_REG32((p) + 4u * (n))
#define PORT_MUX(n)    ((uint32_t)(n) << 8)
#define PORT_PULLUP    (1u << 1 | 1u << 0)  /* PE | PS */
#define PORT_DSE       (1u << 6)

#define GPIOC          0x400FF080u
#define GPIO_PSOR(g)   CM_REG32((g) + 0x04u)
#define GPIO_PCOR(g)   CM_REG32((g) + 0x08u)
#define GPIO_PDDR(g)   CM_REG32((g) + 0x14u)

/* Teensy pins 0/1 (Serial1) are PTB16 (UART0_RX) and PTB17 (UART0_TX),
 * both ALT3 on either chip; pin 13, the LED, is PTC5. */
#define KINETIS_LED    (1u << 5)

static inline void kinetis_clock_fbe(void)
{
	OSC0_CR = OSC_ERCLKEN | OSC_SC8P | OSC_SC2P;
	MCG_C2 = MCG_C2_RANGE_VHIGH | MCG_C2_EREFS;
	while (!(MCG_S & MCG_S_OSCINIT))
		;
	MCG_C1 = MCG_C1_CLKS_EXT | MCG_C1_FRDIV(4);
	while (MCG_S & MCG_S_IREFST)
		;
	while ((MCG_S & MCG_S_CLKST_MASK) != MCG_S_CLKST_EXT)
		;
}

static inline void kinetis_pins(void)
{
	SIM_SCGC5 |= SIM_SCGC5_PORTB | SIM_SCGC5_PORTC;
	PORT_PCR(PORTB, 16) = PORT_MUX(3) | PORT_PULLUP;
	PORT_PCR(PORTB, 17) = PORT_MUX(3) | PORT_DSE;
	PORT_PCR(PORTC, 5) = PORT_MUX(1) | PORT_DSE;
	GPIO_PCOR(GPIOC) = KINETIS_LED;
	GPIO_PDDR(GPIOC) |= KINETIS_LED;
}

/* A Kinetis board's phyllo_cm_board_init(): the core on the crystal
 * (FBE), every clock divider 1, the UART's and the LED's pins. */
static inline void kinetis_board_init(void)
{
	kinetis_clock_fbe();
	SIM_CLKDIV1 = 0;
	kinetis_pins();
}

static inline void kinetis_led(bool on)
{
	if (on)
		GPIO_PSOR(GPIOC) = KINETIS_LED;
	else
		GPIO_PCOR(GPIOC) = KINETIS_LED;
}

/*
 * The flash configuration field (offset 0x400, 16 bytes): backdoor key
 * (unused), program protection off, FSEC = 0xFE (not secured, mass erase
 * allowed, backdoor disabled), FOPT as the board's caller says, data and
 * EEPROM protection off. A wrong FSEC here would lock the chip.
 */
#define KINETIS_FLASHCFG(fopt) { \
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, \
	0xFF, 0xFF, 0xFF, 0xFF, 0xFE, (fopt), 0xFF, 0xFF }

#endif
