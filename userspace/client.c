// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * client.c - see client.h.
 */
#include <stdlib.h>
#include <string.h>
#include "client.h"
#include "util.h"
#include "phyllo_wire.h"

int client_init(struct client *c, const struct payload_spec *spec, uint64_t count,
		uint64_t window)
{
	memset(c, 0, sizeof(*c));
	c->payload = *spec;
	c->count = count;
	c->window = window;
	c->send_us = calloc(count ? count : 1, sizeof(*c->send_us));
	c->rtt_us = calloc(count ? count : 1, sizeof(*c->rtt_us));
	c->seen = calloc(count ? count : 1, 1);
	c->t_start = util_now_us();
	return c->send_us && c->rtt_us && c->seen ? 0 : -1;
}

void client_free(struct client *c)
{
	free(c->send_us);
	free(c->rtt_us);
	free(c->seen);
}

bool client_can_send(const struct client *c)
{
	return c->sent < c->count && c->sent - c->received - c->gaps < c->window;
}

uint16_t client_next(const struct client *c, uint8_t *type, uint8_t *buf)
{
	return payload_build(&c->payload, (uint32_t)c->sent, type, buf);
}

void client_sent(struct client *c)
{
	c->send_us[c->sent++] = util_now_us();
}

void client_got(struct client *c, uint8_t type, const uint8_t *data, uint16_t len)
{
	uint8_t want[PHYLLO_DATAGRAM_MAX + 8], want_type;
	long idx = payload_index(&c->payload, data, len);
	uint64_t i;

	if (c->payload.exact || c->payload.kind == PAYLOAD_HEX)
		idx = (long)c->next_expect;	/* untagged: count them in order */
	if (idx < 0 || (uint64_t)idx >= c->sent) {
		c->mismatches++;
		return;
	}
	i = (uint64_t)idx;
	if (len != payload_build(&c->payload, (uint32_t)i, &want_type, want) ||
	    type != want_type || memcmp(want, data, len)) {
		c->mismatches++;
		return;
	}
	if (c->seen[i]) {
		c->dups++;
		return;
	}
	c->seen[i] = 1;
	c->rtt_us[c->received++] = util_now_us() - c->send_us[i];
	if (i >= c->next_expect) {
		c->gaps += i - c->next_expect;	/* lost, unless they turn up late */
		c->next_expect = i + 1;
	} else {
		c->gaps--;
		c->reordered++;
	}
	if (client_done(c))
		c->t_end = util_now_us();
}

bool client_done(const struct client *c)
{
	return c->received >= c->count;
}

bool client_ok(const struct client *c)
{
	return c->received == c->count && !c->mismatches && !c->dups && !c->reordered;
}

void client_json(FILE *f, struct client *c)
{
	uint64_t end = c->t_end ? c->t_end : util_now_us();
	double secs = (double)(end - c->t_start) / 1e6;
	uint64_t p50 = util_percentile(c->rtt_us, c->received, 50);
	uint64_t p99 = util_percentile(c->rtt_us, c->received, 99);
	uint64_t max = util_percentile(c->rtt_us, c->received, 100);
	uint8_t type, buf[PHYLLO_DATAGRAM_MAX + 8];
	uint16_t bytes = payload_build(&c->payload, 0, &type, buf);

	fprintf(f, ",\"payload\":\"%s\",\"payload_bytes\":%u,\"sent\":%llu,\"received\":%llu,"
		"\"mismatches\":%llu,\"lost\":%llu,\"duplicates\":%llu,\"reordered\":%llu,"
		"\"seconds\":%.3f,\"msgs_per_s\":%.1f,\"kbytes_per_s\":%.2f,"
		"\"rtt_us\":{\"p50\":%llu,\"p99\":%llu,\"max\":%llu}",
		payload_name(&c->payload), bytes, (unsigned long long)c->sent,
		(unsigned long long)c->received, (unsigned long long)c->mismatches,
		(unsigned long long)(c->count - c->received), (unsigned long long)c->dups,
		(unsigned long long)c->reordered, secs,
		secs > 0 ? (double)c->received / secs : 0.0,
		secs > 0 ? (double)c->received * bytes / secs / 1000.0 : 0.0,
		(unsigned long long)p50, (unsigned long long)p99, (unsigned long long)max);
}
