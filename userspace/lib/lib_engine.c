// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_engine.c - the protocol core on a byte stream, with its transmit
 * buffer, captures and the frame hook: the one engine that runs the core
 * in userspace (phyllo-internal.h has its contract), under libphyllo's
 * tty transport (lib_tty.c) and `phyllo peer`.
 *
 * The core writes a frame as 00, COBS pieces, 00; with a hook each one is
 * put back together first, so that the hook sees whole frames. Received
 * bytes for the hook are cut at every 00 as the core's receiver cuts them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include "lib.h"

/* Bytes into the transmit buffer, which grows as it must: the room rules
 * keep it within PHYLLO_ENGINE_TX_MAX, but for a hook releasing frames it
 * held. */
static void engine_append(struct phyllo_engine *e, const uint8_t *b, size_t n)
{
	if (e->txlen + n > e->txcap) {
		size_t cap = (e->txlen + n) * 2;
		uint8_t *tx = realloc(e->tx, cap);

		if (!tx) {
			e->error = -ENOMEM;	/* the frame is lost; said at the next flush */
			return;
		}
		e->tx = tx;
		e->txcap = cap;
	}
	memcpy(e->tx + e->txlen, b, n);
	e->txlen += n;
}

/* The core's output: to the buffer, or frame by frame to the hook. */
static void engine_out(void *ctx, const uint8_t *b, uint16_t n)
{
	struct phyllo_engine *e = ctx;

	phyllo_capture_bytes(e->cap, PHYLLO_CAPTURE_OUT, b, n);
	if (!e->hook) {
		engine_append(e, b, n);
		return;
	}
	if (e->txframe_len + n > sizeof(e->txframe))
		abort();	/* the core never writes more than PHYLLO_WIRE_MAX */
	memcpy(e->txframe + e->txframe_len, b, n);
	e->txframe_len += n;
	if (n == 1 && b[0] == 0 && e->txframe_len > 1) {
		e->hook->frame(e->hook->ctx, PHYLLO_ENGINE_TX, e->txframe, e->txframe_len, e->now);
		e->txframe_len = 0;
	}
}

void phyllo_engine_events(struct phyllo_engine *e)
{
	uint8_t ev = phyllo_stack_take_events(&e->st);

	if (ev)
		e->ops->events(e->ctx, ev);
}

/* Bytes into the core, the unit of each step first, then its events. */
static void engine_core_feed(struct phyllo_engine *e, const uint8_t *b, uint16_t n)
{
	uint16_t used = 0;

	phyllo_capture_bytes(e->cap, PHYLLO_CAPTURE_IN, b, n);
	while (used < n) {
		struct phyllo_unit u;
		bool got;

		used += phyllo_stack_receive(&e->st, b + used, (uint16_t)(n - used), e->now, &u,
					     &got);
		if (e->halted)
			continue;
		/* the unit first: a refusal must come before anything is sent */
		if (got)
			e->ops->unit(e->ctx, &u);
		phyllo_engine_events(e);
	}
}

void phyllo_engine_pass(struct phyllo_engine *e, enum phyllo_engine_dir dir,
			const uint8_t *frame, uint16_t n)
{
	if (dir == PHYLLO_ENGINE_TX)
		engine_append(e, frame, n);
	else
		engine_core_feed(e, frame, n);
}

/* One byte for the hook: whole frames go to it; a chunk too long to be a
 * frame goes to the core as it is, to be counted. */
