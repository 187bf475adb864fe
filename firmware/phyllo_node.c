// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo_node.c - endpoints of the device side (see phyllo_node.h).
 *
 * Order of work for one unit: the stack delivers at most one unit, and on
 * the standard preset only when a reply fits the send window (the reliable
 * layer's hold_until_room); dispatch it by topic, send the reply at once
 * (the unit's bytes stay valid until the next feed).
 */
#include "phyllo_node.h"
#include "phyllo_msgpack.h"

#ifdef __AVR__
#include <avr/pgmspace.h>
#else
#define PROGMEM
#define memcmp_P memcmp
#endif

/* Topic names live in flash on the AVR: RAM is the scarce resource. */
static const char topic_echo[] PROGMEM = "echo";
static const char topic_ping[] PROGMEM = "ping";
static const char topic_blink[] PROGMEM = "blink";
static const char topic_stats[] PROGMEM = "stats";

static bool topic_is(const struct phyllo_pubsub *m, const char *name, uint8_t n)
{
	return m->topic_len == n && memcmp_P(m->topic, name, n) == 0;
}

static void node_send(struct phyllo_node *nd, uint8_t type, const uint8_t *p,
		      uint16_t n, uint32_t now_ms)
{
	if (phyllo_stack_send(&nd->stack, type, p, n, true, now_ms) < 0)
		nd->reply_lost++;
}

/* Pub-sub and document headers into buf, *w at the room behind them. */
static int node_doc_begin(uint8_t *buf, uint16_t cap, const uint8_t *topic,
			  uint8_t topic_len, uint8_t schema, struct phyllo_mp_writer *w)
{
	int h = phyllo_pubsub_header(buf, cap, PHYLLO_TYPE_DOCUMENT, topic, topic_len);

	if (h < 0 || cap - h < PHYLLO_DOC_HDR)
		return h < 0 ? h : PHYLLO_E_NOSPACE;
	h += phyllo_doc_header(buf + h, PHYLLO_FORMAT_MSGPACK, schema);
	phyllo_mp_writer_init(w, buf + h, (uint16_t)(cap - h));
	return h;
}

/* Reply on the request's topic: headers into buf, body written by the
 * caller through the returned writer, then node_reply_send(). */
static int node_reply_start(uint8_t *buf, const struct phyllo_pubsub *m,
			    struct phyllo_mp_writer *w)
{
	return node_doc_begin(buf, PHYLLO_NODE_REPLY_MAX, m->topic, m->topic_len,
			      PHYLLO_SCHEMA_NONE, w);
}

static void node_reply_send(struct phyllo_node *nd, const uint8_t *buf, int h,
			    const struct phyllo_mp_writer *w, uint32_t now_ms)
{
	if (h < 0 || w->err) {
		nd->reply_lost++;
		return;
	}
	node_send(nd, PHYLLO_TYPE_PUBSUB, buf, (uint16_t)(h + w->len), now_ms);
}

static void node_ping(struct phyllo_node *nd, const struct phyllo_pubsub *m,
		      uint32_t now_ms)
{
	uint8_t buf[PHYLLO_NODE_REPLY_MAX];
	struct phyllo_mp_writer w;
	int h = node_reply_start(buf, m, &w);

	phyllo_mp_write_uint(&w, nd->pings++);
	node_reply_send(nd, buf, h, &w, now_ms);
}

static void node_stats(struct phyllo_node *nd, const struct phyllo_pubsub *m,
		       uint32_t now_ms)
{
	uint8_t buf[PHYLLO_NODE_REPLY_MAX];
	const uint8_t *field = (const uint8_t *)&nd->stack.stats;
	struct phyllo_mp_writer w;
	int h = node_reply_start(buf, m, &w);
	uint8_t i;

	phyllo_mp_write_array(&w, PHYLLO_STATS_FIELDS);
	for (i = 0; i < PHYLLO_STATS_FIELDS; i++) {
		uint32_t v;

		memcpy(&v, field + i * sizeof(v), sizeof(v));
		phyllo_mp_write_uint(&w, v);
	}
	node_reply_send(nd, buf, h, &w, now_ms);
}

static void node_blink(struct phyllo_node *nd, const struct phyllo_doc *d)
{
	struct phyllo_mp_reader r;
	struct phyllo_mp_obj o;

	phyllo_mp_reader_init(&r, d->body, d->len);
	if (phyllo_mp_read(&r, &o) < 0 || o.kind != PHYLLO_MP_BOOL) {
		nd->unserved++;
		return;
	}
	if (nd->hooks.led)
		nd->hooks.led(nd->hooks.ctx, o.b);
}

static void node_dispatch(struct phyllo_node *nd, const struct phyllo_unit *u,
			  uint32_t now_ms)
{
	struct phyllo_pubsub m;
	struct phyllo_doc d;

	if (u->type != PHYLLO_TYPE_PUBSUB || phyllo_pubsub_parse(u->data, u->len, &m) < 0 ||
	    m.type != PHYLLO_TYPE_DOCUMENT || phyllo_doc_parse(m.payload, m.len, &d) < 0) {
		nd->unserved++;
		return;
	}
	if (topic_is(&m, topic_echo, sizeof(topic_echo) - 1))
		node_send(nd, u->type, u->data, u->len, now_ms);
	else if (topic_is(&m, topic_ping, sizeof(topic_ping) - 1))
		node_ping(nd, &m, now_ms);
	else if (topic_is(&m, topic_blink, sizeof(topic_blink) - 1))
		node_blink(nd, &d);
	else if (topic_is(&m, topic_stats, sizeof(topic_stats) - 1))
		node_stats(nd, &m, now_ms);
	else if (nd->hooks.message)
		nd->hooks.message(nd->hooks.ctx, nd, &m, now_ms);
	else
		nd->unserved++;
}

int phyllo_node_init(struct phyllo_node *nd, uint8_t preset, bool pubsub,
		     const struct phyllo_arq_config *arq_cfg,
		     const struct phyllo_out *out,
		     const struct phyllo_node_hooks *hooks,
		     uint32_t nonce, uint32_t now_ms)
{
	static const struct phyllo_arq_config def = PHYLLO_ARQ_CONFIG_DEFAULT;
	struct phyllo_arq_config cfg = arq_cfg ? *arq_cfg : def;

	memset(nd, 0, sizeof(*nd));
	nd->pubsub = pubsub;
	if (hooks)
		nd->hooks = *hooks;
	/*
	 * Every unit may need a reliable reply: the reliable layer takes a
	 * unit only while the send window has room once the unit's own ACK is
	 * applied, and asks for a refused one again as soon as room appears.
	 */
	cfg.hold_until_room = true;
	return phyllo_stack_init(&nd->stack, preset, &cfg, out, nonce, now_ms);
}

void phyllo_node_handle(struct phyllo_node *nd, const struct phyllo_unit *u,
			uint32_t now_ms)
{
	if (phyllo_stack_room(&nd->stack) == 0)
		nd->refused++;	/* an unreliable unit with no room to answer */
	else if (nd->pubsub)
		node_dispatch(nd, u, now_ms);
	else
		node_send(nd, u->type, u->data, u->len, now_ms);
}

uint16_t phyllo_node_feed(struct phyllo_node *nd, const uint8_t *buf, uint16_t n,
			  uint32_t now_ms)
{
	struct phyllo_unit u = { .data = NULL };
	bool got = false;
	uint16_t used = phyllo_stack_receive(&nd->stack, buf, n, now_ms, &u, &got);

	if (got)
		phyllo_node_handle(nd, &u, now_ms);
	return used;
}

uint16_t phyllo_node_poll(struct phyllo_node *nd, uint32_t now_ms)
{
	return phyllo_stack_poll(&nd->stack, now_ms);
}

int phyllo_node_publish_begin(uint8_t *buf, uint16_t cap, const char *topic,
			      uint8_t schema, struct phyllo_mp_writer *w)
{
	size_t tlen = strlen(topic);
	int h;

	if (tlen > PHYLLO_TOPIC_MAX)
		return PHYLLO_E_TOPIC;
	h = node_doc_begin(buf, cap, (const uint8_t *)topic, (uint8_t)tlen, schema, w);
	return h < 0 ? h : 0;
}

int phyllo_node_publish_end(struct phyllo_node *nd, const uint8_t *buf,
			    const struct phyllo_mp_writer *w, uint32_t now_ms)
{
	if (w->err)
		return PHYLLO_E_TOOBIG;
	return phyllo_stack_send(&nd->stack, PHYLLO_TYPE_PUBSUB, buf,
				 (uint16_t)(w->buf - buf + w->len), true, now_ms);
}

int phyllo_node_publish(struct phyllo_node *nd, const char *topic, uint8_t schema,
			const uint8_t *body, uint16_t len, uint32_t now_ms)
{
	uint8_t buf[PHYLLO_NODE_REPLY_MAX];
	struct phyllo_mp_writer w;
	int err = phyllo_node_publish_begin(buf, sizeof(buf), topic, schema, &w);

	if (err)
		return err;
	if (len > w.cap)
		return PHYLLO_E_TOOBIG;
	memcpy(w.buf, body, len);
	w.len = len;
	return phyllo_node_publish_end(nd, buf, &w, now_ms);
}
