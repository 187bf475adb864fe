// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * payload.c - see payload.h.
 */
#include <string.h>
#include <stdio.h>
#include "payload.h"
#include "phyllo_tuples.h"
#include "phyllo_wire.h"

#define TAG_LEN 5
static const char tag_digits[] = "0123456789abcdefghijklmnopqrstuv";

static void tag_write(uint8_t *p, uint32_t index)
{
	int i;

	for (i = TAG_LEN - 1; i >= 0; i--, index >>= 5)
		p[i] = (uint8_t)tag_digits[index & 31];
}

static long tag_read(const uint8_t *p)
{
	long v = 0;
	int i;

	for (i = 0; i < TAG_LEN; i++) {
		const char *d = p[i] ? strchr(tag_digits, p[i]) : NULL;

		if (!d)
			return -1;
		v = v << 5 | (d - tag_digits);
	}
	return v;
}

int payload_parse(const char *s, struct payload_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	if (!strcmp(s, "small"))
		spec->kind = PAYLOAD_SMALL;
	else if (!strcmp(s, "large"))
		spec->kind = PAYLOAD_LARGE;
	else if (!strcmp(s, "very-large"))
		spec->kind = PAYLOAD_VERY_LARGE;
	else if (!strcmp(s, "counter"))
		spec->kind = PAYLOAD_COUNTER;
	else if (!strncmp(s, "hex:", 4)) {
		const char *h = s + 4;
		unsigned int byte;

		spec->kind = PAYLOAD_HEX;
		while (*h && spec->hex_len < sizeof(spec->hex)) {
			if (sscanf(h, "%2x", &byte) != 1 || !h[1])
				return -1;
			spec->hex[spec->hex_len++] = (uint8_t)byte;
			h += 2;
		}
		return *h ? -1 : 0;
	} else {
		return -1;
	}
	return 0;
}

const char *payload_name(const struct payload_spec *spec)
{
	static const char *const names[] = { "small", "large", "very-large", "counter", "hex" };

	return names[spec->kind];
}

/* Where the tag (the bytes of "hello") sits in a message. */
static uint16_t tag_offset(const struct payload_spec *spec)
{
	return spec->kind <= PAYLOAD_VERY_LARGE ? PHYLLO_TUPLE_TAG_OFFSET((uint8_t)spec->kind) : 0;
}

uint16_t payload_build(const struct payload_spec *spec, uint32_t index, uint8_t *type,
		       uint8_t *buf)
{
	uint16_t n, i;

	if (spec->kind == PAYLOAD_HEX) {
		*type = PHYLLO_TYPE_BUFFER;
		memcpy(buf, spec->hex, spec->hex_len);
		return spec->hex_len;
	}
	if (spec->kind == PAYLOAD_COUNTER) {
		*type = PHYLLO_TYPE_BUFFER;
		n = (uint16_t)(TAG_LEN + (index * 37u) % (spec->max - TAG_LEN + 1));
		for (i = TAG_LEN; i < n; i++)
			buf[i] = (uint8_t)(index + i);	/* zeros included */
		tag_write(buf, index);
		return n;
	}
	*type = PHYLLO_TYPE_PUBSUB;
	n = (uint16_t)phyllo_tuple_build((uint8_t)spec->kind, buf, PHYLLO_TUPLE_MAX);
	if (!spec->exact)
		tag_write(buf + tag_offset(spec), index);
	return n;
}

long payload_index(const struct payload_spec *spec, const uint8_t *buf, uint16_t len)
{
	uint16_t off = tag_offset(spec);

	if (spec->exact || spec->kind == PAYLOAD_HEX || len < off + TAG_LEN)
		return -1;
	return tag_read(buf + off);
}
