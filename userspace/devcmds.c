// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * devcmds.c - `phyllo list`, `phyllo stats`, `phyllo pub`, `phyllo sub`,
 * `phyllo drain`: small clients of a link. stats, pub and sub go through
 * libphyllo, on /dev/phylloN (-d) or on a tty with the protocol in the
 * tool (--tty); list and drain are /dev/phylloN's own. Documents are JSON
 * on the command line and MessagePack on the wire (pub-sub type 0x40,
 * format 0x11).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "cmds.h"
#include "dev.h"
#include "link.h"
#include "ttylock.h"
#include "util.h"
#include "phyllo.h"
#include "phyllo_pubsub.h"
#include "phyllo_stats.h"

static const char *state_name(__u32 state)
{
	static const char *const names[] = { "connecting", "up", "hung-up" };

	return state < 3 ? names[state] : "?";
}

/* Common option parsing for the small commands. */
struct small_opts {
	struct dev_spec link;
	bool json, reply, unreliable;
	unsigned long count, timeout_s, schema;
};

enum { OPT_TTY = 256, OPT_PRESET };

static int small_parse(struct small_opts *o, int argc, char **argv, const char *usage)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "tty", required_argument, NULL, OPT_TTY },
		{ "baud", required_argument, NULL, 'b' },
		{ "preset", required_argument, NULL, OPT_PRESET },
		{ "json", no_argument, NULL, 'j' },
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "schema", required_argument, NULL, 's' },
		{ "reply", no_argument, NULL, 'r' },
		{ "unreliable", no_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->link.dev = DEV_DEFAULT;
	o->link.preset = PHYLLO_LIB_STANDARD;
	o->timeout_s = 5;
	while ((c = getopt_long(argc, argv, "d:b:jn:t:s:ruh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o->link.dev = optarg; break;
		case OPT_TTY: o->link.tty = optarg; break;
		case 'b': o->link.baud = link_parse_baud("phyllo", optarg); break;
		case OPT_PRESET: o->link.preset = util_parse_preset(optarg); break;
		case 'j': o->json = true; break;
		case 'n': o->count = util_parse_num("--count", optarg, 1, 1000000000); break;
		case 't': o->timeout_s = util_parse_num("--timeout", optarg, 0, 86400); break;
		case 's': o->schema = util_parse_num("--schema", optarg, 0, 255); break;
		case 'r': o->reply = true; break;
		case 'u': o->unreliable = true; break;
		case 'h': fputs(usage, stdout); exit(0);
		default: fputs(usage, stderr); exit(2);
		}
	}
	return optind;
}

/* The link options every libphyllo command takes, for its usage. */
#define LINK_USAGE \
	"  -d, --device DEV   a phyllo link (default " DEV_DEFAULT ")\n" \
	"      --tty TTY      a serial port instead: the protocol runs in phyllo\n" \
	"                     itself, no kernel module needed\n" \
	"  -b, --baud N       --tty: line speed (default: as the port is)\n" \
	"      --preset P     --tty: minimal | reduced | standard (default)\n"

void stats_json(FILE *f, const uint32_t *v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		fprintf(f, "%s\"%s\":%u", i ? "," : "{", phyllo_stat_name(i), v[i]);
	fputc('}', f);
}

int stats_main(int argc, char **argv)
{
	static const char usage[] = "usage: phyllo stats [-d DEV | --tty TTY] [--json]\n"
		"Print the link's counters. With --tty, once a session is open (up to -t\n"
		"seconds, default 5).\n" LINK_USAGE;
	uint32_t v[64];
	struct small_opts o;
	struct phyllo *h;
	int n, i, ret = 0;

	if (small_parse(&o, argc, argv, usage) != argc) {
		fputs(usage, stderr);
		return 2;
	}
	h = dev_open_link(&o.link, "phyllo stats");
	if (!h)
		return 1;
	if (o.link.tty && phyllo_wait_up(h, (int)o.timeout_s * 1000)) {
		fprintf(stderr, "phyllo stats: no session with the far end of %s within %lu s "
			"(counters so far below)\n", o.link.tty, o.timeout_s);
		ret = 1;
	}
	n = phyllo_stats(h, v, 64);
	if (n < 0) {
		fprintf(stderr, "phyllo stats: %s: %s\n", dev_name(&o.link), phyllo_strerror(n));
		phyllo_close(h);
		return 1;
	}
	if (o.json) {
		stats_json(stdout, v, (unsigned int)n);
		putchar('\n');
	} else {
		for (i = 0; i < n; i++)
			printf("%-16s %10u\n", phyllo_stat_name((unsigned int)i), v[i]);
	}
	phyllo_close(h);
	return ret;
}

static int ioctl_state(int fd, struct phyllo_link_state *st)
{
	return ioctl(fd, PHYLLO_IOC_GET_STATE, st);
}

/* One line of `phyllo list` for /sys/class/phyllo/NAME. */
static void list_one(const char *name, bool json, bool first)
{
	struct phyllo_link_state st;
	char path[300], tty[64] = "?", pidtext[16];
	FILE *f;
	pid_t pid;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/phyllo/%s/tty", name);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(tty, sizeof(tty), f))
			strcpy(tty, "?");
		tty[strcspn(tty, "\n")] = 0;
		fclose(f);
	}
	snprintf(path, sizeof(path), "/dev/%s", name);
	memset(&st, 0, sizeof(st));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl_state(fd, &st))
		st.state = 99;
	if (fd >= 0)
		close(fd);
	pid = ttylock_owner(tty);
	snprintf(pidtext, sizeof(pidtext), pid ? "%d" : "-", (int)pid);
	if (json)
		printf("%s{\"device\":\"%s\",\"tty\":\"%s\",\"state\":\"%s\",\"session\":%u,"
		       "\"preset\":\"%s\",\"mtu\":%u,\"attach_pid\":%s}", first ? "" : ",", path,
		       tty, state_name(st.state), st.session, util_preset_name((uint8_t)st.preset),
		       st.mtu, pid ? pidtext : "null");
	else
		printf("%-14s %-12s %-11s %7u %-9s %4u %7s\n", path, tty, state_name(st.state),
		       st.session, util_preset_name((uint8_t)st.preset), st.mtu, pidtext);
}

