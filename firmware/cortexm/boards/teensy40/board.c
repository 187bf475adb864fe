// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * board.c - Teensy 4.0 (i.MX RT1062), from the RT1060 reference manual.
 *
 * Boot: the ROM reads, from the start of the QSPI flash (0x60000000), a
 * FlexSPI configuration block (how to read the flash: quad I/O fast read
 * 0xEB, 24-bit address, 6 dummy cycles, 30 MHz), then at offset 0x1000 an
 * image vector table naming the entry (our exception table, at 0x2000) and
 * boot data (where the image is and how long). The code then runs in place
 * from flash; .data and .bss and the stack are in DTCM.
 *
 * early: VTOR to our table; the watchdogs that can bite: WDOG1's and
 * WDOG2's power-down counters (WMCR = 0 within 16 s of reset) and RTWDOG,
 * which runs from reset (unlock word 0xD928C520 to CNT, then CS with EN
 * clear, UPDATE set, and a maximal TOVAL).
 * init: LPUART6's clock from the 24 MHz oscillator (CCM_CSCDR1 UART_CLK_SEL,
 * divider 1) and its gate (CCM_CCGR3 CG3); pins 0/1 (GPIO_AD_B0_03 RX and
 * _02 TX) to ALT2 with the RX daisy chain to that pad; pin 13, the LED,
 * is GPIO_B0_03 = GPIO2 bit 3 (ALT5).
 * Written from the manual, compiled, never run on a board.
 */
#include "cm_arch.h"
#include "cm_port.h"

#define WDOG1_WMCR     (*(volatile uint16_t *)0x400B8008u)
#define WDOG2_WMCR     (*(volatile uint16_t *)0x400D0008u)
#define RTWDOG_CS      CM_REG32(0x400BC000u)
#define RTWDOG_CNT     CM_REG32(0x400BC004u)
#define RTWDOG_TOVAL   CM_REG32(0x400BC008u)
#define RTWDOG_UNLOCK  0xD928C520u
#define RTWDOG_CS_UPDATE  (1u << 5)
#define RTWDOG_CS_CMD32EN (1u << 13)

#define CCM_CSCDR1     CM_REG32(0x400FC024u)
#define CCM_CCGR3      CM_REG32(0x400FC074u)
#define CSCDR1_UART_CLK_SEL_OSC (1u << 6)
#define CSCDR1_UART_CLK_PODF    0x3Fu
#define CCGR3_LPUART6  (3u << 6)

#define IOMUXC_MUX_AD_B0_02 CM_REG32(0x401F80C4u)
#define IOMUXC_MUX_AD_B0_03 CM_REG32(0x401F80C8u)
#define IOMUXC_MUX_B0_03    CM_REG32(0x401F8144u)
#define IOMUXC_LPUART6_RX_SELECT CM_REG32(0x401F8554u)
#define IOMUXC_LPUART6_TX_SELECT CM_REG32(0x401F8558u)
#define GPIO2_GDIR     CM_REG32(0x401BC004u)
#define GPIO2_DR_SET   CM_REG32(0x401BC084u)
#define GPIO2_DR_CLEAR CM_REG32(0x401BC088u)
#define LED_BIT        (1u << 3)

/* ---- boot structures ----------------------------------------------------- */
#define FLASH_BASE     0x60000000u
#define FLEXSPI_LUT(op0, pads0, arg0, op1, pads1, arg1) \
	((uint32_t)(arg0) | (uint32_t)(pads0) << 8 | (uint32_t)(op0) << 10 | \
	 ((uint32_t)(arg1) | (uint32_t)(pads1) << 8 | (uint32_t)(op1) << 10) << 16)
#define LUT_CMD_SDR    0x01u
#define LUT_RADDR_SDR  0x02u
#define LUT_READ_SDR   0x09u
#define LUT_DUMMY_SDR  0x0Cu
#define LUT_PADS_1     0u
#define LUT_PADS_4     2u

extern uint32_t __vectors[];
extern uint32_t __image_size[];

/* The FlexSPI NOR configuration block, 512 bytes, as 128 words. */
__attribute__((section(".boot_fcb"), used))
static const uint32_t flexspi_config[128] = {
	[0] = 0x42464346u,          /* tag "FCFB" */
	[1] = 0x56010000u,          /* version 1.0.0 */
	[3] = 0x00030301u,          /* read sample clock: loopback from the DQS
	                             * pad; CS hold 3, CS setup 3; no columns */
	[17] = 0x00010401u,         /* 0x44: device serial NOR, 4 pads, 30 MHz */
	[20] = 0x00200000u,         /* 0x50: 2 MB on port A1 */
	/* 0x80: look-up table, sequence 0 = read: 0xEB, address, dummy, data */
	[32] = FLEXSPI_LUT(LUT_CMD_SDR, LUT_PADS_1, 0xEB, LUT_RADDR_SDR, LUT_PADS_4, 24),
	[33] = FLEXSPI_LUT(LUT_DUMMY_SDR, LUT_PADS_4, 6, LUT_READ_SDR, LUT_PADS_4, 4),
	[112] = 256u,               /* 0x1C0: page size */
	[113] = 4096u,              /* 0x1C4: sector size */
	[116] = 0x00010000u,        /* 0x1D0: block size */
};

struct boot_data {
	uint32_t start, size, plugin;
};

struct ivt {
	uint32_t header, entry, reserved1, dcd, boot_data, self, csf, reserved2;
};

/* offset 0x1000: the image vector table, then the boot data */
__attribute__((section(".boot_ivt"), used, aligned(4)))
static const struct {
	struct ivt ivt;
	struct boot_data boot;
} boot_ivt = {
	.ivt = {
		.header = 0x412000D1u,      /* tag 0xD1, length 32, version 4.1 */
		.entry = (uint32_t)(uintptr_t)__vectors,
		.boot_data = FLASH_BASE + 0x1000u + sizeof(struct ivt),
		.self = FLASH_BASE + 0x1000u,
	},
	.boot = {
		.start = FLASH_BASE,
		.size = (uint32_t)(uintptr_t)__image_size,
	},
};

void phyllo_cm_board_early(void)
{
	CM_SCB_VTOR = (uint32_t)(uintptr_t)__vectors;
	WDOG1_WMCR = 0;
	WDOG2_WMCR = 0;
	RTWDOG_CNT = RTWDOG_UNLOCK;
	RTWDOG_TOVAL = 0xFFFFu;
	RTWDOG_CS = RTWDOG_CS_CMD32EN | RTWDOG_CS_UPDATE;	/* EN clear */
}

void phyllo_cm_board_init(void)
{
	CCM_CSCDR1 = (CCM_CSCDR1 & ~CSCDR1_UART_CLK_PODF) | CSCDR1_UART_CLK_SEL_OSC;
	CCM_CCGR3 |= CCGR3_LPUART6;
	IOMUXC_MUX_AD_B0_02 = 2;	/* LPUART6_TX */
	IOMUXC_MUX_AD_B0_03 = 2;	/* LPUART6_RX */
	IOMUXC_LPUART6_RX_SELECT = 1;
	IOMUXC_LPUART6_TX_SELECT = 1;
	IOMUXC_MUX_B0_03 = 5;		/* GPIO2_IO03 */
	GPIO2_DR_CLEAR = LED_BIT;
	GPIO2_GDIR |= LED_BIT;
}

void phyllo_cm_board_led(bool on)
{
	if (on)
		GPIO2_DR_SET = LED_BIT;
	else
		GPIO2_DR_CLEAR = LED_BIT;
}
