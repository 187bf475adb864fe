// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * test_layers.c - datagram, validated datagram, document and pub-sub
 * headers: the docs/protocol.md examples both ways, and every malformed input.
 */
#include <string.h>
#include "ptest.h"
#include "phyllo_datagram.h"
#include "phyllo_pubsub.h"
#include "phyllo_vectors.h"

static const uint8_t payload5[] = { 0x01, 0x02, 0x03, 0x04, 0x00 };

static void datagram_parses_example(void)
{
	struct phyllo_unit u;

	PTEST_EXPECT_EQ(phyllo_datagram_parse(phyllo_vec_datagram, sizeof(phyllo_vec_datagram), &u), 0);
	PTEST_EXPECT_EQ(u.type, 0x10);
	PTEST_EXPECT_EQ(u.len, 5);
	PTEST_EXPECT_MEM(u.data, payload5, 5);
}

static void datagram_header_builds_example(void)
{
	uint8_t hdr[2];

	PTEST_EXPECT_EQ(phyllo_datagram_header(hdr, 0x10, 5), 2);
	PTEST_EXPECT_MEM(hdr, phyllo_vec_datagram, 2);
	PTEST_EXPECT_EQ(phyllo_datagram_header(hdr, 0x10, 252), 2);
	PTEST_EXPECT_EQ(phyllo_datagram_header(hdr, 0x10, 253), PHYLLO_E_TOOBIG);
}

static void datagram_rejects_wrong_length(void)
{
	struct phyllo_unit u;

	PTEST_EXPECT_EQ(phyllo_datagram_parse(phyllo_vec_datagram, 6, &u), PHYLLO_E_LENGTH);
	PTEST_EXPECT_EQ(phyllo_datagram_parse(phyllo_vec_datagram, 1, &u), PHYLLO_E_LENGTH);
	PTEST_EXPECT_EQ(phyllo_datagram_parse(phyllo_vec_datagram, 0, &u), PHYLLO_E_LENGTH);
	PTEST_EXPECT_EQ(phyllo_datagram_parse(phyllo_vec_validated, 10, &u), PHYLLO_E_LENGTH);
}

static void validated_parses_example(void)
{
	struct phyllo_unit u;

	PTEST_EXPECT_EQ(phyllo_validated_parse(phyllo_vec_validated, sizeof(phyllo_vec_validated), &u), 0);
	PTEST_EXPECT_EQ(u.type, 0x10);
	PTEST_EXPECT_EQ(u.len, 5);
	PTEST_EXPECT_MEM(u.data, payload5, 5);
}

static void validated_header_builds_example(void)
{
	uint8_t hdr[5 + 4];

	PTEST_EXPECT_EQ(phyllo_validated_header(hdr, 0x10, 0, payload5, 5), 5);
	PTEST_EXPECT_MEM(hdr, phyllo_vec_validated, 5);
	/* the reliable example: its header as "pre", right behind, and the
	 * payload as body; pre is left as it was */
	memcpy(hdr + 5, phyllo_vec_reliable, 4);
	PTEST_EXPECT_EQ(phyllo_validated_header(hdr, 0x23, 4, phyllo_vec_reliable + 4, 3), 5);
	PTEST_EXPECT_MEM(hdr, phyllo_vec_reliable_frame + 2, 5);
	PTEST_EXPECT_MEM(hdr + 5, phyllo_vec_reliable, 4);
	PTEST_EXPECT_EQ(phyllo_validated_header(hdr, 0x10, 0, payload5, 248), PHYLLO_E_TOOBIG);
}

static void validated_rejects_bad_crc_and_truncation(void)
{
	uint8_t frame[sizeof(phyllo_vec_validated)];
	struct phyllo_unit u;
	unsigned int i;

	/* every single-bit error is caught */
	for (i = 0; i < sizeof(frame) * 8; i++) {
		memcpy(frame, phyllo_vec_validated, sizeof(frame));
		frame[i / 8] ^= (uint8_t)(1 << (i % 8));
		PTEST_EXPECT_EQ(phyllo_validated_parse(frame, sizeof(frame), &u), PHYLLO_E_CRC);
	}
	PTEST_EXPECT_EQ(phyllo_validated_parse(phyllo_vec_validated, 4, &u), PHYLLO_E_LENGTH);
	PTEST_EXPECT_EQ(phyllo_validated_parse(phyllo_vec_validated, 9, &u), PHYLLO_E_CRC);
}

