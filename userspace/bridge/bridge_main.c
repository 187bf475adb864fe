// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bridge_main.c - phyllo-bridge(1): one link's topics on one MQTT broker.
 *
 * One thread, one poll(2) loop over the link (libphyllo's descriptor),
 * the broker's socket (libmosquitto driven by hand: loop_read, _write,
 * _misc, never its thread) and a signalfd. What it keeps:
 *  1. Board to broker: every pub-sub message the board sends goes into a
 *     bounded queue (`queue`), and from there to libmosquitto only while
 *     connected and with fewer than `inflight` QoS 1 messages awaiting
 *     their PUBACK; libmosquitto resends those itself after a reconnect.
 *     A message that finds the queue full is counted (queue_dropped).
 *  2. Broker to board: commands (<prefix>/<name>/cmd/T) and imports are
 *     subscribed at QoS 1 in a persistent session (clean session off;
 *     MQTT 5: a session that never expires). libmosquitto acknowledges a
 *     message when it hands it over, so it goes into a second queue at
 *     once, and the socket is read only while that queue has room for
 *     what one read can bring (or PUBACKs are owed: broker_may_read()):
 *     the broker keeps the rest. From the queue a command goes to the
 *     board on the reliable layer only while the first queue is below its
 *     high mark (queue - UP_RESERVE), so that the board's answers find
 *     room: a burst of commands waits here or in the broker, and is not
 *     turned into drops of the answers.
 *  5. The broker list (`host`), tried in turn: an attempt that fails, hangs
 *     up before its CONNACK or has none in connect_timeout is given up and
 *     the next broker tried at once; after a whole round, the backoff
 *     (0.5 s doubling to reconnect_max). A lost connection moves on to the
 *     next broker the same way. None of it waits for the keepalive.
 *  6. A refusal of the bridge's own status (MQTT 5 says it in the PUBACK)
 *     is fatal, exit 3, as a refused login is: nothing it publishes could
 *     be allowed either.
 *  3. Nothing from the broker is published back: the only topics taken
 *     from the bridge's own namespace are its commands, and it never
 *     publishes under cmd/.
 *  7. A named link whose board goes away is down, not gone: the bridge
 *     keeps its file and its broker session, publishes the link's state
 *     on <prefix>/<name>/bridge/link ("up", "down"; "gone" when an
 *     unnamed link hung up), retained, at each change and each
 *     connection, and an event. Commands meanwhile wait in their bounded
 *     queue, then in the broker (as with a slow board); a command the
 *     kernel refused because the session ended is sent again.
 *  4. SIGTERM or SIGINT: both queues are flushed for up to exit_timeout
 *     seconds, what remains is counted and said, "offline" is published
 *     (retained; it is the will too) and the counters are printed.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include "bridge.h"
#include "libphyllo.h"

/* commands waiting for the board; a read of the socket must fit */
#define DOWN_QUEUE 4096
#define DOWN_HEADROOM 1024
/* Room kept in the up queue for the answers to commands already on the
 * link (the ARQ window, units the far end holds): a command goes to the
 * board only while the up queue holds fewer than queue - UP_RESERVE
 * messages (at most half the queue kept). */
#define UP_RESERVE 64

#define COUNTERS(X) \
	X(board_rx) X(board_tx) X(mqtt_tx) X(mqtt_rx) X(queue) X(inflight) X(queue_dropped) \
	X(down_queue) X(down_dropped) X(bad_json) X(oversize) X(bad_doc) X(bad_topic) \
	X(unmatched) X(retained_dropped) X(refused) X(sub_refused) X(connects) X(disconnects) \
	X(link_resets) X(link_downs) \
	X(exit_unsent) X(exit_undelivered)

struct counters {
#define FIELD(n) unsigned long n;
	COUNTERS(FIELD)
#undef FIELD
};

enum mid_kind { MID_NONE, MID_BOARD, MID_OWN };

struct bridge {
	struct phyllo_bridge_conf c;
	struct phyllo *h;
	struct mosquitto *mq;
	struct phyllo_bridge_queue up, down;
	struct counters n;
	bool connected, fatal, stopping, hungup, verbose;
	bool link_down;			/* a named link down (rule 7) */
	int64_t next_try, next_stats, deadline;
	unsigned int backoff_ms, inflight;
	/* the connection attempt: its start (0: none under way), whether its
	 * socket hung up before the CONNACK, which broker, where the round
	 * of the list began */
	int64_t attempt_at;
	bool attempt_dead;
	bool attempt_said;		/* why it failed was said (an error logged) */
	unsigned int broker_i, round_start;
	int status_mid;
	int exit_code;
	char t_status[PHYLLO_BRIDGE_MQTT_TOPIC_MAX], t_stats[PHYLLO_BRIDGE_MQTT_TOPIC_MAX];
	char t_event[PHYLLO_BRIDGE_MQTT_TOPIC_MAX], t_cmd[PHYLLO_BRIDGE_MQTT_TOPIC_MAX];
	char t_link[PHYLLO_BRIDGE_MQTT_TOPIC_MAX];
	char last_log[512];
	int sub_mid[PHYLLO_BRIDGE_IMPORTS_MAX + 1];
	int offline_mid;
	bool offline_acked;
	uint8_t kind[65536];
	char *mid_topic[65536];
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A line of the log. Topics, payload errors and libmosquitto's text hold
 * bytes a board or another broker client chose: every byte that is not
 * printable ASCII is written as \xNN (a backslash as \\), so that
 * none reaches a terminal or a journal as a control. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	static const char prefix[] = "phyllo-bridge: ";
	char line[1024];
	/* the prefix, each byte as up to 4, the newline */
	char out[sizeof(prefix) + 4 * sizeof(line)];
	const unsigned char *p;
	size_t n = sizeof(prefix) - 1;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	memcpy(out, prefix, n);
	for (p = (const unsigned char *)line; *p; p++)
		if (*p == '\\') {
			out[n++] = '\\';
			out[n++] = '\\';
		} else if (*p < 0x20 || *p >= 0x7f) {
			n += (size_t)snprintf(out + n, 5, "\\x%02x", *p);
		} else {
			out[n++] = (char)*p;
		}
	out[n++] = '\n';
	/* One write a line (stderr is unbuffered): a reader of the log, a
	 * journal or a test waiting for a line, never sees half of one. */
	fwrite(out, 1, n, stderr);
}

