// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * test_stack.c - whole presets on one stack: the wire vectors both ways,
 * every drop counted, size limits, resync after noise. One stack at a time
 * so that the suite also fits the AVR.
 */
#include <string.h>
#include "ptest.h"
#include "phyllo_stack.h"
#include "phyllo_vectors.h"

static struct phyllo_stack st;
static uint8_t sink[PHYLLO_WIRE_MAX + 8];
static uint16_t sink_len;
/* One scratch buffer for the cases that need a big input: RAM is scarce
 * where this suite also runs (a simulated ATmega328P). */
static uint8_t scratch[300];

static void sink_write(void *ctx, const uint8_t *buf, uint16_t n)
{
	(void)ctx;
	if (sink_len + n <= sizeof(sink))
		memcpy(sink + sink_len, buf, n);
	sink_len += n;
}

static const struct phyllo_out sink_out = { sink_write, NULL };

static void stack_fresh(uint8_t preset)
{
	PTEST_EXPECT_EQ(phyllo_stack_init(&st, preset, NULL, &sink_out, 1, 0), 0);
	sink_len = 0;
}

/* Feed all of buf; returns units received, the last one in *u. */
static int stack_feed(const uint8_t *buf, uint16_t n, struct phyllo_unit *u)
{
	uint16_t used = 0;
	int units = 0;
	bool got;

	while (used < n) {
		used += phyllo_stack_receive(&st, buf + used, n - used, 0, u, &got);
		units += got;
	}
	return units;
}

static void stack_receive_matches_wire_vectors(void)
{
	struct phyllo_unit u;
	unsigned int i;

	for (i = 0; i < PHYLLO_ARRAY_SIZE(phyllo_vec_wire); i++) {
		const struct phyllo_vec_wire *v = &phyllo_vec_wire[i];

		stack_fresh(v->preset);
		PTEST_EXPECT_EQ(stack_feed(v->wire, v->wire_len, &u), 1);
		PTEST_EXPECT_EQ(u.type, v->type);
		PTEST_EXPECT_EQ(u.len, v->payload_len);
		PTEST_EXPECT_MEM(u.data, v->payload, v->payload_len);
		PTEST_EXPECT_EQ(st.stats.rx_units, 1);
	}
}

static void stack_send_matches_wire_vectors(void)
{
	unsigned int i;

	for (i = 0; i < PHYLLO_ARRAY_SIZE(phyllo_vec_wire); i++) {
		const struct phyllo_vec_wire *v = &phyllo_vec_wire[i];

		stack_fresh(v->preset);
		PTEST_EXPECT_EQ(phyllo_stack_send(&st, v->type, v->payload, v->payload_len,
						  true, 0), 0);
		PTEST_EXPECT_EQ(sink_len, v->wire_len);
		PTEST_EXPECT_MEM(sink, v->wire, v->wire_len);
	}
}

static void stack_counts_every_drop_vector(void)
{
	struct phyllo_unit u;
	unsigned int i;

	for (i = 0; i < PHYLLO_ARRAY_SIZE(phyllo_vec_drop); i++) {
		const struct phyllo_vec_drop *v = &phyllo_vec_drop[i];
		const uint32_t *counters = (const uint32_t *)&st.stats;

		stack_fresh(v->preset);
		PTEST_EXPECT_EQ(stack_feed(v->wire, v->len, &u), 0);
		if (counters[v->stat] != 1)
			PTEST_LOG("    drop vector %u: counter %u is %lu\n", i, v->stat,
			       (unsigned long)counters[v->stat]);
		PTEST_EXPECT_EQ(counters[v->stat], 1);
		PTEST_EXPECT_EQ(st.stats.rx_units, 0);
	}
}

static void stack_send_rejects_oversize_and_internal_types(void)
{
	const uint8_t *big = scratch;
	uint8_t p;

	for (p = PHYLLO_PRESET_MINIMAL; p <= PHYLLO_PRESET_STANDARD; p++) {
		uint16_t mtu = phyllo_stack_mtu(p);

		stack_fresh(p);
		PTEST_EXPECT_EQ(phyllo_stack_send(&st, 0x10, big, mtu + 1, true, 0), PHYLLO_E_TOOBIG);
		PTEST_EXPECT_EQ(phyllo_stack_send(&st, 0x05, big, 1, true, 0), PHYLLO_E_INVAL);
		PTEST_EXPECT_EQ(phyllo_stack_send(&st, 0x10, NULL, 3, true, 0), PHYLLO_E_INVAL);
		sink_len = 0;
		PTEST_EXPECT_EQ(phyllo_stack_send(&st, 0x10, big, mtu, false, 0), 0);
		/* a full frame never exceeds the 255-byte chunk limit */
		PTEST_EXPECT(sink_len <= PHYLLO_WIRE_MAX);
	}
	PTEST_EXPECT_EQ(phyllo_stack_mtu(PHYLLO_PRESET_MINIMAL), 252);
	PTEST_EXPECT_EQ(phyllo_stack_mtu(PHYLLO_PRESET_REDUCED), 247);
	PTEST_EXPECT_EQ(phyllo_stack_mtu(PHYLLO_PRESET_STANDARD), 243);
	PTEST_EXPECT_EQ(phyllo_stack_init(&st, 3, NULL, &sink_out, 1, 0), PHYLLO_E_INVAL);
}

