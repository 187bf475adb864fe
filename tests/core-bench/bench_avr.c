// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bench_avr.c - exact AVR cycle counts of the core, for simavr.
 *
 * Timer1 runs at the CPU clock (prescaler 1), extended to 32 bits by its
 * overflow interrupt, so a measurement is a cycle count, minus the cost of
 * an empty measurement. Results go out on UART0 as "key value" lines; the
 * program then sleeps with interrupts off, which ends the simulation.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/pgmspace.h>
#include <avr/sleep.h>
#include <stdio.h>
#include "avr_stdout.h"
#include "phyllo_crc.h"
#include "phyllo_cobs.h"
#include "phyllo_stack.h"
#include "phyllo_pubsub.h"
#include "phyllo_msgpack.h"
#include "phyllo_tuples.h"

static volatile uint16_t t1_overflows;

ISR(TIMER1_OVF_vect)
{
	t1_overflows++;
}

static uint32_t cycles_now(void)
{
	uint16_t lo, hi;

	cli();
	lo = TCNT1;
	hi = t1_overflows;
	if ((TIFR1 & _BV(TOV1)) && lo < 0x8000)
		hi++;
	sei();
	return (uint32_t)hi << 16 | lo;
}

/* data doubles as the tuple buffer once the byte benchmarks are done */
static uint8_t data[PHYLLO_TUPLE_MAX], wire[PHYLLO_WIRE_MAX + 8];
#define BYTES 200
static uint16_t wire_len;
static struct phyllo_stack st;
static uint32_t overhead;

static void sink(void *ctx, const uint8_t *buf, uint16_t n)
{
	(void)ctx;
	while (n--)
		wire[wire_len++] = *buf++;
}

#define MEASURE(var, stmt) do { \
	uint32_t _t0 = cycles_now(); \
	stmt; \
	var = cycles_now() - _t0 - overhead; \
} while (0)

static volatile uint32_t sinkhole;

static void bench_bytes(void)
{
	uint32_t c;
	uint8_t i;

	for (i = 0; i < BYTES; i++)
		data[i] = (uint8_t)(i * 7 + 1);
	MEASURE(c, sinkhole = phyllo_crc_update(PHYLLO_CRC_INIT, data, BYTES));
	printf_P(PSTR("crc_cycles_x100_per_byte %lu\n"), c * 100 / BYTES);
	MEASURE(c, sinkhole = phyllo_crc_update_bitwise(PHYLLO_CRC_INIT, data, BYTES));
	printf_P(PSTR("crc_bitwise_cycles_x100_per_byte %lu\n"), c * 100 / BYTES);
	printf_P(PSTR("crc_table_ram_bytes %u\n"), phyllo_crc_table_ram_bytes);
	printf_P(PSTR("crc_table_flash_bytes %u\n"),
		 phyllo_crc_table_bytes - phyllo_crc_table_ram_bytes);
	MEASURE(c, sinkhole = phyllo_cobs_encode(data, BYTES, wire, sizeof(wire)));
	printf_P(PSTR("cobs_encode_cycles_x100_per_byte %lu\n"), c * 100 / BYTES);
	MEASURE(c, sinkhole = phyllo_cobs_decode(wire, BYTES + 1, data, BYTES));
	printf_P(PSTR("cobs_decode_cycles_x100_per_byte %lu\n"), c * 100 / BYTES);
}

static const char *const tuple_names[] = { "small", "large", "very_large" };

static void report(uint8_t k, const char *what, uint32_t cycles)
{
	printf_P(PSTR("tuple_%s_%s_cycles %lu\n"), tuple_names[k], what, cycles);
}

/*
 * One tuple both ways through standard + pub-sub, in steps:
 *   build:   MessagePack tuple inside its pub-sub document header
 *   send:    reliable send (slot copy, CRC, COBS, out to the sink)
 *   receive: bytes -> chunk -> COBS -> datagram -> CRC -> reliable -> unit
 *   parse:   pub-sub header, document header, MessagePack well-formedness
 */
static void bench_tuple(uint8_t k)
{
	struct phyllo_unit u;
	struct phyllo_pubsub m;
	struct phyllo_doc d;
	uint32_t build, send, recv, parse;
	bool got;
	int n;
	uint8_t ok;

	MEASURE(build, n = phyllo_tuple_build(k, data, sizeof(data)));
	wire_len = 0;
	MEASURE(send, phyllo_stack_send(&st, PHYLLO_TYPE_PUBSUB, data, (uint16_t)n, true, 0));
	MEASURE(recv, phyllo_stack_receive(&st, wire, wire_len, 0, &u, &got));
	MEASURE(parse, ok = got && !phyllo_pubsub_parse(u.data, u.len, &m) &&
		       !phyllo_doc_parse(m.payload, m.len, &d) && !phyllo_mp_check(d.body, d.len));
	printf_P(PSTR("tuple_%s_wire_bytes %u\n"), tuple_names[k], wire_len);
	report(k, "build", build);
	report(k, "send", send);
	report(k, "receive", recv);
	report(k, "parse", parse);
	report(k, "encode", build + send);
	report(k, "decode", recv + parse);
	report(k, "total", build + send + recv + parse);
	printf_P(PSTR("tuple_%s_ok %u\n"), tuple_names[k], ok);
}

static void bench_tuples(void)
{
	struct phyllo_arq_config cfg = PHYLLO_ARQ_CONFIG_DEFAULT;
	struct phyllo_out out = { sink, NULL };
	uint8_t k;

	/* No handshake: the stack reads its own units back (seq 0, 1, ...),
	 * and each unit's piggybacked ACK retires the one before it. */
	cfg.handshake = false;
	cfg.window = 2;
	phyllo_stack_init(&st, PHYLLO_PRESET_STANDARD, &cfg, &out, 1, 0);
	for (k = 0; k < 3; k++)
		bench_tuple(k);
}

int main(void)
{
	uint32_t t0;

	avr_stdout_init();
	TCCR1A = 0;
	TCCR1B = _BV(CS10);
	TIMSK1 = _BV(TOIE1);
	sei();
	t0 = cycles_now();
	overhead = cycles_now() - t0;
	bench_bytes();
	bench_tuples();
	printf_P(PSTR("stack_struct_bytes %u\n"), (unsigned int)sizeof(st));
	printf_P(PSTR("done 1\n"));
	cli();
	sleep_cpu();
	return 0;
}