/* per-message trouble: the first ten of a kind, then every thousandth */
static bool often(unsigned long count)
{
	return count <= 10 || count % 1000 == 0;
}

static void counters_json(const struct counters *n, char *out, size_t cap)
{
	size_t len = 0;

#define JSON(f) len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, \
			"%s\"" #f "\":%lu", len ? "," : "{", n->f);
	COUNTERS(JSON)
#undef JSON
	snprintf(out + len, len < cap ? cap - len : 0, "}");
}

static void counters_print(const struct counters *n, FILE *f)
{
#define LINE(x) fprintf(f, "%-16s %10lu\n", #x, n->x);
	COUNTERS(LINE)
#undef LINE
}

static void counters_update(struct bridge *b)
{
	b->n.queue = b->up.count;
	b->n.inflight = b->inflight;
	b->n.down_queue = b->down.count;
}

/* An event of the bridge's own, through the queue so it outlives an
 * absent broker. */
static void event_push(struct bridge *b, const char *json)
{
	if (phyllo_bridge_queue_push(&b->up, b->t_event, json, strlen(json),
				     PHYLLO_BRIDGE_MSG_OWN))
		b->n.queue_dropped++;
}

/* ---- the broker's side ---------------------------------------------- */

static bool auth_refusal(const struct bridge *b, int rc)
{
	if (b->c.protocol == 5)
		return rc == MQTT_RC_BAD_USERNAME_OR_PASSWORD || rc == MQTT_RC_NOT_AUTHORIZED ||
		       rc == MQTT_RC_BANNED || rc == MQTT_RC_CLIENTID_NOT_VALID;
	return rc == CONNACK_REFUSED_BAD_USERNAME_PASSWORD || rc == CONNACK_REFUSED_NOT_AUTHORIZED ||
	       rc == CONNACK_REFUSED_IDENTIFIER_REJECTED;
}

#define BROKER(b) (&(b)->c.brokers[(b)->broker_i])

static void mid_track(struct bridge *b, int mid, enum mid_kind kind, const char *topic)
{
	b->kind[(uint16_t)mid] = (uint8_t)kind;
	free(b->mid_topic[(uint16_t)mid]);
	b->mid_topic[(uint16_t)mid] = strdup(topic);
	b->inflight++;
}

/*
 * The attempt on the current broker failed, or its connection was lost:
 * the next broker in the list at once, and once the round is back where
 * it began, the same after the backoff (0.5 s doubling to reconnect_max).
 */
static void broker_next(struct bridge *b)
{
	unsigned int max = b->c.reconnect_max * 1000;

	b->attempt_at = 0;
	b->broker_i = (b->broker_i + 1) % b->c.n_brokers;
	if (b->broker_i != b->round_start) {
		b->next_try = now_ms();
		return;
	}
	b->backoff_ms = b->backoff_ms ? b->backoff_ms * 2 : 500;
	if (b->backoff_ms > max)
		b->backoff_ms = max;
	b->next_try = now_ms() + b->backoff_ms;
}

/* Home Assistant discovery, retained, at every connection (Home Assistant
 * asks again on its own birth message; retained configs answer that). */
static void ha_announce(struct bridge *b)
{
	char topic[PHYLLO_BRIDGE_MQTT_TOPIC_MAX * 2], json[2048];
	unsigned int i;
	int mid;

	for (i = 0; i < b->c.n_ha; i++) {
		if (phyllo_bridge_ha_config(&b->c, i, topic, sizeof(topic), json, sizeof(json)))
			continue;
		if (mosquitto_publish(b->mq, &mid, topic, (int)strlen(json), json, 1, true))
			continue;
		mid_track(b, mid, MID_OWN, topic);
	}
}

/* The link's state, retained (rule 7): now, if connected; on_connect()
 * says it again at every connection. */
static void link_state_publish(struct bridge *b)
{
	const char *st = b->hungup ? "gone" : b->link_down ? "down" : "up";
	int mid;

	if (b->connected &&
	    !mosquitto_publish(b->mq, &mid, b->t_link, (int)strlen(st), st, 1, true))
		mid_track(b, mid, MID_OWN, b->t_link);
}

static void on_connect(struct mosquitto *mq, void *obj, int rc, int flags,
		       const mosquitto_property *props)
{
	struct bridge *b = obj;
	unsigned int i;
	int mid, opts, err;

	(void)props;
	if (rc) {
		b->attempt_said = true;
		say("the broker %s:%d refused the connection: %s", BROKER(b)->host, BROKER(b)->port,
		    b->c.protocol == 5 ? mosquitto_reason_string(rc) : mosquitto_connack_string(rc));
		if (auth_refusal(b, rc)) {
			say("giving up: check username, password and the broker's ACL (it must let "
			    "this user write %s, the will)", b->t_status);
			b->fatal = true;
			b->exit_code = 3;
		}
		return;
	}
	b->connected = true;
	b->attempt_at = 0;
	b->backoff_ms = 0;
	b->round_start = b->broker_i;
	b->n.connects++;
	b->last_log[0] = '\0';
	say("connected to %s:%d as %s (%s session)", BROKER(b)->host, BROKER(b)->port,
	    b->c.client_id, flags & 1 ? "resumed" : "new");
	b->status_mid = -1;
	if (!mosquitto_publish(mq, &mid, b->t_status, 6, "online", 1, true)) {
		mid_track(b, mid, MID_OWN, b->t_status);
		b->status_mid = mid;
	}
	link_state_publish(b);
	ha_announce(b);
	/* MQTT 5: the broker's retained messages only when the subscription is
	 * new, not again at each reconnect of the session (3.1.1 has no way to
	 * ask: on_message() drops them unless retained_commands = yes) */
	opts = b->c.protocol == 5 ? MQTT_SUB_OPT_SEND_RETAIN_NEW : 0;
	for (i = 0; i <= b->c.n_imports; i++) {
		const char *filter = i ? b->c.imports[i - 1].filter : b->t_cmd;

		err = mosquitto_subscribe_v5(mq, &b->sub_mid[i], filter, 1, opts, NULL);
		if (err)
			say("cannot subscribe to %s: %s", filter, mosquitto_strerror(err));
	}
}

