// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib-overhead.c - `make bench`, in the guest: what libphyllo costs an
 * application per message on /dev/phylloN, against the same exchange done
 * by hand with read(2) and write(2).
 *
 *   lib-overhead DEV COUNT
 *
 * The far end echoes every unit. Both paths publish the same MessagePack
 * document, stop-and-wait, and check the echo:
 *   raw: the unit packed by hand ([0x60][0x40][len][topic][0x11][0][doc]),
 *        write(), poll(), read(), the topic and body compared;
 *   lib: phyllo_publish() and phyllo_recv() on a handle of its own.
 * Each path has its own open file and topic ("raw" or "lib", subscribed by
 * prefix), so neither file queues the other's echoes. The paths alternate
 * in blocks of 50 messages, so a change in the machine's load touches both.
 * Per message: the process's CPU time in user mode (what the library adds
 * runs there: packing, parsing, its queue) and in the kernel (the system
 * calls, including the line discipline's own work in the writer's
 * context, the same for both paths unless the library makes more calls),
 * and the wall round trip.
 * Prints one JSON line; exits 1 if an echo is missing or wrong.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "libphyllo.h"
#include "phyllo.h"

#define BLOCK 50
#define TIMEOUT_MS 5000

/* {"t": 21.5, "n": 12345} */
static const uint8_t doc[] = { 0x82, 0xa1, 't', 0xcb, 0x40, 0x35, 0x80, 0, 0, 0, 0, 0,
			       0xa1, 'n', 0xcd, 0x30, 0x39 };

struct path {
	const char *name;
	double user_us, sys_us, *rtt_us;
	unsigned long n;
};

static double now_us(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void cpu_us(double *user, double *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec;
	*sys = ru.ru_stime.tv_sec * 1e6 + ru.ru_stime.tv_usec;
}

static int die(const char *what, int err)
{
	fprintf(stderr, "lib-overhead: %s: %s\n", what, strerror(err));
	exit(1);
}

static int raw_open(const char *dev, uint8_t *unit, size_t *len)
{
	struct phyllo_subscription s = { .flags = PHYLLO_SUB_TOPIC, .topic_len = 3 };
	int fd = open(dev, O_RDWR);
	size_t n = 0;

	if (fd < 0)
		die(dev, errno);
	memcpy(s.topic, "raw", 3);
	if (ioctl(fd, PHYLLO_IOC_SUBSCRIBE, &s))
		die("PHYLLO_IOC_SUBSCRIBE", errno);
	unit[n++] = 0x60;
	unit[n++] = 0x40;
	unit[n++] = 3;
	memcpy(unit + n, "raw", 3);
	n += 3;
	unit[n++] = 0x11;
	unit[n++] = 0;
	memcpy(unit + n, doc, sizeof(doc));
	*len = n + sizeof(doc);
	return fd;
}

static void raw_one(int fd, const uint8_t *unit, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint8_t in[256];
	ssize_t r;

	if (write(fd, unit, len) != (ssize_t)len)
		die("write", errno);
	if (poll(&p, 1, TIMEOUT_MS) != 1)
		die("poll: no echo", ETIMEDOUT);
	r = read(fd, in, sizeof(in));
	if (r < 0)
		die("read", errno);
	if ((size_t)r != len || memcmp(in, unit, len))
		die("raw echo differs", EBADMSG);
}

static void lib_one(struct phyllo *h)
{
	struct phyllo_message m;
	int err;

	err = phyllo_publish(h, "lib", doc, sizeof(doc), 0);
	if (err < 0)
		die("phyllo_publish", -err);
	err = phyllo_recv(h, &m, TIMEOUT_MS);
	if (err < 0)
		die("phyllo_recv", -err);
	if (!m.is_document || strcmp(m.topic, "lib") || m.len != sizeof(doc) ||
	    memcmp(m.data, doc, sizeof(doc)))
		die("library echo differs", EBADMSG);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void report(struct path *p, const char *sep)
{
	qsort(p->rtt_us, p->n, sizeof(double), cmp_double);
	printf("\"%s\":{\"n\":%lu,\"user_us_per_msg\":%.2f,\"sys_us_per_msg\":%.2f,"
	       "\"rtt_p50_us\":%.0f,\"rtt_p99_us\":%.0f}%s", p->name, p->n,
	       p->user_us / p->n, p->sys_us / p->n, p->rtt_us[p->n / 2],
	       p->rtt_us[(p->n * 99) / 100], sep);
}

int main(int argc, char **argv)
{
	struct path raw = { .name = "raw" }, lib = { .name = "lib" };
	uint8_t unit[64];
	unsigned long count, i;
	struct phyllo *h;
	size_t len;
	int fd, err;

	if (argc != 3 || !(count = strtoul(argv[2], NULL, 10))) {
		fputs("usage: lib-overhead DEV COUNT\n", stderr);
		return 2;
	}
	count = (count + BLOCK - 1) / BLOCK * BLOCK;
	raw.rtt_us = calloc(count, sizeof(double));
	lib.rtt_us = calloc(count, sizeof(double));
	if (!raw.rtt_us || !lib.rtt_us)
		die("calloc", ENOMEM);
	fd = raw_open(argv[1], unit, &len);
	err = phyllo_open(&h, argv[1], NULL);
	if (err < 0)
		die("phyllo_open", -err);
	err = phyllo_subscribe(h, "lib");
	if (err < 0)
		die("phyllo_subscribe", -err);
	/* one of each first: the session is up and both paths are warm */
	raw_one(fd, unit, len);
	lib_one(h);
	for (i = 0; i < count; i += BLOCK) {
		for (int k = 0; k < 2; k++) {
			struct path *p = k ? &lib : &raw;
			double u0, s0, u1, s1;

			cpu_us(&u0, &s0);
			for (int j = 0; j < BLOCK; j++) {
				double t0 = now_us(CLOCK_MONOTONIC);

				if (k)
					lib_one(h);
				else
					raw_one(fd, unit, len);
				p->rtt_us[p->n++] = now_us(CLOCK_MONOTONIC) - t0;
			}
			cpu_us(&u1, &s1);
			p->user_us += u1 - u0;
			p->sys_us += s1 - s0;
		}
	}
	printf("{");
	report(&raw, ",");
	report(&lib, ",");
	printf("\"user_lib_over_raw\":%.3f,\"cpu_lib_over_raw\":%.3f}\n",
	       lib.user_us / raw.user_us,
	       (lib.user_us + lib.sys_us) / (raw.user_us + raw.sys_us));
	phyllo_close(h);
	close(fd);
	return 0;
}
