/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo_vectors.h - the one set of test vectors, pure data.
 *
 * The same tables feed the host tests (tests/, core/tests/), the kernel's
 * KUnit suites and the tests on the simulated AVR. Values come from the
 * upstream check values (docs/protocol.md shows them worked) or were
 * computed with an independent bit-at-a-time implementation. A bug found anywhere becomes a
 * row here. Kept small: on the AVR these tables sit in RAM.
 */
#ifndef PHYLLO_VECTORS_H
#define PHYLLO_VECTORS_H

#include "phyllo_types.h"
#include "phyllo_stats.h"

/* A byte string literal with its length. */
#define PV(...) (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ })
#define PV_EMPTY (const uint8_t *)"", 0

struct phyllo_vec_crc {
	const uint8_t *in;
	uint16_t len;
	uint32_t crc;
};

static const struct phyllo_vec_crc phyllo_vec_crc[] = {
	{ (const uint8_t *)"123456789", 9, 0xB303B455UL },      /* docs/protocol.md */
	{ PV(0x10, 0x01, 0x02, 0x03, 0x04, 0x00), 0xD2AA86D0UL }, /* docs/protocol.md */
	{ PV_EMPTY, 0x00000000UL },
	{ PV(0x00), 0x25250000UL },
	{ PV(0x23, 0x0A, 0xFA, 0x08, 0x10, 0x11, 0x22, 0x33), 0x6C291510UL },
};

/* Raw bytes and their COBS encoding (no delimiters). */
struct phyllo_vec_pair {
	const uint8_t *raw;
	uint16_t raw_len;
	const uint8_t *enc;
	uint16_t enc_len;
};

static const struct phyllo_vec_pair phyllo_vec_cobs[] = {
	{ PV_EMPTY, PV(0x01) },
	{ PV(0x00), PV(0x01, 0x01) },
	{ PV(0x00, 0x00), PV(0x01, 0x01, 0x01) },
	{ PV(0x11, 0x22, 0x00, 0x33), PV(0x03, 0x11, 0x22, 0x02, 0x33) }, /* docs/protocol.md */
	{ PV(0x11, 0x22, 0x33, 0x44), PV(0x05, 0x11, 0x22, 0x33, 0x44) },
	{ PV(0x11, 0x00, 0x00, 0x00), PV(0x02, 0x11, 0x01, 0x01, 0x01) },
	{ PV(0x00, 0x11), PV(0x01, 0x02, 0x11) },
	{ PV(0x11, 0x00), PV(0x02, 0x11, 0x01) },
	{ PV(0x01), PV(0x02, 0x01) },
};

/* Encoded chunks (no delimiters) that must not decode. */
struct phyllo_vec_bad {
	const uint8_t *in;
	uint16_t len;
};

static const struct phyllo_vec_bad phyllo_vec_cobs_bad[] = {
	{ PV(0x05, 0x11, 0x22) },          /* group runs past the end */
	{ PV(0x02) },                      /* code with its byte missing */
	{ PV(0x03, 0x11, 0x00, 0x22) },    /* zero inside a group */
	{ PV(0x00) },                      /* zero code byte */
};

/*
 * Whole units through a preset: application type + payload and the bytes
 * on the wire, delimiters included. The reliable example is a unit as the
 * reliable layer sees it (seq 0x0A, ack 0xFA, flags ACK).
 */
struct phyllo_vec_wire {
	uint8_t preset;
	uint8_t type;
	const uint8_t *payload;
	uint16_t payload_len;
	const uint8_t *wire;
	uint16_t wire_len;
};

static const struct phyllo_vec_wire phyllo_vec_wire[] = {
	{ 0, 0x10, PV(0x01, 0x02, 0x03, 0x04, 0x00),
	  PV(0x00, 0x07, 0x05, 0x10, 0x01, 0x02, 0x03, 0x04, 0x01, 0x00) },
	{ 1, 0x10, PV(0x01, 0x02, 0x03, 0x04, 0x00),
	  PV(0x00, 0x0C, 0x0A, 0x22, 0xD2, 0xAA, 0x86, 0xD0, 0x10, 0x01, 0x02, 0x03,
	     0x04, 0x01, 0x00) },
};

