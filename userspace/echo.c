// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * echo.c - `phyllo echo`: the echo benchmark client over a link, through
 * libphyllo: /dev/phylloN, or a tty with the protocol in the tool (--tty).
 * The far end (firmware, or `phyllo peer --echo`) sends every message back;
 * this keeps up to --window messages in flight, checks every echo and
 * reports rate and round-trip times: a progress bar and a table on a
 * terminal, one JSON line otherwise.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "client.h"
#include "cmds.h"
#include "dev.h"
#include "diag.h"
#include "bytestream.h"
#include "util.h"
#include "phyllo_stats.h"
#include "phyllo_wire.h"

/* tx_frames, tx_retransmits (phyllo_stats.h order) */
#define ECHO_AT(f) (offsetof(struct phyllo_stats, f) / sizeof(uint32_t))
#define ECHO_TX_FRAMES (offsetof(struct phyllo_stats, tx_frames) / sizeof(uint32_t))
#define ECHO_TX_RETRANSMITS (offsetof(struct phyllo_stats, tx_retransmits) / sizeof(uint32_t))

struct echo_adapt_state {
	uint32_t frames0, resent0, naks0;	/* the counters when last looked at */
	bool bar;			/* a progress line to end first */
};

struct echo_opts {
	struct dev_spec link;
	struct payload_spec payload;
	unsigned long count, window, timeout_s;	/* window 0: automatic */
	bool json, unreliable;
};

/* The signal that asked us to stop (Ctrl-C: report, then exit 128+N). */
static volatile sig_atomic_t echo_stop;

static void echo_on_signal(int sig)
{
	echo_stop = sig;
}

static const char echo_usage_text[] =
	"usage: phyllo echo [-d DEV | --tty TTY] [-b N] [--preset P] [--payload P] [-n COUNT]\n"
	"                   [-w WINDOW] [-t SECONDS] [-u] [-j]\n"
	"Send COUNT messages through the link, check every echo, report the rate.\n"
	"  -d, --device DEV    a phyllo link (default " DEV_DEFAULT ")\n"
	"      --tty TTY       a serial port: the protocol runs in phyllo itself\n"
	"  -b, --baud N        --tty: line speed (default 115200, the firmware's)\n"
	"      --preset P      --tty: minimal | reduced | standard (default)\n"
	"      --payload P     small | large | very-large | counter (default small)\n"
	"  -n, --count N       messages (default 1000)\n"
	"  -w, --window N      messages in flight, 1..1000 (1 = stop-and-wait; default:\n"
	"                      what the far end's handshake offers, else 4, and fewer\n"
	"                      while the far end loses frames sent back to back)\n"
	"  -t, --timeout S     give up after S seconds (default 120)\n"
	"  -u, --unreliable    send without acknowledgement\n"
	"  -j, --json          one JSON line even on a terminal\n"
	"Ctrl-C stops it with the report of what came back so far.\n";

enum { OPT_TTY = 256, OPT_PRESET, OPT_PAYLOAD };