/* Minimal and reduced need no peer state: a stack reads its own output. */
static void stack_roundtrips_every_length_through_itself(void)
{
	uint8_t *payload = scratch;
	struct phyllo_unit u;
	uint8_t p;
	uint16_t n;

	for (n = 0; n < PHYLLO_DATAGRAM_MAX; n++)
		payload[n] = (uint8_t)(n % 3 ? n : 0);
	for (p = PHYLLO_PRESET_MINIMAL; p <= PHYLLO_PRESET_REDUCED; p++) {
		stack_fresh(p);
		for (n = 0; n <= phyllo_stack_mtu(p); n++) {
			sink_len = 0;
			PTEST_EXPECT_EQ(phyllo_stack_send(&st, 0x60, payload, n, false, 0), 0);
			PTEST_EXPECT_EQ(stack_feed(sink, sink_len, &u), 1);
			PTEST_EXPECT(u.type == 0x60 && u.len == n);
			PTEST_EXPECT_MEM(u.data, payload, n);
		}
		PTEST_EXPECT_EQ(st.stats.rx_units, phyllo_stack_mtu(p) + 1u);
	}
}

static void stack_resyncs_after_noise_and_overflow(void)
{
	const struct phyllo_vec_wire *v = &phyllo_vec_wire[0];
	uint8_t *noise = scratch;
	struct phyllo_unit u;
	uint16_t i;

	for (i = 0; i < sizeof(scratch); i++)
		noise[i] = (uint8_t)(0x5a + i * 13) | 1;	/* no zero: one long chunk */
	stack_fresh(v->preset);
	PTEST_EXPECT_EQ(stack_feed(noise, sizeof(scratch), &u), 0);
	/* the vector's leading delimiter ends the noise chunk */
	PTEST_EXPECT_EQ(stack_feed(v->wire, v->wire_len, &u), 1);
	PTEST_EXPECT_EQ(st.stats.rx_overflow, 1);
	PTEST_EXPECT_EQ(u.len, v->payload_len);
}

static void stack_receive_stops_after_one_unit(void)
{
	const struct phyllo_vec_wire *v = &phyllo_vec_wire[1];
	uint8_t two[2 * 15];
	struct phyllo_unit u;
	bool got;
	uint16_t used;

	memcpy(two, v->wire, v->wire_len);
	memcpy(two + v->wire_len, v->wire, v->wire_len);
	stack_fresh(v->preset);
	used = phyllo_stack_receive(&st, two, 2 * v->wire_len, 0, &u, &got);
	PTEST_EXPECT(got);
	PTEST_EXPECT_EQ(used, v->wire_len);
	used += phyllo_stack_receive(&st, two + used, 2 * v->wire_len - used, 0, &u, &got);
	PTEST_EXPECT(got);
	PTEST_EXPECT_EQ(used, 2 * v->wire_len);
	PTEST_EXPECT_EQ(st.stats.rx_bytes, 2 * v->wire_len);
}

/* Every wire vector taken in partly first: the partial receive stops at
 * the completing delimiter, delivers nothing, counts its bytes; the next
 * receive delivers the same unit. */
static void stack_receive_partial_leaves_the_frame_whole(void)
{
	unsigned int i;

	for (i = 0; i < PHYLLO_ARRAY_SIZE(phyllo_vec_wire); i++) {
		const struct phyllo_vec_wire *v = &phyllo_vec_wire[i];
		struct phyllo_unit u;
		uint16_t k;

		stack_fresh(v->preset);
		k = phyllo_stack_receive_partial(&st, v->wire, v->wire_len);
		PTEST_EXPECT_EQ(k, v->wire_len - 1);	/* all but the last delimiter */
		PTEST_EXPECT_EQ(st.stats.rx_units, 0);
		PTEST_EXPECT_EQ(st.stats.rx_frames, 0);
		PTEST_EXPECT_EQ(st.stats.rx_bytes, k);
		PTEST_EXPECT_EQ(stack_feed(v->wire + k, (uint16_t)(v->wire_len - k), &u), 1);
		PTEST_EXPECT_EQ(u.type, v->type);
		PTEST_EXPECT_EQ(u.len, v->payload_len);
		PTEST_EXPECT_MEM(u.data, v->payload, v->payload_len);
		PTEST_EXPECT_EQ(st.stats.rx_bytes, v->wire_len);
	}
}

