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
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <time.h>
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
#include "diag.h"
#include "lib.h"
#include "json.h"
#include "link.h"
#include "linkname.h"
#include "ttylock.h"
#include "util.h"
#include "phyllo.h"
#include "phyllo_msgpack.h"
#include "phyllo_pubsub.h"
#include "phyllo_stack.h"
#include "phyllo_stats.h"

static const char *state_name(__u32 state)
{
	static const char *const names[] = { "connecting", "up", "hung-up", "down" };

	return state < 4 ? names[state] : "?";
}

/* Common option parsing for the small commands. */
struct small_opts {
	struct dev_spec link;
	bool json, reply, unreliable, timeout_set;
	unsigned long count, timeout_s, schema;
};

enum { OPT_TTY = 256, OPT_PRESET };

/*
 * The options of every small command; allow names the ones this command
 * takes (their short letters, T for --tty, P for --preset). Returns the
 * index of the first argument; argv may be replaced (negative numbers:
 * util_args_numbers()).
 */
static int small_parse(struct small_opts *o, int *argc, char ***argv, const char *usage,
		       const char *who, const char *allow)
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
	static const char shorts[] = "d:b:jn:t:s:ruh";
	bool dev_set = false;
	int c, idx;

	memset(o, 0, sizeof(*o));
	o->link.dev = DEV_DEFAULT;
	o->link.preset = PHYLLO_LIB_STANDARD;
	o->timeout_s = 5;
	*argv = util_args_numbers(argc, *argv, shorts, longopts);
	while ((c = getopt_long(*argc, *argv, shorts, longopts, &idx)) != -1) {
		int letter = c == OPT_TTY ? 'T' : c == OPT_PRESET ? 'P' : c;

		if (c != '?' && c != 'h' && !strchr(allow, letter))
			util_usage_error(who, usage, "%s is not an option of this command",
					 (*argv)[optind - 1]);
		switch (c) {
		case 'd': o->link.dev = optarg; dev_set = true; break;
		case OPT_TTY: o->link.tty = optarg; break;
		case 'b': o->link.baud = link_parse_baud(who, optarg); break;
		case OPT_PRESET: o->link.preset = util_parse_preset(optarg); break;
		case 'j': o->json = true; break;
		case 'n': o->count = util_parse_count(optarg); break;
		case 't':
			o->timeout_s = util_parse_timeout(optarg);
			o->timeout_set = true;
			break;
		case 's': o->schema = util_parse_num("--schema", optarg, 0, 255); break;
		case 'r': o->reply = true; break;
		case 'u': o->unreliable = true; break;
		case 'h': fputs(usage, stdout); exit(0);
		default: util_usage_hint(who, usage);
		}
	}
	if (o->link.tty && dev_set)
		util_usage_error(who, usage, "give either -d DEV or --tty TTY, not both");
	return optind;
}

/* The link options every libphyllo command takes, for its usage. */
#define LINK_USAGE \
	"  -d, --device DEV   a phyllo link (default " DEV_DEFAULT ")\n" \
	"      --tty TTY      a serial port instead: the protocol runs in phyllo\n" \
	"                     itself, no kernel module needed\n" \
	"  -b, --baud N       --tty: line speed (default 115200, the firmware's)\n" \
	"      --preset P     --tty: minimal | reduced | standard (default)\n"

void stats_json(FILE *f, const uint64_t *v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		fprintf(f, "%s\"%s\":%llu", i ? "," : "{", phyllo_stat_name(i),
			(unsigned long long)v[i]);
	fputc('}', f);
}

/* Counters v[0..n) as a table, named. */
static void stats_table(const uint64_t *v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		printf("%-16s %10llu\n", phyllo_stat_name(i), (unsigned long long)v[i]);
}

/*
 * The counters a running --tty program reports for the port it holds
 * (lib_report.c): printed, 0; 1 when there is no live report (nobody
 * holds the port, or its program is gone).
 */
