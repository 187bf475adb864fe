// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * board.c - a scriptable board for tests/bridge/test-bridge.sh: libphyllo
 * on the master of a new pty whose slave is symlinked to argv[1], so that
 * phyllo-bridge opens the slave with --tty as it would a board's tty.
 *
 * libphyllo runs on one end of a socketpair, a thread copying bytes
 * between its other end and the pty master: libphyllo takes an flock on a
 * tty it runs on, and every pty master shares the one inode of ptmx, so
 * two boards on masters (in one test or in two tests at once) would
 * refuse each other ("Device or resource busy").
 *
 * With --open, argv[1] is instead an existing tty that it opens, the
 * host's end of a link (bench-bridge.sh: the link alone, without the
 * bridge).
 *
 * Every pub-sub message received is printed on stdout as "TOPIC JSON"
 * (line-buffered; with --stamp "MICROSECONDS TOPIC JSON", CLOCK_REALTIME
 * at receipt), and with --echo sent back on its topic. Commands on
 * stdin, one a line:
 *   burst TOPIC N [FROM [AT]]  publish {"n":FROM..FROM+N-1} on TOPIC,
 *                         reliably, each waiting for room in the window;
 *                         with AT, restart (below) after message AT
 *   stamp TOPIC N         as burst, {"n":I,"t":MICROSECONDS} (CLOCK_REALTIME)
 *   pace US               wait US microseconds after each message of a burst
 *   restart               close the session and open a new one on the same
 *                         pty (the bridge sees a session reset)
 *   sync                  print "synced" once every unit sent is acknowledged
 *   hex TOPIC DOC         publish, reliably, a topic and a MessagePack body
 *                         given in hex (any bytes but NUL: what a board
 *                         that means harm may send)
 * End of stdin ends it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>
#include "libphyllo.h"

static struct phyllo *h;
static int master, relay[2];	/* relay[0]: libphyllo's end */
static int echo, stamp_rx;
static const char *open_path;
static long pace_us;

static int board_open(void)
{
	struct phyllo_options o;
	int rc;

	phyllo_options_init(&o);
	o.transport = PHYLLO_TRANSPORT_TTY;
	o.queue = 4096;
	if (open_path)
		rc = phyllo_open(&h, open_path, &o);
	else
		rc = phyllo_open_fd(&h, dup(relay[0]), &o);
	if (rc)
		fprintf(stderr, "board: open: %s\n", phyllo_strerror(rc));
	return rc;
}

static long long realtime_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void board_drain(void)
{
	struct phyllo_message m;
	char json[2100];
	int rc;

	while ((rc = phyllo_recv(h, &m, 0)) != -EAGAIN) {
		if (rc == -ECONNRESET) {
			printf("# reset\n");
			continue;
		}
		if (rc < 0) {
			fprintf(stderr, "board: recv: %s\n", phyllo_strerror(rc));
			exit(1);
		}
		if (!m.is_pubsub)
			continue;
		if (phyllo_msgpack_to_json(m.data, m.len, json, sizeof(json)) < 0)
			snprintf(json, sizeof(json), "(malformed)");
		if (stamp_rx)
			printf("%lld ", realtime_us());
		printf("%s %s\n", m.topic, json);
		if (echo)
			phyllo_publish(h, m.topic, m.data, m.len, 0);
	}
}


static void board_restart(void)
{
	phyllo_close(h);
	if (board_open())
		exit(1);
}

static void board_burst(const char *topic, long n, long from, int stamp, long at)
{
	char json[64];
	long i;
	int rc;

	for (i = from; i < from + n; i++) {
		if (stamp)
			snprintf(json, sizeof(json), "{\"n\":%ld,\"t\":%lld}", i, realtime_us());
		else
			snprintf(json, sizeof(json), "{\"n\":%ld}", i);
		rc = phyllo_publish_json(h, topic, json, 0);
		if (rc < 0) {
			fprintf(stderr, "board: publish: %s\n", phyllo_strerror(rc));
			exit(1);
		}
		board_drain();
		if (i == at)
			board_restart();
		if (pace_us)
			usleep((useconds_t)pace_us);
	}
}

/* hex digits to bytes: their count, or -1 */
static int unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = 0;
	unsigned int v;

	while (s[0] && s[1] && n < cap && sscanf(s, "%2x", &v) == 1) {
		out[n++] = (uint8_t)v;
		s += 2;
	}
	return *s ? -1 : (int)n;
}

