// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bridge_conf.c - phyllo-bridge's configuration file: `key = value` lines,
 * blank lines and `#` comments; the value runs to the end of the line,
 * spaces around it trimmed. One format, simple enough not to need a
 * library. Every key is in phyllo-bridge(1); anything else is an error
 * that names the line, so a typo never passes for a default.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bridge.h"

void phyllo_bridge_conf_init(struct phyllo_bridge_conf *c)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->prefix, "phyllo");
	strcpy(c->host, "localhost");
	c->protocol = 4;
	c->keepalive = 30;
	c->qos = 1;
	c->queue = 1000;
	c->inflight = 20;
	c->stats_interval = 10;
	c->reconnect_max = 30;
	c->connect_timeout = 10;
	c->exit_timeout = 5;
	c->tls_mode = -1;
	strcpy(c->ha_prefix, "homeassistant");
}

static int set_str(char *dst, const char *v, char *err, size_t errlen)
{
	if (strlen(v) >= PHYLLO_BRIDGE_STR_MAX) {
		snprintf(err, errlen, "value over %d bytes", PHYLLO_BRIDGE_STR_MAX - 1);
		return -1;
	}
	strcpy(dst, v);
	return 0;
}

static int set_uint(unsigned int *dst, const char *v, unsigned long lo, unsigned long hi,
		    char *err, size_t errlen)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(v, &end, 10);
	if (!*v || *end || errno || n < lo || n > hi || *v == '-') {
		snprintf(err, errlen, "'%s' is not a number from %lu to %lu", v, lo, hi);
		return -1;
	}
	*dst = (unsigned int)n;
	return 0;
}

static int set_bool(bool *dst, const char *v, char *err, size_t errlen)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1"))
		*dst = true;
	else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0"))
		*dst = false;
	else {
		snprintf(err, errlen, "'%s' is not yes or no", v);
		return -1;
	}
	return 0;
}

/* import = <MQTT filter> <board topic> */
static int set_import(struct phyllo_bridge_conf *c, const char *v, char *err, size_t errlen)
{
	struct phyllo_bridge_import *im;
	const char *sp = strpbrk(v, " \t");
	const char *t;
	size_t fl;

	if (c->n_imports == PHYLLO_BRIDGE_IMPORTS_MAX) {
		snprintf(err, errlen, "more than %d imports", PHYLLO_BRIDGE_IMPORTS_MAX);
		return -1;
	}
	if (!sp) {
		snprintf(err, errlen, "import wants an MQTT filter and a board topic");
		return -1;
	}
	fl = (size_t)(sp - v);
	for (t = sp; *t == ' ' || *t == '\t'; t++)
		;
	if (fl >= PHYLLO_BRIDGE_MQTT_TOPIC_MAX || strlen(t) > PHYLLO_BRIDGE_TOPIC_MAX ||
	    strpbrk(t, " \t+#")) {
		snprintf(err, errlen, "import: filter too long, or board topic not 0-%d bytes "
			 "without spaces, + or #", PHYLLO_BRIDGE_TOPIC_MAX);
		return -1;
	}
	im = &c->imports[c->n_imports++];
	memcpy(im->filter, v, fl);
	im->filter[fl] = '\0';
	strcpy(im->topic, t);
	return 0;
}

