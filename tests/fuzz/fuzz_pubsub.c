// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * fuzz_pubsub.c - libFuzzer target for the pub-sub message (0x60) and the
 * document header (0x40) of core/phyllo_pubsub.h.
 *
 * Input: a selector byte, a probe byte, up to 16 prefix bytes (count in the
 * low bits of the selector), then the message. Checked:
 *  - phyllo_pubsub_parse() accepts exactly n >= 2, topic-length byte <= 15
 *    and n >= 2 + topic length, with the documented error for each refusal;
 *    topic and payload point inside the message and add up to it;
 *  - phyllo_pubsub_header() rebuilds the header byte for byte into a buffer
 *    of exactly its size, says PHYLLO_E_NOSPACE one byte short and
 *    PHYLLO_E_TOPIC for a topic over 15 bytes, writing nothing past the
 *    buffer and reading no topic byte past what it was given;
 *  - phyllo_pubsub_topic_match() equals memcmp on the topic, for prefixes
 *    from the input and for the topic's own prefixes;
 *  - the payload as a document: phyllo_doc_parse() needs 2 bytes and points
 *    at the rest; phyllo_doc_header() rebuilds it; a MessagePack body goes
 *    through phyllo_mp_check() (fuzzed on its own in fuzz_msgpack).
 */
#include "fuzz_util.h"
#include "phyllo_pubsub.h"
#include "phyllo_msgpack.h"

#define PS_FUZZ_MAX 1024

static uint8_t msg_buf[PS_FUZZ_MAX], hdr_buf[PHYLLO_PUBSUB_HDR + PHYLLO_TOPIC_MAX];
static uint8_t prefix_buf[PHYLLO_TOPIC_MAX + 2], topic_buf[PHYLLO_TOPIC_MAX + 1];

static int ref_parse(const uint8_t *p, uint16_t n)
{
	if (n < PHYLLO_PUBSUB_HDR)
		return PHYLLO_E_LENGTH;
	if (p[1] > PHYLLO_TOPIC_MAX)
		return PHYLLO_E_TOPIC;
	return n < PHYLLO_PUBSUB_HDR + p[1] ? PHYLLO_E_LENGTH : 0;
}

static void check_header(const uint8_t *p, const struct phyllo_pubsub *m, uint8_t probe)
{
	uint16_t size = PHYLLO_PUBSUB_HDR + m->topic_len;
	uint8_t over = probe > PHYLLO_TOPIC_MAX ? probe : PHYLLO_TOPIC_MAX + 1;
	uint8_t *topic = FUZZ_TAIL_COPY(topic_buf, m->topic, m->topic_len);
	int ret = phyllo_pubsub_header(FUZZ_TAIL(hdr_buf, size), size, m->type, topic,
				       m->topic_len);

	FUZZ_CHECK(ret == size && !memcmp(FUZZ_TAIL(hdr_buf, size), p, size),
		   "header of topic length %u: %d", m->topic_len, ret);
	ret = phyllo_pubsub_header(FUZZ_TAIL(hdr_buf, size - 1), size - 1, m->type, topic,
				   m->topic_len);
	FUZZ_CHECK(ret == PHYLLO_E_NOSPACE, "header one byte short: %d", ret);
	/* A topic too long is refused before any byte of it is read. */
	ret = phyllo_pubsub_header(hdr_buf, sizeof(hdr_buf), m->type, FUZZ_TAIL(topic_buf, 1),
				   over);
	FUZZ_CHECK(ret == PHYLLO_E_TOPIC, "topic of %u bytes: %d", over, ret);
}

static void check_match(const struct phyllo_pubsub *m, const uint8_t *pre, uint8_t npre,
			uint8_t probe)
{
	uint8_t k = probe % (m->topic_len + 2), *q;
	bool want;

	q = FUZZ_TAIL_COPY(prefix_buf, pre, npre);
	want = npre <= m->topic_len && !memcmp(m->topic, q, npre);
	FUZZ_CHECK(phyllo_pubsub_topic_match(m, q, npre) == want, "prefix of %u bytes", npre);
	if (k > m->topic_len) {
		/* one byte longer than the topic, matching all of it */
		q = FUZZ_TAIL_COPY(prefix_buf, m->topic, m->topic_len);
		q = memmove(q - 1, q, m->topic_len);
		q[m->topic_len] = 'x';
		FUZZ_CHECK(!phyllo_pubsub_topic_match(m, q, k), "a prefix longer than the topic");
		return;
	}
	q = FUZZ_TAIL_COPY(prefix_buf, m->topic, k);
	FUZZ_CHECK(phyllo_pubsub_topic_match(m, q, k), "the topic's own %u-byte prefix", k);
}

static void check_doc(const uint8_t *p, uint16_t n)
{
	struct phyllo_doc d;
	uint8_t hdr[PHYLLO_DOC_HDR];
	int ret = phyllo_doc_parse(p, n, &d);

	if (n < PHYLLO_DOC_HDR) {
		FUZZ_CHECK(ret == PHYLLO_E_LENGTH, "document of %u bytes: %d", n, ret);
		return;
	}
	FUZZ_CHECK(!ret && d.format == p[0] && d.schema == p[1] && d.body == p + 2 &&
			   d.len == n - 2,
		   "document of %u bytes: %d", n, ret);
	FUZZ_CHECK(phyllo_doc_header(hdr, d.format, d.schema) == PHYLLO_DOC_HDR &&
			   !memcmp(hdr, p, 2),
		   "document header does not rebuild");
	if (d.format == PHYLLO_FORMAT_MSGPACK)
		(void)phyllo_mp_check(d.body, d.len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	uint8_t sel = fuzz_u8(&in), probe = fuzz_u8(&in), pre[PHYLLO_TOPIC_MAX + 1];
	uint8_t npre = sel % (PHYLLO_TOPIC_MAX + 2);
	struct phyllo_pubsub m;
	uint16_t n;
	uint8_t *p;
	int ret;

	fuzz_bytes(&in, pre, npre);
	n = (uint16_t)(in.n < PS_FUZZ_MAX ? in.n : PS_FUZZ_MAX);
	p = FUZZ_TAIL_COPY(msg_buf, in.p, n);
	ret = phyllo_pubsub_parse(p, n, &m);
	FUZZ_CHECK(ret == ref_parse(p, n), "parse of %u bytes: %d, reference %d", n, ret,
		   ref_parse(p, n));
	if (ret)
		return 0;
	FUZZ_CHECK(m.type == p[0] && m.topic_len == p[1] && m.topic == p + 2 &&
			   m.payload == m.topic + m.topic_len &&
			   m.len == n - PHYLLO_PUBSUB_HDR - m.topic_len,
		   "message of %u bytes: topic %u payload %u", n, m.topic_len, m.len);
	check_header(p, &m, probe);
	check_match(&m, pre, npre, probe);
	check_doc(m.payload, m.len);
	return 0;
}