static void echo_parse(struct echo_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "tty", required_argument, NULL, OPT_TTY },
		{ "baud", required_argument, NULL, 'b' },
		{ "preset", required_argument, NULL, OPT_PRESET },
		{ "payload", required_argument, NULL, OPT_PAYLOAD },
		{ "count", required_argument, NULL, 'n' },
		{ "window", required_argument, NULL, 'w' },
		{ "timeout", required_argument, NULL, 't' },
		{ "unreliable", no_argument, NULL, 'u' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->link.dev = DEV_DEFAULT;
	o->link.preset = PHYLLO_LIB_STANDARD;
	o->link.nonblock = true;
	o->count = 1000;
	o->timeout_s = 120;
	payload_parse("small", &o->payload);
	argv = util_args_numbers(&argc, argv, "d:b:n:w:t:ujh", longopts);
	while ((c = getopt_long(argc, argv, "d:b:n:w:t:ujh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o->link.dev = optarg; break;
		case OPT_TTY: o->link.tty = optarg; break;
		case 'b': o->link.baud = bytestream_parse_baud("phyllo echo", optarg); break;
		case OPT_PRESET: o->link.preset = util_parse_preset(optarg); break;
		case OPT_PAYLOAD:
			if (payload_parse(optarg, &o->payload) || o->payload.kind == PAYLOAD_HEX) {
				fprintf(stderr, "phyllo echo: --payload: '%s' is not small, large, "
					"very-large or counter\n", optarg);
				exit(2);
			}
			break;
		case 'n': o->count = util_parse_count(optarg); break;
		case 'w': o->window = util_parse_num("--window", optarg, 1, 1000); break;
		case 't': o->timeout_s = util_parse_timeout(optarg); break;
		case 'u': o->unreliable = true; break;
		case 'j': o->json = true; break;
		case 'h': fputs(echo_usage_text, stdout); exit(0);
		default: util_usage_hint("phyllo echo", echo_usage_text);
		}
	}
	if (optind != argc)
		util_usage_error("phyllo echo", echo_usage_text, "'%s' is not an option or "
				 "argument of echo", argv[optind]);
	if (o->link.tty && strcmp(o->link.dev, DEV_DEFAULT))
		util_usage_error("phyllo echo", echo_usage_text, "give either -d DEV or --tty "
				 "TTY, not both");
}

/* Open the link and set it up for the chosen payload. */
static struct phyllo *echo_open(struct echo_opts *o)
{
	struct phyllo *h = dev_open_link(&o->link, "phyllo echo");
	int ret;

	if (!h)
		return NULL;
	o->payload.max = (uint16_t)phyllo_mtu(h);
	/* tuples are pub-sub documents on topic "echo"; counters type 0x10 */
	ret = o->payload.kind == PAYLOAD_COUNTER ? phyllo_subscribe_type(h, PHYLLO_TYPE_BUFFER)
						 : phyllo_subscribe(h, "echo");
	if (ret) {
		fprintf(stderr, "phyllo echo: %s: %s\n", dev_name(&o->link), phyllo_strerror(ret));
		phyllo_close(h);
		return NULL;
	}
	return h;
}

static struct dev_events echo_events;

/* A session reset, or a named link down or up again (err): what the
 * stack still holds unsent goes out again; what was in flight when the
 * session ended will not come back (counted once, at the down or at a
 * reset). */
static void echo_reset(struct phyllo *h, struct client *c, const struct echo_opts *o, int err)
{
	struct phyllo_status s;
	bool was_down = echo_events.down;
	uint64_t lost;

	fputc('\n', stderr);
	dev_link_event(&echo_events, h, "phyllo echo", dev_name(&o->link), err);
	if (was_down && err == -ECONNRESET)
		return;		/* counted at the down */
	phyllo_status(h, &s);
	lost = client_reset(c, s.tx_in_flight);
	fprintf(stderr, "phyllo echo: %s: %llu echoes will not come back\n", dev_name(&o->link),
		(unsigned long long)lost);
}

/* Send while the window and the link allow. */
static int echo_write(struct phyllo *h, struct client *c, const struct echo_opts *o)
{
	uint8_t unit[PHYLLO_DATAGRAM_MAX + 8], type;

	while (client_can_send(c)) {
		uint16_t n = client_next(c, &type, unit);
		int ret = phyllo_send(h, type, unit, n, o->unreliable ? PHYLLO_MSG_UNRELIABLE : 0);

		if (!ret) {
			client_sent(c);
			continue;
		}
		if (ret == -EAGAIN)
			return 0;
		if (ret == -ECONNRESET) {	/* not sent: the session ended first */
			echo_reset(h, c, o, ret);
			continue;
		}
		if (ret == -EPIPE)
			fprintf(stderr, "\nphyllo echo: %s: the link was detached or hung up\n",
				dev_name(&o->link));
		else
			fprintf(stderr, "phyllo echo: send on %s: %s%s\n", dev_name(&o->link),
				phyllo_strerror(ret), ret == -EMSGSIZE ?
				" (payload larger than the link's preset allows)" : "");
		return -1;
	}
	return 0;
}

static int echo_read(struct phyllo *h, struct client *c, const struct echo_opts *o)
{
	struct phyllo_message m;

	for (;;) {
		int ret = phyllo_recv(h, &m, 0);

		if (!ret) {
			client_got(c, m.type, m.unit + 1, (uint16_t)(m.unit_len - 1));
			continue;
		}
		if (ret == -EAGAIN)
			return 0;
		if (ret == -ECONNRESET || ret == -ENOLINK) {
			echo_reset(h, c, o, ret);
			continue;
		}
		if (ret == -EPIPE)
			fprintf(stderr, "\nphyllo echo: %s: the link was detached or hung up\n",
				dev_name(&o->link));
		else
			fprintf(stderr, "\nphyllo echo: %s: %s\n", dev_name(&o->link),
				phyllo_strerror(ret));
		return -1;
	}
}

/* Frames out, resent, and NAKs received so far, from the link's counters. */
static void echo_resent(struct phyllo *h, uint32_t *frames, uint32_t *resent, uint32_t *naks)
{
	uint32_t v[DIAG_STATS_MAX] = { 0 };

	phyllo_stats(h, v, DIAG_STATS_MAX);
	*frames = v[ECHO_TX_FRAMES];
	*resent = v[ECHO_TX_RETRANSMITS];
	*naks = v[ECHO_AT(rx_naks)];
}

/*
 * The automatic window: a far end that loses frames sent back to back (a
 * receive buffer smaller than the window's worth of them) sees gaps and
 * asks for them again (NAK). When one frame in eight brings a NAK, halve
 * the messages in flight, and say so. Resends alone prove nothing: a
 * far end, or this host, that is slow to run makes the timer fire.
 * Looked at every 16 frames.
 */
static void echo_adapt(struct phyllo *h, struct client *c, struct echo_adapt_state *a)
{
	uint32_t frames, resent, naks, df, dr, dn;

	echo_resent(h, &frames, &resent, &naks);
	df = frames - a->frames0;
	dr = resent - a->resent0;
	dn = naks - a->naks0;
	if (df < 16)
		return;
	if (dn * 8 > df && c->window > 1) {
		fprintf(stderr, "%sphyllo echo: %u of %u frames resent with %llu in flight, %u "
			"asked for again: the far end loses frames sent back to back; going on "
			"with %llu (-w sets it)\n", a->bar ? "\n" : "", dr, df,
			(unsigned long long)c->window, dn, (unsigned long long)(c->window / 2));
		c->window /= 2;
	}
	a->frames0 = frames;
	a->resent0 = resent;
	a->naks0 = naks;
}

/* Done: let the last acknowledgement go out (it waits ack_delay_ms for a
 * unit to ride on) before the counters are read for the report, as
 * phyllo peer lingers; the far end has nothing more to send. */
static void echo_linger(struct phyllo *h)
{
	uint64_t end = util_now_us() + 30000;

	while (util_now_us() < end) {
		struct pollfd pfd = { .fd = phyllo_fd(h), .events = POLLIN };

		phyllo_dispatch(h);
		poll(&pfd, 1, 5);
	}
}

static int echo_loop(struct phyllo *h, struct client *c, const struct echo_opts *o, bool bar,
		     const struct diag *d)
{
	uint64_t deadline = util_now_us() + o->timeout_s * 1000000ull, next_bar = 0;
	struct echo_adapt_state a = { .bar = bar };

	echo_resent(h, &a.frames0, &a.resent0, &a.naks0);
	while (!client_done(c) && !echo_stop) {
		struct pollfd pfd = { .fd = phyllo_fd(h), .events = POLLIN };

		if (echo_write(h, c, o))
			return -1;
		if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
			return -1;
		if (echo_read(h, c, o))
			return -1;
		if (!o->window && !o->unreliable)
			echo_adapt(h, c, &a);
		if (bar && util_now_us() >= next_bar) {
			client_progress(stderr, c);
			next_bar = util_now_us() + 100000;
		}
		if (util_now_us() > deadline) {
			fprintf(stderr, "\nphyllo echo: timed out after %lu s with %llu of %llu "
				"echoes back", o->timeout_s, (unsigned long long)c->received,
				(unsigned long long)c->count);
			diag_explain(d, h, &o->link, DIAG_ECHO, "echo");
			return -1;
		}
	}
	echo_linger(h);
	if (bar) {
		client_progress(stderr, c);
		fputc('\n', stderr);
	}
	if (echo_stop) {
		fprintf(stderr, "phyllo echo: stopped by %s with %llu of %llu echoes back\n",
			strsignal(echo_stop), (unsigned long long)c->received,
			(unsigned long long)c->count);
		return -1;
	}
	return 0;
}

static void echo_report(struct phyllo *h, struct client *c, const struct echo_opts *o,
			bool human)
{
	uint64_t v[64];
	struct client_result r;
	int n;

	memset(v, 0, sizeof(v));
	n = phyllo_stats64(h, v, 64);
	if (!human) {
		printf("{\"device\":\"%s\"", dev_name(&o->link));
		client_json(stdout, c);
		printf(",\"stats\":");
		stats_json(stdout, v, n > 0 ? (unsigned int)n : 0);
		printf("}\n");
		return;
	}
	client_result(c, &r);
	printf("%-10s %5s %9s %8s %8s %8s %8s %5s %5s\n", "payload", "bytes", "echoes/s",
	       "kB/s", "p50 us", "p99 us", "max us", "lost", "wrong");
	printf("%-10s %5u %9.1f %8.2f %8llu %8llu %8llu %5llu %5llu\n",
	       payload_name(&c->payload), r.bytes, r.msgs_per_s, r.kbytes_per_s,
	       (unsigned long long)r.p50_us, (unsigned long long)r.p99_us,
	       (unsigned long long)r.max_us, (unsigned long long)r.lost,
	       (unsigned long long)(c->mismatches + c->dups + c->reordered));
	printf("link: %llu frames out (%llu resent), %llu in, %llu CRC errors, %llu framing "
	       "errors\n", (unsigned long long)v[ECHO_TX_FRAMES],
	       (unsigned long long)v[ECHO_TX_RETRANSMITS],
	       (unsigned long long)v[ECHO_AT(rx_frames)], (unsigned long long)v[ECHO_AT(rx_crc)],
	       (unsigned long long)v[ECHO_AT(rx_framing)]);
}

/* A fixed window the far end cannot take: say so once, at the end. */
static void echo_warn_resent(struct phyllo *h, const struct echo_opts *o)
{
	uint32_t frames, resent, naks;

	echo_resent(h, &frames, &resent, &naks);
	if (o->window > 1 && frames >= 16 && naks * 8 > frames)
		fprintf(stderr, "phyllo echo: warning: %u of %u frames were resent, %u asked "
			"for again: the far end loses frames at -w %lu (try -w 1, or leave -w "
			"out to let it adapt)\n", resent, frames, naks, o->window);
}

/* The messages in flight: -w, else what the far end's handshake offered
 * (the session's window: tty), else 4. */
static unsigned long echo_window(struct phyllo *h, const struct echo_opts *o)
{
	struct phyllo_status s;

	if (o->window)
		return o->window;
	if (o->link.tty && o->link.preset == PHYLLO_LIB_STANDARD)
		phyllo_wait_up(h, 5000);	/* a timeout shows in the run */
	if (!phyllo_status(h, &s) && s.window)
		return s.window;
	return 4;
}

int echo_main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = echo_on_signal };
	struct echo_opts o;
	struct phyllo *h;
	struct client c;
	struct diag d;
	bool human;
	int ret;

	echo_parse(&o, argc, argv);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	h = echo_open(&o);
	if (!h)
		return 1;
	diag_begin(&d, h);
	if (client_init(&c, &o.payload, o.count, echo_window(h, &o))) {
		fprintf(stderr, "phyllo echo: out of memory for %lu messages\n", o.count);
		return 1;
	}
	human = !o.json && isatty(STDOUT_FILENO);
	ret = echo_loop(h, &c, &o, human && isatty(STDERR_FILENO), &d);
	echo_report(h, &c, &o, human);
	echo_warn_resent(h, &o);
	phyllo_close(h);
	client_free(&c);
	if (echo_stop)
		return 128 + echo_stop;
	return ret == 0 && client_ok(&c) ? 0 : 1;
}
