// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * echo.c - `phyllo echo`: the echo benchmark client over /dev/phylloN. The
 * far end (firmware, or `phyllo peer --echo`) sends every message back; this
 * keeps up to --window messages in flight, checks every echo and reports
 * rate and round-trip times: a progress bar and a table on a terminal, one
 * JSON line otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "client.h"
#include "cmds.h"
#include "dev.h"
#include "util.h"
#include "phyllo.h"
#include "phyllo_wire.h"

struct echo_opts {
	const char *dev;
	struct payload_spec payload;
	unsigned long count, window, timeout_s;
	bool json, unreliable;
};

static void echo_usage(FILE *f)
{
	fputs("usage: phyllo echo [-d DEV] [--payload P] [-n COUNT] [-w WINDOW] [options]\n"
	      "Send COUNT messages through the link, check every echo, report the rate.\n"
	      "  -d, --device DEV    default " DEV_DEFAULT "\n"
	      "      --payload P     small | large | very-large | counter (default small)\n"
	      "  -n, --count N       messages (default 1000)\n"
	      "  -w, --window N      messages in flight (default 4; 1 = stop-and-wait)\n"
	      "  -t, --timeout S     give up after S seconds (default 120)\n"
	      "  -u, --unreliable    send without acknowledgement\n"
	      "      --json          one JSON line even on a terminal\n", f);
}

static void echo_parse(struct echo_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "payload", required_argument, NULL, 'p' },
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
	o->dev = DEV_DEFAULT;
	o->count = 1000;
	o->window = 4;
	o->timeout_s = 120;
	payload_parse("small", &o->payload);
	while ((c = getopt_long(argc, argv, "d:n:w:t:uh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o->dev = optarg; break;
		case 'p':
			if (payload_parse(optarg, &o->payload) || o->payload.kind == PAYLOAD_HEX) {
				fprintf(stderr, "phyllo echo: --payload: '%s' is not small, large, "
					"very-large or counter\n", optarg);
				exit(2);
			}
			break;
		case 'n': o->count = util_parse_num("--count", optarg, 1, 100000000); break;
		case 'w': o->window = util_parse_num("--window", optarg, 1, 64); break;
		case 't': o->timeout_s = util_parse_num("--timeout", optarg, 1, 86400); break;
		case 'u': o->unreliable = true; break;
		case 'j': o->json = true; break;
		case 'h': echo_usage(stdout); exit(0);
		default: echo_usage(stderr); exit(2);
		}
	}
	if (optind != argc) {
		echo_usage(stderr);
		exit(2);
	}
}

/* Open the device and set it up for the chosen payload. */
static int echo_open(struct echo_opts *o)
{
	struct phyllo_subscription sub;
	struct phyllo_link_state st;
	__u32 mode = PHYLLO_SEND_UNRELIABLE;
	int fd = dev_open(o->dev, O_RDWR | O_NONBLOCK);

	if (fd < 0 || dev_ioctl(fd, PHYLLO_IOC_GET_STATE, &st, o->dev))
		return -1;
	o->payload.max = (uint16_t)st.mtu;
	memset(&sub, 0, sizeof(sub));
	sub.flags = PHYLLO_SUB_TYPE;
	sub.type = PHYLLO_TYPE_BUFFER;
	if (o->payload.kind != PAYLOAD_COUNTER) {
		/* tuples are pub-sub documents on topic "echo" */
		sub.flags |= PHYLLO_SUB_TOPIC;
		sub.type = PHYLLO_TYPE_PUBSUB;
		sub.topic_len = 4;
		memcpy(sub.topic, "echo", 4);
	}
	if (dev_ioctl(fd, PHYLLO_IOC_SUBSCRIBE, &sub, o->dev) ||
	    (o->unreliable && dev_ioctl(fd, PHYLLO_IOC_SET_SEND_MODE, &mode, o->dev)))
		return -1;
	return fd;
}

/* Write while the window and the device allow. */
static int echo_write(int fd, struct client *c, const char *dev)
{
	uint8_t unit[PHYLLO_UNIT_MAX + 1];

	while (client_can_send(c)) {
		uint16_t n = client_next(c, &unit[0], unit + 1);

		if (write(fd, unit, n + 1u) == (ssize_t)n + 1) {
			client_sent(c);
			continue;
		}
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		fprintf(stderr, "phyllo echo: write %s: %s%s\n", dev, strerror(errno),
			errno == EMSGSIZE ? " (payload larger than the link's preset allows)" :
			errno == ECONNRESET ? " (the peer restarted: unacknowledged messages "
					      "were lost)" :
			errno == EIO ? " (the link was detached or hung up)" : "");
		return -1;
	}
	return 0;
}

static int echo_read(int fd, struct client *c, const char *dev)
{
	uint8_t unit[PHYLLO_UNIT_MAX + 1];

	for (;;) {
		ssize_t n = read(fd, unit, sizeof(unit));

		if (n > 0) {
			client_got(c, unit[0], unit + 1, (uint16_t)(n - 1));
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n == 0)
			fprintf(stderr, "phyllo echo: %s: the link was detached or hung up\n", dev);
		else
			fprintf(stderr, "phyllo echo: read %s: %s\n", dev, strerror(errno));
		return -1;
	}
}

static int echo_loop(int fd, struct client *c, const struct echo_opts *o, bool bar)
{
	uint64_t deadline = util_now_us() + o->timeout_s * 1000000ull, next_bar = 0;

	while (!client_done(c)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (echo_write(fd, c, o->dev))
			return -1;
		if (client_can_send(c))
			pfd.events |= POLLOUT;
		if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
			return -1;
		if ((pfd.revents & (POLLIN | POLLHUP | POLLERR)) && echo_read(fd, c, o->dev))
			return -1;
		if (bar && util_now_us() >= next_bar) {
			client_progress(stderr, c);
			next_bar = util_now_us() + 100000;
		}
		if (util_now_us() > deadline) {
			fprintf(stderr, "\nphyllo echo: timed out after %lu s\n", o->timeout_s);
			return -1;
		}
	}
	if (bar) {
		client_progress(stderr, c);
		fputc('\n', stderr);
	}
	return 0;
}

static void echo_report(int fd, struct client *c, const struct echo_opts *o, bool human)
{
	struct phyllo_link_stats st;
	struct client_result r;

	memset(&st, 0, sizeof(st));
	dev_ioctl(fd, PHYLLO_IOC_GET_STATS, &st, o->dev);
	if (!human) {
		printf("{\"device\":\"%s\"", o->dev);
		client_json(stdout, c);
		printf(",\"stats\":");
		stats_json(stdout, &st);
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
	printf("link: %u frames out (%u resent), %u in, %u CRC errors, %u framing errors\n",
	       st.tx_frames, st.tx_retransmits, st.rx_frames, st.rx_crc, st.rx_framing);
}

int echo_main(int argc, char **argv)
{
	struct echo_opts o;
	struct client c;
	bool human;
	int fd, ret;

	echo_parse(&o, argc, argv);
	fd = echo_open(&o);
	if (fd < 0)
		return 1;
	if (client_init(&c, &o.payload, o.count, o.window)) {
		fprintf(stderr, "phyllo echo: out of memory for %lu messages\n", o.count);
		return 1;
	}
	human = !o.json && isatty(STDOUT_FILENO);
	ret = echo_loop(fd, &c, &o, human && isatty(STDERR_FILENO));
	echo_report(fd, &c, &o, human);
	close(fd);
	return ret == 0 && client_ok(&c) ? 0 : 1;
}