static void on_disconnect(struct mosquitto *mq, void *obj, int rc, const mosquitto_property *p)
{
	struct bridge *b = obj;

	(void)mq, (void)p;
	if (b->connected && !b->stopping) {
		b->n.disconnects++;
		say("lost the broker %s:%d: %s", BROKER(b)->host, BROKER(b)->port,
		    rc == MOSQ_ERR_CONN_LOST || rc < 0 || rc > 0x7f ? mosquitto_strerror(rc) :
		    "disconnected");
	}
	if (b->connected)
		broker_next(b);
	b->connected = false;
}

static void on_publish(struct mosquitto *mq, void *obj, int mid, int reason,
		       const mosquitto_property *p)
{
	struct bridge *b = obj;
	uint16_t m = (uint16_t)mid;

	(void)mq, (void)p;
	if (mid == b->offline_mid)
		b->offline_acked = true;
	if (reason >= 0x80 && mid == b->status_mid && !b->stopping) {
		say("the broker refused this bridge's status on %s: %s", b->t_status,
		    mosquitto_reason_string(reason));
		say("giving up: check the broker's ACL (it must let this user write %s, the "
		    "will, and %s/%s/#)", b->t_status, b->c.prefix, b->c.name);
		b->n.refused++;
		b->fatal = true;
		b->exit_code = 3;
	} else if (reason >= 0x80) {
		b->n.refused++;
		if (often(b->n.refused) && b->mid_topic[m])
			say("the broker refused a message on %s: %s", b->mid_topic[m],
			    mosquitto_reason_string(reason));
		else if (often(b->n.refused))
			say("the broker refused message %d (not one this bridge sent): %s", mid,
			    mosquitto_reason_string(reason));
	} else if (b->kind[m] == MID_BOARD) {
		b->n.mqtt_tx++;
	}
	if (b->kind[m] != MID_NONE && b->inflight)
		b->inflight--;
	b->kind[m] = MID_NONE;
	free(b->mid_topic[m]);
	b->mid_topic[m] = NULL;
}

static void on_subscribe(struct mosquitto *mq, void *obj, int mid, int count, const int *granted,
			 const mosquitto_property *p)
{
	struct bridge *b = obj;
	unsigned int i;

	(void)mq, (void)p;
	if (count < 1 || granted[0] < 0x80)
		return;
	b->n.sub_refused++;
	for (i = 0; i <= b->c.n_imports; i++)
		if (b->sub_mid[i] == mid)
			say("the broker refused the subscription to %s (not authorised?)",
			    i ? b->c.imports[i - 1].filter : b->t_cmd);
}

static void on_message(struct mosquitto *mq, void *obj, const struct mosquitto_message *msg,
		       const mosquitto_property *p)
{
	struct bridge *b = obj;
	char topic[PHYLLO_BRIDGE_TOPIC_MAX + 1], err[200];
	uint8_t doc[256];
	size_t cap;
	int n;

	(void)mq, (void)p;
	b->n.mqtt_rx++;
	/* a retained command is an old one: it would act again at every
	 * restart and every broker blip */
	if (msg->retain && !b->c.retained_commands) {
		if (often(++b->n.retained_dropped))
			say("a retained message on %s: not sent to the board (retained_commands = "
			    "no)", msg->topic);
		return;
	}
	if (phyllo_bridge_topic_in(&b->c, msg->topic, topic, sizeof(topic))) {
		if (often(++b->n.unmatched))
			say("a message on %s maps to no board topic: not sent", msg->topic);
		return;
	}
	cap = (size_t)(b->h ? phyllo_mtu(b->h) : 243) - 4 - strlen(topic);
	n = phyllo_bridge_payload_in(&b->c, msg->payload, (size_t)msg->payloadlen, doc,
				     cap > sizeof(doc) ? sizeof(doc) : cap, err, sizeof(err));
	if (n < 0) {
		unsigned long *count = strstr(err, "over") ? &b->n.oversize : &b->n.bad_json;

		if (often(++*count))
			say("%s on %s, not sent to the board: %s",
			    count == &b->n.oversize ? "too big" : "bad JSON", msg->topic, err);
		return;
	}
	if (phyllo_bridge_queue_push(&b->down, topic, doc, (size_t)n, 0) &&
	    often(++b->n.down_dropped))
		say("the queue to the board is full: a message on %s dropped", msg->topic);
}

static void on_log(struct mosquitto *mq, void *obj, int level, const char *text)
{
	struct bridge *b = obj;

	(void)mq;
	if (!(level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING)) && !b->verbose)
		return;
	if (level & MOSQ_LOG_ERR)
		b->attempt_said = true;
	if (!strcmp(text, b->last_log))	/* the same trouble at every retry */
		return;
	snprintf(b->last_log, sizeof(b->last_log), "%s", text);
	say("mqtt: %s", text);
}

/*
 * MQTT 5: a session that outlives the connection, as 3.1.1's does. Every
 * connection is made with mosquitto_connect_async(), which takes no
 * properties; libmosquitto keeps those of the last
 * mosquitto_connect_bind_v5() for every later connection, and that call
 * stores them before it looks at the port: with port -1 it stores them,
 * returns MOSQ_ERR_INVAL and connects nowhere (libmosquitto 2.0's
 * lib/connect.c; a blocking connect would stall the link's side).
 */
