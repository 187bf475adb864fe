/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * mega0_usart.h - the USART of the megaAVR 0-series (ATmega4809, the
 * Arduino Nano Every), as a register block written from the ATmega4809
 * datasheet ("USART - Universal Synchronous and Asynchronous Receiver and
 * Transmitter"), and the driver's two interrupt bodies.
 *
 * The driver (mega0_usart.c) implements firmware/uart.h, the same contract
 * as the ATmega328P's uart.c, against this block through MEGA0_USART: on
 * the chip the block at the board's address (mega0_port.h), on the host a
 * plain struct the tests drive (tests/firmware/mega0_usart_test.c). The
 * registers differ from the ATmega328P's: data and flags are split
 * (RXDATAL/RXDATAH), interrupt enables live in CTRLA, and BAUD is a 16-bit
 * fractional divider: BAUD = 64 x f_CLK_PER / (16 x baud) in normal mode.
 */
#ifndef PHYLLO_MEGA0_USART_H
#define PHYLLO_MEGA0_USART_H

#include <stdint.h>

struct mega0_usart {
	volatile uint8_t rxdatal;   /* 0x00 received byte (reading pops it) */
	volatile uint8_t rxdatah;   /* 0x01 RXCIF, BUFOVF, FERR, PERR: read first */
	volatile uint8_t txdatal;   /* 0x02 byte to send */
	volatile uint8_t txdatah;   /* 0x03 */
	volatile uint8_t status;    /* 0x04 RXCIF, TXCIF, DREIF, ... */
	volatile uint8_t ctrla;     /* 0x05 RXCIE, TXCIE, DREIE, ... */
	volatile uint8_t ctrlb;     /* 0x06 RXEN, TXEN, RXMODE */
	volatile uint8_t ctrlc;     /* 0x07 CMODE, PMODE, SBMODE, CHSIZE */
	volatile uint16_t baud;     /* 0x08 */
	volatile uint8_t ctrld;     /* 0x0A */
	volatile uint8_t dbgctrl;   /* 0x0B */
	volatile uint8_t evctrl;    /* 0x0C */
	volatile uint8_t txplctrl;  /* 0x0D */
	volatile uint8_t rxplctrl;  /* 0x0E */
	volatile uint8_t reserved;  /* 0x0F */
};

#define MEGA0_RXDATAH_RXCIF  0x80
#define MEGA0_RXDATAH_BUFOVF 0x40
#define MEGA0_RXDATAH_FERR   0x04
#define MEGA0_STATUS_RXCIF   0x80
#define MEGA0_STATUS_DREIF   0x20
#define MEGA0_CTRLA_RXCIE    0x80
#define MEGA0_CTRLA_DREIE    0x20
#define MEGA0_CTRLB_RXEN     0x80
#define MEGA0_CTRLB_TXEN     0x40
#define MEGA0_CTRLC_8N1      0x03   /* asynchronous, no parity, 1 stop, 8 bits */

/* BAUD for a rate, rounded: 64 x f / (16 x baud) = 4 x f / baud
 * (a plain integer expression: #if can test it). */
#define MEGA0_BAUD(f_cpu, baud) ((4UL * (f_cpu) + (baud) / 2UL) / (baud))

/* The interrupt bodies; the vectors (mega0_usart.c on the chip) call them. */
void phyllo_mega0_usart_rxc(void);
void phyllo_mega0_usart_dre(void);
/* Bytes the hardware lost (BUFOVF) or received with a framing error. */
uint8_t phyllo_mega0_usart_hw_errors(void);

#endif /* PHYLLO_MEGA0_USART_H */
