/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo_pubsub.h - document header (type 0x40) and pub-sub message (0x60).
 *
 * Parsers point into the caller's bytes; builders write a header into the
 * caller's buffer and return its length, so the payload can be appended or
 * sent behind it without a copy.
 */
#ifndef PHYLLO_PUBSUB_H
#define PHYLLO_PUBSUB_H

#include "phyllo_types.h"
#include "phyllo_wire.h"

struct phyllo_doc {
	uint8_t format;
	uint8_t schema;
	uint16_t len;
	const uint8_t *body;
};

struct phyllo_pubsub {
	uint8_t type;            /* 0x40 for a document */
	uint8_t topic_len;
	const uint8_t *topic;
	uint16_t len;
	const uint8_t *payload;
};

/* PHYLLO_E_LENGTH if shorter than the 2-byte header. */
int phyllo_doc_parse(const uint8_t *p, uint16_t n, struct phyllo_doc *d);
/* Writes format and schema; returns PHYLLO_DOC_HDR. */
int phyllo_doc_header(uint8_t hdr[PHYLLO_DOC_HDR], uint8_t format, uint8_t schema);

/* PHYLLO_E_LENGTH if truncated, PHYLLO_E_TOPIC if the topic-length byte has
 * its reserved high bits set.
 */
int phyllo_pubsub_parse(const uint8_t *p, uint16_t n, struct phyllo_pubsub *m);
/* Writes type, topic length and topic into out (cap bytes); returns the
 * header length, PHYLLO_E_TOPIC for a topic over 15 bytes or
 * PHYLLO_E_NOSPACE.
 */
int phyllo_pubsub_header(uint8_t *out, uint16_t cap, uint8_t type,
			 const uint8_t *topic, uint8_t topic_len);
/* True when the message topic starts with prefix[0..n). */
bool phyllo_pubsub_topic_match(const struct phyllo_pubsub *m,
			       const uint8_t *prefix, uint8_t n);

#endif /* PHYLLO_PUBSUB_H */
