// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo_tuples.c - see phyllo_tuples.h. Floats go out as float64 bit
 * patterns, as the public Python host packs them.
 */
#include "phyllo_tuples.h"
#include "phyllo_msgpack.h"
#include "phyllo_pubsub.h"

static void tuple_body(struct phyllo_mp_writer *w, uint8_t kind)
{
	static const uint8_t bin5[] = { 0, 1, 2, 3, 4 };
	uint8_t ints = kind == PHYLLO_TUPLE_LARGE ? 26 : 167, i;

	if (kind == PHYLLO_TUPLE_SMALL) {
		phyllo_mp_write_array(w, 4);
		phyllo_mp_write_str(w, (const uint8_t *)"hello", 5);
		phyllo_mp_write_u32(w, 123);
		phyllo_mp_write_u32(w, 456);
		phyllo_mp_write_u32(w, 789);
		return;
	}
	phyllo_mp_write_array(w, 5u + ints);
	phyllo_mp_write_str(w, (const uint8_t *)"hello", 5);
	phyllo_mp_write_bool(w, true);
	phyllo_mp_write_nil(w);
	phyllo_mp_write_f64_bits(w, 0x3FC0000000000000ULL);	/* 0.125 */
	phyllo_mp_write_bin(w, bin5, sizeof(bin5));
	for (i = 0; i < ints; i++)
		phyllo_mp_write_u32(w, i);
}

int phyllo_tuple_build(uint8_t kind, uint8_t *buf, uint16_t cap)
{
	struct phyllo_mp_writer w;
	int n;

	n = phyllo_pubsub_header(buf, cap, PHYLLO_TYPE_DOCUMENT, (const uint8_t *)"echo", 4);
	if (n < 0 || cap < (uint16_t)(n + PHYLLO_DOC_HDR))
		return PHYLLO_E_NOSPACE;
	n += phyllo_doc_header(buf + n, PHYLLO_FORMAT_MSGPACK, PHYLLO_SCHEMA_ECHO_TUPLE);
	phyllo_mp_writer_init(&w, buf + n, (uint16_t)(cap - n));
	tuple_body(&w, kind);
	return w.err ? w.err : (int)(n + w.len);
}