static int mqtt_props(struct bridge *b)
{
	mosquitto_property *props = NULL;
	int rc;

	rc = mosquitto_property_add_int32(&props, MQTT_PROP_SESSION_EXPIRY_INTERVAL, UINT32_MAX);
	if (!rc)
		rc = mosquitto_connect_bind_v5(b->mq, "localhost", -1, b->c.keepalive, NULL, props);
	mosquitto_property_free_all(&props);
	return rc == MOSQ_ERR_INVAL ? MOSQ_ERR_SUCCESS : rc ? rc : MOSQ_ERR_UNKNOWN;
}

static int mqtt_setup(struct bridge *b)
{
	const struct phyllo_bridge_conf *c = &b->c;
	int rc;

	b->mq = mosquitto_new(c->client_id, false, b);
	if (!b->mq) {
		say("mosquitto_new: %s", strerror(errno));
		return -1;
	}
	mosquitto_int_option(b->mq, MOSQ_OPT_PROTOCOL_VERSION,
			     c->protocol == 5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311);
	mosquitto_connect_v5_callback_set(b->mq, on_connect);
	mosquitto_disconnect_v5_callback_set(b->mq, on_disconnect);
	mosquitto_publish_v5_callback_set(b->mq, on_publish);
	mosquitto_subscribe_v5_callback_set(b->mq, on_subscribe);
	mosquitto_message_v5_callback_set(b->mq, on_message);
	mosquitto_log_callback_set(b->mq, on_log);
	mosquitto_max_inflight_messages_set(b->mq, c->inflight);
	rc = mosquitto_will_set(b->mq, b->t_status, 7, "offline", 1, true);
	if (!rc && c->username[0])
		rc = mosquitto_username_pw_set(b->mq, c->username,
					       c->password[0] ? c->password : NULL);
	if (!rc && c->tls) {
		bool ca = c->tls_ca_file[0] || c->tls_ca_path[0];

		/* No CA named: OpenSSL's default paths (the system's store, or
		 * SSL_CERT_FILE / SSL_CERT_DIR), which libmosquitto 2.0 loads for
		 * this option alone: its mosquitto_tls_set() refuses a call with
		 * neither CA file nor path, so it is made only for a client
		 * certificate, with the system's folder. */
		if (!ca)
			rc = mosquitto_int_option(b->mq, MOSQ_OPT_TLS_USE_OS_CERTS, 1);
		if (!rc && (ca || c->tls_cert_file[0]))
			rc = mosquitto_tls_set(b->mq, c->tls_ca_file[0] ? c->tls_ca_file : NULL,
					       c->tls_ca_path[0] ? c->tls_ca_path :
					       ca ? NULL : "/etc/ssl/certs",
					       c->tls_cert_file[0] ? c->tls_cert_file : NULL,
					       c->tls_key_file[0] ? c->tls_key_file : NULL, NULL);
		if (!rc && c->tls_insecure)
			rc = mosquitto_tls_opts_set(b->mq, 0, NULL, NULL);
		if (!rc)
			rc = mosquitto_tls_insecure_set(b->mq, c->tls_insecure);
	}
	if (!rc && c->protocol == 5)
		rc = mqtt_props(b);
	if (rc) {
		say("MQTT set-up: %s", mosquitto_strerror(rc));
		return -1;
	}
	return 0;
}

/*
 * Why an attempt that libmosquitto gave no reason for ended: a TLS
 * session the broker closed or reset before this side could read its
 * alert. In TLS 1.3 a broker checks the client's certificate after the
 * client's half of the handshake is done; its "certificate required"
 * alert and its close race the client's first write, and a reset loses
 * the alert (libmosquitto then says only EPROTO, "Protocol error").
 */
static const char *attempt_unexplained(const struct bridge *b)
{
	if (!b->c.tls)
		return "the connection closed before the broker answered";
	if (!b->c.tls_cert_file[0])
		return "the broker ended the TLS session without a reason this side "
		       "could read; a broker that requires a client certificate does so "
		       "when none is set (tls_cert_file, tls_key_file)";
	return "the broker ended the TLS session without a reason this side could "
	       "read (the broker's log says why)";
}

/* An attempt on the current broker; libmosquitto closes what is left of
 * the last one first. */
static void mqtt_connect(struct bridge *b)
{
	const struct phyllo_bridge_broker *br = BROKER(b);
	char text[400];
	int rc, err;

	b->attempt_at = now_ms();
	b->attempt_dead = false;
	b->attempt_said = false;
	rc = mosquitto_connect_async(b->mq, br->host, br->port, b->c.keepalive);
	if (!rc)
		return;
	err = errno;
	snprintf(text, sizeof(text), "cannot reach the broker %s:%d: %s", br->host, br->port,
		 rc == MOSQ_ERR_ERRNO && err == EPROTO && !b->attempt_said ?
		 attempt_unexplained(b) :
		 rc == MOSQ_ERR_ERRNO ? strerror(err) : mosquitto_strerror(rc));
	if (strcmp(text, b->last_log))
		say("%s; retrying", text);
	snprintf(b->last_log, sizeof(b->last_log), "%s", text);
	b->attempt_dead = true;
	b->attempt_said = true;
}

/*
 * An attempt under way that will not finish: its socket hung up before a
 * CONNACK (libmosquitto 2.0 keeps a TLS socket whose handshake met a
 * reset open, and waits a keepalive before it closes it), or no CONNACK
 * in connect_timeout. Said once per kind, then the next broker.
 */
