// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo_pubsub.c - pub-sub message headers read: the parse and the topic
 * match every peer runs, the kernel's subscription filter among them. The
 * builders and the document header are in phyllo_doc.c. See
 * phyllo_pubsub.h for the contract.
 */
#include "phyllo_pubsub.h"

int phyllo_pubsub_parse(const uint8_t *p, uint16_t n, struct phyllo_pubsub *m)
{
	uint8_t tl;

	if (n < PHYLLO_PUBSUB_HDR)
		return PHYLLO_E_LENGTH;
	/* The reserved high bits must be 0: public peers read the byte whole. */
	if (p[1] & (uint8_t)~PHYLLO_TOPIC_LEN_MASK)
		return PHYLLO_E_TOPIC;
	tl = p[1];
	if (n < (uint16_t)(PHYLLO_PUBSUB_HDR + tl))
		return PHYLLO_E_LENGTH;
	m->type = p[0];
	m->topic_len = tl;
	m->topic = p + PHYLLO_PUBSUB_HDR;
	m->payload = m->topic + tl;
	m->len = n - PHYLLO_PUBSUB_HDR - tl;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_pubsub_parse);

bool phyllo_pubsub_topic_match(const struct phyllo_pubsub *m,
			       const uint8_t *prefix, uint8_t n)
{
	return n <= m->topic_len && (n == 0 || memcmp(m->topic, prefix, n) == 0);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_pubsub_topic_match);
