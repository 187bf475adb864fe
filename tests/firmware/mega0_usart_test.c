// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * mega0_usart_test.c - the megaAVR 0-series USART driver
 * (firmware/megaavr/mega0_usart.c) on the host, against a register-level
 * fake: no emulator here models the ATmega4809, so its driver's logic is
 * held to the datasheet's register behaviour by hand.
 *
 * The fake is the register block itself (struct mega0_usart); the test
 * plays the hardware: a byte arrives by setting RXDATAL/RXDATAH and
 * calling the receive-complete handler, the transmitter takes a byte by
 * the data-register-empty handler when DREIE is set. mega0_sleep() is the
 * CPU waiting for an interrupt: it runs the DRE handler once, as the
 * hardware would when a byte has gone. Prints "N passed, N failed".
 */
#include <stdio.h>
#include <string.h>

#include "fw_config.h"
#include "mega0_port.h"
#include "ptest.h"
#include "uart.h"
#include "wake.h"

struct mega0_usart phyllo_mega0_fake;
volatile uint8_t phyllo_fw_wake;
static int irq_depth, sleeps, rx_during_tx;
static uint8_t rx_during_tx_seen[8];	/* the ring as the hook found it */
static uint8_t wire[1024];      /* what the transmitter put on the line */
static unsigned int wire_n;

void mega0_irq_off(void)
{
	irq_depth++;
}

void mega0_irq_on(void)
{
	irq_depth = 0;
}

void mega0_sleep_setup(void)
{
}

/* The transmitter frees the data register: one DRE interrupt, if enabled. */
static void hw_tx_one(void)
{
	if (phyllo_mega0_fake.ctrla & MEGA0_CTRLA_DREIE) {
		phyllo_mega0_usart_dre();
		wire[wire_n++ % sizeof(wire)] = phyllo_mega0_fake.txdatal;
	}
}

void mega0_sleep(void)
{
	PTEST_EXPECT_EQ(irq_depth, 0);	/* never sleep with interrupts off */
	sleeps++;
	hw_tx_one();
}

static void hw_rx(uint8_t byte, uint8_t flags)
{
	phyllo_mega0_fake.rxdatal = byte;
	phyllo_mega0_fake.rxdatah = (uint8_t)(MEGA0_RXDATAH_RXCIF | flags);
	phyllo_mega0_usart_rxc();
}

/* The main loop's hook (main_loop.h): here it takes what is in the ring,
 * as the node's decoder would, with interrupts on. */
void phyllo_fw_rx_during_tx(void)
{
	const uint8_t *p;
	uint8_t n;

	PTEST_EXPECT_EQ(irq_depth, 0);
	rx_during_tx++;
	p = phyllo_fw_uart_rx_peek(&n);
	if (n > sizeof(rx_during_tx_seen))
		n = sizeof(rx_during_tx_seen);
	memcpy(rx_during_tx_seen, p, n);
	phyllo_fw_uart_rx_consume(n);
}

static void setup(void)
{
	memset(&phyllo_mega0_fake, 0, sizeof(phyllo_mega0_fake));
	phyllo_fw_wake = 0;
	irq_depth = sleeps = rx_during_tx = 0;
	wire_n = 0;
	phyllo_fw_uart_init();
}

static void init_sets_8n1_baud_and_enables(void)
{
	setup();
	/* 64 x 16 MHz / (16 x 115200) = 555.6: 556 (-0.08%) */
	PTEST_EXPECT_EQ(phyllo_mega0_fake.baud, 556);
	PTEST_EXPECT_EQ(phyllo_mega0_fake.ctrlc, 0x03);
	PTEST_EXPECT_EQ(phyllo_mega0_fake.ctrla, MEGA0_CTRLA_RXCIE);
	PTEST_EXPECT_EQ(phyllo_mega0_fake.ctrlb, MEGA0_CTRLB_RXEN | MEGA0_CTRLB_TXEN);
	PTEST_EXPECT_EQ(MEGA0_BAUD(16000000UL, 1000000UL), 64);
}