static int set_key(struct phyllo_bridge_conf *c, const char *k, const char *v, char *err,
		   size_t errlen)
{
	unsigned int u;

	if (!strcmp(k, "link"))
		return set_str(c->link, v, err, errlen);
	if (!strcmp(k, "transport")) {
		if (strcmp(v, "tty") && strcmp(v, "auto")) {
			snprintf(err, errlen, "transport is auto or tty");
			return -1;
		}
		c->tty = !strcmp(v, "tty");
		return 0;
	}
	if (!strcmp(k, "baud")) {
		if (set_uint(&u, v, 1200, 4000000, err, errlen))
			return -1;
		c->baud = u;
		return 0;
	}
	if (!strcmp(k, "prefix"))
		return set_str(c->prefix, v, err, errlen);
	if (!strcmp(k, "name"))
		return set_str(c->name, v, err, errlen);
	if (!strcmp(k, "client_id"))
		return set_str(c->client_id, v, err, errlen);
	if (!strcmp(k, "host"))
		return set_str(c->host, v, err, errlen);
	if (!strcmp(k, "port")) {
		if (set_uint(&u, v, 1, 65535, err, errlen))
			return -1;
		c->port = (int)u;
		return 0;
	}
	if (!strcmp(k, "protocol")) {
		if (!strcmp(v, "3.1.1") || !strcmp(v, "4"))
			c->protocol = 4;
		else if (!strcmp(v, "5"))
			c->protocol = 5;
		else {
			snprintf(err, errlen, "protocol is 3.1.1 or 5");
			return -1;
		}
		return 0;
	}
	if (!strcmp(k, "keepalive")) {
		if (set_uint(&u, v, 5, 65535, err, errlen))
			return -1;
		c->keepalive = (int)u;
		return 0;
	}
	if (!strcmp(k, "username"))
		return set_str(c->username, v, err, errlen);
	if (!strcmp(k, "password"))
		return set_str(c->password, v, err, errlen);
	if (!strcmp(k, "tls")) {
		bool on;

		if (set_bool(&on, v, err, errlen))
			return -1;
		c->tls_mode = on;
		return 0;
	}
	if (!strcmp(k, "tls_ca_file"))
		return set_str(c->tls_ca_file, v, err, errlen);
	if (!strcmp(k, "tls_ca_path"))
		return set_str(c->tls_ca_path, v, err, errlen);
	if (!strcmp(k, "tls_cert_file"))
		return set_str(c->tls_cert_file, v, err, errlen);
	if (!strcmp(k, "tls_key_file"))
		return set_str(c->tls_key_file, v, err, errlen);
	if (!strcmp(k, "tls_verify")) {
		bool verify;

		if (set_bool(&verify, v, err, errlen))
			return -1;
		c->tls_insecure = !verify;
		c->tls_verify_set = true;
		return 0;
	}
	if (!strcmp(k, "payload")) {
		if (!strcmp(v, "json"))
			c->payload = PHYLLO_BRIDGE_JSON;
		else if (!strcmp(v, "raw"))
			c->payload = PHYLLO_BRIDGE_RAW;
		else {
			snprintf(err, errlen, "payload is json or raw");
			return -1;
		}
		return 0;
	}
	if (!strcmp(k, "qos")) {
		if (set_uint(&u, v, 0, 1, err, errlen))
			return -1;
		c->qos = (int)u;
		return 0;
	}
	if (!strcmp(k, "queue"))
		return set_uint(&c->queue, v, 1, 1000000, err, errlen);
	if (!strcmp(k, "inflight"))
		return set_uint(&c->inflight, v, 1, 65535, err, errlen);
	if (!strcmp(k, "stats_interval"))
		return set_uint(&c->stats_interval, v, 0, 86400, err, errlen);
	if (!strcmp(k, "reconnect_max"))
		return set_uint(&c->reconnect_max, v, 1, 3600, err, errlen);
	if (!strcmp(k, "connect_timeout"))
		return set_uint(&c->connect_timeout, v, 1, 3600, err, errlen);
	if (!strcmp(k, "exit_timeout"))
		return set_uint(&c->exit_timeout, v, 0, 3600, err, errlen);
	if (!strcmp(k, "unreliable"))
		return set_bool(&c->unreliable, v, err, errlen);
	if (!strcmp(k, "retained_commands"))
		return set_bool(&c->retained_commands, v, err, errlen);
	if (!strcmp(k, "import"))
		return set_import(c, v, err, errlen);
	if (!strcmp(k, "ha_prefix"))
		return set_str(c->ha_prefix, v, err, errlen);
	if (!strcmp(k, "ha_sensor")) {
		if (c->n_ha == PHYLLO_BRIDGE_IMPORTS_MAX || strlen(v) > PHYLLO_BRIDGE_TOPIC_MAX ||
		    !*v || strpbrk(v, "\"\\+#/ ")) {
			snprintf(err, errlen, "at most %d, each a board topic of 1-%d bytes "
				 "without \" \\ + # / or spaces", PHYLLO_BRIDGE_IMPORTS_MAX,
				 PHYLLO_BRIDGE_TOPIC_MAX);
			return -1;
		}
		strcpy(c->ha_sensors[c->n_ha++], v);
		return 0;
	}
	snprintf(err, errlen, "unknown key '%s'", k);
	return -1;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int phyllo_bridge_conf_line(struct phyllo_bridge_conf *c, const char *line, unsigned int lineno,
			    char *err, size_t errlen)
{
	char buf[1024], msg[512];
	char *k, *v, *eq;

	if (strlen(line) >= sizeof(buf)) {
		snprintf(err, errlen, "line %u: too long", lineno);
		return -1;
	}
	strcpy(buf, line);
	k = trim(buf);
	if (!*k || *k == '#')
		return 0;
	eq = strchr(k, '=');
	if (!eq) {
		snprintf(err, errlen, "line %u: not 'key = value'", lineno);
		return -1;
	}
	*eq = '\0';
	k = trim(k);
	v = trim(eq + 1);
	if (set_key(c, k, v, msg, sizeof(msg))) {
		snprintf(err, errlen, "line %u: %s: %s", lineno, k, msg);
		return -1;
	}
	return 0;
}

int phyllo_bridge_conf_load(struct phyllo_bridge_conf *c, const char *path, char *err,
			    size_t errlen)
{
	char line[1024], msg[600];
	unsigned int n = 0;
	FILE *f = fopen(path, "re");
	size_t len;
	int ret = 0;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (!ret && fgets(line, sizeof(line), f)) {
		n++;
		len = strlen(line);
		/* a line fgets had to split: its tail must never pass for a line */
		if (len == sizeof(line) - 1 && line[len - 1] != '\n' && !feof(f)) {
			snprintf(msg, sizeof(msg), "line %u: longer than %zu bytes", n,
				 sizeof(line) - 2);
			ret = -1;
			break;
		}
		line[strcspn(line, "\r\n")] = '\0';
		ret = phyllo_bridge_conf_line(c, line, n, msg, sizeof(msg));
	}
	fclose(f);
	if (ret)
		snprintf(err, errlen, "%s: %s", path, msg);
	return ret;
}

void phyllo_bridge_conf_env(struct phyllo_bridge_conf *c)
{
	const char *u = getenv("PHYLLO_BRIDGE_USERNAME");
	const char *p = getenv("PHYLLO_BRIDGE_PASSWORD");

	if (u && strlen(u) < sizeof(c->username))
		strcpy(c->username, u);
	if (p && strlen(p) < sizeof(c->password))
		strcpy(c->password, p);
}

void phyllo_bridge_name_from_link(const char *link, char *out, size_t cap)
{
	const char *b = strrchr(link, '/');
	size_t i;

	snprintf(out, cap, "%s", b ? b + 1 : link);
	for (i = 0; out[i]; i++)
		if (out[i] == '+' || out[i] == '#' || out[i] == '/' || isspace((unsigned char)out[i]))
			out[i] = '_';
	if (!out[0])
		snprintf(out, cap, "link");
}

/* Would an import's filter match something the bridge publishes? Its
 * own topics all lie under <prefix>/<name>/. */
static int import_loops(const struct phyllo_bridge_conf *c, const char *filter)
{
	char probe[PHYLLO_BRIDGE_MQTT_TOPIC_MAX + 8];
	static const char *const own[] = { "x", "status", "bridge/stats", "bridge/event", "x/y/z" };
	size_t i;

	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!phyllo_bridge_topic(c, own[i], probe, sizeof(probe)) &&
		    phyllo_bridge_filter_match(filter, probe))
			return 1;
	return 0;
}

