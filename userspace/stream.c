// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * stream.c - see stream.h.
 */
#include <stdlib.h>
#include <string.h>
#include "stream.h"
#include "util.h"

int stream_init(struct stream *s, const struct payload_spec *spec, uint64_t count,
		uint64_t interval_ms, uint32_t retired_now)
{
	memset(s, 0, sizeof(*s));
	s->payload = *spec;
	s->count = count;
	s->interval_us = interval_ms * 1000;
	s->retired_base = retired_now;
	s->send_us = calloc(count ? count : 1, sizeof(*s->send_us));
	s->ack_us = calloc(count ? count : 1, sizeof(*s->ack_us));
	return s->send_us && s->ack_us ? 0 : -1;
}

void stream_free(struct stream *s)
{
	free(s->send_us);
	free(s->ack_us);
}

bool stream_due(const struct stream *s, uint64_t now_us)
{
	return s->sent < s->count && now_us >= s->next_us;
}

uint16_t stream_next(const struct stream *s, uint8_t *type, uint8_t *buf)
{
	return payload_build(&s->payload, (uint32_t)s->sent, type, buf);
}

void stream_sent(struct stream *s, uint16_t bytes, uint64_t now_us)
{
	if (!s->sent)
		s->t_first = now_us;
	s->send_us[s->sent++] = now_us;
	s->bytes += bytes;
	s->next_us = (s->next_us ? s->next_us : now_us) + s->interval_us;
}

void stream_retired(struct stream *s, uint32_t retired, uint64_t now_us)
{
	uint64_t done = (uint32_t)(retired - s->retired_base);

	while (s->done < done && s->done < s->sent) {
		s->ack_us[s->acked++] = now_us - s->send_us[s->done++];
		s->t_last = now_us;
	}
}

void stream_lost(struct stream *s, uint64_t n)
{
	if (n > s->sent - s->done)
		n = s->sent - s->done;
	s->done += n;
	s->lost += n;
}

bool stream_done(const struct stream *s)
{
	return s->done >= s->count;
}

void stream_json(FILE *f, struct stream *s)
{
	double secs = (double)(s->t_last - s->t_first) / 1e6;

	fprintf(f, ",\"payload\":\"%s\",\"sent\":%llu,\"acked\":%llu,\"reset_lost\":%llu,"
		"\"seconds\":%.3f,\"goodput_kbytes_per_s\":%.2f,"
		"\"ack_us\":{\"p50\":%llu,\"p99\":%llu,\"max\":%llu}",
		payload_name(&s->payload), (unsigned long long)s->sent,
		(unsigned long long)s->acked, (unsigned long long)s->lost, secs,
		secs > 0 ? (double)s->bytes / secs / 1000.0 : 0.0,
		(unsigned long long)util_percentile(s->ack_us, s->acked, 50),
		(unsigned long long)util_percentile(s->ack_us, s->acked, 99),
		(unsigned long long)util_percentile(s->ack_us, s->acked, 100));
}
