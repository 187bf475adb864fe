// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * devcmds.c - `phyllo list`, `phyllo stats`, `phyllo pub`, `phyllo sub`:
 * small clients of /dev/phylloN. Documents are JSON on the command line and
 * MessagePack on the wire (pub-sub type 0x40, format 0x11).
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
#include "json.h"
#include "util.h"
#include "phyllo.h"
#include "phyllo_pubsub.h"
#include "phyllo_stats.h"

static const char *const glue_stats_names[] = {
	"rx_tty_errors", "rx_queue_drops", "rx_unclaimed", "tx_overruns",
};

static const char *state_name(__u32 state)
{
	static const char *const names[] = { "connecting", "up", "hung-up" };

	return state < 3 ? names[state] : "?";
}

/* Common option parsing for the small commands: -d, --json, -n, -t. */
struct small_opts {
	const char *dev;
	bool json, reply, unreliable;
	unsigned long count, timeout_s, schema;
};

static int small_parse(struct small_opts *o, int argc, char **argv, const char *usage)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
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
	o->dev = DEV_DEFAULT;
	o->timeout_s = 5;
	while ((c = getopt_long(argc, argv, "d:jn:t:s:ruh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o->dev = optarg; break;
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

static const char *stat_name(unsigned int i)
{
	return i < util_stats_count ? util_stats_names[i] : glue_stats_names[i - util_stats_count];
}

#define LINK_STATS_NAMED (PHYLLO_STATS_FIELDS + 4)

void stats_json(FILE *f, const struct phyllo_link_stats *st)
{
	const __u32 *v = (const __u32 *)st;
	unsigned int i;

	for (i = 0; i < LINK_STATS_NAMED; i++)
		fprintf(f, "%s\"%s\":%u", i ? "," : "{", stat_name(i), v[i]);
	fputc('}', f);
}

static void stats_print(const struct phyllo_link_stats *st, bool json)
{
	const __u32 *v = (const __u32 *)st;
	unsigned int i;

	if (json) {
		stats_json(stdout, st);
		putchar('\n');
		return;
	}
	for (i = 0; i < LINK_STATS_NAMED; i++)
		printf("%-16s %10u\n", stat_name(i), v[i]);
}

int stats_main(int argc, char **argv)
{
	static const char usage[] = "usage: phyllo stats [-d DEV] [--json]\n"
		"Print the link's counters (default device " DEV_DEFAULT ").\n";
	struct phyllo_link_stats st;
	struct small_opts o;
	int fd;

	if (small_parse(&o, argc, argv, usage) != argc) {
		fputs(usage, stderr);
		return 2;
	}
	fd = dev_open(o.dev, O_RDONLY);
	if (fd < 0)
		return 1;
	if (dev_ioctl(fd, PHYLLO_IOC_GET_STATS, &st, o.dev))
		return 1;
	close(fd);
	stats_print(&st, o.json);
	return 0;
}

static int ioctl_state(int fd, struct phyllo_link_state *st)
{
	return ioctl(fd, PHYLLO_IOC_GET_STATE, st);
}

/* One line of `phyllo list` for /sys/class/phyllo/NAME. */
static void list_one(const char *name, bool json, bool first)
{
	struct phyllo_link_state st;
	char path[300], tty[64] = "?";
	FILE *f;
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
	if (json)
		printf("%s{\"device\":\"%s\",\"tty\":\"%s\",\"state\":\"%s\",\"session\":%u,"
		       "\"preset\":\"%s\",\"mtu\":%u}", first ? "" : ",", path, tty,
		       state_name(st.state), st.session, util_preset_name((uint8_t)st.preset), st.mtu);
	else
		printf("%-14s %-12s %-11s %7u %-9s %4u\n", path, tty, state_name(st.state),
		       st.session, util_preset_name((uint8_t)st.preset), st.mtu);
}

int list_main(int argc, char **argv)
{
	static const char usage[] = "usage: phyllo list [--json]\n"
		"Show the attached links: device, tty, state, session, preset, MTU.\n";
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
		printf("%-14s %-12s %-11s %7s %-9s %4s\n", "DEVICE", "TTY", "STATE", "SESSION",
		       "PRESET", "MTU");
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

static int subscribe(int fd, const char *topic, const char *dev)
{
	struct phyllo_subscription sub;

	memset(&sub, 0, sizeof(sub));
	sub.flags = PHYLLO_SUB_TYPE | PHYLLO_SUB_TOPIC;
	sub.type = PHYLLO_TYPE_PUBSUB;
	sub.topic_len = (__u32)strlen(topic);
	memcpy(sub.topic, topic, sub.topic_len);
	return dev_ioctl(fd, PHYLLO_IOC_SUBSCRIBE, &sub, dev);
}

static void print_hex(const uint8_t *p, uint16_t n)
{
	uint16_t i;

	printf("\"0x");
	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\"");
}

/* Print a received unit: "TOPIC VALUE", or a JSON object with --json. */
static void print_message(const uint8_t *unit, uint16_t n, bool json)
{
	struct phyllo_pubsub m;
	struct phyllo_doc d;
	struct phyllo_mp_reader r;

	if (n < 1 || unit[0] != PHYLLO_TYPE_PUBSUB || phyllo_pubsub_parse(unit + 1, n - 1, &m)) {
		printf(json ? "{\"type\":%u,\"bytes\":" : "type 0x%02x ", n ? unit[0] : 0);
		print_hex(unit + 1, n ? n - 1 : 0);
		printf(json ? "}\n" : "\n");
		return;
	}
	printf(json ? "{\"topic\":\"%.*s\",\"value\":" : "%.*s ", m.topic_len, (const char *)m.topic);
	if (m.type == PHYLLO_TYPE_DOCUMENT && !phyllo_doc_parse(m.payload, m.len, &d) &&
	    d.format == PHYLLO_FORMAT_MSGPACK) {
		phyllo_mp_reader_init(&r, d.body, d.len);
		if (json_from_msgpack(&r, stdout))
			printf(" (malformed)");
	} else {
		print_hex(m.payload, m.len);
	}
	printf(json ? "}\n" : "\n");
	fflush(stdout);
}

/* Wait for and print up to count units (0: forever); timeout per unit. */
static int read_messages(int fd, const struct small_opts *o, unsigned long count)
{
	uint8_t unit[PHYLLO_UNIT_MAX + 1];
	unsigned long got = 0;

	while (!count || got < count) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int r = poll(&pfd, 1, o->timeout_s ? (int)o->timeout_s * 1000 : -1);
		ssize_t n;

		if (r == 0) {
			fprintf(stderr, "phyllo: no message within %lu s\n", o->timeout_s);
			return 1;
		}
		n = read(fd, unit, sizeof(unit));
		if (n == 0) {
			fprintf(stderr, "phyllo: the link was detached or hung up\n");
			return 1;
		}
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			fprintf(stderr, "phyllo: read %s: %s%s\n", o->dev, strerror(errno),
				errno == ECONNRESET ? " (the peer restarted; continuing)" : "");
			if (errno == ECONNRESET)
				continue;
			return 1;
		}
		print_message(unit, (uint16_t)n, o->json);
		got++;
	}
	return 0;
}

/* [0x60][type 0x40, topic][format 0x11, schema][MessagePack of json]. */
static int build_message(uint8_t *unit, uint16_t cap, const char *topic, const char *json,
			 uint8_t schema)
{
	struct phyllo_mp_writer w;
	char err[128];
	int n;

	unit[0] = PHYLLO_TYPE_PUBSUB;
	n = phyllo_pubsub_header(unit + 1, (uint16_t)(cap - 1), PHYLLO_TYPE_DOCUMENT,
				 (const uint8_t *)topic, (uint8_t)strlen(topic));
	if (n < 0) {
		fprintf(stderr, "phyllo pub: topic '%s' is longer than %u bytes\n", topic,
			PHYLLO_TOPIC_MAX);
		return -1;
	}
	n += 1;
	n += phyllo_doc_header(unit + n, PHYLLO_FORMAT_MSGPACK, schema);
	phyllo_mp_writer_init(&w, unit + n, (uint16_t)(cap - n));
	if (json_to_msgpack(json, &w, err, sizeof(err))) {
		fprintf(stderr, "phyllo pub: '%s' is not a JSON value that fits: %s\n", json, err);
		return -1;
	}
	return n + w.len;
}

static int link_mtu(int fd, const char *dev)
{
	struct phyllo_link_state st;

	if (dev_ioctl(fd, PHYLLO_IOC_GET_STATE, &st, dev))
		return -1;
	return (int)st.mtu;
}

int pub_main(int argc, char **argv)
{
	static const char usage[] = "usage: phyllo pub [-d DEV] [--schema N] [--reply] "
		"[--unreliable] TOPIC JSON\n"
		"Publish a JSON value as a MessagePack document on TOPIC (0-15 bytes).\n"
		"  --reply        then wait for one message on TOPIC and print it\n"
		"  -t, --timeout  seconds to wait for the reply (default 5)\n";
	struct small_opts o;
	uint8_t unit[PHYLLO_UNIT_MAX + 1];
	int fd, mtu, n, i = small_parse(&o, argc, argv, usage);
	__u32 mode = PHYLLO_SEND_UNRELIABLE;

	if (argc - i != 2) {
		fputs(usage, stderr);
		return 2;
	}
	fd = dev_open(o.dev, O_RDWR);
	if (fd < 0 || (mtu = link_mtu(fd, o.dev)) < 0)
		return 1;
	n = build_message(unit, (uint16_t)(mtu + 1), argv[i], argv[i + 1], (uint8_t)o.schema);
	if (n < 0)
		return 2;
	if ((o.reply && subscribe(fd, argv[i], o.dev)) ||
	    (o.unreliable && dev_ioctl(fd, PHYLLO_IOC_SET_SEND_MODE, &mode, o.dev)))
		return 1;
	if (write(fd, unit, (size_t)n) != n) {
		fprintf(stderr, "phyllo pub: write %s: %s\n", o.dev, strerror(errno));
		return 1;
	}
	return o.reply ? read_messages(fd, &o, 1) : 0;
}

int sub_main(int argc, char **argv)
{
	static const char usage[] = "usage: phyllo sub [-d DEV] [-n COUNT] [-t SECONDS] "
		"[--json] TOPIC\n"
		"Print messages whose topic starts with TOPIC ('' for all): TOPIC VALUE.\n"
		"  -n, --count    stop after COUNT messages (default: never)\n"
		"  -t, --timeout  fail if nothing comes for SECONDS (default 5, 0: wait)\n";
	struct small_opts o;
	int fd, i = small_parse(&o, argc, argv, usage);

	if (argc - i != 1) {
		fputs(usage, stderr);
		return 2;
	}
	if (strlen(argv[i]) > PHYLLO_TOPIC_MAX) {
		fprintf(stderr, "phyllo sub: topic '%s' is longer than %u bytes\n", argv[i],
			PHYLLO_TOPIC_MAX);
		return 2;
	}
	fd = dev_open(o.dev, O_RDONLY);
	if (fd < 0 || subscribe(fd, argv[i], o.dev))
		return 1;
	return read_messages(fd, &o, o.count);
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