/* Every wire vector taken partly, then set aside: the decoder is free for
 * the next frame at once (a second copy is taken up to its delimiter), and
 * the frame set aside climbs to the same unit, counted once. */
static void stack_set_aside_frees_the_decoder(void)
{
	unsigned int i;

	for (i = 0; i < PHYLLO_ARRAY_SIZE(phyllo_vec_wire); i++) {
		const struct phyllo_vec_wire *v = &phyllo_vec_wire[i];
		uint16_t k, n = v->wire_len;
		struct phyllo_unit u;
		int len;

		stack_fresh(v->preset);
		k = phyllo_stack_receive_partial(&st, v->wire, n);
		PTEST_EXPECT_EQ(phyllo_stack_receive_set_aside(&st, scratch, 4), PHYLLO_E_NOSPACE);
		len = phyllo_stack_receive_set_aside(&st, scratch, sizeof(scratch));
		PTEST_EXPECT(len > 4);
		PTEST_EXPECT_EQ(st.stats.rx_bytes, n);
		PTEST_EXPECT_EQ(phyllo_stack_receive_partial(&st, v->wire, n), k);
		PTEST_EXPECT_EQ(phyllo_stack_receive_frame(&st, scratch, (uint16_t)len, 0, &u), 1);
		PTEST_EXPECT_EQ(u.type, v->type);
		PTEST_EXPECT_EQ(u.len, v->payload_len);
		PTEST_EXPECT_MEM(u.data, v->payload, v->payload_len);
		PTEST_EXPECT_EQ(st.stats.rx_units, 1);
		PTEST_EXPECT_EQ(st.stats.rx_frames, 1);
		stack_feed(v->wire + k, (uint16_t)(n - k), &u);
		PTEST_EXPECT_EQ(st.stats.rx_frames, 2);
		PTEST_EXPECT_EQ(st.stats.rx_bytes, 2 * n);
	}
}

/* A chunk its delimiter would reject is not set aside: the delimiter
 * still ends it, and the drop is counted as without the attempt. */
static void stack_set_aside_refuses_a_cut_group(void)
{
	static const uint8_t cut[] = { 0x00, 0x05, 0x11, 0x22, 0x00 };
	struct phyllo_unit u;

	stack_fresh(PHYLLO_PRESET_MINIMAL);
	PTEST_EXPECT_EQ(phyllo_stack_receive_partial(&st, cut, sizeof(cut)), sizeof(cut) - 1);
	PTEST_EXPECT_EQ(phyllo_stack_receive_set_aside(&st, scratch, sizeof(scratch)),
			PHYLLO_E_NOSPACE);
	PTEST_EXPECT_EQ(stack_feed(cut + sizeof(cut) - 1, 1, &u), 0);
	PTEST_EXPECT_EQ(st.stats.rx_framing, 1);
	PTEST_EXPECT_EQ(st.stats.rx_bytes, sizeof(cut));
}

static void stack_standard_starts_with_syn(void)
{
	uint16_t syn_len;

	stack_fresh(PHYLLO_PRESET_STANDARD);
	/* init writes nothing; the first poll sends the SYN, once */
	PTEST_EXPECT_EQ(sink_len, 0);
	phyllo_stack_poll(&st, 0);
	PTEST_EXPECT_EQ(st.arq.state, PHYLLO_ARQ_SYN_SENT);
	PTEST_EXPECT(sink_len > 0);
	syn_len = sink_len;
	phyllo_stack_poll(&st, 0);
	PTEST_EXPECT_EQ(sink_len, syn_len);
	phyllo_stack_poll(&st, 1000);
	PTEST_EXPECT(sink_len > syn_len);
}

static const struct ptest_case stack_cases[] = {
	PTEST_CASE(stack_receive_matches_wire_vectors),
	PTEST_CASE(stack_send_matches_wire_vectors),
	PTEST_CASE(stack_counts_every_drop_vector),
	PTEST_CASE(stack_send_rejects_oversize_and_internal_types),
	PTEST_CASE(stack_roundtrips_every_length_through_itself),
	PTEST_CASE(stack_resyncs_after_noise_and_overflow),
	PTEST_CASE(stack_receive_stops_after_one_unit),
	PTEST_CASE(stack_receive_partial_leaves_the_frame_whole),
	PTEST_CASE(stack_set_aside_frees_the_decoder),
	PTEST_CASE(stack_set_aside_refuses_a_cut_group),
	PTEST_CASE(stack_standard_starts_with_syn),
};

PTEST_SUITE(phyllo_suite_stack, "phyllo_stack", stack_cases);
