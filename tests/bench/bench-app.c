// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bench-app.c - the application of `make bench`'s deterministic bench, in
 * the guest (tests/bench/icount-guest.sh), on one path under test:
 *
 *   bench-app sink|rtt PATH COUNT [--pause-ms MS] [--window W] [--rt]
 *             [--cpu C] [--samples FILE] [--sub I]
 *             [--from-ms A --to-ms B | --window-file F]
 *   bench-app route TTY READERS (--from-ms A --to-ms B | --window-file F)
 *   bench-app now | until MS
 *   bench-app feed LINK
 *
 * PATH is /dev/phylloN (the line discipline runs the protocol) or a tty
 * (libphyllo runs the same core in this process, on n_tty).
 *   sink: read COUNT units the far end streams; after each burst (every
 *         unit there is) sleep --pause-ms, as a slow application does.
 *   rtt:  COUNT round trips of a 16-byte unit the far end echoes, --window
 *         in flight (1: stop-and-wait), --pause-ms of idle between them;
 *         each one timed from before phyllo_send() to after the
 *         phyllo_recv() that returns its echo (CLOCK_MONOTONIC, which the
 *         guest's instruction counter drives).
 *   --rt: the handle belongs to a daemon thread at SCHED_FIFO priority 50
 *         that does nothing but service the link (poll, phyllo_recv(),
 *         phyllo_send()); the application thread, at normal priority,
 *         sends and receives through a SOCK_SEQPACKET pair with it, as an
 *         application would through a daemon's socket. The strongest
 *         userspace answer to "the kernel acks while the app sleeps".
 * --cpu pins both threads to one CPU. Prints one JSON line: count, the
 * latencies' p50/p99/p99.9/max in microseconds (rtt), the process's CPU
 * time (user + system, both threads); --samples writes every latency.
 * Exits 1 on a lost, wrong or late (5 s) unit.
 *
 * The scaling series (icount-scale.sh) adds:
 *   --from-ms A --to-ms B: a window on CLOCK_MONOTONIC (absolute ms, as
 *         `bench-app now` prints): COUNT is ignored; sink counts the units
 *         read in [A, B), rtt times the round trips started in it, and
 *         both go on until B + LINGER_MS, so that the process is still
 *         alive when the script reads every task's CPU time at B.
 *   --window-file F: the same window, read from F ("A B") once it
 *         exists; the process creates F.ready.PID when its link is up
 *         (and subscribed) and reads (sink) or runs round trips until
 *         then, so the script opens the window only once every
 *         application is up.
 *   --sub I: reader I's subscription of the series' overlapping mix
 *         (sub_mix()): all units, type 0x60, topic prefix "ec", topic
 *         "echo", in turn; every pub-sub unit on topic "echo" matches all.
 *   route: the userspace answer to several readers: this process runs the
 *         protocol on TTY (libphyllo) and hands each unit to READERS
 *         child processes, each over its own SOCK_SEQPACKET pair, by the
 *         same subscription mix (a router's filter); a full socket loses
 *         the unit for that reader (counted). Prints the units the
 *         readers read in the window, summed.
 *   now: prints CLOCK_MONOTONIC in ms; until MS: sleeps until then.
 *   feed LINK: a streaming far end: a new pty whose slave is linked at
 *         LINK, libphyllo on its master publishing a 6-byte MessagePack
 *         document on topic "echo" (reliable) as fast as the window
 *         allows, until killed. Its sends wait in the library's poll,
 *         where `phyllo peer --stream` polls with a zero timeout while
 *         its window is full (it spins).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "libphyllo.h"

#define TIMEOUT_MS 5000
#define UNIT_LEN 16
#define UNIT_TYPE 0x10
#define LINGER_MS 300
#define PUBSUB_TYPE 0x60

struct bench {
	const char *mode, *path, *samples;
	unsigned long count, pause_ms, window;
	int rt, cpu, sub;	/* sub: -1, or reader I of sub_mix() */
	double from_us, to_us;	/* the window; to_us 0: none (yet) */
	const char *win_file;	/* --window-file */
	double win_checked;	/* when win_file was last looked at */
	unsigned long readers;	/* route */
	struct phyllo *h;
	int sock[2];	/* --rt: [0] the application's end, [1] the daemon's */
	double *lat_us;
	int *route_fd;		/* route: each reader's socket */
	unsigned long units, lost;	/* route: units received, lost */
};

static void __attribute__((noreturn)) die(const char *what, int err)
{
	fprintf(stderr, "bench-app: %s: %s\n", what, err ? strerror(err) : "failed");
	exit(1);
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity", errno);
}

/* Reader i of the series' mix: a type, a topic prefix, or all units. */
struct sub_spec {
	uint8_t type;
	const char *prefix;
};

static struct sub_spec sub_mix(int i)
{
	static const struct sub_spec mix[] = {
		{ 0, NULL }, { PUBSUB_TYPE, NULL }, { 0, "ec" }, { 0, "echo" },
	};

	return mix[i % 4];
}

static void sub_apply(struct phyllo *h, int i)
{
	struct sub_spec s;
	int err = 0;

	if (i < 0)
		return;
	s = sub_mix(i);
	if (s.type)
		err = phyllo_subscribe_type(h, s.type);
	else if (s.prefix)
		err = phyllo_subscribe(h, s.prefix);
	if (err < 0)
		die("subscribe", -err);
}

/* The router's filter: what the kernel's subscription does per file. */
static int sub_matches(int i, const struct phyllo_message *m)
{
	struct sub_spec s = sub_mix(i);

	if (s.type)
		return m->type == s.type;
	if (s.prefix)
		return m->is_pubsub && !strncmp(m->topic, s.prefix, strlen(s.prefix));
	return 1;
}

static int in_window(const struct bench *b, double t)
{
	return t >= b->from_us && t < b->to_us;
}

/* --window-file: the window once the script has written it (every 10 ms). */
static void window_poll(struct bench *b)
{
	double a, z, t = now_us();
	FILE *f;

	if (b->to_us || !b->win_file || t - b->win_checked < 10000)
		return;
	b->win_checked = t;
	f = fopen(b->win_file, "r");
	if (!f)
		return;
	if (fscanf(f, "%lf %lf", &a, &z) == 2 && z > a) {
		b->from_us = a * 1e3;
		b->to_us = z * 1e3;
	}
	fclose(f);
}

/* The window's end and the linger after it; before the window is known, later. */
static double window_end(struct bench *b)
{
	window_poll(b);
	return b->to_us ? b->to_us + LINGER_MS * 1e3 : now_us() + 1e9;
}

/* Up: tell the script (F.ready.PID). */
static void window_ready(const struct bench *b)
{
	char path[4096];
	FILE *f;

	if (!b->win_file)
		return;
	snprintf(path, sizeof(path), "%s.ready.%d", b->win_file, (int)getpid());
	f = fopen(path, "w");
	if (!f)
		die(path, errno);
	fclose(f);
}

/* Milliseconds to wait from now for end, at least 1, at most the timeout. */
static int wait_ms(double end)
{
	double ms = (end - now_us()) / 1e3 + 1;

	return ms < 1 ? 1 : ms > TIMEOUT_MS ? TIMEOUT_MS : (int)ms;
}

/* The daemon thread: the link's only user, at real-time priority. */
static void *daemon_main(void *arg)
{
	struct bench *b = arg;
	struct sched_param sp = { .sched_priority = 50 };
	struct pollfd p[2] = { { .fd = phyllo_fd(b->h), .events = POLLIN },
			       { .fd = b->sock[1], .events = POLLIN } };
	struct phyllo_message m;
	uint8_t buf[256];
	ssize_t n;
	int err;

	err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (err)
		die("SCHED_FIFO", err);
	for (;;) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			die("poll", errno);
		while ((err = phyllo_recv(b->h, &m, 0)) == 0)
			if (send(b->sock[1], m.data, m.len, 0) < 0)
				die("daemon send", errno);
		if (err != -EAGAIN)
			die("daemon phyllo_recv", -err);
		if (!(p[1].revents & POLLIN))
			continue;
		n = recv(b->sock[1], buf, sizeof(buf), 0);
		if (n <= 0)
			return NULL;	/* the application closed its end */
		err = phyllo_send(b->h, UNIT_TYPE, buf, (size_t)n, 0);
		if (err < 0)
			die("daemon phyllo_send", -err);
	}
}

/* One unit to the far end, straight or through the daemon. */
static void app_send(struct bench *b, const uint8_t *unit)
{
	int err;

	if (b->rt) {
		if (send(b->sock[0], unit, UNIT_LEN, 0) != UNIT_LEN)
			die("send to the daemon", errno);
		return;
	}
	err = phyllo_send(b->h, UNIT_TYPE, unit, UNIT_LEN, 0);
	if (err < 0)
		die("phyllo_send", -err);
}

/* The next unit into buf: its length; 0 if none came within timeout_ms. */
static size_t app_recv(struct bench *b, uint8_t *buf, int timeout_ms)
{
	struct pollfd p = { .fd = b->sock[0], .events = POLLIN };
	struct phyllo_message m;
	ssize_t n;
	int err;

	if (b->rt) {
		err = poll(&p, 1, timeout_ms);
		if (err <= 0)
			return 0;
		n = recv(b->sock[0], buf, 256, 0);
		if (n < 0)
			die("recv from the daemon", errno);
		return (size_t)n;
	}
	err = phyllo_recv(b->h, &m, timeout_ms);
	if (err == -EAGAIN || err == -ETIMEDOUT)
		return 0;
	if (err < 0)
		die("phyllo_recv", -err);
	memcpy(buf, m.data, m.len < 256 ? m.len : 256);
	return m.len;
}

static void run_sink(struct bench *b)
{
	uint8_t buf[256];
	unsigned long got = 0;

	while (got < b->count) {
		if (!app_recv(b, buf, TIMEOUT_MS))
			die("sink: no unit within 5 s", ETIMEDOUT);
		got++;
		while (got < b->count && app_recv(b, buf, 0))
			got++;
		if (b->pause_ms)
			usleep((useconds_t)(b->pause_ms * 1000));
	}
}

static void run_rtt(struct bench *b)
{
	uint8_t unit[UNIT_LEN] = { 0 }, buf[256];
	double *sent = calloc(b->count, sizeof(*sent));
	unsigned long tx = 0, rx = 0, tag;

	if (!sent)
		die("calloc", ENOMEM);
	while (rx < b->count) {
		while (tx < b->count && tx - rx < b->window) {
			memcpy(unit, &tx, sizeof(tx));
			sent[tx] = now_us();
			app_send(b, unit);
			tx++;
		}
		if (app_recv(b, buf, TIMEOUT_MS) != UNIT_LEN)
			die("rtt: no echo of the right size within 5 s", ETIMEDOUT);
		memcpy(&tag, buf, sizeof(tag));
		if (tag != rx)
			die("rtt: echo out of order", EBADMSG);
		b->lat_us[rx] = now_us() - sent[rx];
		rx++;
		if (b->pause_ms && b->window == 1)
			usleep((useconds_t)(b->pause_ms * 1000));
	}
	free(sent);
}

/* sink in a window: every unit read, those read in [from, to) counted. */
static void run_sink_window(struct bench *b)
{
	uint8_t buf[256];
	unsigned long got = 0;
	double end;

	while (now_us() < (end = window_end(b)))
		if (app_recv(b, buf, wait_ms(end) < 100 ? wait_ms(end) : 100) &&
		    in_window(b, now_us()))
			got++;
	b->count = got;
}

/* Stop-and-wait round trips until the window's end; those started in it timed. */
static void run_rtt_window(struct bench *b)
{
	uint8_t unit[UNIT_LEN] = { 0 }, buf[256];
	unsigned long tx, tag, n = 0, cap = 1UL << 16;
	double t0;

	free(b->lat_us);
	b->lat_us = calloc(cap, sizeof(double));
	if (!b->lat_us)
		die("calloc", ENOMEM);
	for (tx = 0; (t0 = now_us()) < window_end(b); tx++) {
		memcpy(unit, &tx, sizeof(tx));
		app_send(b, unit);
		if (app_recv(b, buf, TIMEOUT_MS) != UNIT_LEN)
			die("rtt: no echo of the right size within 5 s", ETIMEDOUT);
		memcpy(&tag, buf, sizeof(tag));
		if (tag != tx)
			die("rtt: echo out of order", EBADMSG);
		if (in_window(b, t0) && n < cap)
			b->lat_us[n++] = now_us() - t0;
	}
	b->count = n;
}

/* A router's reader: counts what it reads in the window, then tells how many. */
static void __attribute__((noreturn)) route_child(struct bench *b, int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	unsigned long got = 0;
	uint8_t buf[256];
	double end;
	ssize_t n;

	while (now_us() < (end = window_end(b))) {
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0 && in_window(b, now_us()))
			got++;
		else if (n < 0 && errno == EAGAIN)
			poll(&p, 1, wait_ms(end) < 100 ? wait_ms(end) : 100);
		else if (n <= 0)
			die("reader recv", errno);
	}
	if (send(fd, &got, sizeof(got), 0) != sizeof(got))
		die("reader send", errno);
	/* until the router has the count: closing first would reset it */
	while (recv(fd, buf, sizeof(buf), 0) > 0)
		;
	_exit(0);
}

