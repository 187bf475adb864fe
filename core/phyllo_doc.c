// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo_doc.c - the document header (parse and build) and the pub-sub
 * header builder: what a peer needs to make and read documents. The
 * kernel only routes pub-sub messages (phyllo_pubsub.c) and never reads a
 * document or builds a header, so this file is not in phyllo.ko. See
 * phyllo_pubsub.h for the contract.
 */
#include "phyllo_pubsub.h"

int phyllo_doc_parse(const uint8_t *p, uint16_t n, struct phyllo_doc *d)
{
	if (n < PHYLLO_DOC_HDR)
		return PHYLLO_E_LENGTH;
	d->format = p[0];
	d->schema = p[1];
	d->body = p + PHYLLO_DOC_HDR;
	d->len = n - PHYLLO_DOC_HDR;
	return 0;
}

int phyllo_doc_header(uint8_t hdr[PHYLLO_DOC_HDR], uint8_t format, uint8_t schema)
{
	hdr[0] = format;
	hdr[1] = schema;
	return PHYLLO_DOC_HDR;
}

int phyllo_pubsub_header(uint8_t *out, uint16_t cap, uint8_t type,
			 const uint8_t *topic, uint8_t topic_len)
{
	if (topic_len > PHYLLO_TOPIC_MAX || (topic_len && !topic))
		return PHYLLO_E_TOPIC;
	if (cap < (uint16_t)(PHYLLO_PUBSUB_HDR + topic_len))
		return PHYLLO_E_NOSPACE;
	out[0] = type;
	out[1] = topic_len;
	if (topic_len)
		memcpy(out + PHYLLO_PUBSUB_HDR, topic, topic_len);
	return PHYLLO_PUBSUB_HDR + topic_len;
}
