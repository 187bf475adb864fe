// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * stale_unit.c - a reproducer for the core (make soak-stale-unit), not
 * part of make check: a data unit of a peer's old session, delivered after
 * the SYN of its new one (one frame reordered across a restart), is taken
 * as the new session's unit with the same sequence number; the new
 * session's real unit is then dropped as a duplicate and acknowledged, so
 * its sender retires it: lost, with no loss counted anywhere.
 *
 * A serial line never reorders, so there it cannot happen; the fault
 * injector's --delay (a frame overtaken by four others at most) can, and
 * that is why the soak test leaves --delay out. Exits 0 when the new
 * unit arrives, 1 when it is lost (the behaviour this was written for).
 */
#include <stdio.h>
#include <string.h>
#include "phyllo_arq.h"

#define QUEUE_MAX 16

/* Frames one side wrote, each a reliable-buffer payload (header + body). */
struct queue {
	uint8_t frame[QUEUE_MAX][PHYLLO_RELIABLE_HDR + PHYLLO_RELIABLE_MAX + 9];
	uint16_t len[QUEUE_MAX];
	unsigned int n;
};

static void queue_send(void *ctx, const uint8_t *hdr, uint8_t nhdr, const uint8_t *body,
		       uint16_t nbody)
{
	struct queue *q = ctx;

	if (q->n == QUEUE_MAX)
		return;
	memcpy(q->frame[q->n], hdr, nhdr);
	if (nbody)
		memcpy(q->frame[q->n] + nhdr, body, nbody);
	q->len[q->n++] = (uint16_t)(nhdr + nbody);
}

static unsigned int got_new;

/* Deliver every frame of q to `to`, in order, and empty q. */
static void deliver(struct phyllo_arq *to, struct queue *q, const char *who)
{
	struct phyllo_unit u;
	unsigned int i;

	for (i = 0; i < q->n; i++) {
		int r = phyllo_arq_receive(to, q->frame[i], q->len[i], 0, &u);

		if (r == 1) {
			printf("  %s takes unit '%.*s'\n", who, u.len, (const char *)u.data);
			got_new += u.len == 3 && !memcmp(u.data, "new", 3);
		} else if (r < 0) {
			printf("  %s drops a frame (error %d)\n", who, r);
		}
	}
	q->n = 0;
}

int main(void)
{
	static struct phyllo_arq a, b1, b2;
	static struct phyllo_stats sa, sb1, sb2;
	static struct queue qa, qb1, qb2, late;
	struct phyllo_arq_config cfg = PHYLLO_ARQ_CONFIG_DEFAULT;
	struct phyllo_arq_link la = { queue_send, &qa }, l1 = { queue_send, &qb1 },
			       l2 = { queue_send, &qb2 };
	int i;

	phyllo_arq_init(&a, &cfg, &la, &sa, 0x1111);
	phyllo_arq_init(&b1, &cfg, &l1, &sb1, 0x2222);
	for (i = 0; i < 2; i++) {	/* SYNs cross, both open */
		phyllo_arq_poll(&a, 0);
		phyllo_arq_poll(&b1, 0);
		deliver(&b1, &qa, "B1");
		deliver(&a, &qb1, "A");
	}
	printf("A and B1 open: %d\n", a.state == PHYLLO_ARQ_OPEN && b1.state == PHYLLO_ARQ_OPEN);
	phyllo_arq_send(&b1, 0x10, (const uint8_t *)"old", 3, 0);
	late = qb1;		/* B1's unit, seq 0, held back on the way */
	qb1.n = 0;
	printf("B1 restarts as B2 (new nonce); B1's unit arrives after B2's SYN:\n");
	phyllo_arq_init(&b2, &cfg, &l2, &sb2, 0x3333);
	phyllo_arq_poll(&b2, 0);
	deliver(&a, &qb2, "A");		/* SYN: A counts a peer restart, reopens */
	phyllo_arq_poll(&a, 0);
	deliver(&b2, &qa, "B2");	/* SYN|ACK: B2 opens */
	deliver(&a, &late, "A");	/* the old unit, late */
	phyllo_arq_send(&b2, 0x10, (const uint8_t *)"new", 3, 1);
	deliver(&a, &qb2, "A");
	phyllo_arq_poll(&a, 10);
	deliver(&b2, &qa, "B2");
	printf("B2 sent 1 unit, %u retired as acknowledged; A took 'new': %s\n",
	       b2.tx_retired_total - sb2.tx_reset_lost, got_new ? "yes" : "NO (lost)");
	return got_new ? 0 : 1;
}
