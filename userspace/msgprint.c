// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * msgprint.c - see msgprint.h. Every byte the board chose is escaped
 * (topics here, strings in phyllo_json_print()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "msgprint.h"
#include "phyllo-internal.h"
#include "phyllo_msgpack.h"
#include "phyllo_pubsub.h"
#include "phyllo_stats.h"

static void print_hex(const uint8_t *p, size_t n)
{
	size_t i;

	printf("\"0x");
	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\"");
}

/* The board's counter i by the core's name; a newer firmware's beyond
 * the core this tool knows as counter_N. */
static const char *board_stat_name(unsigned int i, char *buf, size_t len)
{
	if (i < PHYLLO_STATS_FIELDS)
		return phyllo_stat_name(i);
	snprintf(buf, len, "counter_%u", i);
	return buf;
}

static void board_stats_print(const uint32_t *v, unsigned int n, bool json)
{
	char name[24];
	unsigned int i;

	for (i = 0; i < n; i++)
		if (json)
			printf("%s\"%s\":%u", i ? "," : "{", board_stat_name(i, name, sizeof(name)),
			       v[i]);
		else
			printf("%-16s %10u\n", board_stat_name(i, name, sizeof(name)), v[i]);
	if (json)
		putchar('}');
}

/*
 * The firmware's answer on "stats": a MessagePack array of unsigned
 * counters in the core's order (phyllo_stats.h, append only). Its values
 * into v; returns how many, or -1 when the body is not such an array.
 */
static int stats_reply_values(const struct phyllo_message *m, uint32_t *v, unsigned int max)
{
	struct phyllo_mp_reader r;
	struct phyllo_mp_obj ob;
	unsigned int i, n;

	if (!m->is_document || m->format != PHYLLO_FORMAT_MSGPACK || m->topic_len != 5 ||
	    memcmp(m->topic, "stats", 5))
		return -1;
	phyllo_mp_reader_init(&r, m->data, (uint16_t)m->len);
	if (phyllo_mp_read(&r, &ob) || ob.kind != PHYLLO_MP_ARRAY || !ob.len || ob.len > max)
		return -1;
	n = ob.len;
	for (i = 0; i < n; i++)
		if (phyllo_mp_read(&r, &ob) || ob.kind != PHYLLO_MP_UINT || ob.u > 0xffffffffu)
			return -1;
		else
			v[i] = (uint32_t)ob.u;
	return r.pos == m->len ? (int)n : -1;
}

/* A topic the board chose, for a terminal: printable ASCII as it is, a
 * backslash as \\, a space and every other byte as \xNN, so that no
 * byte is a control and the first space still ends the topic. */
static void print_topic_plain(const char *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)t[i];

		if (c == '\\')
			fputs("\\\\", stdout);
		else if (c <= 0x20 || c >= 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

/* Print a received unit: "TOPIC VALUE", or a JSON object with --json; the
 * board's counters (a reply on "stats") by name as well. Every byte the
 * board chose is escaped (topics here, strings in phyllo_json_print()). */
void print_message(const struct phyllo_message *m, bool json)
{
	uint32_t v[64];
	char text[2048];
	int nstats;

	if (!m->is_pubsub) {
		printf(json ? "{\"type\":%u,\"bytes\":" : "type 0x%02x ", m->type);
		print_hex(m->data, m->len);
		printf(json ? "}\n" : "\n");
		fflush(stdout);
		return;
	}
	nstats = stats_reply_values(m, v, sizeof(v) / sizeof(v[0]));
	if (nstats > 0 && !json) {
		printf("stats (the far end's counters, see COUNTERS in phyllo(1)):\n");
		board_stats_print(v, (unsigned int)nstats, false);
		fflush(stdout);
		return;
	}
	if (json) {
		fputs("{\"topic\":", stdout);
		phyllo_json_put_string(stdout, (const uint8_t *)m->topic, m->topic_len);
		fputs(",\"value\":", stdout);
	} else {
		print_topic_plain(m->topic, m->topic_len);
		putchar(' ');
	}
	if (m->is_document && m->format == PHYLLO_FORMAT_MSGPACK) {
		if (phyllo_msgpack_to_json(m->data, m->len, text, sizeof(text)) >= 0)
			fputs(text, stdout);
		else
			printf("(malformed)");
	} else {
		print_hex(m->data, m->len);
	}
	if (nstats > 0) {
		printf(",\"counters\":");
		board_stats_print(v, (unsigned int)nstats, true);
	}
	printf(json ? "}\n" : "\n");
	fflush(stdout);
}

/* The events sub and pub have seen (dev_link_event()). */
static struct dev_events recv_events;

/* A failed receive, said once: 1 to stop, 0 to go on (a session reset, a
 * named link down or up again). */
int recv_error(const struct small_opts *o, int err, const char *who, const struct diag *d,
	       struct phyllo *h, enum diag_wait wait, const char *topic)
{
	if (err == -ETIMEDOUT) {
		fprintf(stderr, "%s: no %s within %lu s", who, wait == DIAG_REPLY ? "reply" :
			"message", o->timeout_s);
		diag_explain(d, h, &o->link, wait, topic);
	} else if (err == -EPIPE) {
		fprintf(stderr, "%s: %s: the link was detached or hung up\n", who,
			dev_name(&o->link));
	} else if (!dev_link_event(&recv_events, h, who, dev_name(&o->link), err)) {
		return 0;
	} else {
		fprintf(stderr, "%s: %s: %s\n", who, dev_name(&o->link), phyllo_strerror(err));
	}
	return 1;
}

int msg_link_event(struct phyllo *h, const char *who, const char *name, int err)
{
	return dev_link_event(&recv_events, h, who, name, err);
}
