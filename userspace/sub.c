// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sub.c - `phyllo sub`: print every message on a topic prefix, through
 * libphyllo on /dev/phylloN or on a tty with the protocol in the tool.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "cmds.h"
#include "msgprint.h"
#include "util.h"
#include "phyllo_wire.h"

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