static int stats_live(const struct small_opts *o)
{
	char path[PATH_MAX], cmd[120];
	json_t *root, *st, *v;
	struct timespec ts;
	unsigned int i;
	long long pid;
	int n = 0;

	if (phyllo_lib_report_path(o->link.tty, path, sizeof(path)))
		return 1;
	root = json_load_file(path, 0, NULL);
	st = root ? json_object_get(root, "stats") : NULL;
	pid = root ? json_integer_value(json_object_get(root, "pid")) : 0;
	if (!st || pid <= 0 || pid == getpid() || (kill((pid_t)pid, 0) && errno == ESRCH)) {
		json_decref(root);
		return 1;
	}
	if (o->json) {
		json_dumpf(st, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
		putchar('\n');
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		if (dev_tty_holder(o->link.tty, cmd, sizeof(cmd)) != (pid_t)pid)
			snprintf(cmd, sizeof(cmd), "?");
		printf("# %s: the live session of process %lld (%s), which holds the port; "
		       "%.1f s ago\n", o->link.tty, pid, cmd,
		       ((double)ts.tv_sec * 1000 + ts.tv_nsec / 1e6 -
			(double)json_integer_value(json_object_get(root, "time_ms"))) / 1000);
		for (i = 0; phyllo_stat_name(i); i++)
			if ((v = json_object_get(st, phyllo_stat_name(i))) && ++n)
				printf("%-16s %10lld\n", phyllo_stat_name(i),
				       (long long)json_integer_value(v));
	}
	json_decref(root);
	return 0;
}

/* The port is held and its holder reports nothing: say why, the
 * folder first (what a user can change). */
static void stats_no_report(const char *tty)
{
	char cmd[120], why[PATH_MAX + 96];
	pid_t pid = dev_tty_holder(tty, cmd, sizeof(cmd));

	if (pid)
		fprintf(stderr, "phyllo stats: process %d reports no live counters of %s for "
			"stats --tty to read: %s\n", (int)pid, tty,
			phyllo_lib_report_why(why, sizeof(why)));
}

int stats_main(int argc, char **argv)
{
	static const char usage[] = "usage: phyllo stats [-d DEV | --tty TTY] [-b N] [--preset P] "
		"[-t SECONDS] [-j]\n"
		"Print the link's counters: on -d DEV the kernel's, since the link was\n"
		"attached. With --tty, while another program holds the port, the counters\n"
		"it reports of its session; else this command's own: it opens a new session\n"
		"(up to -t seconds, default 5) and shows what that session counted; the\n"
		"board's own counters: phyllo pub --tty TTY --reply stats null.\n"
		"  -t, --timeout S    --tty: seconds to wait for the session (default 5)\n"
		"  -j, --json         one JSON object\n" LINK_USAGE;
	uint64_t v[64];
	struct small_opts o;
	struct phyllo *h;
	struct diag d;
	int n, ret = 0;

	if (small_parse(&o, &argc, &argv, usage, "phyllo stats", "dTbPtj") != argc)
		util_usage_error("phyllo stats", usage, "'%s' is not an option or argument of "
				 "stats", argv[optind]);
	/* a program holds the port: its counters, as it reports them */
	if (o.link.tty && !stats_live(&o))
		return 0;
	h = dev_open_link(&o.link, "phyllo stats");
	if (!h) {
		if (o.link.tty)
			stats_no_report(o.link.tty);
		return 1;
	}
	diag_begin(&d, h);
	if (o.link.tty && phyllo_wait_up(h, (int)o.timeout_s * 1000)) {
		fprintf(stderr, "phyllo stats: no session with the far end of %s within %lu s",
			o.link.tty, o.timeout_s);
		diag_explain(&d, h, &o.link, DIAG_SESSION, NULL);
		fprintf(stderr, "phyllo stats: the counters so far below\n");
		ret = 1;
	}
	n = phyllo_stats64(h, v, 64);
	if (n < 0) {
		fprintf(stderr, "phyllo stats: %s: %s\n", dev_name(&o.link), phyllo_strerror(n));
		phyllo_close(h);
		return 1;
	}
	if (o.json) {
		stats_json(stdout, v, (unsigned int)n);
		putchar('\n');
	} else {
		if (o.link.tty)
			printf("# %s: this command's own session (opened just now), not the "
			       "board's counters\n", o.link.tty);
		stats_table(v, (unsigned int)n);
	}
	phyllo_close(h);
	return ret;
}

static int ioctl_state(int fd, struct phyllo_link_state *st)
{
	return ioctl(fd, PHYLLO_IOC_GET_STATE, st);
}

/* A named link's time down, for a table: "down 42s", "down 3m07s". */
static const char *list_down_for(char *buf, size_t len, __u32 ms)
{
	__u32 s = ms / 1000;

	if (s < 60)
		snprintf(buf, len, "down %us", s);
	else if (s < 3600)
		snprintf(buf, len, "down %um%02us", s / 60, s % 60);
	else
		snprintf(buf, len, "down %uh%02um", s / 3600, s / 60 % 60);
	return buf;
}

/* One line of `phyllo list` for /sys/class/phyllo/DEV. A down link has
 * no tty (sysfs says "" or nothing). */
static void list_one(const char *dev, bool json, bool first)
{
	struct phyllo_link_state st;
	char path[300], tty[64] = "?", pidtext[16], name[PHYLLO_NAME_MAX + 2], state[24];
	FILE *f;
	pid_t pid = 0;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/phyllo/%s/tty", dev);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(tty, sizeof(tty), f))
			tty[0] = 0;
		tty[strcspn(tty, "\n")] = 0;
		fclose(f);
	}
	linkname_of(LINKNAME_SYSFS, dev, name, sizeof(name));
	snprintf(path, sizeof(path), "/dev/%s", dev);
	memset(&st, 0, sizeof(st));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl_state(fd, &st))
		st.state = 99;
	if (fd >= 0)
		close(fd);
	if (st.state == PHYLLO_LINK_DOWN || !tty[0])
		strcpy(tty, "-");
	else
		pid = ttylock_owner(tty);
	snprintf(pidtext, sizeof(pidtext), pid ? "%d" : "-", (int)pid);
	snprintf(state, sizeof(state), "%s", state_name(st.state));
	if (json) {
		printf("%s{\"device\":\"%s\",\"tty\":\"%s\",\"state\":\"%s\",\"session\":%u,"
		       "\"preset\":\"%s\",\"mtu\":%u,\"attach_pid\":%s,\"name\":", first ? "" : ",",
		       path, tty, state, st.session, util_preset_name((uint8_t)st.preset), st.mtu,
		       pid ? pidtext : "null");
		phyllo_json_put_string(stdout, (const uint8_t *)name, strlen(name));
		printf(",\"downs\":%u,\"down_ms\":%u}", st.downs,
		       st.state == PHYLLO_LINK_DOWN ? st.down_ms : 0);
		return;
	}
	if (st.state == PHYLLO_LINK_DOWN)
		list_down_for(state, sizeof(state), st.down_ms);
	/* the pid last, as scripts that grep for it expect */
	printf("%-14s %-12s %-11s %7u %-9s %4u %-16s %7s\n", path, tty, state, st.session,
	       util_preset_name((uint8_t)st.preset), st.mtu, name[0] ? name : "-", pidtext);
}