/* One entry of `host`: host, host:port, [v6] or [v6]:port (a v6 address
 * without brackets takes the default port). */
static int broker_parse(struct phyllo_bridge_broker *br, const char *s, size_t len, int port)
{
	const char *end = s + len, *colon;
	unsigned long p;
	char num[8], *e;

	colon = s[0] == '[' ? memchr(s, ']', len) : memchr(s, ':', len);
	if (s[0] == '[') {
		if (!colon)
			return -1;
		s++;
		len = (size_t)(colon - s);
		colon = colon + 1 < end ? colon + 1 : NULL;
		if (colon && *colon != ':')
			return -1;
	} else if (colon && memchr(colon + 1, ':', (size_t)(end - colon - 1))) {
		colon = NULL;		/* bare IPv6 */
	} else if (colon) {
		len = (size_t)(colon - s);
	}
	if (!len || len >= sizeof(br->host))
		return -1;
	memcpy(br->host, s, len);
	br->host[len] = '\0';
	br->port = port;
	if (!colon)
		return 0;
	if ((size_t)(end - colon - 1) >= sizeof(num) || end == colon + 1)
		return -1;
	memcpy(num, colon + 1, (size_t)(end - colon - 1));
	num[end - colon - 1] = '\0';
	p = strtoul(num, &e, 10);
	if (*e || !p || p > 65535 || num[0] == '-' || num[0] == '+')
		return -1;
	br->port = (int)p;
	return 0;
}

static int brokers_split(struct phyllo_bridge_conf *c, char *err, size_t errlen)
{
	const char *s = c->host, *e;

	c->n_brokers = 0;
	for (;;) {
		s += strspn(s, " \t,");
		if (!*s)
			break;
		e = s + strcspn(s, " \t,");
		if (c->n_brokers == PHYLLO_BRIDGE_BROKERS_MAX ||
		    broker_parse(&c->brokers[c->n_brokers], s, (size_t)(e - s), c->port)) {
			snprintf(err, errlen, "host: '%.*s' is not host, host:port, [v6] or "
				 "[v6]:port, or more than %d brokers", (int)(e - s), s,
				 PHYLLO_BRIDGE_BROKERS_MAX);
			return -1;
		}
		c->n_brokers++;
		s = e;
	}
	if (!c->n_brokers) {
		snprintf(err, errlen, "host: no broker given");
		return -1;
	}
	return 0;
}

