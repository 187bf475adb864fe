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
 *
 * phyllo-names --flush-lost /dev/phylloN SETTING VALUE: publishes one
 * reliable unit (the far end is stopped: nothing acknowledges it), then
 * writes VALUE to the sysfs SETTING (one that starts a new session, so
 * the unit is lost), then phyllo_flush(). Exits 0 only if the flush said
 * -ECONNRESET and the link counted exactly one unit lost to a reset: a
 * unit lost before the flush looked must not be reported acknowledged
 * (test-kernel, "phyllo_flush() after a reset").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "libphyllo.h"
#include "phyllo.h"

/* The link's units lost to session ends (its state, not the core's
 * counter: a new configuration's losses are the link's). */
static long reset_lost(const char *dev)
{
	struct phyllo_link_state st;
	int fd = open(dev, O_RDONLY | O_NONBLOCK);
	long n = -1;

	if (fd >= 0 && !ioctl(fd, PHYLLO_IOC_GET_STATE, &st))
		n = st.tx_reset_lost;
	if (fd >= 0)
		close(fd);
	return n;
}

static int flush_lost(const char *dev, const char *setting, const char *value)
{
	long lost = reset_lost(dev);
	struct phyllo *h;
	int fd, ret = phyllo_open(&h, dev, NULL);

	if (ret || lost < 0) {
		fprintf(stderr, "phyllo-names: %s: %s\n", dev, phyllo_strerror(ret));
		return 1;
	}
	ret = phyllo_publish_json(h, "flush", "1", 0);
	if (ret) {
		fprintf(stderr, "phyllo-names: publish: %s\n", phyllo_strerror(ret));
		phyllo_close(h);
		return 1;
	}
	fd = open(setting, O_WRONLY);
	if (fd < 0 || write(fd, value, strlen(value)) != (ssize_t)strlen(value)) {
		perror(setting);
		phyllo_close(h);
		return 1;
	}
	close(fd);
	ret = phyllo_flush(h, 2000);
	printf("flush %s; tx_reset_lost %ld -> %ld\n",
	       ret ? phyllo_strerror(ret) : "0 (acknowledged)", lost, reset_lost(dev));
	phyllo_close(h);
	return ret == -ECONNRESET && reset_lost(dev) == lost + 1 ? 0 : 1;
}

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

	if (argc == 5 && !strcmp(argv[1], "--flush-lost"))
		return flush_lost(argv[2], argv[3], argv[4]);
	if (argc != 2) {
		fprintf(stderr, "usage: phyllo-names /dev/phylloN\n"
			"       phyllo-names --flush-lost /dev/phylloN SETTING VALUE\n");
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