static void attempt_check(struct bridge *b, int64_t now)
{
	const struct phyllo_bridge_broker *br = BROKER(b);
	int sock = mosquitto_socket(b->mq), err = 0;
	socklen_t len = sizeof(err);
	char text[400];

	if (!b->attempt_at)
		return;
	if (sock >= 0 && !b->attempt_dead && now - b->attempt_at < b->c.connect_timeout * 1000LL)
		return;
	if (sock >= 0 && b->attempt_dead) {
		getsockopt(sock, SOL_SOCKET, SO_ERROR, &err, &len);
		snprintf(text, sizeof(text), "cannot reach the broker %s:%d: %s", br->host,
			 br->port, err ? strerror(err) : attempt_unexplained(b));
	} else if (sock >= 0) {
		snprintf(text, sizeof(text), "no answer from the broker %s:%d in %u s", br->host,
			 br->port, b->c.connect_timeout);
	} else if (!b->attempt_said) {	/* closed by libmosquitto, which said nothing */
		snprintf(text, sizeof(text), "cannot reach the broker %s:%d: %s", br->host,
			 br->port, attempt_unexplained(b));
	} else {
		text[0] = '\0';	/* closed by libmosquitto, which said why */
	}
	if (text[0] && strcmp(text, b->last_log))
		say("%s; retrying", text);
	if (text[0])
		snprintf(b->last_log, sizeof(b->last_log), "%s", text);
	broker_next(b);
}

/* From the queue to libmosquitto while the window allows. */
static void mqtt_send(struct bridge *b)
{
	struct phyllo_bridge_msg *m;
	int mid, rc, qos;
	bool lost;

	while (b->connected && (m = phyllo_bridge_queue_peek(&b->up))) {
		qos = m->flags & PHYLLO_BRIDGE_MSG_OWN ? 1 : b->c.qos;
		if (qos && b->inflight >= b->c.inflight)
			return;
		rc = mosquitto_publish(b->mq, &mid, m->topic, (int)m->len, m->payload, qos,
				       m->flags & PHYLLO_BRIDGE_MSG_RETAIN);
		/* a QoS 1 message that found the connection gone is libmosquitto's
		 * already: it resends it after the reconnect */
		lost = rc == MOSQ_ERR_NO_CONN || rc == MOSQ_ERR_CONN_LOST || rc == MOSQ_ERR_ERRNO;
		if (lost && !qos)
			return;
		if (rc && !lost) {
			if (often(++b->n.bad_topic))
				say("cannot publish on %s: %s", m->topic, mosquitto_strerror(rc));
		} else if (qos) {
			mid_track(b, mid, m->flags & PHYLLO_BRIDGE_MSG_OWN ? MID_OWN : MID_BOARD,
				  m->topic);
		} else if (!(m->flags & PHYLLO_BRIDGE_MSG_OWN)) {
			b->n.mqtt_tx++;
		}
		phyllo_bridge_queue_pop(&b->up);
	}
}

static void stats_publish(struct bridge *b)
{
	char json[1024];

	counters_update(b);
	counters_json(&b->n, json, sizeof(json));
	if (b->connected)
		mosquitto_publish(b->mq, NULL, b->t_stats, (int)strlen(json), json, 0, true);
}

/* ---- the board's side ----------------------------------------------- */

static void board_message(struct bridge *b, const struct phyllo_message *m)
{
	char topic[PHYLLO_BRIDGE_MQTT_TOPIC_MAX], out[PHYLLO_BRIDGE_JSON_MAX];
	bool msgpack = m->is_document && m->format == 0x11;
	int n;

	if (!m->is_pubsub)
		return;
	b->n.board_rx++;
	if (phyllo_bridge_topic_out(&b->c, m->topic, topic, sizeof(topic))) {
		if (often(++b->n.bad_topic))
			say("board topic '%s' is reserved or not valid in MQTT: not published",
			    m->topic);
		return;
	}
	n = phyllo_bridge_payload_out(&b->c, msgpack, m->data, m->len, out, sizeof(out));
	if (n < 0) {
		if (often(++b->n.bad_doc))
			say("a malformed document on board topic '%s': not published", m->topic);
		return;
	}
	if (phyllo_bridge_queue_push(&b->up, topic, out, (size_t)n, 0) &&
	    often(++b->n.queue_dropped))
		say("queue full (%u messages): a message on %s dropped", b->up.cap, topic);
}

static void board_recv(struct bridge *b)
{
	struct phyllo_message m;
	struct phyllo_status st;
	char ev[160];
	int rc;

	while (!b->hungup) {
		rc = phyllo_recv(b->h, &m, 0);
		if (rc == -EAGAIN)
			return;
		if (rc == 0) {
			board_message(b, &m);
		} else if (rc == -ENOLINK) {
			b->n.link_downs++;
			b->link_down = true;
			say("the link is down (its board went away): waiting for it, commands "
			    "queued");
			snprintf(ev, sizeof(ev), "{\"event\":\"link-down\",\"downs\":%lu}",
				 b->n.link_downs);
			event_push(b, ev);
			link_state_publish(b);
		} else if (rc == -ECONNRESET) {
			b->n.link_resets++;
			phyllo_status(b->h, &st);
			say(b->link_down ? "the link is up again, session %u" :
			    "the link's session was reset (the board restarted or the line was "
			    "lost): units in flight may be lost (session %u)", st.session);
			snprintf(ev, sizeof(ev), "{\"event\":\"%s\",\"resets\":%lu,"
				 "\"session\":%u}", b->link_down ? "link-up" : "link-reset",
				 b->n.link_resets, st.session);
			event_push(b, ev);
			if (b->link_down) {
				b->link_down = false;
				link_state_publish(b);
			}
		} else {
			say("the link %s: %s", b->c.link, phyllo_strerror(rc));
			event_push(b, "{\"event\":\"link-lost\"}");
			b->hungup = true;
			link_state_publish(b);
			b->exit_code = 1;
			if (!b->stopping) {
				b->stopping = true;
				b->deadline = now_ms() + (int64_t)b->c.exit_timeout * 1000;
			}
		}
	}
}

/* The up queue's high mark: a command goes to the board only below it,
 * so that its answer finds room (UP_RESERVE). */