int list_main(int argc, char **argv)
{
	static const char usage[] = "usage: phyllo list [-j]\n"
		"Show the links: device, tty, state, session, preset, MTU, the\n"
		"pid of the 'phyllo attach' holding the tty ('-': none, e.g. ldattach) and\n"
		"the name of a named link; one whose board went away shows 'down' and for\n"
		"how long.\n"
		"  -j, --json         one JSON array\n";
	struct small_opts o;
	struct dirent *de;
	DIR *d;
	bool first = true;

	if (small_parse(&o, &argc, &argv, usage, "phyllo list", "j") != argc)
		util_usage_error("phyllo list", usage, "'%s' is not an option or argument of "
				 "list", argv[optind]);
	d = opendir("/sys/class/phyllo");
	if (!d) {
		fprintf(stderr, "phyllo list: the phyllo module is not loaded, so there are no "
			"links to list: run 'modprobe phyllo' first (a --tty command needs no "
			"module and makes no link)\n");
		return 1;
	}
	if (o.json)
		printf("[");
	else
		printf("%-14s %-12s %-11s %7s %-9s %4s %-16s %7s\n", "DEVICE", "TTY", "STATE",
		       "SESSION", "PRESET", "MTU", "NAME", "PID");
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
static void print_message(const struct phyllo_message *m, bool json)
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
static int recv_error(const struct small_opts *o, int err, const char *who,
		      const struct diag *d, struct phyllo *h, enum diag_wait wait,
		      const char *topic)
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

/* SIGINT or SIGTERM: sub stops, closing the link as it should (the owed
 * acknowledgement goes out, the running report is removed). */
static volatile sig_atomic_t sub_stop;

static void sub_on_signal(int sig)
{
	sub_stop = sig;
}

/* Wait for and print up to count units (0: forever); timeout per unit
 * (0: none), waited for in slices so that a signal ends the wait. */
static int read_messages(struct phyllo *h, const struct small_opts *o, unsigned long count,
			 const char *topic)
{
	unsigned long got = 0;
	struct phyllo_message m;
	struct diag d;
	int64_t deadline = 0, now;

	diag_begin(&d, h);
	while ((!count || got < count) && !sub_stop) {
		int ret;

		now = (int64_t)(util_now_us() / 1000);
		if (!deadline && o->timeout_s)
			deadline = now + (int64_t)o->timeout_s * 1000;
		ret = phyllo_recv(h, &m, 200);
		if (ret == -ETIMEDOUT && (!o->timeout_s || now + 200 < deadline))
			continue;
		deadline = 0;
		if (ret < 0) {
			if (recv_error(o, ret, "phyllo sub", &d, h, DIAG_MESSAGE, topic))
				return 1;
			continue;
		}
		print_message(&m, o->json);
		got++;
	}
	return 0;
}

/* The largest string a document of one string can carry on topic in mtu
 * bytes: MessagePack's str header grows with the length (1, 2, 3 bytes). */
static long pub_string_max(int mtu, size_t topic_len)
{
	long body = (long)mtu - 4 - (long)topic_len, k;

	for (k = body - 1; k > 0; k--)
		if (k + (k < 32 ? 1 : k < 256 ? 2 : 3) <= body)
			return k;
	return 0;
}

/* The document must fit the link: one message for every size, exit 2. */
static void pub_check_size(int n, const char *topic, int mtu, const char *preset)
{
	size_t tl = strlen(topic);
	long room = (long)mtu - 4 - (long)tl;

	if (n <= room)
		return;
	fprintf(stderr, "phyllo pub: the document is %d bytes, more than the %ld a unit of "
		"the %s preset carries on topic '%s' (%d less 4 bytes of headers and %zu of "
		"topic; a string of at most %ld characters fits)\n", n, room < 0 ? 0 : room,
		preset, topic, mtu, tl, pub_string_max(mtu, tl));
	exit(2);
}

/*
 * Publish and wait for the acknowledgement: 0, or 1 after saying why. A
 * named link that is down is waited for (the send waits in libphyllo);
 * a send refused because the session ended meanwhile is sent again.
 */
static int pub_send(struct phyllo *h, const struct small_opts *o, const char *topic,
		    const uint8_t *doc, int n, const struct diag *d)
{
	struct phyllo_status s;
	int ret, tries = 0;

	if (!phyllo_status(h, &s) && s.state == PHYLLO_STATE_DOWN)
		dev_link_event(&recv_events, h, "phyllo pub", dev_name(&o->link), -ENOLINK);
	do
		ret = phyllo_publish_doc(h, topic, PHYLLO_FORMAT_MSGPACK, (uint8_t)o->schema, doc,
					 (size_t)n, o->unreliable ? PHYLLO_MSG_UNRELIABLE : 0);
	while (ret == -ECONNRESET && tries++ < 2 &&
	       !dev_link_event(&recv_events, h, "phyllo pub", dev_name(&o->link), ret));
	if (!ret)
		ret = phyllo_flush(h, (int)o->timeout_s * 1000);
	if (ret == -ETIMEDOUT) {
		fprintf(stderr, "phyllo pub: %s: no acknowledgement within %lu s",
			dev_name(&o->link), o->timeout_s);
		diag_explain(d, h, &o->link, DIAG_ACK, topic);
		return 1;
	}
	if (ret) {
		recv_error(o, ret, "phyllo pub", d, h, DIAG_ACK, topic);
		return 1;
	}
	/* nothing acknowledges minimal and reduced: what did come says more */
	phyllo_dispatch(h);
	if (o->link.tty && o->link.preset != PHYLLO_LIB_STANDARD && diag_other_preset(d, h)) {
		fprintf(stderr, "phyllo pub: %s: sent unacknowledged (--preset %s), and the far "
			"end was probably not listening", dev_name(&o->link),
			util_preset_name((uint8_t)o->link.preset));
		diag_explain(d, h, &o->link, DIAG_ACK, topic);
		return 1;
	}
	return 0;
}

int pub_main(int argc, char **argv)
{
	static const char usage[] = "usage: phyllo pub [-d DEV | --tty TTY] [-b N] [--preset P] "
		"[-s N] [-r] [-u] [-t SECONDS] [-j] TOPIC JSON\n"
		"Publish a JSON value as a MessagePack document on TOPIC (0-15 bytes).\n"
		"Negative numbers need no --: phyllo pub servo -5.\n"
		"  -s, --schema N     the document's schema byte (default 0)\n"
		"  -r, --reply        then wait for one message on TOPIC and print it (a\n"
		"                     reply on stats: the board's counters, by name)\n"
		"  -u, --unreliable   no acknowledgement, no retransmission\n"
		"  -t, --timeout S    seconds to wait for the acknowledgement or reply\n"
		"                     (default 5)\n"
		"  -j, --json         --reply: the reply as one JSON object\n"
		LINK_USAGE;
	struct small_opts o;
	struct phyllo_message m;
	struct phyllo *h;
	struct diag d;
	uint8_t doc[4096];
	char err[160];
	int n, ret, i = small_parse(&o, &argc, &argv, usage, "phyllo pub", "dTbPsrutj");
	const char *topic, *json;

	if (argc - i < 2)
		util_usage_error("phyllo pub", usage, argc == i ? "missing the TOPIC and the JSON "
				 "value" : "missing the JSON value to publish on '%s'", argv[i]);
	if (argc - i > 2)
		util_usage_error("phyllo pub", usage, "one TOPIC and one JSON value; '%s' is one "
				 "too many (quote a value with spaces: '[1, 2]')", argv[i + 2]);
	topic = argv[i];
	json = argv[i + 1];
	if (strlen(topic) > PHYLLO_TOPIC_MAX)
		util_usage_error("phyllo pub", usage, "topic '%s' is longer than %u bytes",
				 topic, PHYLLO_TOPIC_MAX);
	n = phyllo_json_to_msgpack(json, doc, sizeof(doc), err, sizeof(err));
	if (n == -EMSGSIZE)
		n = (int)sizeof(doc);	/* too big for any link: said below */
	else if (n < 0)
		util_usage_error("phyllo pub", usage, "'%s' is not a JSON value: %s", json, err);
	/* before anything is opened: the preset's MTU, or the largest there is */
	pub_check_size(n, topic, o.link.tty ? phyllo_stack_mtu((uint8_t)o.link.preset)
					     : PHYLLO_DATAGRAM_MAX,
		       o.link.tty ? util_preset_name((uint8_t)o.link.preset) : "minimal");
	h = dev_open_link(&o.link, "phyllo pub");
	if (!h)
		return 1;
	if (!o.link.tty) {
		struct phyllo_status s;

		if (!phyllo_status(h, &s) && s.mtu)
			pub_check_size(n, topic, (int)s.mtu, util_preset_name((uint8_t)s.preset));
	}
	diag_begin(&d, h);
	if (!o.reply) {
		ret = pub_send(h, &o, topic, doc, n, &d);
		phyllo_close(h);
		return ret;
	}
	ret = phyllo_request(h, topic, doc, (size_t)n, &m, (int)o.timeout_s * 1000);
	if (!ret)
		print_message(&m, o.json);
	else
		recv_error(&o, ret, "phyllo pub", &d, h, DIAG_REPLY, topic);
	phyllo_close(h);
	return ret ? 1 : 0;
}

int sub_main(int argc, char **argv)
{
	static const char usage[] = "usage: phyllo sub [-d DEV | --tty TTY] [-b N] [--preset P] "
		"[-n COUNT] [-t SECONDS] [-j] TOPIC\n"
		"Print every message whose topic starts with TOPIC ('' for all): TOPIC VALUE.\n"
		"  -n, --count N      stop after N messages (default: never)\n"
		"  -t, --timeout S    fail if no message comes for S seconds (default: wait\n"
		"                     for ever)\n"
		"  -j, --json         one JSON object per message\n"
		LINK_USAGE;
	struct sigaction sa = { .sa_handler = sub_on_signal };
	struct small_opts o;
	struct phyllo *h;
	int ret, i = small_parse(&o, &argc, &argv, usage, "phyllo sub", "dTbPntj");

	if (!o.timeout_set)
		o.timeout_s = 0;
	if (argc == i)
		util_usage_error("phyllo sub", usage, "missing the TOPIC ('' for every message)");
	if (argc - i > 1)
		util_usage_error("phyllo sub", usage, "one TOPIC prefix; '%s' is one too many",
				 argv[i + 1]);
	if (strlen(argv[i]) > PHYLLO_TOPIC_MAX)
		util_usage_error("phyllo sub", usage, "topic '%s' is longer than %u bytes",
				 argv[i], PHYLLO_TOPIC_MAX);
	h = dev_open_link(&o.link, "phyllo sub");
	if (!h)
		return 1;
	ret = phyllo_subscribe(h, argv[i]);
	if (ret) {
		fprintf(stderr, "phyllo sub: %s: %s\n", dev_name(&o.link), phyllo_strerror(ret));
		phyllo_close(h);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ret = read_messages(h, &o, o.count, argv[i]);
	phyllo_close(h);
	return sub_stop ? 128 + sub_stop : ret;
}

/* Read what is there, all of it, then sleep: an application that is slow. */
static long drain_lost;	/* reads that said ENOBUFS: units were lost */

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
		if (n < 0 && errno == ENOBUFS) {
			drain_lost++;	/* fell behind beyond the hold budget */
			continue;
		}
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
		"application, for the link-service benchmark. It reads in hold mode: the\n"
		"peer waits for it (phyllo(4), \"Receive queues\"). Prints one JSON line.\n";
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
	uint32_t hold = PHYLLO_RECV_HOLD;
	long total = 0, got;
	uint64_t deadline;
	int c, fd;

	while ((c = getopt_long(argc, argv, "d:n:p:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'n': count = util_parse_count(optarg); break;
		case 'p': pause_ms = util_parse_num("--pause-ms", optarg, 0, 60000); break;
		case 't': timeout_s = util_parse_timeout(optarg); break;
		case 'h': fputs(usage, stdout); return 0;
		default: util_usage_hint("phyllo drain", usage);
		}
	}
	if (optind != argc)
		util_usage_error("phyllo drain", usage, "'%s' is not an option or argument of "
				 "drain", argv[optind]);
	fd = dev_open(dev, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return 1;
	/* a single reliable consumer: the peer waits for it (phyllo(4)) */
	if (ioctl(fd, PHYLLO_IOC_SET_RECV_MODE, &hold)) {
		fprintf(stderr, "phyllo drain: %s: cannot hold the link: %s\n", dev, strerror(errno));
		return 1;
	}
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
	printf("{\"device\":\"%s\",\"received\":%ld,\"pause_ms\":%lu,\"lost_reports\":%ld}\n",
	       dev, total, pause_ms, drain_lost);
	return count && (unsigned long)total < count ? 1 : 0;
}
