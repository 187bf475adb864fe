// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * client.c - see client.h.
 */
#include <stdlib.h>
#include <string.h>
#include "client.h"
#include "util.h"
#include "phyllo_wire.h"

enum { CLIENT_UNSEEN, CLIENT_SEEN, CLIENT_LOST };

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
	return c->sent < c->count &&
	       c->sent - c->received - c->gaps - c->reset_lost < c->window;
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
	if (c->seen[i] == CLIENT_LOST) {
		c->late++;	/* declared lost to a reset, yet here */
		return;
	}
	if (c->seen[i]) {
		c->dups++;
		return;
	}
	c->seen[i] = CLIENT_SEEN;
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

uint64_t client_reset(struct client *c, uint64_t unsent)
{
	uint64_t end = unsent < c->sent ? c->sent - unsent : 0, i, n = 0;

	c->resets++;
	for (i = c->next_expect; i < end; i++) {
		c->seen[i] = CLIENT_LOST;
		n++;
	}
	if (end > c->next_expect)
		c->next_expect = end;
	c->reset_lost += n;
	if (client_done(c) && !c->t_end)
		c->t_end = util_now_us();
	return n;
}

bool client_done(const struct client *c)
{
	return c->received + c->reset_lost >= c->count;
}

bool client_ok(const struct client *c)
{
	return c->received + c->reset_lost == c->count && !c->mismatches && !c->dups &&
	       !c->reordered && !c->late;
}

void client_result(struct client *c, struct client_result *r)
{
	uint64_t end = c->t_end ? c->t_end : util_now_us();
	uint8_t type, buf[PHYLLO_DATAGRAM_MAX + 8];

	r->bytes = payload_build(&c->payload, 0, &type, buf);
	r->seconds = (double)(end - c->t_start) / 1e6;
	r->msgs_per_s = r->seconds > 0 ? (double)c->received / r->seconds : 0.0;
	r->kbytes_per_s = r->msgs_per_s * r->bytes / 1000.0;
	/* Lost: a later echo came back, this one did not. A run that ends
	 * early (time-out, interrupt, hang-up) leaves the rest pending, and
	 * what it never sent is neither. */
	r->lost = c->gaps;
	r->pending = c->sent - c->received - c->reset_lost - c->gaps;
	r->unsent = c->count - c->sent;
	r->p50_us = util_percentile(c->rtt_us, c->received, 50);
	r->p99_us = util_percentile(c->rtt_us, c->received, 99);
	r->max_us = util_percentile(c->rtt_us, c->received, 100);
}

void client_json(FILE *f, struct client *c)
{
	struct client_result r;

	client_result(c, &r);
	fprintf(f, ",\"window\":%llu", (unsigned long long)c->window);
	fprintf(f, ",\"payload\":\"%s\",\"payload_bytes\":%u,\"sent\":%llu,\"received\":%llu,"
		"\"mismatches\":%llu,\"lost\":%llu,\"duplicates\":%llu,\"reordered\":%llu,"
		"\"reset_lost\":%llu,\"late\":%llu,\"pending\":%llu,\"unsent\":%llu,"
		"\"seconds\":%.3f,\"msgs_per_s\":%.1f,\"kbytes_per_s\":%.2f,"
		"\"rtt_us\":{\"p50\":%llu,\"p99\":%llu,\"max\":%llu}",
		payload_name(&c->payload), r.bytes, (unsigned long long)c->sent,
		(unsigned long long)c->received, (unsigned long long)c->mismatches,
		(unsigned long long)r.lost, (unsigned long long)c->dups,
		(unsigned long long)c->reordered, (unsigned long long)c->reset_lost,
		(unsigned long long)c->late, (unsigned long long)r.pending,
		(unsigned long long)r.unsent,
		r.seconds, r.msgs_per_s, r.kbytes_per_s,
		(unsigned long long)r.p50_us, (unsigned long long)r.p99_us,
		(unsigned long long)r.max_us);
}

void client_progress(FILE *f, const struct client *c)
{
	int width = 40, done = (int)(c->received * (uint64_t)width / (c->count ? c->count : 1));
	int i;

	fputs("\r[", f);
	for (i = 0; i < width; i++)
		fputc(i < done ? '#' : ' ', f);
	fprintf(f, "] %llu/%llu", (unsigned long long)c->received, (unsigned long long)c->count);
	if (c->received) {
		double s = (double)(util_now_us() - c->t_start) / 1e6;
		double rate = s > 0 ? (double)c->received / s : 0;

		if (rate > 0)
			fprintf(f, ", %.1f/s, ETA %.0f s ", rate,
				(double)(c->count - c->received) / rate);
	}
	if (c->resets)
		fprintf(f, ", %llu session resets", (unsigned long long)c->resets);
	fflush(f);
}