static bool up_has_room(const struct bridge *b)
{
	unsigned int keep = UP_RESERVE < b->up.cap / 2 ? UP_RESERVE : b->up.cap / 2;

	return b->up.count + keep < b->up.cap;
}

/*
 * Whether to read the broker's socket. A read can bring PUBLISHes, which
 * libmosquitto acknowledges at once, so they must fit in the down queue;
 * the broker keeps what is not read. The same socket brings the PUBACKs
 * that drain the up queue, so while any are owed it is read even with
 * the down queue in its headroom (what then finds it full is counted,
 * down_dropped): otherwise a full down queue waiting on the up queue's
 * mark, waiting on those PUBACKs, would hold all three for ever.
 */
static bool broker_may_read(const struct bridge *b)
{
	return b->down.cap - b->down.count >= DOWN_HEADROOM || b->inflight;
}

static void board_send(struct bridge *b)
{
	struct phyllo_bridge_msg *m;
	int rc;

	while (!b->hungup && up_has_room(b) && (m = phyllo_bridge_queue_peek(&b->down))) {
		rc = phyllo_publish(b->h, m->topic, m->payload, m->len,
				    b->c.unreliable ? PHYLLO_MSG_UNRELIABLE : 0);
		if (rc == -EAGAIN)
			return;		/* a full window, or the link down */
		if (rc == -EPIPE)
			return;	/* board_recv() says it */
		if (rc == -ECONNRESET)
			continue;	/* not sent: the session ended first; again */
		if (rc < 0) {
			if (often(++b->n.oversize))
				say("a message for board topic '%s' not sent: %s", m->topic,
				    phyllo_strerror(rc));
		} else {
			b->n.board_tx++;
		}
		phyllo_bridge_queue_pop(&b->down);
	}
}

/* ---- the loop ------------------------------------------------------- */

static int signals_fd(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static void signal_read(struct bridge *b, int sfd)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGUSR1) {
			counters_update(b);
			counters_print(&b->n, stderr);
		} else if (!b->stopping) {
			b->stopping = true;
			b->deadline = now_ms() + (int64_t)b->c.exit_timeout * 1000;
		}
	}
}

static bool drained(const struct bridge *b)
{
	return !b->up.count && !b->inflight && (b->hungup || !b->down.count);
}

static int poll_timeout(const struct bridge *b, int64_t now)
{
	int64_t t = now + 1000;

	if (!b->connected && !b->attempt_at && b->next_try < t)
		t = b->next_try;
	if (b->attempt_at && b->attempt_at + b->c.connect_timeout * 1000LL < t)
		t = b->attempt_at + b->c.connect_timeout * 1000LL;
	if (b->c.stats_interval && b->next_stats < t)
		t = b->next_stats;
	if (b->stopping && b->deadline < t)
		t = b->deadline;
	/* the kernel says nothing when its window opens (nor when a down
	 * link comes up: then once a second is soon enough) */
	if (b->down.count && !b->link_down)
		t = now + 5 < t ? now + 5 : t;
	return t > now ? (int)(t - now) : 0;
}

static void mqtt_service(struct bridge *b, short revents)
{
	int rc = MOSQ_ERR_SUCCESS;

	if ((revents & (POLLIN | POLLHUP | POLLERR)) && broker_may_read(b))
		rc = mosquitto_loop_read(b->mq, 1);
	if (!rc && (revents & POLLOUT))
		rc = mosquitto_loop_write(b->mq, 1);
	if (!rc)
		rc = mosquitto_loop_misc(b->mq);
	if (rc && b->connected) {
		/* libmosquitto has called on_disconnect when it saw the loss */
		b->connected = false;
		b->n.disconnects++;
		broker_next(b);
	}
	/* an attempt whose socket hung up, left open by libmosquitto */
	if (!b->connected && b->attempt_at && (revents & (POLLHUP | POLLERR)) &&
	    mosquitto_socket(b->mq) >= 0)
		b->attempt_dead = true;
}

static int bridge_run(struct bridge *b)
{
	int sfd = signals_fd();
	struct pollfd pfd[3];
	int64_t now;
	int sock;

	b->next_stats = now_ms() + (int64_t)b->c.stats_interval * 1000;
	mqtt_connect(b);
	while (!b->fatal) {
		now = now_ms();
		if (b->stopping && (drained(b) || now >= b->deadline))
			break;
		if (!b->connected)
			attempt_check(b, now);
		if (!b->connected && !b->attempt_at && now >= b->next_try)
			mqtt_connect(b);
		if (b->c.stats_interval && now >= b->next_stats) {
			stats_publish(b);
			b->next_stats = now + (int64_t)b->c.stats_interval * 1000;
		}
		mqtt_send(b);
		board_send(b);
		/* a socket given up on stays open until the next attempt: not polled */
		sock = b->connected || (b->attempt_at && !b->attempt_dead) ? mosquitto_socket(b->mq) : -1;
		pfd[0] = (struct pollfd){ .fd = b->hungup ? -1 : phyllo_fd(b->h), .events = POLLIN };
		/* the broker's socket is read only while the board's queue has room */
		pfd[1] = (struct pollfd){ .fd = sock, .events = (short)(
					  (broker_may_read(b) ? POLLIN : 0) |
					  (mosquitto_want_write(b->mq) ? POLLOUT : 0)) };
		pfd[2] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		if (poll(pfd, 3, poll_timeout(b, now)) < 0 && errno != EINTR) {
			say("poll: %s", strerror(errno));
			return 1;
		}
		if (pfd[2].revents)
			signal_read(b, sfd);
		if (!b->hungup) {
			phyllo_dispatch(b->h);
			board_recv(b);
			board_send(b);
		}
		if (sock >= 0)
			mqtt_service(b, pfd[1].revents);
	}
	close(sfd);
	return 0;
}

