// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * drain.c - `phyllo drain`: read /dev/phylloN in bursts, a slow
 * application for the link-service benchmark.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "cmds.h"
#include "dev.h"
#include "util.h"
#include "phyllo.h"

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
