// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * test_bridge.c - phyllo-bridge's parts that need no broker (bridge.h):
 * the configuration and its refusals, the topic map in both directions
 * (reserved names, the loop guard, MQTT's filter matching), the payload
 * conversions and the queue's bound. ASan + UBSan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptest.h"
#include "bridge.h"

static struct phyllo_bridge_conf c;
static char err[800];

static void conf(const char *const *lines)
{
	unsigned int i;

	phyllo_bridge_conf_init(&c);
	for (i = 0; lines[i]; i++)
		PTEST_EXPECT_EQ(phyllo_bridge_conf_line(&c, lines[i], i + 1, err, sizeof(err)), 0);
}

static void conf_defaults_from_link(void)
{
	static const char *const l[] = { "link = /dev/phyllo/by-tty/ttyUSB0", "# a comment", "",
					 "  port=1884  ", NULL };

	conf(l);
	PTEST_EXPECT_EQ(phyllo_bridge_conf_finish(&c, "hostA", err, sizeof(err)), 0);
	PTEST_EXPECT(!strcmp(c.name, "ttyUSB0"));
	PTEST_EXPECT(!strcmp(c.client_id, "phyllo-bridge-hostA-ttyUSB0"));
	PTEST_EXPECT_EQ(c.port, 1884);
	PTEST_EXPECT_EQ(c.qos, 1);
	PTEST_EXPECT_EQ(c.protocol, 4);
}

static void conf_tls_port_and_verify(void)
{
	static const char *const l[] = { "link = /dev/ttyACM0", "tls_ca_file = /x/ca.pem",
					 "protocol = 5", NULL };

	conf(l);
	PTEST_EXPECT_EQ(phyllo_bridge_conf_finish(&c, "h", err, sizeof(err)), 0);
	PTEST_EXPECT_EQ(c.port, 8883);
	PTEST_EXPECT(c.tls);
	PTEST_EXPECT(!c.tls_insecure);	/* verified unless told by name */
	PTEST_EXPECT_EQ(c.protocol, 5);
	PTEST_EXPECT_EQ(phyllo_bridge_conf_line(&c, "tls_verify = no", 9, err, sizeof(err)), 0);
	PTEST_EXPECT(c.tls_insecure);
}

/* TLS when `tls` is not written: implied, refused (credentials in clear to
 * another host), or off; what turned it on is said. */
static const struct {
	const char *lines[4];
	int rc;		/* of _finish */
	bool tls;
	int port;
	const char *why;	/* in tls_why, or in err when refused */
} tls_cases[] = {
	{ { "port = 8883", "username = u", "password = p" }, 0, true, 8883, "port = 8883" },
	{ { "host = broker.example.net:8883" }, 0, true, 8883, "port 8883 of broker.example.net" },
	{ { "tls_verify = yes" }, 0, true, 8883, "tls_verify" },
	{ { "tls_ca_path = /etc/ssl/certs" }, 0, true, 8883, "tls_ file" },
	{ { "tls = yes", "port = 1884" }, 0, true, 1884, "tls = yes" },
	{ { "tls = no", "port = 8883", "host = b.example.net", "username = u" }, 0, false, 8883, "" },
	{ { "host = b.example.net", "username = u" }, -1, false, 1883, "would go in clear" },
	{ { "host = localhost ::1 127.0.0.2", "password = p" }, 0, false, 1883, "" },
	{ { "host = b.example.net" }, 0, false, 1883, "" },
	{ { "tls = no", "tls_verify = yes" }, -1, false, 0, "tls = no, but tls_verify" },
	{ { "tls = no", "tls_ca_file = /ca.pem" }, -1, false, 0, "tls = no, but" },
};

static void conf_tls_implied_refused_or_off(void)
{
	unsigned int i, j;
	bool ok;
	int rc;

	for (i = 0; i < sizeof(tls_cases) / sizeof(tls_cases[0]); i++) {
		phyllo_bridge_conf_init(&c);
		PTEST_EXPECT_EQ(phyllo_bridge_conf_line(&c, "link = /dev/ttyACM0", 1, err,
							sizeof(err)), 0);
		for (j = 0; j < 4 && tls_cases[i].lines[j]; j++)
			PTEST_EXPECT_EQ(phyllo_bridge_conf_line(&c, tls_cases[i].lines[j], j + 2, err,
								sizeof(err)), 0);
		err[0] = '\0';
		rc = phyllo_bridge_conf_finish(&c, "h", err, sizeof(err));
		ok = rc == tls_cases[i].rc &&
		     strstr(rc ? err : c.tls_why, tls_cases[i].why) &&
		     (rc || (c.tls == tls_cases[i].tls && c.brokers[0].port == tls_cases[i].port));
		if (!ok)
			printf("  case %u (%s): rc %d, tls %d, port %d, why '%s', err '%s'\n", i,
			       tls_cases[i].lines[0], rc, c.tls, c.n_brokers ? c.brokers[0].port : 0,
			       c.tls_why, err);
		PTEST_EXPECT(ok);
	}
}

static const struct {
	const char *host;
	unsigned int n;
	const char *first, *last;
	int first_port, last_port;
} broker_lists[] = {
	{ "localhost", 1, "localhost", "localhost", 1883, 1883 },
	{ "a:1884 b", 2, "a", "b", 1884, 1883 },
	{ "a, b:1,c:65535", 3, "a", "c", 1883, 65535 },
	{ "[::1]:1885 [fe80::1] ::2", 3, "::1", "::2", 1885, 1883 },
	{ "a:0", 0, NULL, NULL, 0, 0 }, { "a:70000", 0, NULL, NULL, 0, 0 },
	{ "a:", 0, NULL, NULL, 0, 0 }, { "[::1", 0, NULL, NULL, 0, 0 },
	{ "[::1]x", 0, NULL, NULL, 0, 0 }, { " , ", 0, NULL, NULL, 0, 0 },
	{ "1 2 3 4 5 6 7 8 9", 0, NULL, NULL, 0, 0 },
};

static void conf_splits_the_broker_list(void)
{
	char line[300];
	unsigned int i;
	bool ok;
	int rc;

	for (i = 0; i < sizeof(broker_lists) / sizeof(broker_lists[0]); i++) {
		phyllo_bridge_conf_init(&c);
		snprintf(line, sizeof(line), "host = %s", broker_lists[i].host);
		PTEST_EXPECT_EQ(phyllo_bridge_conf_line(&c, "link = /dev/ttyACM0", 1, err,
							sizeof(err)), 0);
		PTEST_EXPECT_EQ(phyllo_bridge_conf_line(&c, line, 2, err, sizeof(err)), 0);
		rc = phyllo_bridge_conf_finish(&c, "h", err, sizeof(err));
		if (!broker_lists[i].n) {
			if (rc != -1 || !strstr(err, "host"))
				printf("  '%s' accepted (%u brokers)\n", broker_lists[i].host,
				       c.n_brokers);
			PTEST_EXPECT(rc == -1 && strstr(err, "host"));
			continue;
		}
		ok = !rc && c.n_brokers == broker_lists[i].n &&
		     !strcmp(c.brokers[0].host, broker_lists[i].first) &&
		     !strcmp(c.brokers[c.n_brokers - 1].host, broker_lists[i].last) &&
		     c.brokers[0].port == broker_lists[i].first_port &&
		     c.brokers[c.n_brokers - 1].port == broker_lists[i].last_port;
		if (!ok)
			printf("  '%s': rc %d, %u brokers, %s:%d .. %s:%d\n", broker_lists[i].host,
			       rc, c.n_brokers, c.brokers[0].host, c.brokers[0].port,
			       c.brokers[c.n_brokers ? c.n_brokers - 1 : 0].host,
			       c.brokers[c.n_brokers ? c.n_brokers - 1 : 0].port);
		PTEST_EXPECT(ok);
	}
	PTEST_EXPECT_EQ(c.connect_timeout, 10);
}

static void conf_rejects_with_line(void)
{
	static const char *const bad[] = { "prot = 5", "port = 0", "port = 70000", "qos = 2",
					   "payload = xml", "just words", "queue = -1",
					   "tls_verify = maybe", "import = onlyfilter",
					   "import = a/b topic_over_15_bytes", NULL };
	unsigned int i;

	for (i = 0; bad[i]; i++) {
		phyllo_bridge_conf_init(&c);
		err[0] = '\0';
		PTEST_EXPECT_EQ(phyllo_bridge_conf_line(&c, bad[i], 7, err, sizeof(err)), -1);
		PTEST_EXPECT(!strncmp(err, "line 7: ", 8));
	}
	phyllo_bridge_conf_init(&c);
	PTEST_EXPECT_EQ(phyllo_bridge_conf_finish(&c, "h", err, sizeof(err)), -1);	/* no link */
}

static void conf_refuses_an_import_that_loops(void)
{
	static const char *const l[] = { "link = /dev/ttyACM0", "name = a", "import = phyllo/# x",
					 NULL };
	static const char *const ok[] = { "link = /dev/ttyACM0", "name = a",
					  "import = phyllo/b/temp  temp", "import = phyllo/+/cmd x",
					  NULL };

	conf(l);
	PTEST_EXPECT_EQ(phyllo_bridge_conf_finish(&c, "h", err, sizeof(err)), -1);
	PTEST_EXPECT(strstr(err, "loop") != NULL);
	conf(ok);
	PTEST_EXPECT_EQ(phyllo_bridge_conf_finish(&c, "h", err, sizeof(err)), 0);
	PTEST_EXPECT_EQ(c.n_imports, 2);
	PTEST_EXPECT(!strcmp(c.imports[0].filter, "phyllo/b/temp"));
	PTEST_EXPECT(!strcmp(c.imports[0].topic, "temp"));
}

static void conf_env_credentials_win(void)
{
	static const char *const l[] = { "link = /dev/x", "username = file", "password = filepw",
					 NULL };

	conf(l);
	setenv("PHYLLO_BRIDGE_PASSWORD", "envpw", 1);
	phyllo_bridge_conf_env(&c);
	unsetenv("PHYLLO_BRIDGE_PASSWORD");
	PTEST_EXPECT(!strcmp(c.username, "file"));
	PTEST_EXPECT(!strcmp(c.password, "envpw"));
}

static void name_from_link_is_mqtt_safe(void)
{
	char n[64];

	phyllo_bridge_name_from_link("/dev/serial/by-id/usb-Ard+uino #1", n, sizeof(n));
	PTEST_EXPECT(!strcmp(n, "usb-Ard_uino__1"));
	phyllo_bridge_name_from_link("/dev/", n, sizeof(n));
	PTEST_EXPECT(!strcmp(n, "link"));
}

static void topic_map_both_ways(void)
{
	static const char *const l[] = { "link = /dev/x", "name = a", "prefix = home/phyllo",
					 "import = phyllo/b/temp temp", NULL };
	char t[300];

	conf(l);
	PTEST_EXPECT_EQ(phyllo_bridge_conf_finish(&c, "h", err, sizeof(err)), 0);
	PTEST_EXPECT_EQ(phyllo_bridge_topic_out(&c, "servo", t, sizeof(t)), 0);
	PTEST_EXPECT(!strcmp(t, "home/phyllo/a/servo"));
	PTEST_EXPECT_EQ(phyllo_bridge_topic_out(&c, "stats", t, sizeof(t)), 0);
	/* what the bridge uses itself, and what MQTT cannot publish */
	PTEST_EXPECT_EQ(phyllo_bridge_topic_out(&c, "status", t, sizeof(t)), -1);
	PTEST_EXPECT_EQ(phyllo_bridge_topic_out(&c, "cmd", t, sizeof(t)), -1);
	PTEST_EXPECT_EQ(phyllo_bridge_topic_out(&c, "cmd/x", t, sizeof(t)), -1);
	PTEST_EXPECT_EQ(phyllo_bridge_topic_out(&c, "bridge/stats", t, sizeof(t)), -1);
	PTEST_EXPECT_EQ(phyllo_bridge_topic_out(&c, "a+b", t, sizeof(t)), -1);
	PTEST_EXPECT_EQ(phyllo_bridge_topic_out(&c, "cmdx", t, sizeof(t)), 0);

	PTEST_EXPECT_EQ(phyllo_bridge_topic_in(&c, "home/phyllo/a/cmd/servo", t, sizeof(t)), 0);
	PTEST_EXPECT(!strcmp(t, "servo"));
	PTEST_EXPECT_EQ(phyllo_bridge_topic_in(&c, "phyllo/b/temp", t, sizeof(t)), 0);
	PTEST_EXPECT(!strcmp(t, "temp"));
	/* never what it published itself */
	PTEST_EXPECT_EQ(phyllo_bridge_topic_in(&c, "home/phyllo/a/servo", t, sizeof(t)), -1);
	PTEST_EXPECT_EQ(phyllo_bridge_topic_in(&c, "home/phyllo/a/status", t, sizeof(t)), -1);
	PTEST_EXPECT_EQ(phyllo_bridge_topic_in(&c, "home/phyllo/a/cmd/0123456789abcdef", t,
					       sizeof(t)), -1);	/* 16 bytes */
	PTEST_EXPECT_EQ(phyllo_bridge_topic_in(&c, "other/x", t, sizeof(t)), -1);
}

static void filter_match_as_mqtt(void)
{
	static const struct { const char *f, *t; int want; } v[] = {
		{ "a/b", "a/b", 1 }, { "a/b", "a/c", 0 }, { "a/+", "a/b", 1 }, { "a/+", "a/b/c", 0 },
		{ "a/#", "a", 1 }, { "a/#", "a/b/c", 1 }, { "#", "x/y", 1 }, { "+/+", "a/b", 1 },
		{ "+", "a/b", 0 }, { "a/+/c", "a//c", 1 }, { "#", "$SYS/x", 0 },
		{ "$SYS/#", "$SYS/x", 1 }, { "ab", "a", 0 }, { "a", "ab", 0 }, { "a/b/#", "a/bc", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (phyllo_bridge_filter_match(v[i].f, v[i].t) != v[i].want)
			ptest_fail(__FILE__, __LINE__, v[i].f, (long)i, v[i].want);
}

static void payload_json_both_ways(void)
{
	static const char *const l[] = { "link = /dev/x", NULL };
	static const uint8_t doc[] = { 0x83, 0xa1, 'i', 0x2a, 0xa1, 'f', 0xcb, 0x40, 0x04, 0, 0, 0,
				       0, 0, 0, 0xa1, 'b', 0xc4, 0x02, 0xbe, 0xef };
	uint8_t mp[256];
	char out[300];
	int n;

	conf(l);
	n = phyllo_bridge_payload_out(&c, true, doc, sizeof(doc), out, sizeof(out));
	PTEST_EXPECT(n > 0);
	PTEST_EXPECT(!strcmp(out, "{\"i\":42,\"f\":2.5,\"b\":\"0xbeef\"}"));
	/* not a MessagePack document: its bytes in the same hex form */
	n = phyllo_bridge_payload_out(&c, false, doc + 19, 2, out, sizeof(out));
	PTEST_EXPECT(!strcmp(out, "\"0xbeef\""));
	/* malformed MessagePack is refused, not published */
	PTEST_EXPECT_EQ(phyllo_bridge_payload_out(&c, true, doc, 5, out, sizeof(out)), -1);

	n = phyllo_bridge_payload_in(&c, "[1, 2.5]", 8, mp, sizeof(mp), err, sizeof(err));
	PTEST_EXPECT_EQ(n, 11);
	PTEST_EXPECT_EQ(mp[0], 0x92);
	PTEST_EXPECT_EQ(mp[1], 0x01);	/* an integer stays an integer */
	PTEST_EXPECT_EQ(mp[2], 0xcb);	/* a float a float */
	PTEST_EXPECT_EQ(phyllo_bridge_payload_in(&c, "{bad", 4, mp, sizeof(mp), err, sizeof(err)),
			-1);
	PTEST_EXPECT_EQ(phyllo_bridge_payload_in(&c, "", 0, mp, sizeof(mp), err, sizeof(err)), -1);
	PTEST_EXPECT_EQ(phyllo_bridge_payload_in(&c, "1\0 2", 4, mp, sizeof(mp), err, sizeof(err)),
			-1);
	PTEST_EXPECT_EQ(phyllo_bridge_payload_in(&c, "\"0123456789\"", 12, mp, 5, err,
						 sizeof(err)), -1);
	PTEST_EXPECT(strstr(err, "over") != NULL);
}

static void payload_raw_passes_bytes(void)
{
	static const char *const l[] = { "link = /dev/x", "payload = raw", NULL };
	static const uint8_t bytes[] = { 0x00, 0xff, 0x10 };
	uint8_t mp[8];
	char out[8];

	conf(l);
	PTEST_EXPECT_EQ(phyllo_bridge_payload_out(&c, true, bytes, 3, out, sizeof(out)), 3);
	PTEST_EXPECT_MEM(out, bytes, 3);
	PTEST_EXPECT_EQ(phyllo_bridge_payload_in(&c, bytes, 3, mp, sizeof(mp), err, sizeof(err)), 3);
	PTEST_EXPECT_MEM(mp, bytes, 3);
	PTEST_EXPECT_EQ(phyllo_bridge_payload_in(&c, bytes, 3, mp, 2, err, sizeof(err)), -1);
}

static void queue_is_bounded_fifo(void)
{
	struct phyllo_bridge_queue q;
	struct phyllo_bridge_msg *m;
	char t[16];
	int i;

	PTEST_EXPECT_EQ(phyllo_bridge_queue_init(&q, 3), 0);
	for (i = 0; i < 5; i++) {
		snprintf(t, sizeof(t), "t%d", i);
		PTEST_EXPECT_EQ(phyllo_bridge_queue_push(&q, t, t, strlen(t), 0), i < 3 ? 0 : -1);
	}
	m = phyllo_bridge_queue_peek(&q);
	PTEST_EXPECT(m && !strcmp(m->topic, "t0"));
	phyllo_bridge_queue_pop(&q);
	PTEST_EXPECT_EQ(phyllo_bridge_queue_push(&q, "t5", "", 0, PHYLLO_BRIDGE_MSG_RETAIN), 0);
	for (i = 0; i < 3; i++) {
		m = phyllo_bridge_queue_peek(&q);
		PTEST_EXPECT(m != NULL);
		if (m)
			PTEST_EXPECT(!strcmp(m->topic, i == 0 ? "t1" : i == 1 ? "t2" : "t5"));
		phyllo_bridge_queue_pop(&q);
	}
	PTEST_EXPECT(phyllo_bridge_queue_peek(&q) == NULL);
	phyllo_bridge_queue_push(&q, "left", "x", 1, 0);
	phyllo_bridge_queue_free(&q);	/* frees what is left (ASan) */
}

static void ha_discovery_config(void)
{
	static const char *const l[] = { "link = /dev/x", "name = kitchen", "ha_sensor = temp",
					 NULL };
	char t[300], j[1024];

	conf(l);
	PTEST_EXPECT_EQ(phyllo_bridge_conf_finish(&c, "h", err, sizeof(err)), 0);
	PTEST_EXPECT_EQ(phyllo_bridge_ha_config(&c, 0, t, sizeof(t), j, sizeof(j)), 0);
	PTEST_EXPECT(!strcmp(t, "homeassistant/sensor/phyllo_kitchen_temp/config"));
	PTEST_EXPECT(strstr(j, "\"state_topic\":\"phyllo/kitchen/temp\"") != NULL);
	PTEST_EXPECT(strstr(j, "\"availability_topic\":\"phyllo/kitchen/status\"") != NULL);
	PTEST_EXPECT_EQ(phyllo_bridge_ha_config(&c, 0, t, 10, j, sizeof(j)), -1);
	PTEST_EXPECT_EQ(phyllo_bridge_conf_line(&c, "ha_sensor = a\"b", 1, err, sizeof(err)), -1);
	PTEST_EXPECT_EQ(phyllo_bridge_conf_line(&c, "ha_sensor = a/b", 1, err, sizeof(err)), -1);
}

static const struct ptest_case cases[] = {
	PTEST_CASE(conf_defaults_from_link), PTEST_CASE(conf_tls_port_and_verify),
	PTEST_CASE(conf_tls_implied_refused_or_off),
	PTEST_CASE(conf_rejects_with_line), PTEST_CASE(conf_refuses_an_import_that_loops),
	PTEST_CASE(conf_env_credentials_win), PTEST_CASE(name_from_link_is_mqtt_safe),
	PTEST_CASE(topic_map_both_ways), PTEST_CASE(filter_match_as_mqtt),
	PTEST_CASE(payload_json_both_ways), PTEST_CASE(payload_raw_passes_bytes),
	PTEST_CASE(queue_is_bounded_fifo), PTEST_CASE(ha_discovery_config),
	PTEST_CASE(conf_splits_the_broker_list),
};
PTEST_MAIN(bridge_suite, "bridge", cases)