static void rx_bytes_peek_in_order_and_wake_on_delimiter(void)
{
	const uint8_t *p;
	uint8_t n;

	setup();
	hw_rx(0x11, 0);
	hw_rx(0x22, 0);
	PTEST_EXPECT_EQ(phyllo_fw_wake, 0);
	hw_rx(0x00, 0);
	PTEST_EXPECT_EQ(phyllo_fw_wake, PHYLLO_FW_WAKE_RX);
	p = phyllo_fw_uart_rx_peek(&n);
	PTEST_EXPECT_EQ(n, 3);
	PTEST_EXPECT_EQ(p[0], 0x11);
	PTEST_EXPECT_EQ(p[1], 0x22);
	PTEST_EXPECT_EQ(p[2], 0x00);
	phyllo_fw_uart_rx_consume(2);
	p = phyllo_fw_uart_rx_peek(&n);
	PTEST_EXPECT_EQ(n, 1);
	PTEST_EXPECT_EQ(p[0], 0x00);
}

static void rx_wakes_every_half_ring_without_delimiter(void)
{
	unsigned int i;

	setup();
	for (i = 0; i < PHYLLO_FW_RX_RING / 2 - 1; i++)
		hw_rx(0x55, 0);
	PTEST_EXPECT_EQ(phyllo_fw_wake, 0);
	hw_rx(0x55, 0);
	PTEST_EXPECT_EQ(phyllo_fw_wake, PHYLLO_FW_WAKE_RX);
}

static void rx_full_ring_drops_and_counts(void)
{
	const uint8_t *p;
	uint8_t n;
	unsigned int i;

	setup();
	for (i = 0; i < PHYLLO_FW_RX_RING + 5; i++)
		hw_rx((uint8_t)(i + 1), 0);
	/* one slot stays empty to tell full from empty */
	PTEST_EXPECT_EQ(phyllo_fw_uart_rx_dropped(), 6);
	p = phyllo_fw_uart_rx_peek(&n);
	PTEST_EXPECT_EQ(n, PHYLLO_FW_RX_RING - 1);
	PTEST_EXPECT_EQ(p[0], 1);
	PTEST_EXPECT_EQ(p[n - 1], (uint8_t)(PHYLLO_FW_RX_RING - 1));
}

static void rx_peek_wraps_in_two_runs(void)
{
	const uint8_t *p;
	uint8_t n;
	unsigned int i;

	setup();
	for (i = 0; i < PHYLLO_FW_RX_RING - 2; i++)
		hw_rx(0x10, 0);
	p = phyllo_fw_uart_rx_peek(&n);
	phyllo_fw_uart_rx_consume(n);
	for (i = 0; i < 5; i++)
		hw_rx((uint8_t)(0xA0 + i), 0);
	p = phyllo_fw_uart_rx_peek(&n);
	PTEST_EXPECT_EQ(n, 2);		/* up to the end of the buffer */
	PTEST_EXPECT_EQ(p[0], 0xA0);
	phyllo_fw_uart_rx_consume(n);
	p = phyllo_fw_uart_rx_peek(&n);
	PTEST_EXPECT_EQ(n, 3);		/* then from its start */
	PTEST_EXPECT_EQ(p[0], 0xA2);
	PTEST_EXPECT_EQ(p[2], 0xA4);
}

static void rx_hardware_errors_are_counted(void)
{
	setup();
	hw_rx(0x01, MEGA0_RXDATAH_BUFOVF);
	hw_rx(0x02, MEGA0_RXDATAH_FERR);
	hw_rx(0x03, 0);
	PTEST_EXPECT_EQ(phyllo_mega0_usart_hw_errors(), 2);
}