/* The layer examples of docs/protocol.md, header by header. */
static const uint8_t phyllo_vec_datagram[] = { 0x05, 0x10, 0x01, 0x02, 0x03, 0x04, 0x00 };
static const uint8_t phyllo_vec_validated[] = {
	0xD2, 0xAA, 0x86, 0xD0, 0x10, 0x01, 0x02, 0x03, 0x04, 0x00 };
static const uint8_t phyllo_vec_reliable[] = { 0x0A, 0xFA, 0x08, 0x10, 0x11, 0x22, 0x33 };
static const uint8_t phyllo_vec_reliable_frame[] = {	/* datagram(validated(0x23, above)) */
	0x0C, 0x22, 0x6C, 0x29, 0x15, 0x10, 0x23, 0x0A, 0xFA, 0x08, 0x10, 0x11, 0x22, 0x33 };
static const uint8_t phyllo_vec_document[] = { 0x11, 0x11, 0xA4, 0x61, 0x62, 0x63, 0x64 };
static const uint8_t phyllo_vec_pubsub[] = {
	0x10, 0x02, 0x30, 0x31, 0x01, 0x02, 0x03, 0x04, 0x00 };

/*
 * Bad input on the wire (delimiters included) and the counter it must bump,
 * as an index into struct phyllo_stats viewed as uint32_t[].
 */
#define PHYLLO_VEC_STAT(field) (offsetof(struct phyllo_stats, field) / sizeof(uint32_t))

struct phyllo_vec_drop {
	uint8_t preset;
	const uint8_t *wire;
	uint16_t len;
	uint8_t stat;		/* PHYLLO_VEC_STAT(...) */
	int8_t err;		/* enum phyllo_err of the layer that refused it */
};

static const struct phyllo_vec_drop phyllo_vec_drop[] = {
	/* COBS group past the end */
	{ 0, PV(0x00, 0x05, 0x11, 0x22, 0x00), PHYLLO_VEC_STAT(rx_framing), -5 },
	/* datagram: length byte says 5, frame carries 1 */
	{ 0, PV(0x00, 0x04, 0x05, 0x10, 0x01, 0x00), PHYLLO_VEC_STAT(rx_length), -6 },
	/* datagram: truncated to one byte */
	{ 0, PV(0x00, 0x02, 0x05, 0x00), PHYLLO_VEC_STAT(rx_length), -6 },
	/* datagram: one byte longer than its length byte */
	{ 0, PV(0x00, 0x05, 0x01, 0x10, 0x01, 0x02, 0x00), PHYLLO_VEC_STAT(rx_length), -6 },
	/* validated: CRC's last byte flipped */
	{ 1, PV(0x00, 0x0C, 0x0A, 0x22, 0xD2, 0xAA, 0x86, 0xD1, 0x10, 0x01, 0x02, 0x03,
		0x04, 0x01, 0x00), PHYLLO_VEC_STAT(rx_crc), -7 },
	/* validated: shorter than its 5-byte header */
	{ 1, PV(0x00, 0x06, 0x03, 0x22, 0xD2, 0xAA, 0x86, 0x00), PHYLLO_VEC_STAT(rx_length), -6 },
	/* reduced preset: a plain datagram (type 0x10) where 0x22 belongs */
	{ 1, PV(0x00, 0x07, 0x05, 0x10, 0x01, 0x02, 0x03, 0x04, 0x01, 0x00),
	  PHYLLO_VEC_STAT(rx_type), -8 },
	/* standard: reliable unit with the FIN flag (not implemented) */
	{ 2, PV(0x00, 0x06, 0x09, 0x22, 0x12, 0x6E, 0x03, 0x02, 0x23, 0x01, 0x03, 0x01, 0x10, 0x00),
	  PHYLLO_VEC_STAT(rx_flags), -9 },
};

/* Benchmark echo tuples (docs/protocol.md): MessagePack bodies. */
static const uint8_t phyllo_vec_tuple_small[] = {
	0x94, 0xA5, 'h', 'e', 'l', 'l', 'o', 0x7B, 0xCD, 0x01, 0xC8, 0xCD, 0x03, 0x15 };

#endif /* PHYLLO_VECTORS_H */