static void engine_hook_byte(struct phyllo_engine *e, uint8_t b)
{
	if (b != 0 && e->rx_overlong) {
		engine_core_feed(e, &b, 1);
	} else if (b != 0 && e->rxchunk_len < PHYLLO_CHUNK_MAX) {
		e->rxchunk[1 + e->rxchunk_len++] = b;
	} else if (b != 0) {
		e->rx_overlong = true;
		e->rxchunk[0] = 0;
		engine_core_feed(e, e->rxchunk, (uint16_t)(1 + e->rxchunk_len));
		engine_core_feed(e, &b, 1);
	} else if (e->rx_overlong) {
		engine_core_feed(e, &b, 1);
		e->rx_overlong = false;
		e->rxchunk_len = 0;
	} else if (e->rxchunk_len) {
		e->rxchunk[0] = 0;
		e->rxchunk[1 + e->rxchunk_len] = 0;
		e->hook->frame(e->hook->ctx, PHYLLO_ENGINE_RX, e->rxchunk,
			       (uint16_t)(e->rxchunk_len + 2), e->now);
		e->rxchunk_len = 0;
	}
}

void phyllo_engine_feed(struct phyllo_engine *e, const uint8_t *b, size_t n, uint32_t now)
{
	size_t i;

	e->now = now;
	if (!e->hook || !e->hook->rx) {
		while (n) {
			uint16_t k = n > 4096 ? 4096 : (uint16_t)n;

			engine_core_feed(e, b, k);
			b += k;
			n -= k;
		}
		return;
	}
	for (i = 0; i < n && !e->halted; i++)
		engine_hook_byte(e, b[i]);
}

long phyllo_engine_read(struct phyllo_engine *e, uint32_t now)
{
	uint8_t buf[4096];
	ssize_t r = read(e->rfd, buf, sizeof(buf));

	if (r > 0) {
		phyllo_engine_feed(e, buf, (size_t)r, now);
		return r;
	}
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	return -1;	/* EOF, or EIO: the other end hung up */
}

bool phyllo_engine_room(const struct phyllo_engine *e, size_t need)
{
	return e->txlen + (e->hook ? 2 * need : need) <= PHYLLO_ENGINE_TX_MAX;
}

int phyllo_engine_poll(struct phyllo_engine *e, uint32_t now)
{
	int next;

	e->now = now;
	if (e->st.preset != PHYLLO_PRESET_STANDARD ||
	    !phyllo_engine_room(e, PHYLLO_STACK_POLL_OUT_MAX))
		return -1;
	next = phyllo_stack_poll(&e->st, now);
	phyllo_engine_events(e);
	return next;
}

int phyllo_engine_send(struct phyllo_engine *e, uint8_t type, const uint8_t *data,
		       uint16_t len, bool reliable, uint32_t now)
{
	e->now = now;
	if (!phyllo_engine_room(e, PHYLLO_WIRE_MAX))
		return PHYLLO_E_AGAIN;
	return phyllo_stack_send(&e->st, type, data, len, reliable, now);
}

int phyllo_engine_flush(struct phyllo_engine *e)
{
	if (e->error) {
		errno = -e->error;
		return e->error;
	}
	while (e->txlen) {
		ssize_t w = write(e->wfd, e->tx, e->txlen);

		if (w < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		memmove(e->tx, e->tx + w, e->txlen - (size_t)w);
		e->txlen -= (size_t)w;
	}
	return 0;
}

int phyllo_engine_init(struct phyllo_engine *e, uint8_t preset,
		       const struct phyllo_arq_config *cfg, const struct phyllo_engine_ops *ops, void *ctx,
		       const struct phyllo_engine_hook *hook, uint32_t now)
{
	struct phyllo_out out = { engine_out, e };
	uint32_t nonce;

	memset(e, 0, sizeof(*e));
	e->rfd = e->wfd = -1;
	e->ops = ops;
	e->ctx = ctx;
	e->hook = hook;
	e->now = now;
	if (getrandom(&nonce, sizeof(nonce), 0) != sizeof(nonce))
		nonce = (uint32_t)getpid() ^ now;
	return phyllo_stack_init(&e->st, preset, cfg, &out, nonce, now);
}

void phyllo_engine_free(struct phyllo_engine *e)
{
	free(e->tx);
	e->tx = NULL;
	e->txlen = e->txcap = 0;
}