static void bridge_exit(struct bridge *b)
{
	int64_t end;

	counters_update(b);
	b->n.exit_unsent = b->up.count + b->inflight;
	b->n.exit_undelivered = b->down.count;
	if (b->n.exit_unsent || b->n.exit_undelivered)
		say("exit: %lu board messages not published, %lu commands not sent to the board",
		    b->n.exit_unsent, b->n.exit_undelivered);
	if (b->connected) {
		stats_publish(b);
		b->offline_mid = -1;
		if (!mosquitto_publish(b->mq, &b->offline_mid, b->t_status, 7, "offline", 1, true))
			mid_track(b, b->offline_mid, MID_OWN, b->t_status);
		for (end = now_ms() + 1000; b->connected && !b->offline_acked && now_ms() < end;)
			mosquitto_loop(b->mq, 50, 1);
		mosquitto_disconnect(b->mq);
		mosquitto_loop(b->mq, 50, 1);
	}
	if (b->h && !b->hungup)
		phyllo_flush(b->h, 1000);
	counters_print(&b->n, stdout);
	fflush(stdout);
}

/* ---- set-up --------------------------------------------------------- */

static void dry_run(const struct bridge *b)
{
	const struct phyllo_bridge_conf *c = &b->c;
	const char *retained = !c->retained_commands ? "retained messages dropped" :
		c->protocol == 5 ? "retained messages sent once per session" :
		"retained messages sent again at each connection";
	unsigned int i;

	printf("link      %s (%s)\n", c->link, c->tty ? "the protocol in libphyllo" :
	       "/dev/phylloN, or the protocol in libphyllo on a tty");
	for (i = 0; i < c->n_brokers; i++)
		printf("broker    %s:%d%s\n", c->brokers[i].host, c->brokers[i].port,
		       c->n_brokers > 1 ? i ? ", then" : ", tried first" : "");
	printf("session   MQTT %s, client id %s, persistent session; an attempt given up after "
	       "%u s\n", c->protocol == 5 ? "5" : "3.1.1", c->client_id, c->connect_timeout);
	if (c->tls)
		printf("tls       on (%s): CA %s, client certificate %s, broker certificate %s\n",
		       c->tls_why, c->tls_ca_file[0] ? c->tls_ca_file : c->tls_ca_path[0] ?
		       c->tls_ca_path : "the system's", c->tls_cert_file[0] ? c->tls_cert_file :
		       "none", c->tls_insecure ? "NOT verified (tls_verify = no)" : "verified");
	else
		printf("tls       off%s\n", c->tls_mode == 0 ? " (tls = no)" : "");
	printf("login     %s%s\n", c->username[0] ? c->username : "none",
	       c->password[0] ? ", password set" : "");
	printf("out       board topic T -> %s/%s/T (QoS %d, %s)\n", c->prefix, c->name, c->qos,
	       c->payload == PHYLLO_BRIDGE_RAW ? "raw MessagePack" : "JSON");
	printf("in        %s/%s/cmd/T -> board topic T (QoS 1, %s, %s, %s)\n", c->prefix,
	       c->name, c->unreliable ? "unreliable" : "reliable",
	       c->payload == PHYLLO_BRIDGE_RAW ? "raw MessagePack" : "JSON", retained);
	for (i = 0; i < c->n_imports; i++)
		printf("import    %s -> board topic %s (QoS 1, %s)\n", c->imports[i].filter,
		       c->imports[i].topic, retained);
	printf("status    %s: online, offline (retained; offline is the will)\n", b->t_status);
	printf("stats     %s (retained, every %u s)\n", b->t_stats, c->stats_interval);
	printf("link      %s: up, down, gone (retained)\n", b->t_link);
	printf("events    %s (QoS 1)\n", b->t_event);
	printf("queue     %u messages while the broker is away, %u in flight\n", c->queue,
	       c->inflight);
	for (i = 0; i < c->n_ha; i++) {
		char topic[PHYLLO_BRIDGE_MQTT_TOPIC_MAX * 2], json[2048];

		if (!phyllo_bridge_ha_config(c, i, topic, sizeof(topic), json, sizeof(json)))
			printf("discovery %s (retained): sensor %s/%s/%s\n", topic, c->prefix, c->name,
			       c->ha_sensors[i]);
	}
}

static void usage(FILE *f)
{
	fputs("usage: phyllo-bridge [-c FILE] [--link PATH | --tty PATH] [--name NAME] [--dry-run] "
	      "[-v]\n"
	      "  -c, --config FILE  key = value settings (phyllo-bridge(1)); credentials only\n"
	      "                     there or in PHYLLO_BRIDGE_USERNAME / PHYLLO_BRIDGE_PASSWORD\n"
	      "  --link PATH        /dev/phylloN (or a tty: the protocol in libphyllo)\n"
	      "  --tty PATH         a tty, the protocol in libphyllo\n"
	      "  --name NAME        the link's name in topics (default: from the path)\n"
	      "  --dry-run          print the mapping and exit\n"
	      "  -v, --verbose      libmosquitto's log of every packet too\n", f);
}

