/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo_node.h - the device side of a link: one stack plus the endpoints.
 *
 * Shared by the bare firmware and the Arduino library; it knows no UART and
 * no clock (bytes and milliseconds come in as arguments, bytes go out through
 * the struct phyllo_out sink), so the same file serves both.
 *
 * With pub-sub on, every unit must be a pub-sub document (type 0x60, 0x40)
 * and the topic selects the endpoint:
 *   echo   the unit goes back unchanged, on the same topic
 *   ping   reply on "ping": MessagePack uint, a counter from 0
 *   blink  body is a MessagePack bool: the LED hook is called, no reply
 *   stats  reply on "stats": MessagePack array of the link counters, in the
 *          order of struct phyllo_stats (append-only)
 * Other topics go to the message hook. With pub-sub off, every unit is
 * echoed back unchanged (raw echo of byte buffers).
 *
 * Reliable replies need room in the send window. A unit that arrives while
 * it is full is refused (not acknowledged), so the peer sends it again
 * instead of its reply being lost. A peer whose window is not larger than
 * the node's never sees this: its acknowledgements make room first.
 */
#ifndef PHYLLO_NODE_H
#define PHYLLO_NODE_H

#include "phyllo_stack.h"
#include "phyllo_pubsub.h"
#include "phyllo_msgpack.h"

/* Largest reply the node builds itself (pub-sub + document headers and the
 * MessagePack body); it lives on the C stack while it is sent. */
#ifndef PHYLLO_NODE_REPLY_MAX
#define PHYLLO_NODE_REPLY_MAX 160
#endif
#if PHYLLO_NODE_REPLY_MAX < 150 || PHYLLO_NODE_REPLY_MAX > PHYLLO_RELIABLE_MAX
#error "PHYLLO_NODE_REPLY_MAX must be 150..PHYLLO_RELIABLE_MAX (the stats reply needs 150)"
#endif

struct phyllo_node;

struct phyllo_node_hooks {
	/* blink endpoint; may be NULL */
	void (*led)(void *ctx, bool on);
	/* a pub-sub message on a topic the node does not serve; may be NULL */
	void (*message)(void *ctx, struct phyllo_node *nd,
			const struct phyllo_pubsub *m, uint32_t now_ms);
	void *ctx;
};

struct phyllo_node {
	struct phyllo_stack stack;
	struct phyllo_node_hooks hooks;
	bool pubsub;           /* false: raw echo, no application layer */
	uint16_t pings;        /* ping replies sent */
	uint16_t unserved;     /* units no endpoint or hook took */
	uint16_t reply_lost;   /* replies refused by the stack (should stay 0) */
	uint16_t refused;      /* unreliable units dropped, no room to answer
	                        * (reliable ones are held back by the core) */
};

int phyllo_node_init(struct phyllo_node *nd, uint8_t preset, bool pubsub,
		     const struct phyllo_arq_config *arq_cfg,
		     const struct phyllo_out *out,
		     const struct phyllo_node_hooks *hooks,
		     uint32_t nonce, uint32_t now_ms);
/* Feed received bytes; handles at most one unit. Returns bytes consumed:
 * call again with the rest. */
uint16_t phyllo_node_feed(struct phyllo_node *nd, const uint8_t *buf, uint16_t n,
			  uint32_t now_ms);
/*
 * The same in two steps, for a caller that must release its input before
 * the reply goes out (the firmware frees UART ring space while it answers):
 * phyllo_stack_receive() on nd->stack, then this for the unit it gave.
 */
void phyllo_node_handle(struct phyllo_node *nd, const struct phyllo_unit *u,
			uint32_t now_ms);
/* Run the stack's timers; returns ms until the next call is needed. */
uint16_t phyllo_node_poll(struct phyllo_node *nd, uint32_t now_ms);
/*
 * Publish a MessagePack document (body[0..len)) on topic (NUL-terminated,
 * at most 15 bytes), reliably on the standard preset. Returns 0,
 * PHYLLO_E_AGAIN (window full: poll and retry), PHYLLO_E_TOOBIG or
 * PHYLLO_E_TOPIC.
 */
int phyllo_node_publish(struct phyllo_node *nd, const char *topic, uint8_t schema,
			const uint8_t *body, uint16_t len, uint32_t now_ms);
/*
 * The same with the body written in place, without a second buffer:
 * phyllo_node_publish_begin() puts the headers into buf (cap bytes) and
 * points *w at the room behind them (0 or PHYLLO_E_TOPIC); write the body
 * through *w, then phyllo_node_publish_end() sends buf (as above, and
 * PHYLLO_E_TOOBIG when *w ran out of room).
 */
int phyllo_node_publish_begin(uint8_t *buf, uint16_t cap, const char *topic,
			      uint8_t schema, struct phyllo_mp_writer *w);
int phyllo_node_publish_end(struct phyllo_node *nd, const uint8_t *buf,
			    const struct phyllo_mp_writer *w, uint32_t now_ms);

#endif /* PHYLLO_NODE_H */