/* TLS before the port's default: written, or implied by a tls_ file key,
 * tls_verify or `port = 8883`. */
static int tls_decide(struct phyllo_bridge_conf *c, char *err, size_t errlen)
{
	bool files = c->tls_ca_file[0] || c->tls_ca_path[0] || c->tls_cert_file[0] ||
		     c->tls_key_file[0];

	c->tls = c->tls_mode == 1;
	if (c->tls_mode == 1) {
		snprintf(c->tls_why, sizeof(c->tls_why), "tls = yes");
	} else if (c->tls_mode == 0) {
		if (files || c->tls_verify_set) {
			snprintf(err, errlen, "tls = no, but tls_%s is set: remove one of them",
				 files ? "..._file or tls_ca_path" : "verify");
			return -1;
		}
	} else if (files || c->tls_verify_set || c->port == 8883) {
		c->tls = true;
		snprintf(c->tls_why, sizeof(c->tls_why), "implied by %s",
			 files ? "a tls_ file key" : c->tls_verify_set ? "tls_verify" :
			 "port = 8883");
	}
	return 0;
}

static bool host_is_loopback(const char *h)
{
	return !strcmp(h, "localhost") || !strncmp(h, "127.", 4) || !strcmp(h, "::1") ||
	       !strcmp(h, "ip6-localhost");
}

/* Once the brokers are known: a broker on 8883 implies TLS too, and
 * credentials never leave this machine in clear unless `tls = no` says
 * so. */
static int tls_brokers_check(struct phyllo_bridge_conf *c, char *err, size_t errlen)
{
	unsigned int i;

	for (i = 0; i < c->n_brokers && c->tls_mode == -1 && !c->tls; i++)
		if (c->brokers[i].port == 8883) {
			c->tls = true;
			snprintf(c->tls_why, sizeof(c->tls_why), "implied by the port 8883 of %.60s",
				 c->brokers[i].host);
		}
	if (c->tls || c->tls_mode == 0 || (!c->username[0] && !c->password[0]))
		return 0;
	for (i = 0; i < c->n_brokers; i++)
		if (!host_is_loopback(c->brokers[i].host)) {
			snprintf(err, errlen, "the username and password for %s:%d would go in "
				 "clear: write tls = yes (with the broker's TLS port, 8883 as a "
				 "rule), or tls = no to send them unencrypted", c->brokers[i].host,
				 c->brokers[i].port);
			return -1;
		}
	return 0;
}

int phyllo_bridge_conf_finish(struct phyllo_bridge_conf *c, const char *hostname, char *err,
			      size_t errlen)
{
	char probe[PHYLLO_BRIDGE_MQTT_TOPIC_MAX];
	unsigned int i;

	if (!c->link[0]) {
		snprintf(err, errlen, "no link: give 'link = /dev/phylloN' or --link/--tty PATH");
		return -1;
	}
	if (!c->name[0])
		phyllo_bridge_name_from_link(c->link, c->name, sizeof(c->name));
	if (strpbrk(c->name, "+#/") || strpbrk(c->prefix, "+#") || !c->prefix[0]) {
		snprintf(err, errlen, "name may not hold + # /, prefix + # (and is not empty)");
		return -1;
	}
	if (c->n_ha && (strpbrk(c->name, "\"\\") || strpbrk(c->prefix, "\"\\") ||
			 strpbrk(c->ha_prefix, "\"\\+#"))) {
		snprintf(err, errlen, "with ha_sensor, name and prefixes may not hold \" or \\");
		return -1;
	}
	if (!c->client_id[0])
		snprintf(c->client_id, sizeof(c->client_id), "phyllo-bridge-%.100s-%.100s",
			 hostname, c->name);
	if (tls_decide(c, err, errlen))
		return -1;
	if (!c->port)
		c->port = c->tls ? 8883 : 1883;
	if (brokers_split(c, err, errlen) || tls_brokers_check(c, err, errlen))
		return -1;
	if (phyllo_bridge_topic(c, "cmd/123456789012345", probe, sizeof(probe))) {
		snprintf(err, errlen, "prefix and name too long for MQTT topics");
		return -1;
	}
	for (i = 0; i < c->n_imports; i++)
		if (import_loops(c, c->imports[i].filter)) {
			snprintf(err, errlen, "import '%s' matches this bridge's own topics "
				 "(%s/%s/...): it would loop", c->imports[i].filter, c->prefix, c->name);
			return -1;
		}
	return 0;
}
