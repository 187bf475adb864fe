/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo_tuples.h - the echo benchmark's three payloads (docs/protocol.md), as
 * whole pub-sub documents: pub-sub type 0x40, topic "echo", format 0x11
 * (MessagePack), schema 0x60, then the tuple. Shared by the phyllo tool,
 * the AVR benchmarks and the firmware tests, so all measure the same bytes.
 *
 * Sizes: small body 14 / pub-sub payload 22; large 53 / 61; very large
 * 233 / 241. The string "hello" sits at PHYLLO_TUPLE_TAG_OFFSET(kind), where
 * the client may overwrite it with an index tag of the same length.
 */
#ifndef PHYLLO_TUPLES_H
#define PHYLLO_TUPLES_H

#include "phyllo_types.h"

enum phyllo_tuple {
	PHYLLO_TUPLE_SMALL = 0,
	PHYLLO_TUPLE_LARGE = 1,
	PHYLLO_TUPLE_VERY_LARGE = 2,
};

#define PHYLLO_TUPLE_MAX 241
/* pub-sub header (6) + document header (2) + array header (1 or 3) + fixstr (1) */
#define PHYLLO_TUPLE_TAG_OFFSET(kind) ((kind) == PHYLLO_TUPLE_SMALL ? 10 : 12)

/* Writes the whole pub-sub payload; returns its length or PHYLLO_E_NOSPACE. */
int phyllo_tuple_build(uint8_t kind, uint8_t *buf, uint16_t cap);

#endif
