/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * bridge.h - the parts of phyllo-bridge(1) that need no broker and no
 * link, so that they are unit-tested alone (tests/bridge/test_bridge.c):
 *
 *  1. The configuration: `key = value` lines, `#` comments, every key
 *     documented in phyllo-bridge(1); an unknown key or a bad value is an
 *     error naming the line. Credentials come from the file or from
 *     PHYLLO_BRIDGE_USERNAME / PHYLLO_BRIDGE_PASSWORD, never from argv.
 *  2. The topic map: board topic T <-> <prefix>/<name>/T out,
 *     <prefix>/<name>/cmd/T in, and `import` lines (an MQTT filter to a
 *     board topic). Names the bridge uses itself (status, cmd, bridge) are
 *     refused as board topics, and an import that would match the bridge's
 *     own output is refused at load: nothing it publishes can come back.
 *  3. Payloads: MessagePack <-> JSON through libphyllo's converters
 *     (integers stay integers, floats floats, bin as "0x<hex>"), or the
 *     bytes as they are (payload = raw).
 *  4. A bounded FIFO of messages (struct phyllo_bridge_queue): a push on
 *     a full queue fails and is counted by the caller, never silently.
 */
#ifndef PHYLLO_BRIDGE_H
#define PHYLLO_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PHYLLO_BRIDGE_IMPORTS_MAX 16
#define PHYLLO_BRIDGE_BROKERS_MAX 8	/* `host = a b:1884 [::1]:1885` */
#define PHYLLO_BRIDGE_TOPIC_MAX 15	/* a board topic, as PHYLLO_TOPIC_MAX */
#define PHYLLO_BRIDGE_MQTT_TOPIC_MAX 256
#define PHYLLO_BRIDGE_STR_MAX 256
/* The longest JSON a 252-byte MessagePack document can print as. */
#define PHYLLO_BRIDGE_JSON_MAX 2048

enum phyllo_bridge_payload { PHYLLO_BRIDGE_JSON, PHYLLO_BRIDGE_RAW };

struct phyllo_bridge_import {
	char filter[PHYLLO_BRIDGE_MQTT_TOPIC_MAX];	/* MQTT filter, + and # allowed */
	char topic[PHYLLO_BRIDGE_TOPIC_MAX + 1];	/* board topic */
};

struct phyllo_bridge_conf {
	/* the link */
	char link[PHYLLO_BRIDGE_STR_MAX];
	bool tty;			/* the protocol in libphyllo (--tty) */
	unsigned long baud;
	/* names */
	char prefix[PHYLLO_BRIDGE_STR_MAX];
	char name[PHYLLO_BRIDGE_STR_MAX];
	char client_id[PHYLLO_BRIDGE_STR_MAX];
	/* the broker: `host` as written, then split by _finish() */
	char host[PHYLLO_BRIDGE_STR_MAX];
	int port;			/* 0: 1883, or 8883 with TLS */
	struct phyllo_bridge_broker {
		char host[PHYLLO_BRIDGE_STR_MAX];
		int port;
	} brokers[PHYLLO_BRIDGE_BROKERS_MAX];
	unsigned int n_brokers;
	unsigned int connect_timeout;	/* s for TCP, TLS and CONNACK together */
	int protocol;			/* 4: MQTT 3.1.1, 5: MQTT 5 */
	int keepalive;
	char username[PHYLLO_BRIDGE_STR_MAX];
	char password[PHYLLO_BRIDGE_STR_MAX];
	char tls_ca_file[PHYLLO_BRIDGE_STR_MAX];
	char tls_ca_path[PHYLLO_BRIDGE_STR_MAX];
	char tls_cert_file[PHYLLO_BRIDGE_STR_MAX];
	char tls_key_file[PHYLLO_BRIDGE_STR_MAX];
	int tls_mode;			/* tls = : -1 not written, 0 no, 1 yes */
	bool tls;			/* decided by _finish(): tls_mode, else implied */
	char tls_why[96];		/* what turned it on, for messages */
	bool tls_verify_set;		/* tls_verify written (either way) */
	bool tls_insecure;		/* tls_verify = no */
	/* behaviour */
	enum phyllo_bridge_payload payload;
	int qos;			/* board -> broker: 0 or 1 */
	unsigned int queue;		/* board -> broker, messages */
	unsigned int inflight;		/* QoS 1 messages awaiting PUBACK */
	unsigned int stats_interval;	/* s; 0: only at exit */
	unsigned int reconnect_max;	/* s */
	unsigned int exit_timeout;	/* s to flush at SIGTERM */
	bool unreliable;		/* commands sent without the ARQ */
	bool retained_commands;		/* retained messages go to the board too */
	struct phyllo_bridge_import imports[PHYLLO_BRIDGE_IMPORTS_MAX];
	unsigned int n_imports;
	/* Home Assistant MQTT discovery: board topics announced as sensors */
	char ha_prefix[PHYLLO_BRIDGE_STR_MAX];
	char ha_sensors[PHYLLO_BRIDGE_IMPORTS_MAX][PHYLLO_BRIDGE_TOPIC_MAX + 1];
	unsigned int n_ha;
};