int list_main(int argc, char **argv)
{
	static const char usage[] = "usage: phyllo list [--json]\n"
		"Show the attached links: device, tty, state, session, preset, MTU, and the\n"
		"pid of the 'phyllo attach' holding the tty ('-': none, e.g. ldattach).\n";
	struct small_opts o;
	struct dirent *de;
	DIR *d;
	bool first = true;

	if (small_parse(&o, argc, argv, usage) != argc) {
		fputs(usage, stderr);
		return 2;
	}
	d = opendir("/sys/class/phyllo");
	if (!d) {
		fprintf(stderr, "phyllo list: the phyllo module is not loaded: run "
			"'modprobe phyllo' first\n");
		return 1;
	}
	if (o.json)
		printf("[");
	else
		printf("%-14s %-12s %-11s %7s %-9s %4s %7s\n", "DEVICE", "TTY", "STATE", "SESSION",
		       "PRESET", "MTU", "PID");
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "phyllo", 6))
			continue;
		list_one(de->d_name, o.json, first);
		first = false;
	}
	closedir(d);
	if (o.json)
		printf("]\n");
	return 0;
}

static void print_hex(const uint8_t *p, size_t n)
{
	size_t i;

	printf("\"0x");
	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\"");
}

/* Print a received unit: "TOPIC VALUE", or a JSON object with --json. */
static void print_message(const struct phyllo_message *m, bool json)
{
	char text[2048];

	if (!m->is_pubsub) {
		printf(json ? "{\"type\":%u,\"bytes\":" : "type 0x%02x ", m->type);
		print_hex(m->data, m->len);
		printf(json ? "}\n" : "\n");
		fflush(stdout);
		return;
	}
	printf(json ? "{\"topic\":\"%.*s\",\"value\":" : "%.*s ", m->topic_len, m->topic);
	if (m->is_document && m->format == PHYLLO_FORMAT_MSGPACK) {
		if (phyllo_msgpack_to_json(m->data, m->len, text, sizeof(text)) >= 0)
			fputs(text, stdout);
		else
			printf("(malformed)");
	} else {
		print_hex(m->data, m->len);
	}
	printf(json ? "}\n" : "\n");
	fflush(stdout);
}