static int args_parse(struct bridge *b, int argc, char **argv, bool *dry)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' }, { "link", required_argument, NULL, 'l' },
		{ "tty", required_argument, NULL, 't' }, { "name", required_argument, NULL, 'n' },
		{ "dry-run", no_argument, NULL, 'd' }, { "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	char err[700], line[PHYLLO_BRIDGE_STR_MAX + 16];
	struct stat st;
	int o;

	while ((o = getopt_long(argc, argv, "c:vh", opts, NULL)) != -1) {
		err[0] = '\0';
		if (o == 'c') {
			if (phyllo_bridge_conf_load(&b->c, optarg, err, sizeof(err)))
				goto bad;
			if (b->c.password[0] && !stat(optarg, &st) && (st.st_mode & 077))
				say("warning: %s holds a password and others may read it", optarg);
		} else if (o == 'l' || o == 't' || o == 'n') {
			snprintf(line, sizeof(line), "%s = %s", o == 'n' ? "name" : "link", optarg);
			if (phyllo_bridge_conf_line(&b->c, line, 0, err, sizeof(err)))
				goto bad;
			if (o == 't')
				b->c.tty = true;
		} else if (o == 'd') {
			*dry = true;
		} else if (o == 'v') {
			b->verbose = true;
		} else if (o == 'h') {
			usage(stdout);
			exit(0);
		} else {
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		say("unexpected argument '%s' (credentials belong in the configuration file)",
		    argv[optind]);
		return -1;
	}
	return 0;
bad:
	say("%s", err);
	return -1;
}

/* A named link's name (sysfs), the same whatever tty carries it: true
 * when the link has one. */
static bool link_name(const char *dev, struct phyllo_bridge_conf *c)
{
	char path[PATH_MAX], name[64] = "";
	FILE *f;

	if (snprintf(path, sizeof(path), "/sys/class/phyllo/%s/name", dev) >= (int)sizeof(path))
		return false;
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(name, sizeof(name), f))
		name[0] = '\0';
	fclose(f);
	name[strcspn(name, "\n")] = '\0';
	if (name[0])
		phyllo_bridge_name_from_link(name, c->name, sizeof(c->name));
	return name[0] != '\0';
}

/*
 * The default name: a named link's name; else the by-id name of the link's serial device when udev
 * made one (/dev/serial/by-id/usb-...: the same board, whatever port and
 * order it comes up in), else what phyllo_bridge_conf_finish() takes, the
 * link's file name. /dev/phylloN is followed to its tty through sysfs.
 */
static void name_stable(struct phyllo_bridge_conf *c)
{
	char real[PATH_MAX], dev[PATH_MAX], tty[64] = "", path[PATH_MAX + 300];
	const char *base;
	struct dirent *e;
	FILE *f;
	DIR *d;

	if (c->name[0] || !realpath(c->link, real))
		return;
	base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
	if (!strncmp(base, "phyllo", 6) && link_name(base, c)) {
		return;
	} else if (!strncmp(base, "phyllo", 6)) {
		snprintf(path, sizeof(path), "/sys/class/phyllo/%s/tty", base);
		f = fopen(path, "re");
		if (!f)
			return;
		if (!fgets(tty, sizeof(tty), f))
			tty[0] = '\0';
		fclose(f);
		tty[strcspn(tty, "\n")] = '\0';
		/* the kernel names a pty's slave pts3; its node is /dev/pts/3 */
		if (!strncmp(tty, "pts", 3) && isdigit((unsigned char)tty[3]))
			snprintf(real, sizeof(real), "/dev/pts/%s", tty + 3);
		else
			snprintf(real, sizeof(real), "/dev/%s", tty);
	}
	d = opendir("/dev/serial/by-id");
	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "/dev/serial/by-id/%s", e->d_name);
		if (e->d_name[0] != '.' && realpath(path, dev) && !strcmp(dev, real)) {
			phyllo_bridge_name_from_link(path, c->name, sizeof(c->name));
			break;
		}
	}
	if (d)
		closedir(d);
}

static int bridge_setup(struct bridge *b, int argc, char **argv, bool *dry)
{
	char host[128] = "host", err[700];

	phyllo_bridge_conf_init(&b->c);
	if (args_parse(b, argc, argv, dry))
		return -1;
	phyllo_bridge_conf_env(&b->c);
	gethostname(host, sizeof(host) - 1);
	if (b->c.link[0])
		name_stable(&b->c);
	if (phyllo_bridge_conf_finish(&b->c, host, err, sizeof(err))) {
		say("%s", err);
		return -1;
	}
	if (b->c.tls && b->c.tls_mode == -1 && !*dry)
		say("TLS on, %s (write tls = yes to say so, or tls = no for a clear "
		    "connection)", b->c.tls_why);
	phyllo_bridge_topic(&b->c, "status", b->t_status, sizeof(b->t_status));
	phyllo_bridge_topic(&b->c, "bridge/stats", b->t_stats, sizeof(b->t_stats));
	phyllo_bridge_topic(&b->c, "bridge/event", b->t_event, sizeof(b->t_event));
	phyllo_bridge_topic(&b->c, "bridge/link", b->t_link, sizeof(b->t_link));
	phyllo_bridge_topic(&b->c, "cmd/#", b->t_cmd, sizeof(b->t_cmd));
	if (phyllo_bridge_queue_init(&b->up, b->c.queue) ||
	    phyllo_bridge_queue_init(&b->down, DOWN_QUEUE)) {
		say("out of memory");
		return -1;
	}
	return 0;
}

static int link_open(struct bridge *b)
{
	struct phyllo_options o;
	int rc;

	phyllo_options_init(&o);
	o.transport = b->c.tty ? PHYLLO_TRANSPORT_TTY : PHYLLO_TRANSPORT_AUTO;
	o.flags = PHYLLO_OPEN_NONBLOCK;
	o.baud = b->c.baud;
	rc = phyllo_open(&b->h, b->c.link, &o);
	if (!rc)
		rc = phyllo_subscribe(b->h, "");
	if (rc) {
		say("%s: %s", b->c.link, phyllo_strerror(rc));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct bridge b;	/* big: the per-message-id tables */
	bool dry = false;
	int rc;

	if (bridge_setup(&b, argc, argv, &dry))
		return 2;
	if (dry) {
		dry_run(&b);
		return 0;
	}
	setvbuf(stderr, NULL, _IOLBF, 0);
	mosquitto_lib_init();
	if (link_open(&b) || mqtt_setup(&b))
		return 1;
	rc = bridge_run(&b);
	bridge_exit(&b);
	phyllo_close(b.h);
	mosquitto_destroy(b.mq);
	mosquitto_lib_cleanup();
	phyllo_bridge_queue_free(&b.up);
	phyllo_bridge_queue_free(&b.down);
	return rc ? rc : b.exit_code;
}
