// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bridge_map.c - phyllo-bridge's topic map, payload conversion and
 * bounded queue (contract in bridge.h). The JSON <-> MessagePack
 * conversion is libphyllo's (userspace/lib/json.c), the one `phyllo pub`
 * and `phyllo sub` use, so a value reads the same on the board, in the
 * tool and on the broker.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bridge.h"
#include "libphyllo.h"

int phyllo_bridge_topic(const struct phyllo_bridge_conf *c, const char *what, char *out,
			size_t cap)
{
	int n = snprintf(out, cap, "%s/%s/%s", c->prefix, c->name, what);

	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

static int word_is(const char *t, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(t, w, n) && (t[n] == '\0' || t[n] == '/');
}

int phyllo_bridge_topic_out(const struct phyllo_bridge_conf *c, const char *board_topic,
			    char *out, size_t cap)
{
	if (word_is(board_topic, "cmd") || word_is(board_topic, "bridge") ||
	    !strcmp(board_topic, "status") || strpbrk(board_topic, "+#"))
		return -1;
	return phyllo_bridge_topic(c, board_topic, out, cap);
}

int phyllo_bridge_ha_config(const struct phyllo_bridge_conf *c, unsigned int i, char *topic,
			    size_t tcap, char *out, size_t cap)
{
	const char *t = c->ha_sensors[i];
	int n;

	n = snprintf(topic, tcap, "%s/sensor/phyllo_%s_%s/config", c->ha_prefix, c->name, t);
	if (n < 0 || (size_t)n >= tcap)
		return -1;
	n = snprintf(out, cap, "{\"name\":\"%s %s\",\"unique_id\":\"phyllo_%s_%s\","
		     "\"state_topic\":\"%s/%s/%s\",\"availability_topic\":\"%s/%s/status\","
		     "\"device\":{\"identifiers\":[\"phyllo_%s\"],\"name\":\"phyllo %s\"}}",
		     c->name, t, c->name, t, c->prefix, c->name, t, c->prefix, c->name, c->name,
		     c->name);
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

int phyllo_bridge_filter_match(const char *f, const char *t)
{
	size_t lf, lt;

	/* the $ topics are matched only by filters that name them */
	if (*t == '$' && (*f == '+' || *f == '#'))
		return 0;
	for (;;) {
		if (!strcmp(f, "#"))
			return 1;
		lf = strcspn(f, "/");
		lt = strcspn(t, "/");
		if (!(lf == 1 && *f == '+') && (lf != lt || strncmp(f, t, lf)))
			return 0;
		f += lf, t += lt;
		if (!*f && !*t)
			return 1;
		if (*f && !*t)	/* "a/#" matches "a" too */
			return !strcmp(f, "/#");
		if (!*f)
			return 0;
		f++, t++;
	}
}

int phyllo_bridge_topic_in(const struct phyllo_bridge_conf *c, const char *mqtt_topic,
			   char *board_topic, size_t cap)
{
	char own[PHYLLO_BRIDGE_MQTT_TOPIC_MAX];
	size_t n;
	unsigned int i;

	if (phyllo_bridge_topic(c, "", own, sizeof(own)))
		return -1;
	n = strlen(own);
	if (!strncmp(mqtt_topic, own, n)) {
		/* the bridge's own namespace: only commands go down, never
		 * anything it published itself */
		if (strncmp(mqtt_topic + n, "cmd/", 4))
			return -1;
		mqtt_topic += n + 4;
		if (strlen(mqtt_topic) > PHYLLO_BRIDGE_TOPIC_MAX || strlen(mqtt_topic) >= cap)
			return -1;
		strcpy(board_topic, mqtt_topic);
		return 0;
	}
	for (i = 0; i < c->n_imports; i++)
		if (phyllo_bridge_filter_match(c->imports[i].filter, mqtt_topic)) {
			if (strlen(c->imports[i].topic) >= cap)
				return -1;
			strcpy(board_topic, c->imports[i].topic);
			return 0;
		}
	return -1;
}

static int hex_string(const uint8_t *in, size_t len, char *out, size_t cap)
{
	size_t i;

	if (2 * len + 5 > cap)
		return -1;
	out[0] = '"', out[1] = '0', out[2] = 'x';
	for (i = 0; i < len; i++)
		sprintf(out + 3 + 2 * i, "%02x", in[i]);
	out[3 + 2 * len] = '"';
	out[4 + 2 * len] = '\0';
	return (int)(4 + 2 * len);
}

int phyllo_bridge_payload_out(const struct phyllo_bridge_conf *c, bool msgpack,
			      const uint8_t *in, size_t len, char *out, size_t cap)
{
	int n;

	if (c->payload == PHYLLO_BRIDGE_RAW) {
		if (len > cap)
			return -1;
		if (len)
			memcpy(out, in, len);
		return (int)len;
	}
	if (!msgpack)	/* not a MessagePack document: its bytes, as bin shows */
		return hex_string(in, len, out, cap);
	n = phyllo_msgpack_to_json(in, len, out, cap);
	return n < 0 ? -1 : n;
}

int phyllo_bridge_payload_in(const struct phyllo_bridge_conf *c, const void *in, size_t len,
			     uint8_t *out, size_t cap, char *err, size_t errlen)
{
	char text[PHYLLO_BRIDGE_JSON_MAX + 1];
	int n;

	if (c->payload == PHYLLO_BRIDGE_RAW) {
		if (len > cap) {
			snprintf(err, errlen, "%zu bytes, over the link's %zu", len, cap);
			return -1;
		}
		if (len)
			memcpy(out, in, len);
		return (int)len;
	}
	if (len > PHYLLO_BRIDGE_JSON_MAX) {
		snprintf(err, errlen, "%zu bytes of JSON, over %d", len, PHYLLO_BRIDGE_JSON_MAX);
		return -1;
	}
	if (memchr(in, '\0', len)) {
		snprintf(err, errlen, "a NUL byte in the JSON text");
		return -1;
	}
	if (len)
		memcpy(text, in, len);
	text[len] = '\0';
	n = phyllo_json_to_msgpack(text, out, cap, err, errlen);
	if (n == -EMSGSIZE)
		snprintf(err, errlen, "the MessagePack form is over the link's %zu bytes", cap);
	return n < 0 ? -1 : n;
}

int phyllo_bridge_queue_init(struct phyllo_bridge_queue *q, unsigned int cap)
{
	q->slot = calloc(cap, sizeof(*q->slot));
	q->cap = cap;
	q->head = q->count = 0;
	return q->slot ? 0 : -1;
}

void phyllo_bridge_queue_free(struct phyllo_bridge_queue *q)
{
	while (q->count)
		phyllo_bridge_queue_pop(q);
	free(q->slot);
	q->slot = NULL;
}

int phyllo_bridge_queue_push(struct phyllo_bridge_queue *q, const char *topic,
			     const void *payload, size_t len, unsigned int flags)
{
	struct phyllo_bridge_msg *m;

	if (q->count == q->cap)
		return -1;
	m = &q->slot[(q->head + q->count) % q->cap];
	m->topic = strdup(topic);
	m->payload = malloc(len ? len : 1);
	if (!m->topic || !m->payload) {
		free(m->topic);
		free(m->payload);
		return -1;
	}
	if (len)
		memcpy(m->payload, payload, len);
	m->len = len;
	m->flags = flags;
	q->count++;
	return 0;
}

struct phyllo_bridge_msg *phyllo_bridge_queue_peek(struct phyllo_bridge_queue *q)
{
	return q->count ? &q->slot[q->head] : NULL;
}

void phyllo_bridge_queue_pop(struct phyllo_bridge_queue *q)
{
	struct phyllo_bridge_msg *m = phyllo_bridge_queue_peek(q);

	if (!m)
		return;
	free(m->topic);
	free(m->payload);
	m->topic = m->payload = NULL;
	q->head = (q->head + 1) % q->cap;
	q->count--;
}