/* A failed receive, said once: 1 to stop, 0 to go on (a session reset). */
static int recv_error(const struct small_opts *o, int err, const char *who)
{
	if (err == -ETIMEDOUT)
		fprintf(stderr, "%s: no message within %lu s\n", who, o->timeout_s);
	else if (err == -EPIPE)
		fprintf(stderr, "%s: %s: the link was detached or hung up\n", who,
			dev_name(&o->link));
	else if (err == -ECONNRESET)
		fprintf(stderr, "%s: %s: session reset (the peer restarted); continuing\n", who,
			dev_name(&o->link));
	else
		fprintf(stderr, "%s: %s: %s\n", who, dev_name(&o->link), phyllo_strerror(err));
	return err == -ECONNRESET ? 0 : 1;
}

/* Wait for and print up to count units (0: forever); timeout per unit. */
static int read_messages(struct phyllo *h, const struct small_opts *o, unsigned long count)
{
	unsigned long got = 0;
	struct phyllo_message m;

	while (!count || got < count) {
		int ret = phyllo_recv(h, &m, o->timeout_s ? (int)o->timeout_s * 1000 : -1);

		if (ret < 0) {
			if (recv_error(o, ret, "phyllo"))
				return 1;
			continue;
		}
		print_message(&m, o->json);
		got++;
	}
	return 0;
}

int pub_main(int argc, char **argv)
{
	static const char usage[] = "usage: phyllo pub [-d DEV | --tty TTY] [--schema N] [--reply] "
		"[--unreliable] TOPIC JSON\n"
		"Publish a JSON value as a MessagePack document on TOPIC (0-15 bytes).\n"
		"  --schema N     the document's schema byte (default 0)\n"
		"  --reply        then wait for one message on TOPIC and print it\n"
		"  --unreliable   no acknowledgement, no retransmission\n"
		"  -t, --timeout  seconds to wait for the acknowledgement or reply (default 5)\n"
		LINK_USAGE;
	struct small_opts o;
	struct phyllo_message m;
	struct phyllo *h;
	uint8_t doc[PHYLLO_UNIT_MAX];
	char err[160];
	int n, ret, i = small_parse(&o, argc, argv, usage);
	const char *topic, *json;

	if (argc - i != 2) {
		fputs(usage, stderr);
		return 2;
	}
	topic = argv[i];
	json = argv[i + 1];
	if (strlen(topic) > PHYLLO_TOPIC_MAX) {
		fprintf(stderr, "phyllo pub: topic '%s' is longer than %u bytes\n", topic,
			PHYLLO_TOPIC_MAX);
		return 2;
	}
	n = phyllo_json_to_msgpack(json, doc, sizeof(doc), err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "phyllo pub: '%s' is not a JSON value that fits: %s\n", json, err);
		return 2;
	}
	h = dev_open_link(&o.link, "phyllo pub");
	if (!h)
		return 1;
	if (o.reply) {
		ret = phyllo_request(h, topic, doc, (size_t)n, &m, (int)o.timeout_s * 1000);
		if (!ret)
			print_message(&m, o.json);
	} else {
		ret = phyllo_publish_doc(h, topic, PHYLLO_FORMAT_MSGPACK, (uint8_t)o.schema, doc,
					 (size_t)n, o.unreliable ? PHYLLO_MSG_UNRELIABLE : 0);
		if (!ret)
			ret = phyllo_flush(h, (int)o.timeout_s * 1000);
		if (ret == -ETIMEDOUT) {
			fprintf(stderr, "phyllo pub: %s: no acknowledgement within %lu s (is the far "
				"end there, at this speed and preset?)\n", dev_name(&o.link),
				o.timeout_s);
			ret = -EALREADY;
		}
	}
	if (ret == -EMSGSIZE)
		fprintf(stderr, "phyllo pub: the message is larger than the link's preset "
			"carries (%d bytes)\n", phyllo_mtu(h));
	else if (ret && ret != -EALREADY)
		recv_error(&o, ret, "phyllo pub");
	phyllo_close(h);
	return ret ? 1 : 0;
}