static void tx_short_write_enables_dre_until_drained(void)
{
	static const uint8_t msg[] = { 1, 2, 3 };
	int i;

	setup();
	phyllo_fw_uart_write(NULL, msg, sizeof(msg));
	PTEST_EXPECT_EQ(sleeps, 0);
	PTEST_EXPECT_EQ(irq_depth, 0);
	PTEST_EXPECT(phyllo_mega0_fake.ctrla & MEGA0_CTRLA_DREIE);
	PTEST_EXPECT(phyllo_mega0_fake.ctrla & MEGA0_CTRLA_RXCIE);
	for (i = 0; i < 3; i++)
		hw_tx_one();
	PTEST_EXPECT_EQ(wire_n, 3);
	PTEST_EXPECT_MEM(wire, msg, 3);
	/* the ring is empty: the interrupt is off again, receive stays on */
	PTEST_EXPECT(!(phyllo_mega0_fake.ctrla & MEGA0_CTRLA_DREIE));
	PTEST_EXPECT(phyllo_mega0_fake.ctrla & MEGA0_CTRLA_RXCIE);
}

static void tx_long_write_sleeps_until_room_and_keeps_order(void)
{
	uint8_t msg[300];
	unsigned int i;

	setup();
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 7 + 1);
	phyllo_fw_uart_write(NULL, msg, sizeof(msg));
	PTEST_EXPECT(sleeps > 0);
	while (phyllo_mega0_fake.ctrla & MEGA0_CTRLA_DREIE)
		hw_tx_one();
	PTEST_EXPECT_EQ(wire_n, sizeof(msg));
	PTEST_EXPECT_MEM(wire, msg, sizeof(msg));
}

/* A receive wake pending when a write starts is served during the write
 * (the hook, once, wake bit taken), not after it. */
static void tx_long_write_serves_receive_wake_meanwhile(void)
{
	static const uint8_t in[] = { 0x00, 0x02, 0x33, 0x00 };
	uint8_t msg[200], n;
	unsigned int i;

	setup();
	memset(msg, 0x55, sizeof(msg));
	for (i = 0; i < sizeof(in); i++)
		hw_rx(in[i], 0);
	PTEST_EXPECT_EQ(phyllo_fw_wake, PHYLLO_FW_WAKE_RX);
	phyllo_fw_uart_write(NULL, msg, sizeof(msg));
	PTEST_EXPECT_EQ(rx_during_tx, 1);
	PTEST_EXPECT_MEM(rx_during_tx_seen, in, sizeof(in));
	PTEST_EXPECT_EQ(phyllo_fw_wake, 0);
	phyllo_fw_uart_rx_peek(&n);
	PTEST_EXPECT_EQ(n, 0);
	while (phyllo_mega0_fake.ctrla & MEGA0_CTRLA_DREIE)
		hw_tx_one();
	PTEST_EXPECT_EQ(wire_n, sizeof(msg));
	PTEST_EXPECT_MEM(wire, msg, sizeof(msg));
	/* a short write serves a pending wake too (at 1 Mbaud a writer may
	 * never wait), and without one it calls nothing */
	setup();
	hw_rx(0x00, 0);
	phyllo_fw_uart_write(NULL, msg, 3);
	PTEST_EXPECT_EQ(rx_during_tx, 1);
	PTEST_EXPECT_EQ(phyllo_fw_wake, 0);
	phyllo_fw_uart_write(NULL, msg, 3);
	PTEST_EXPECT_EQ(rx_during_tx, 1);
}

static const struct ptest_case cases[] = {
	PTEST_CASE(init_sets_8n1_baud_and_enables),
	PTEST_CASE(rx_bytes_peek_in_order_and_wake_on_delimiter),
	PTEST_CASE(rx_wakes_every_half_ring_without_delimiter),
	PTEST_CASE(rx_full_ring_drops_and_counts),
	PTEST_CASE(rx_peek_wraps_in_two_runs),
	PTEST_CASE(rx_hardware_errors_are_counted),
	PTEST_CASE(tx_short_write_enables_dre_until_drained),
	PTEST_CASE(tx_long_write_sleeps_until_room_and_keeps_order),
	PTEST_CASE(tx_long_write_serves_receive_wake_meanwhile),
};
PTEST_MAIN(mega0_suite, "mega0_usart", cases)
