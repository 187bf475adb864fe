// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * hotplug-client.c - the libphyllo program of make test-hotplug
 * (guest-hotplug.sh runs it in the Debian guest, as user maker).
 *
 *   hotplug-client LINK   opens LINK (/dev/phyllo/NAME) ONCE, subscribes
 *                         to every topic and prints one line per thing
 *                         it receives, flushed, until SIGTERM;
 *   hotplug-client -s     stamps the lines of its standard input (the
 *                         outputs of phyllo sub and mosquitto_sub).
 *
 * Every line starts with the CLOCK_MONOTONIC time it was seen, in
 * seconds, the clock udevadm monitor stamps uevents with, so the guest
 * can time the board's tty appearing against the first unit delivered:
 *   T ready            subscribed
 *   T unit TOPIC JSON  a pub-sub document
 *   T down             phyllo_recv() said -ENOLINK (the named link down)
 *   T up SESSION       -ECONNRESET after a down: the board is back
 *   T reset SESSION    -ECONNRESET otherwise: the board restarted
 *   T end ERROR        anything else; the program exits 1
 * It never reopens: what the test checks is that one open file rides
 * over each unplug, plug and reset.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "libphyllo.h"

static void stamp(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("%ld.%06ld ", (long)ts.tv_sec, ts.tv_nsec / 1000);
}

/* -s: each line of stdin, stamped when it is read. */
static int stamp_lines(void)
{
	char line[4096];

	while (fgets(line, sizeof(line), stdin)) {
		stamp();
		fputs(line, stdout);
		if (!strchr(line, '\n'))
			putchar('\n');
		fflush(stdout);
	}
	return 0;
}

static void print_unit(const struct phyllo_message *m)
{
	char json[512];

	if (!m->is_document || phyllo_msgpack_to_json(m->data, m->len, json, sizeof(json)) < 0)
		snprintf(json, sizeof(json), "?");
	stamp();
	printf("unit %s %s\n", m->topic, json);
}

/* One receive's outcome, printed: 0 to go on, 1 to stop. */
static int print_event(struct phyllo *h, int ret, int *down)
{
	struct phyllo_status st;

	if (!ret) {
		return 0;
	} else if (ret == -ENOLINK) {
		*down = 1;
		stamp();
		printf("down\n");
	} else if (ret == -ECONNRESET) {
		memset(&st, 0, sizeof(st));
		phyllo_status(h, &st);
		stamp();
		printf("%s %u\n", *down ? "up" : "reset", st.session);
		*down = 0;
	} else {
		stamp();
		printf("end %s\n", phyllo_strerror(ret));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct phyllo_message m;
	struct phyllo *h;
	int ret, down = 0;

	if (argc == 2 && !strcmp(argv[1], "-s"))
		return stamp_lines();
	if (argc != 2) {
		fprintf(stderr, "usage: hotplug-client LINK | hotplug-client -s\n");
		return 2;
	}
	ret = phyllo_open(&h, argv[1], NULL);
	if (!ret)
		ret = phyllo_subscribe(h, "");
	if (ret) {
		fprintf(stderr, "hotplug-client: %s: %s\n", argv[1], phyllo_strerror(ret));
		return 1;
	}
	stamp();
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		ret = phyllo_recv(h, &m, -1);
		if (!ret)
			print_unit(&m);
		else if (print_event(h, ret, &down))
			break;
		fflush(stdout);
	}
	fflush(stdout);
	phyllo_close(h);
	return 1;
}
