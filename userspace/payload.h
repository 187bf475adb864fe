/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * payload.h - the client's messages: the three benchmark tuples of the
 * protocol reference as pub-sub documents (type 0x60, topic "echo", format
 * MessagePack, schema 0x60), a counter payload of varying length, or fixed
 * hex bytes.
 *
 * Unless exact, each message carries a 5-character tag that encodes its
 * index, so that an echo can be matched to what was sent and loss,
 * duplication and reordering are seen. In the tuples the tag replaces the
 * string "hello": same length, same encoding, same sizes on the wire.
 */
#ifndef PHYLLO_PAYLOAD_H
#define PHYLLO_PAYLOAD_H

#include <stdbool.h>
#include <stdint.h>

/* The first three match enum phyllo_tuple. */
enum payload_kind {
	PAYLOAD_SMALL, PAYLOAD_LARGE, PAYLOAD_VERY_LARGE, PAYLOAD_COUNTER, PAYLOAD_HEX,
};

struct payload_spec {
	enum payload_kind kind;
	bool exact;		/* no tag: the literal tuple */
	uint16_t max;		/* largest payload the preset carries */
	uint16_t hex_len;
	uint8_t hex[256];
};

/* Parse small | large | very-large | counter | hex:0011..; 0 or -1. */
int payload_parse(const char *s, struct payload_spec *spec);
const char *payload_name(const struct payload_spec *spec);
/* Build message index into buf; returns its length, sets *type. */
uint16_t payload_build(const struct payload_spec *spec, uint32_t index, uint8_t *type,
		       uint8_t *buf);
/* Index of a received message, or -1 when it carries no readable tag. */
long payload_index(const struct payload_spec *spec, const uint8_t *buf, uint16_t len);

#endif