static void document_parses_and_builds_example(void)
{
	struct phyllo_doc d;
	uint8_t hdr[2];

	PTEST_EXPECT_EQ(phyllo_doc_parse(phyllo_vec_document, sizeof(phyllo_vec_document), &d), 0);
	PTEST_EXPECT_EQ(d.format, PHYLLO_FORMAT_MSGPACK);
	PTEST_EXPECT_EQ(d.schema, PHYLLO_SCHEMA_STRING8);
	PTEST_EXPECT_EQ(d.len, 5);
	PTEST_EXPECT_MEM(d.body, "\xA4" "abcd", 5);
	PTEST_EXPECT_EQ(phyllo_doc_header(hdr, 0x11, 0x11), 2);
	PTEST_EXPECT_MEM(hdr, phyllo_vec_document, 2);
	PTEST_EXPECT_EQ(phyllo_doc_parse(phyllo_vec_document, 1, &d), PHYLLO_E_LENGTH);
}

static void pubsub_parses_example(void)
{
	struct phyllo_pubsub m;

	PTEST_EXPECT_EQ(phyllo_pubsub_parse(phyllo_vec_pubsub, sizeof(phyllo_vec_pubsub), &m), 0);
	PTEST_EXPECT_EQ(m.type, 0x10);
	PTEST_EXPECT_EQ(m.topic_len, 2);
	PTEST_EXPECT_MEM(m.topic, "01", 2);
	PTEST_EXPECT_EQ(m.len, 5);
	PTEST_EXPECT_MEM(m.payload, payload5, 5);
	PTEST_EXPECT(phyllo_pubsub_topic_match(&m, (const uint8_t *)"0", 1));
	PTEST_EXPECT(phyllo_pubsub_topic_match(&m, NULL, 0));
	PTEST_EXPECT(!phyllo_pubsub_topic_match(&m, (const uint8_t *)"012", 3));
	PTEST_EXPECT(!phyllo_pubsub_topic_match(&m, (const uint8_t *)"1", 1));
}

static void pubsub_header_builds_example(void)
{
	uint8_t out[20];

	PTEST_EXPECT_EQ(phyllo_pubsub_header(out, sizeof(out), 0x10, (const uint8_t *)"01", 2), 4);
	PTEST_EXPECT_MEM(out, phyllo_vec_pubsub, 4);
	PTEST_EXPECT_EQ(phyllo_pubsub_header(out, sizeof(out), 0x40,
					     (const uint8_t *)"0123456789abcdef", 16), PHYLLO_E_TOPIC);
	PTEST_EXPECT_EQ(phyllo_pubsub_header(out, sizeof(out), 0x40,
					     (const uint8_t *)"0123456789abcde", 15), 17);
	PTEST_EXPECT_EQ(phyllo_pubsub_header(out, 3, 0x40, (const uint8_t *)"ab", 2),
			PHYLLO_E_NOSPACE);
}

static void pubsub_rejects_topic_over_15_and_truncation(void)
{
	struct phyllo_pubsub m;
	uint8_t bad[] = { 0x40, 0x12, 'a', 'b', 0x00 };

	PTEST_EXPECT_EQ(phyllo_pubsub_parse(bad, sizeof(bad), &m), PHYLLO_E_TOPIC);
	bad[1] = 0x10;	/* 16 as a whole byte */
	PTEST_EXPECT_EQ(phyllo_pubsub_parse(bad, sizeof(bad), &m), PHYLLO_E_TOPIC);
	bad[1] = 0x05;	/* topic runs past the end */
	PTEST_EXPECT_EQ(phyllo_pubsub_parse(bad, sizeof(bad), &m), PHYLLO_E_LENGTH);
	PTEST_EXPECT_EQ(phyllo_pubsub_parse(bad, 1, &m), PHYLLO_E_LENGTH);
	bad[1] = 0x03;	/* topic exactly to the end, empty payload */
	PTEST_EXPECT_EQ(phyllo_pubsub_parse(bad, sizeof(bad), &m), 0);
	PTEST_EXPECT_EQ(m.len, 0);
}

static const struct ptest_case layer_cases[] = {
	PTEST_CASE(datagram_parses_example),
	PTEST_CASE(datagram_header_builds_example),
	PTEST_CASE(datagram_rejects_wrong_length),
	PTEST_CASE(validated_parses_example),
	PTEST_CASE(validated_header_builds_example),
	PTEST_CASE(validated_rejects_bad_crc_and_truncation),
	PTEST_CASE(document_parses_and_builds_example),
	PTEST_CASE(pubsub_parses_example),
	PTEST_CASE(pubsub_header_builds_example),
	PTEST_CASE(pubsub_rejects_topic_over_15_and_truncation),
};

PTEST_SUITE(phyllo_suite_layers, "phyllo_layers", layer_cases);
