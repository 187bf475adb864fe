/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * client.h - the echo benchmark client's bookkeeping, shared by
 * `phyllo peer --client` (userspace stack) and `phyllo echo` (/dev/phylloN):
 * what to send next, matching each echo to what was sent by its tag,
 * loss/duplicate/reorder counts, round-trip times, the JSON summary.
 *
 * Session resets: when the link says a session ended, client_reset() is
 * told how many of the newest units the stack still holds unsent (they go
 * out in the next session). Every unit before those and after the last
 * echo received is then lost to the reset: its echo can no longer come
 * back (the old session's frames all arrived before the news of the new
 * one). Such units are counted apart (reset_lost); one that turns up all
 * the same is an error (late). Any other missing unit is a loss.
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
	uint64_t resets, reset_lost, late;
	uint64_t *send_us, *rtt_us;
	uint8_t *seen;		/* per unit: CLIENT_UNSEEN, _SEEN or _LOST */
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
/* The session ended; the stack keeps its `unsent` newest units for the
 * next one. Returns the units lost to the reset. */
uint64_t client_reset(struct client *c, uint64_t unsent);
/* An echo came back. */
void client_got(struct client *c, uint8_t type, const uint8_t *data, uint16_t len);
bool client_done(const struct client *c);
/* Zero lost (but to a reset), duplicated, reordered, late or wrong. */
bool client_ok(const struct client *c);
struct client_result {
	uint16_t bytes;		/* payload bytes of one message */
	double seconds, msgs_per_s, kbytes_per_s;
	uint64_t lost;		/* missing while a later echo came back, not
				 * counting units lost to a reset */
	uint64_t pending;	/* sent, no echo yet when the run ended */
	uint64_t unsent;	/* never sent (the run ended early) */
	uint64_t p50_us, p99_us, max_us;
};

void client_result(struct client *c, struct client_result *r);
/* The client's fields of the JSON summary, each preceded by a comma. */
void client_json(FILE *f, struct client *c);
/* One progress line for a terminal: "\r[####    ] received/count", the
 * rate so far and the time left at that rate. */
void client_progress(FILE *f, const struct client *c);

#endif
