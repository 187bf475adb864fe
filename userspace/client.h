/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * client.h - the echo benchmark client's bookkeeping, shared by
 * `phyllo peer --client` (userspace stack) and `phyllo echo` (/dev/phylloN):
 * what to send next, matching each echo to what was sent by its tag,
 * loss/duplicate/reorder counts, round-trip times, the JSON summary.
 */
#ifndef PHYLLO_CLIENT_H
#define PHYLLO_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "payload.h"

struct client {
	struct payload_spec payload;
	uint64_t count, window;
	uint64_t sent, received, mismatches, dups, reordered, next_expect, gaps;
	uint64_t *send_us, *rtt_us;
	uint8_t *seen;
	uint64_t t_start, t_end;
};

/* Returns 0, or -1 when out of memory. */
int client_init(struct client *c, const struct payload_spec *spec, uint64_t count,
		uint64_t window);
void client_free(struct client *c);
/* True while another message may go out (count and window allow it). */
bool client_can_send(const struct client *c);
/* Build the next message into buf (at least 256 bytes); returns its length.
 * Call client_sent() once it is really on its way. */
uint16_t client_next(const struct client *c, uint8_t *type, uint8_t *buf);
void client_sent(struct client *c);
/* An echo came back. */
void client_got(struct client *c, uint8_t type, const uint8_t *data, uint16_t len);
bool client_done(const struct client *c);
/* Zero lost, duplicated, reordered or wrong. */
bool client_ok(const struct client *c);
struct client_result {
	uint16_t bytes;		/* payload bytes of one message */
	double seconds, msgs_per_s, kbytes_per_s;
	uint64_t lost, p50_us, p99_us, max_us;
};

void client_result(struct client *c, struct client_result *r);
/* The client's fields of the JSON summary, each preceded by a comma. */
void client_json(FILE *f, struct client *c);

#endif