/* The readers first, before the router opens the tty. */
static void route_fork(struct bench *b)
{
	unsigned long i;
	int sv[2];

	b->route_fd = calloc(b->readers, sizeof(int));
	if (!b->route_fd)
		die("calloc", ENOMEM);
	for (i = 0; i < b->readers; i++) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv))
			die("socketpair", errno);
		switch (fork()) {
		case -1:
			die("fork", errno);
		case 0:
			close(sv[0]);
			route_child(b, sv[1]);
		default:
			break;
		}
		close(sv[1]);
		b->route_fd[i] = sv[0];
	}
}

/* One unit to every reader whose subscription matches it. */
static void route_unit(struct bench *b, const struct phyllo_message *m)
{
	unsigned long i;

	for (i = 0; i < b->readers; i++) {
		if (!sub_matches((int)i, m))
			continue;
		if (send(b->route_fd[i], m->unit, m->unit_len, MSG_DONTWAIT) >= 0)
			continue;
		if (errno != EAGAIN)
			die("router send", errno);
		b->lost++;
	}
}

static void run_route(struct bench *b)
{
	struct phyllo_message m;
	unsigned long i, got;
	double end;
	int err;

	while (now_us() < (end = window_end(b))) {
		err = phyllo_recv(b->h, &m, wait_ms(end) < 100 ? wait_ms(end) : 100);
		if (err == -EAGAIN || err == -ETIMEDOUT)
			continue;
		if (err < 0)
			die("router phyllo_recv", -err);
		route_unit(b, &m);
		if (in_window(b, now_us()))
			b->units++;
	}
	b->count = 0;
	for (i = 0; i < b->readers; i++) {
		if (recv(b->route_fd[i], &got, sizeof(got), 0) != sizeof(got))
			die("router: a reader's count", errno);
		b->count += got;
		close(b->route_fd[i]);
	}
	while (wait(NULL) > 0)
		;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The nearest-rank percentile q (0..1) of n sorted values. */
static double pct(const double *v, unsigned long n, double q)
{
	unsigned long i = (unsigned long)(q * (double)n + 0.999999);

	return n ? v[(i ? i : 1) - 1] : 0;
}

static void report(struct bench *b, double wall_us)
{
	struct rusage ru;
	unsigned long n = strcmp(b->mode, "rtt") ? 0 : b->count, i;
	double cpu;
	FILE *f;

	getrusage(RUSAGE_SELF, &ru);
	cpu = ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec + ru.ru_stime.tv_sec * 1e6 +
	      ru.ru_stime.tv_usec;
	qsort(b->lat_us, n, sizeof(double), cmp_double);
	printf("{\"count\":%lu,\"app_cpu_us\":%.0f,\"wall_us\":%.0f", b->count, cpu, wall_us);
	if (b->readers)
		printf(",\"router_units\":%lu,\"router_lost\":%lu", b->units, b->lost);
	if (n)
		printf(",\"p50_us\":%.1f,\"p99_us\":%.1f,\"p999_us\":%.1f,\"max_us\":%.1f",
		       pct(b->lat_us, n, 0.5), pct(b->lat_us, n, 0.99),
		       pct(b->lat_us, n, 0.999), b->lat_us[n - 1]);
	printf("}\n");
	if (!b->samples || !n)
		return;
	f = fopen(b->samples, "w");
	if (!f)
		die(b->samples, errno);
	for (i = 0; i < n; i++)
		fprintf(f, "%.1f\n", b->lat_us[i]);
	fclose(f);
}

static void parse_opt(struct bench *b, const char *opt, const char *val)
{
	if (!strcmp(opt, "--pause-ms"))
		b->pause_ms = strtoul(val, NULL, 10);
	else if (!strcmp(opt, "--window"))
		b->window = strtoul(val, NULL, 10);
	else if (!strcmp(opt, "--cpu"))
		b->cpu = atoi(val);
	else if (!strcmp(opt, "--samples"))
		b->samples = val;
	else if (!strcmp(opt, "--sub"))
		b->sub = atoi(val);
	else if (!strcmp(opt, "--from-ms"))
		b->from_us = strtod(val, NULL) * 1e3;
	else if (!strcmp(opt, "--to-ms"))
		b->to_us = strtod(val, NULL) * 1e3;
	else if (!strcmp(opt, "--window-file"))
		b->win_file = val;
	else
		die(opt, EINVAL);
}

static void parse(struct bench *b, int argc, char **argv)
{
	int i;

	if (argc < 4 || (strcmp(argv[1], "sink") && strcmp(argv[1], "rtt") &&
			 strcmp(argv[1], "route")))
		die("usage: bench-app sink|rtt PATH COUNT [--pause-ms MS] [--window W] "
		    "[--rt] [--cpu C] [--samples FILE] [--sub I] [--from-ms A --to-ms B | "
		    "--window-file F]; bench-app route TTY READERS (--from-ms A --to-ms B | "
		    "--window-file F); "
		    "bench-app now | until MS", EINVAL);
	b->mode = argv[1];
	b->path = argv[2];
	b->count = strtoul(argv[3], NULL, 10);
	for (i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "--rt"))
			b->rt = 1;
		else if (i + 1 >= argc)
			die(argv[i], EINVAL);
		else {
			parse_opt(b, argv[i], argv[i + 1]);
			i++;
		}
	}
	if (!b->count || !b->window)
		die("COUNT and --window must be at least 1", EINVAL);
	if (!strcmp(b->mode, "route")) {
		b->readers = b->count;
		if (!b->to_us && !b->win_file)
			die("route needs a window", EINVAL);
	}
	if ((b->to_us || b->win_file) && (b->window != 1 || b->rt || b->pause_ms))
		die("a window runs stop-and-wait, without --rt or --pause-ms", EINVAL);
}