void phyllo_bridge_conf_init(struct phyllo_bridge_conf *c);
/* One line (no newline needed); lineno only for messages. 0, or -1 with
 * err set. */
int phyllo_bridge_conf_line(struct phyllo_bridge_conf *c, const char *line, unsigned int lineno,
			    char *err, size_t errlen);
/* A whole file; err names the file and line. */
int phyllo_bridge_conf_load(struct phyllo_bridge_conf *c, const char *path, char *err,
			    size_t errlen);
/* The environment's credentials over the file's. */
void phyllo_bridge_conf_env(struct phyllo_bridge_conf *c);
/* Defaults that depend on other keys (name from the link, client id,
 * port), the broker list split from `host` (spaces or commas between
 * entries, each host, host:port, [v6] or [v6]:port), then the checks
 * that need the whole configuration (imports that would loop). TLS, when
 * `tls` is not written: on with a tls_ file key, tls_verify or a broker
 * port of 8883 (tls_why says which); credentials for a broker that is
 * not loopback without TLS are refused. 0, or -1 with err set. */
int phyllo_bridge_conf_finish(struct phyllo_bridge_conf *c, const char *hostname, char *err,
			      size_t errlen);

/* A stable link name from a device path: /dev/phyllo/by-tty/ttyUSB0 and
 * /dev/ttyUSB0 give ttyUSB0; characters MQTT reserves become '_'. */
void phyllo_bridge_name_from_link(const char *link, char *out, size_t cap);

/* <prefix>/<name>/<what>: 0, or -1 if it does not fit. */
int phyllo_bridge_topic(const struct phyllo_bridge_conf *c, const char *what, char *out,
			size_t cap);
/* A board topic to publish: 0 and the MQTT topic, or -1 for a topic the
 * bridge reserves (status, cmd, cmd/..., bridge, bridge/...) or one MQTT
 * cannot carry (+, #, NUL). */
int phyllo_bridge_topic_out(const struct phyllo_bridge_conf *c, const char *board_topic,
			    char *out, size_t cap);
/* An MQTT topic received: 0 and the board topic, or -1 if it maps to none
 * (not a command, no import matches, or over 15 bytes). */
int phyllo_bridge_topic_in(const struct phyllo_bridge_conf *c, const char *mqtt_topic,
			   char *board_topic, size_t cap);
/* Home Assistant's discovery message for sensor i: its config topic into
 * topic, its JSON into out. 0, or -1 if it does not fit. */
int phyllo_bridge_ha_config(const struct phyllo_bridge_conf *c, unsigned int i, char *topic,
			    size_t tcap, char *out, size_t cap);
/* MQTT's filter match (+ one level, # the rest): 1 or 0. */
int phyllo_bridge_filter_match(const char *filter, const char *topic);

/* Board to broker: a pub-sub payload (a MessagePack document body when
 * msgpack is set) to what is published. Returns its length, or -1 (a
 * malformed document, or too long). */
int phyllo_bridge_payload_out(const struct phyllo_bridge_conf *c, bool msgpack,
			      const uint8_t *in, size_t len, char *out, size_t cap);
/* Broker to board: an MQTT payload to a MessagePack body. Returns its
 * length, or -1 with err set (bad JSON, too long). */
int phyllo_bridge_payload_in(const struct phyllo_bridge_conf *c, const void *in, size_t len,
			     uint8_t *out, size_t cap, char *err, size_t errlen);

#define PHYLLO_BRIDGE_MSG_RETAIN 0x1	/* published retained */
#define PHYLLO_BRIDGE_MSG_OWN 0x2	/* the bridge's own (an event), not the board's */

struct phyllo_bridge_msg {
	char *topic;
	void *payload;
	size_t len;
	unsigned int flags;	/* PHYLLO_BRIDGE_MSG_* */
};

struct phyllo_bridge_queue {
	struct phyllo_bridge_msg *slot;
	unsigned int cap, head, count;
};

int phyllo_bridge_queue_init(struct phyllo_bridge_queue *q, unsigned int cap);
void phyllo_bridge_queue_free(struct phyllo_bridge_queue *q);
/* Copies topic and payload. 0, or -1 when full (or out of memory). */
int phyllo_bridge_queue_push(struct phyllo_bridge_queue *q, const char *topic,
			     const void *payload, size_t len, unsigned int flags);
/* The oldest message, or NULL; valid until the next pop. */
struct phyllo_bridge_msg *phyllo_bridge_queue_peek(struct phyllo_bridge_queue *q);
void phyllo_bridge_queue_pop(struct phyllo_bridge_queue *q);

#endif /* PHYLLO_BRIDGE_H */
