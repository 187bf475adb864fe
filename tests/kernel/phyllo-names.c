// SPDX-License-Identifier: GPL-2.0-only
/*
 * phyllo-names.c - a libphyllo program for test-kernel's named-link
 * phase (names-tests.sh): opens the link once, subscribes to everything
 * and prints one line per thing it receives, flushed, until SIGTERM:
 *   ready              subscribed
 *   unit TOPIC JSON    a pub-sub document
 *   down               phyllo_recv() said -ENOLINK (a named link down)
 *   up SESSION         -ECONNRESET after a down (the new session)
 *   reset SESSION      -ECONNRESET otherwise
 *   end ERR            anything else; the program exits 1
 * It never reopens: what the phase checks is that one open file rides
 * over the down and the up.
 * Usage: phyllo-names /dev/phylloN
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "libphyllo.h"

static void print_unit(const struct phyllo_message *m)
{
	char json[512];

	if (!m->is_document || phyllo_msgpack_to_json(m->data, m->len, json, sizeof(json)) < 0)
		snprintf(json, sizeof(json), "?");
	printf("unit %s %s\n", m->topic, json);
}

int main(int argc, char **argv)
{
	struct phyllo_message m;
	struct phyllo_status st;
	struct phyllo *h;
	int ret, down = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: phyllo-names /dev/phylloN\n");
		return 2;
	}
	ret = phyllo_open(&h, argv[1], NULL);
	if (!ret)
		ret = phyllo_subscribe(h, "");
	if (ret) {
		fprintf(stderr, "phyllo-names: %s: %s\n", argv[1], phyllo_strerror(ret));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		ret = phyllo_recv(h, &m, -1);
		if (!ret) {
			print_unit(&m);
		} else if (ret == -ENOLINK) {
			down = 1;
			printf("down\n");
		} else if (ret == -ECONNRESET) {
			phyllo_status(h, &st);
			printf("%s %u\n", down ? "up" : "reset", st.session);
			down = 0;
		} else {
			printf("end %s\n", phyllo_strerror(ret));
			fflush(stdout);
			phyllo_close(h);
			return 1;
		}
		fflush(stdout);
	}
}