/* bench-app now | until MS: the clock of the windows. */
static int clock_cmd(int argc, char **argv)
{
	double until, left;

	if (!strcmp(argv[1], "now")) {
		printf("%.0f\n", now_us() / 1e3);
		return 0;
	}
	until = argc > 2 ? strtod(argv[2], NULL) * 1e3 : 0;
	while ((left = until - now_us()) > 0)
		usleep((useconds_t)left);
	return 0;
}

static void tty_raw(int fd)
{
	struct termios t;

	if (tcgetattr(fd, &t))
		die("tcgetattr", errno);
	cfmakeraw(&t);
	if (tcsetattr(fd, TCSANOW, &t))
		die("tcsetattr", errno);
}

/* bench-app feed LINK: the far end of a streaming link. */
static int feed_main(const char *link)
{
	static const uint8_t doc[] = { 0x81, 0xa1, 'n', 0xcd, 0x04, 0xd2 };
	int m = posix_openpt(O_RDWR | O_NOCTTY), keep, err;
	const char *slave;
	struct phyllo *h;

	if (m < 0 || grantpt(m) || unlockpt(m) || !(slave = ptsname(m)))
		die("pty", errno);
	/* the slave kept open, so that the master never reads a hang-up */
	keep = open(slave, O_RDWR | O_NOCTTY);
	if (keep < 0)
		die(slave, errno);
	tty_raw(keep);
	tty_raw(m);
	err = phyllo_open_fd(&h, m, NULL);
	if (err < 0)
		die("phyllo_open_fd", -err);
	if (symlink(slave, link))
		die(link, errno);
	err = phyllo_wait_up(h, -1);
	if (err < 0)
		die("phyllo_wait_up", -err);
	for (;;) {
		err = phyllo_publish(h, "echo", doc, sizeof(doc), 0);
		if (err < 0 && err != -ECONNRESET)
			die("phyllo_publish", -err);
	}
}