static void board_hex(const char *topic_hex, const char *doc_hex)
{
	uint8_t topic[17], doc[256];
	int t = unhex(topic_hex, topic, sizeof(topic) - 1), d = unhex(doc_hex, doc, sizeof(doc));
	int rc;

	if (t < 0 || d < 0 || memchr(topic, 0, (size_t)t)) {
		fprintf(stderr, "board: hex: not hex, or a NUL in the topic\n");
		return;
	}
	topic[t] = 0;
	rc = phyllo_publish(h, (const char *)topic, doc, (size_t)d, 0);
	if (rc < 0)
		fprintf(stderr, "board: hex: %s\n", phyllo_strerror(rc));
	board_drain();
}

static void board_command(char *line)
{
	char topic[40], doc[520];
	long n, from = 0, at = -1;

	line[strcspn(line, "\n")] = '\0';
	if (sscanf(line, "burst %31s %ld %ld %ld", topic, &n, &from, &at) >= 2) {
		board_burst(topic, n, from, 0, at);
	} else if (sscanf(line, "stamp %31s %ld", topic, &n) == 2) {
		board_burst(topic, n, 0, 1, -1);
	} else if (sscanf(line, "pace %ld", &n) == 1) {
		pace_us = n;
	} else if (sscanf(line, "hex %39s %519s", topic, doc) == 2) {
		board_hex(topic, doc);
	} else if (!strcmp(line, "restart")) {
		board_restart();
	} else if (!strcmp(line, "sync")) {
		phyllo_flush(h, -1);
		printf("synced\n");
	} else {
		fprintf(stderr, "board: what is '%s'?\n", line);
	}
}

/* from one fd to the other, what it has now; -1 when the source is gone */
static int relay_copy(int from, int to)
{
	char buf[4096];
	ssize_t n = read(from, buf, sizeof(buf)), w;
	size_t off = 0;

	if (n <= 0)
		return n < 0 && errno == EINTR ? 0 : -1;
	while (off < (size_t)n) {
		w = write(to, buf + off, (size_t)n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

static void *relay_run(void *arg)
{
	struct pollfd p[2] = { { .fd = master, .events = POLLIN },
			       { .fd = relay[1], .events = POLLIN } };

	(void)arg;
	for (;;) {
		if (poll(p, 2, -1) < 0)
			continue;
		if (p[0].revents && relay_copy(master, relay[1]))
			break;
		if (p[1].revents && relay_copy(relay[1], master))
			break;
	}
	return NULL;
}

/* A new pty, its slave raw and symlinked to LINK, its master relayed to
 * the socketpair libphyllo runs on */
static int board_pty(const char *link)
{
	struct termios t;
	const char *slave;
	pthread_t thread;
	int keep;

	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || grantpt(master) || unlockpt(master) || !(slave = ptsname(master)))
		return perror("board: pty"), -1;
	/* held open so that the master never reads EIO between openers */
	keep = open(slave, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (keep < 0 || tcgetattr(keep, &t))
		return perror("board: pty slave"), -1;
	cfmakeraw(&t);
	tcsetattr(keep, TCSANOW, &t);
	if (symlink(slave, link))
		return perror("board: symlink"), -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, relay) ||
	    pthread_create(&thread, NULL, relay_run, NULL))
		return perror("board: relay"), -1;
	return 0;
}

int main(int argc, char **argv)
{
	char line[1024];
	size_t have = 0;
	char *nl;
	ssize_t r;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: board LINK [--echo] [--open] [--stamp]\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		echo |= !strcmp(argv[i], "--echo");
		stamp_rx |= !strcmp(argv[i], "--stamp");
		if (!strcmp(argv[i], "--open"))
			open_path = argv[1];
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((!open_path && board_pty(argv[1])) || board_open())
		return 1;
	for (;;) {
		struct pollfd p[2] = { { .fd = 0, .events = POLLIN },
				       { .fd = phyllo_fd(h), .events = POLLIN } };

		poll(p, 2, 100);
		phyllo_dispatch(h);
		board_drain();
		if (!p[0].revents)
			continue;
		/* read(2), not stdio: poll sees what stdio would have buffered */
		r = read(0, line + have, sizeof(line) - 1 - have);
		if (r <= 0)
			break;
		have += (size_t)r;
		line[have] = '\0';
		while ((nl = strchr(line, '\n'))) {
			*nl = '\0';
			board_command(line);
			have -= (size_t)(nl + 1 - line);
			memmove(line, nl + 1, have + 1);
		}
	}
	phyllo_close(h);
	if (!open_path)
		unlink(argv[1]);
	return 0;
}