int sub_main(int argc, char **argv)
{
	static const char usage[] = "usage: phyllo sub [-d DEV | --tty TTY] [-n COUNT] "
		"[-t SECONDS] [--json] TOPIC\n"
		"Print messages whose topic starts with TOPIC ('' for all): TOPIC VALUE.\n"
		"  -n, --count    stop after COUNT messages (default: never)\n"
		"  -t, --timeout  fail if nothing comes for SECONDS (default 5, 0: wait)\n"
		LINK_USAGE;
	struct small_opts o;
	struct phyllo *h;
	int ret, i = small_parse(&o, argc, argv, usage);

	if (argc - i != 1) {
		fputs(usage, stderr);
		return 2;
	}
	if (strlen(argv[i]) > PHYLLO_TOPIC_MAX) {
		fprintf(stderr, "phyllo sub: topic '%s' is longer than %u bytes\n", argv[i],
			PHYLLO_TOPIC_MAX);
		return 2;
	}
	h = dev_open_link(&o.link, "phyllo sub");
	if (!h)
		return 1;
	ret = phyllo_subscribe(h, argv[i]);
	if (ret) {
		fprintf(stderr, "phyllo sub: %s: %s\n", dev_name(&o.link), phyllo_strerror(ret));
		phyllo_close(h);
		return 1;
	}
	ret = read_messages(h, &o, o.count);
	phyllo_close(h);
	return ret;
}

/* Read what is there, all of it, then sleep: an application that is slow. */
static long drain_burst(int fd, const char *dev)
{
	uint8_t unit[PHYLLO_UNIT_MAX + 1];
	long got = 0;

	for (;;) {
		ssize_t n = read(fd, unit, sizeof(unit));

		if (n > 0) {
			got++;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return got;
		if (n < 0 && errno == ECONNRESET)
			continue;	/* reported once; keep reading the new session */
		fprintf(stderr, "phyllo drain: %s: %s\n", dev,
			n ? strerror(errno) : "the link was detached or hung up");
		return -1;
	}
}

int drain_main(int argc, char **argv)
{
	static const char usage[] = "usage: phyllo drain [-d DEV] [-n COUNT] [--pause-ms MS] "
		"[-t SECONDS]\n"
		"Read and discard units in bursts, sleeping MS between bursts: a slow\n"
		"application, for the link-service benchmark. Prints one JSON line.\n";
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "pause-ms", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dev = DEV_DEFAULT;
	unsigned long count = 0, pause_ms = 0, timeout_s = 60;
	long total = 0, got;
	uint64_t deadline;
	int c, fd;

	while ((c = getopt_long(argc, argv, "d:n:p:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'n': count = util_parse_num("--count", optarg, 1, 1000000000); break;
		case 'p': pause_ms = util_parse_num("--pause-ms", optarg, 0, 60000); break;
		case 't': timeout_s = util_parse_num("--timeout", optarg, 1, 86400); break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (optind != argc) {
		fputs(usage, stderr);
		return 2;
	}
	fd = dev_open(dev, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return 1;
	deadline = util_now_us() + timeout_s * 1000000ull;
	while ((!count || (unsigned long)total < count) && util_now_us() < deadline) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		poll(&pfd, 1, 100);
		got = drain_burst(fd, dev);
		if (got < 0)
			return 1;
		total += got;
		if (got && pause_ms)
			usleep((useconds_t)pause_ms * 1000);
	}
	printf("{\"device\":\"%s\",\"received\":%ld,\"pause_ms\":%lu}\n", dev, total, pause_ms);
	return count && (unsigned long)total < count ? 1 : 0;
}