int main(int argc, char **argv)
{
	struct bench b = { .window = 1, .cpu = -1, .sub = -1 };
	struct phyllo_options o;
	pthread_t daemon;
	double t0;
	int err;

	if (argc >= 2 && (!strcmp(argv[1], "now") || !strcmp(argv[1], "until")))
		return clock_cmd(argc, argv);
	if (argc == 3 && !strcmp(argv[1], "feed"))
		return feed_main(argv[2]);
	parse(&b, argc, argv);
	pin(b.cpu);
	b.lat_us = calloc(b.count, sizeof(double));
	if (!b.lat_us)
		die("calloc", ENOMEM);
	if (b.readers)
		route_fork(&b);
	phyllo_options_init(&o);
	o.queue = 4096;
	err = phyllo_open(&b.h, b.path, &o);
	if (err < 0)
		die(b.path, -err);
	err = phyllo_wait_up(b.h, TIMEOUT_MS);
	if (err < 0)
		die("phyllo_wait_up", -err);
	sub_apply(b.h, b.sub);
	window_ready(&b);
	if (b.rt && socketpair(AF_UNIX, SOCK_SEQPACKET, 0, b.sock))
		die("socketpair", errno);
	if (b.rt && (err = pthread_create(&daemon, NULL, daemon_main, &b)))
		die("pthread_create", err);
	t0 = now_us();
	if (b.readers)
		run_route(&b);
	else if ((b.to_us || b.win_file) && !strcmp(b.mode, "sink"))
		run_sink_window(&b);
	else if (b.to_us || b.win_file)
		run_rtt_window(&b);
	else if (!strcmp(b.mode, "sink"))
		run_sink(&b);
	else
		run_rtt(&b);
	report(&b, now_us() - t0);
	fflush(stdout);
	_exit(0);	/* the daemon thread may still sit in poll() */
}
