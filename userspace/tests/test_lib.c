// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * test_lib.c - libphyllo's API on its userspace transport, under ASan and
 * UBSan: two handles in one process on the two ends of a socketpair, each
 * running the protocol core (a far end in a thread where one must answer
 * while the other waits). Publish and subscribe, topic and type filters,
 * raw units, request/reply, the pollable fd, non-blocking sends,
 * back-pressure through a small queue, a session reset and a hang-up
 * reported, files that are no tty refused, pty masters side by side and
 * a slave one user's at a time, the JSON helpers, counters (the 64-bit
 * ones past 2^32).
 * The kernel transport's system calls are counted on a stand-in for
 * /dev/phylloN: a SOCK_SEQPACKET socket (one read, one unit), whose
 * read(2), write(2), poll(2) and ioctl(2) this file wraps. On it, a named
 * link's down and up (a read failing with ENOLINK, then ECONNRESET; writes
 * EAGAIN between) are translated into events, in order, the handle kept.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "ptest.h"
#include "libphyllo.h"
#include "lib.h"
#include "phyllo.h"

#define WAIT_MS 5000

static int fds[2];

/*
 * The stand-in /dev/phylloN (fake_fd) and what was asked of it. These
 * wrappers replace libc's for the whole program and pass every other fd
 * straight to the kernel.
 */
static int fake_fd = -1;
static unsigned int fake_reads, fake_empty, fake_polls;
/* PHYLLO_IOC_GET_STATS64 answered (else ENOTTY, as a module from before it) */
static bool fake_has_stats64;
/* PHYLLO_IOC_GET_STATE's state; while it is PHYLLO_LINK_DOWN, writes fail
 * with EAGAIN, as the kernel's do */
static __u32 fake_state = PHYLLO_LINK_UP;
/* One-byte units the "kernel" end writes for the errors a read returns
 * (type bytes below 0x10 are never a unit's) */
#define FAKE_ENOLINK 0x01
#define FAKE_ECONNRESET 0x02

#define FAKE_STATS (PHYLLO_STATS_FIELDS + LIB_GLUE_STATS)

/* What the stand-in's counters read: i-th of the 32-bit ioctl, of the 64-bit one */
static uint32_t fake_stat32(unsigned int i)
{
	return 0xfffffff0u + i * 1000u;
}

static uint64_t fake_stat64(unsigned int i)
{
	return ((uint64_t)(i + 1) << 32) + i;
}

static bool is_fake(int fd)
{
	return fd >= 0 && fd == __atomic_load_n(&fake_fd, __ATOMIC_SEQ_CST);
}

ssize_t read(int fd, void *buf, size_t n)
{
	ssize_t r = syscall(SYS_read, fd, buf, n);
	int err = errno;

	if (is_fake(fd)) {
		__atomic_add_fetch(&fake_reads, 1, __ATOMIC_SEQ_CST);
		if (r < 0 && err == EAGAIN)
			__atomic_add_fetch(&fake_empty, 1, __ATOMIC_SEQ_CST);
		if (r == 1 && (((uint8_t *)buf)[0] == FAKE_ENOLINK ||
			       ((uint8_t *)buf)[0] == FAKE_ECONNRESET)) {
			err = ((uint8_t *)buf)[0] == FAKE_ENOLINK ? ENOLINK : ECONNRESET;
			r = -1;
		}
	}
	errno = err;
	return r;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	if (is_fake(fd) && __atomic_load_n(&fake_state, __ATOMIC_SEQ_CST) == PHYLLO_LINK_DOWN) {
		errno = EAGAIN;
		return -1;
	}
	return syscall(SYS_write, fd, buf, n);
}

int poll(struct pollfd *p, nfds_t n, int timeout)
{
	struct timespec ts = { .tv_sec = timeout / 1000, .tv_nsec = (timeout % 1000) * 1000000L };

	for (nfds_t i = 0; i < n; i++)
		if (is_fake(p[i].fd))
			__atomic_add_fetch(&fake_polls, 1, __ATOMIC_SEQ_CST);
	return (int)syscall(SYS_ppoll, p, n, timeout < 0 ? NULL : &ts, NULL, 8);
}

/* The kernel transport's ioctls: its filter is taken, the rest is none. */
int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (is_fake(fd) && req == PHYLLO_IOC_SUBSCRIBE)
		return 0;
	if (is_fake(fd) && req == PHYLLO_IOC_GET_STATS) {
		struct phyllo_link_stats st = { 0 };
		uint32_t v[FAKE_STATS];

		for (unsigned int i = 0; i < FAKE_STATS; i++)
			v[i] = fake_stat32(i);
		memcpy(&st, v, sizeof(v));
		memcpy(arg, &st, sizeof(st));
		return 0;
	}
	if (is_fake(fd) && req == PHYLLO_IOC_GET_STATS64 && fake_has_stats64) {
		struct phyllo_link_stats64 st = { 0 };
		uint64_t v[FAKE_STATS];

		for (unsigned int i = 0; i < FAKE_STATS; i++)
			v[i] = fake_stat64(i);
		memcpy(&st, v, sizeof(v));
		memcpy(arg, &st, sizeof(st));
		return 0;
	}
	if (is_fake(fd) && req == PHYLLO_IOC_GET_STATE) {
		struct phyllo_link_state ls = { 0 };

		ls.state = __atomic_load_n(&fake_state, __ATOMIC_SEQ_CST);
		ls.mtu = 252;
		memcpy(arg, &ls, sizeof(ls));
		return 0;
	}
	if (is_fake(fd)) {
		errno = ENOTTY;
		return -1;
	}
	return (int)syscall(SYS_ioctl, fd, req, arg);
}

/* A kernel-transport handle on the stand-in; dev: the "kernel" end. */
static struct phyllo *fake_open(int *dev)
{
	struct phyllo_options o;
	struct phyllo *h = NULL;
	int sp[2];

	phyllo_options_init(&o);
	PTEST_EXPECT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sp), 0);
	__atomic_store_n(&fake_fd, sp[0], __ATOMIC_SEQ_CST);
	__atomic_store_n(&fake_reads, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&fake_empty, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&fake_polls, 0, __ATOMIC_SEQ_CST);
	PTEST_EXPECT_EQ(phyllo_lib_start(&h, sp[0], true, false, &o), 0);
	*dev = sp[1];
	return h;
}

static void fake_close(struct phyllo *h, int dev)
{
	phyllo_close(h);
	__atomic_store_n(&fake_fd, -1, __ATOMIC_SEQ_CST);
	close(dev);
}

static void fake_unit(int dev, unsigned int i)
{
	uint8_t unit[2] = { 0x10, (uint8_t)i };

	PTEST_EXPECT_EQ(write(dev, unit, sizeof(unit)), (ssize_t)sizeof(unit));
}

/* The next read of the stand-in fails with what (FAKE_ENOLINK, ...) */
static void fake_event(int dev, uint8_t what)
{
	PTEST_EXPECT_EQ(write(dev, &what, 1), 1);
}

/* Two handles on a new socketpair, both sessions open. */
static void pair(struct phyllo **a, struct phyllo **b, const struct phyllo_options *ob)
{
	PTEST_EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
	PTEST_EXPECT_EQ(phyllo_open_fd(a, fds[0], NULL), 0);
	PTEST_EXPECT_EQ(phyllo_open_fd(b, fds[1], ob), 0);
	/* each side's handshake needs the other to run: alternate */
	for (int i = 0; i < 200; i++) {
		if (phyllo_wait_up(*a, 5) == 0 && phyllo_wait_up(*b, 5) == 0)
			return;
	}
	PTEST_EXPECT(0);
}

/* Receive on b while a's side is serviced too (both in this thread). */
static int recv_both(struct phyllo *a, struct phyllo *b, struct phyllo_message *m)
{
	int ret = -EAGAIN;

	for (int i = 0; i < WAIT_MS / 5 && ret == -EAGAIN; i++) {
		phyllo_dispatch(a);
		ret = phyllo_recv(b, m, 5);
		if (ret == -ETIMEDOUT)
			ret = -EAGAIN;
	}
	return ret;
}

static void lib_publish_reaches_subscriber(void)
{
	struct phyllo *a, *b;
	struct phyllo_message m;
	static const uint8_t doc[] = { 0x15 };

	pair(&a, &b, NULL);
	PTEST_EXPECT_EQ(phyllo_subscribe(b, "sensors/"), 0);
	PTEST_EXPECT_EQ(phyllo_publish(a, "sensors/t", doc, 1, 0), 0);
	PTEST_EXPECT_EQ(recv_both(a, b, &m), 0);
	PTEST_EXPECT(m.is_pubsub && m.is_document);
	PTEST_EXPECT(!strcmp(m.topic, "sensors/t"));
	PTEST_EXPECT_EQ(m.topic_len, 9);
	PTEST_EXPECT_EQ(m.format, 0x11);
	PTEST_EXPECT_EQ(m.len, 1);
	PTEST_EXPECT_EQ(m.data[0], 0x15);
	PTEST_EXPECT_EQ(m.type, 0x60);
	phyllo_close(a);
	phyllo_close(b);
}

static void lib_subscriptions_filter_by_topic_and_type(void)
{
	struct phyllo *a, *b;
	struct phyllo_message m;
	static const uint8_t raw[] = { 1, 2, 3 };

	pair(&a, &b, NULL);
	PTEST_EXPECT_EQ(phyllo_subscribe(b, "a"), 0);
	PTEST_EXPECT_EQ(phyllo_subscribe_type(b, 0x10), 0);
	PTEST_EXPECT_EQ(phyllo_publish_json(a, "b", "1", 0), 0);
	PTEST_EXPECT_EQ(phyllo_publish_json(a, "ab", "2", 0), 0);
	PTEST_EXPECT_EQ(phyllo_send(a, 0x11, raw, 3, 0), 0);
	PTEST_EXPECT_EQ(phyllo_send(a, 0x10, raw, 3, 0), 0);
	PTEST_EXPECT_EQ(recv_both(a, b, &m), 0);
	PTEST_EXPECT(!strcmp(m.topic, "ab") && m.len == 1 && m.data[0] == 2);
	PTEST_EXPECT_EQ(recv_both(a, b, &m), 0);
	PTEST_EXPECT_EQ(m.type, 0x10);
	PTEST_EXPECT(!m.is_pubsub && m.len == 3 && !memcmp(m.data, raw, 3));
	PTEST_EXPECT_EQ(m.unit_len, 4);
	/* the others were filtered out, and counted so */
	{
		uint32_t v[40];

		PTEST_EXPECT_EQ(phyllo_stats(b, v, 40), 34);
		PTEST_EXPECT(!strcmp(phyllo_stat_name(30), "rx_unclaimed"));
		PTEST_EXPECT_EQ(v[30], 2);
		PTEST_EXPECT(!strcmp(phyllo_stat_name(33), "rx_hold_ms"));
		PTEST_EXPECT(phyllo_stat_name(34) == NULL);
	}
	PTEST_EXPECT_EQ(phyllo_unsubscribe_all(b), 0);
	PTEST_EXPECT_EQ(phyllo_publish_json(a, "zz", "null", 0), 0);
	PTEST_EXPECT_EQ(recv_both(a, b, &m), 0);
	PTEST_EXPECT(!strcmp(m.topic, "zz"));
	PTEST_EXPECT_EQ(phyllo_subscribe(b, "0123456789abcdef"), -EINVAL);
	phyllo_close(a);
	phyllo_close(b);
}

/* The far end of a request: answers every message on its topic with
 * the same document, until told to stop. */
struct server {
	struct phyllo *h;
	int answered;
	volatile int stop;
};

static void *serve(void *arg)
{
	struct server *s = arg;
	struct phyllo_message m;

	while (!s->stop) {
		int ret = phyllo_recv(s->h, &m, 20);

		if (ret == 0 && m.is_document) {
			char topic[16];

			memcpy(topic, m.topic, sizeof(topic));
			if (phyllo_publish(s->h, topic, m.data, m.len, 0) == 0)
				s->answered++;
		}
	}
	phyllo_flush(s->h, 1000);
	return NULL;
}

static void lib_request_gets_the_reply_and_keeps_the_rest(void)
{
	struct phyllo *a, *b;
	struct phyllo_message m;
	struct server srv = { 0 };
	pthread_t th;
	static const uint8_t one[] = { 0x01 };

	pair(&a, &b, NULL);
	srv.h = b;
	pthread_create(&th, NULL, serve, &srv);
	/* a message on another topic comes first: it must wait in the queue */
	PTEST_EXPECT_EQ(phyllo_publish_json(a, "other", "7", 0), 0);
	PTEST_EXPECT_EQ(phyllo_request(a, "ping", one, 1, &m, WAIT_MS), 0);
	PTEST_EXPECT(!strcmp(m.topic, "ping") && m.len == 1 && m.data[0] == 1);
	PTEST_EXPECT_EQ(phyllo_recv(a, &m, WAIT_MS), 0);
	PTEST_EXPECT(!strcmp(m.topic, "other") && m.data[0] == 7);
	/* no answer on a topic nobody serves in time: ETIMEDOUT */
	srv.stop = 1;
	pthread_join(th, NULL);
	PTEST_EXPECT_EQ(phyllo_request(a, "ping", one, 1, &m, 200), -ETIMEDOUT);
	phyllo_close(a);
	phyllo_close(b);
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* Units waiting in the queue keep phyllo_fd() readable; a request that
 * waits meanwhile must still sleep, not spin. */
static void lib_request_sleeps_while_units_wait(void)
{
	struct phyllo *a, *b;
	struct phyllo_message m;
	double cpu;
	int i;

	pair(&a, &b, NULL);
	for (i = 0; i < 3; i++)	/* within a's window: b is not running */
		PTEST_EXPECT_EQ(phyllo_publish_json(a, "x", "1", 0), 0);
	for (i = 0; i < 200 && phyllo_dispatch(b) < 3; i++) {
		phyllo_dispatch(a);
		usleep(5000);
	}
	PTEST_EXPECT_EQ(phyllo_dispatch(b), 3);
	cpu = cpu_s();
	PTEST_EXPECT_EQ(phyllo_request(b, "nobody", "\x01", 1, &m, 500), -ETIMEDOUT);
	PTEST_EXPECT(cpu_s() - cpu < 0.25);
	PTEST_EXPECT_EQ(phyllo_recv(b, &m, 0), 0);	/* still there */
	phyllo_close(a);
	phyllo_close(b);
}

static void lib_fd_is_readable_when_a_unit_waits(void)
{
	struct phyllo *a, *b;
	struct phyllo_message m;
	struct pollfd p;
	int got = 0;

	pair(&a, &b, NULL);
	PTEST_EXPECT_EQ(phyllo_recv(b, &m, 0), -EAGAIN);
	PTEST_EXPECT_EQ(phyllo_publish_json(a, "x", "[1,2]", 0), 0);
	for (int i = 0; i < WAIT_MS / 10 && !got; i++) {
		phyllo_dispatch(a);
		p.fd = phyllo_fd(b);
		p.events = POLLIN;
		if (poll(&p, 1, 10) == 1) {
			while (phyllo_recv(b, &m, 0) == 0)
				got++;
		}
	}
	PTEST_EXPECT_EQ(got, 1);
	/* nothing left: the fd goes quiet (timers aside) and recv says so */
	PTEST_EXPECT_EQ(phyllo_recv(b, &m, 0), -EAGAIN);
	PTEST_EXPECT_EQ(phyllo_recv(b, &m, 50), -ETIMEDOUT);
	phyllo_close(a);
	phyllo_close(b);
}

static void lib_nonblocking_send_says_eagain(void)
{
	struct phyllo_options o;
	struct phyllo *a, *b;
	int i, ret = 0;

	phyllo_options_init(&o);
	o.flags = PHYLLO_OPEN_NONBLOCK;
	pair(&b, &a, &o);	/* a is the non-blocking one */
	/* b never runs: a's window (4) fills */
	for (i = 0; i < 10 && !(ret = phyllo_publish_json(a, "t", "1", 0)); i++)
		;
	PTEST_EXPECT_EQ(ret, -EAGAIN);
	PTEST_EXPECT_EQ(i, 4);
	/*
	 * A full window opens only with bytes from the far end (or a
	 * timer): the handle's fd must not wake for a stream that is merely
	 * writable, or a caller retrying on every wake-up spins. b never
	 * runs, so nothing is due but a's retransmission timer.
	 */
	for (i = 0, ret = 0; i < 20; i++) {
		struct pollfd p = { .fd = phyllo_fd(a), .events = POLLIN };

		PTEST_EXPECT_EQ(phyllo_publish_json(a, "t", "1", 0), -EAGAIN);
		phyllo_dispatch(a);
		ret += poll(&p, 1, 0);
	}
	PTEST_EXPECT(ret < 10);
	PTEST_EXPECT_EQ(phyllo_flush(a, 0), -ETIMEDOUT);
	phyllo_close(b);
	phyllo_close(a);
}

/* The far end sends a burst into a queue of 16 that is read slowly. */
static void *burst(void *arg)
{
	struct phyllo *h = arg;
	uint8_t n;

	for (n = 0; n < 100; n++)
		if (phyllo_send(h, 0x10, &n, 1, 0))
			break;
	phyllo_flush(h, WAIT_MS);
	return NULL;
}

static void lib_small_queue_holds_the_link_and_loses_nothing(void)
{
	struct phyllo_options o;
	struct phyllo *a, *b;
	struct phyllo_message m;
	pthread_t th;
	uint32_t v[32];
	int n = 0;

	phyllo_options_init(&o);
	o.queue = 16;
	pair(&a, &b, &o);
	pthread_create(&th, NULL, burst, a);
	/* service the link without taking anything: the queue fills, the
	 * link holds */
	for (int i = 0; i < 60; i++) {
		phyllo_dispatch(b);
		usleep(5000);
	}
	while (n < 100 && phyllo_recv(b, &m, WAIT_MS) == 0) {
		if (m.len != 1 || m.data[0] != n)
			break;
		n++;
	}
	pthread_join(th, NULL);
	PTEST_EXPECT_EQ(n, 100);
	phyllo_stats(b, v, 32);
	PTEST_EXPECT_EQ(v[29], 0);	/* rx_queue_drops */
	PTEST_EXPECT(v[13] > 0);	/* rx_hold: it did hold */
	phyllo_close(a);
	phyllo_close(b);
}

static void lib_reset_and_hangup_are_reported(void)
{
	struct phyllo *a, *b;
	struct phyllo_message m;
	struct phyllo_status s;
	int ret = -EAGAIN, i, keep;

	pair(&a, &b, NULL);
	keep = dup(fds[1]);	/* b's end stays open after b is gone */
	phyllo_close(b);
	/* a new far end on the same line: a restart, seen as a reset */
	PTEST_EXPECT_EQ(phyllo_open_fd(&b, dup(keep), NULL), 0);
	for (i = 0; i < WAIT_MS / 5 && ret == -EAGAIN; i++) {
		phyllo_dispatch(b);
		ret = phyllo_recv(a, &m, 5);
		if (ret == -ETIMEDOUT)
			ret = -EAGAIN;
	}
	PTEST_EXPECT_EQ(ret, -ECONNRESET);
	PTEST_EXPECT_EQ(phyllo_status(a, &s), 0);
	PTEST_EXPECT_EQ(s.resets, 1);
	/* reported once */
	PTEST_EXPECT(phyllo_recv(a, &m, 0) != -ECONNRESET);
	/* every end of the line gone: a hang-up */
	phyllo_close(b);
	close(keep);
	PTEST_EXPECT_EQ(phyllo_recv(a, &m, WAIT_MS), -EPIPE);
	PTEST_EXPECT_EQ(phyllo_status(a, &s), 0);
	PTEST_EXPECT_EQ(s.state, PHYLLO_STATE_HUNGUP);
	PTEST_EXPECT_EQ(phyllo_publish_json(a, "t", "1", 0), -EPIPE);
	phyllo_close(a);
}

/* a sends a unit its far end never acknowledges: b restarts (a new
 * handle on the same line, kept open by *keep) before it does */
static void unit_then_restart(struct phyllo **a, struct phyllo **b, int *keep)
{
	pair(a, b, NULL);
	*keep = dup(fds[1]);
	phyllo_close(*b);
	PTEST_EXPECT_EQ(phyllo_publish_json(*a, "t", "1", 0), 0);
	PTEST_EXPECT_EQ(phyllo_open_fd(b, dup(*keep), NULL), 0);
}

/*
 * A unit unacknowledged when the far end restarts is lost with its
 * session: a flush that waited for it says so (-ECONNRESET), never 0,
 * and the reader still gets the reset.
 */
static void lib_flush_over_a_reset_reports_the_loss(void)
{
	struct phyllo *a, *b;
	struct phyllo_message m;
	int ret = -ETIMEDOUT, i, keep;

	unit_then_restart(&a, &b, &keep);
	for (i = 0; i < WAIT_MS / 5 && ret == -ETIMEDOUT; i++) {
		phyllo_dispatch(b);
		ret = phyllo_flush(a, 5);
	}
	PTEST_EXPECT_EQ(ret, -ECONNRESET);
	PTEST_EXPECT_EQ(phyllo_recv(a, &m, 0), -ECONNRESET);
	phyllo_close(b);
	close(keep);
	phyllo_close(a);
}

/*
 * The same loss, with the reset read by phyllo_recv() before the flush:
 * the flush still says the unit may be lost, and once (a flush with
 * nothing sent since has nothing to report).
 */
static void lib_flush_after_the_reset_was_read_reports_the_loss(void)
{
	struct phyllo *a, *b;
	struct phyllo_message m;
	int ret = -ETIMEDOUT, i, keep;

	unit_then_restart(&a, &b, &keep);
	for (i = 0; i < WAIT_MS / 5 && ret != -ECONNRESET; i++) {
		phyllo_dispatch(b);
		ret = phyllo_recv(a, &m, 5);
	}
	PTEST_EXPECT_EQ(ret, -ECONNRESET);
	PTEST_EXPECT_EQ(phyllo_flush(a, 100), -ECONNRESET);
	PTEST_EXPECT_EQ(phyllo_flush(a, 100), 0);
	phyllo_close(b);
	close(keep);
	phyllo_close(a);
}

static void lib_open_refuses_what_is_no_tty(void)
{
	char dir[] = "/tmp/phyllo-test-XXXXXX", file[64];
	struct phyllo *h = NULL;
	struct stat st;
	int fd;

	PTEST_EXPECT(mkdtemp(dir) != NULL);
	snprintf(file, sizeof(file), "%s/f", dir);
	fd = open(file, O_CREAT | O_WRONLY, 0644);
	PTEST_EXPECT_EQ(write(fd, "keep", 4), 4);
	close(fd);
	PTEST_EXPECT_EQ(phyllo_open(&h, file, NULL), -ENOTTY);
	PTEST_EXPECT_EQ(phyllo_open(&h, dir, NULL), -ENOTTY);
	PTEST_EXPECT_EQ(phyllo_open(&h, "/dev/null", NULL), -ENOTTY);
	PTEST_EXPECT_EQ(phyllo_open(&h, "/nonexistent/tty", NULL), -ENOENT);
	PTEST_EXPECT(h == NULL);
	PTEST_EXPECT_EQ(stat(file, &st), 0);
	PTEST_EXPECT_EQ(st.st_size, 4);
	PTEST_EXPECT(strstr(phyllo_strerror(-ENOTTY), "not a tty") != NULL);
	unlink(file);
	rmdir(dir);
}

/*
 * A pty master is nobody else's to open, and every master is an open of
 * the one ptmx inode: libphyllo takes no flock on it, so two links on
 * two masters run side by side. A pty slave, which any program may open
 * by its name, is still one user's at a time.
 */
static void lib_pty_masters_side_by_side_slaves_locked(void)
{
	struct phyllo_options o = { .flags = PHYLLO_OPEN_NO_HANDSHAKE };
	struct phyllo *h[2] = { NULL, NULL }, *s[2] = { NULL, NULL };
	int m[2], keep[2], i;
	char slave[64];

	for (i = 0; i < 2; i++) {
		m[i] = posix_openpt(O_RDWR | O_NOCTTY);
		PTEST_EXPECT(m[i] >= 0 && !grantpt(m[i]) && !unlockpt(m[i]));
		snprintf(slave, sizeof(slave), "%s", ptsname(m[i]));
		keep[i] = open(slave, O_RDWR | O_NOCTTY);
		PTEST_EXPECT(keep[i] >= 0);
		PTEST_EXPECT_EQ(phyllo_open_fd(&h[i], m[i], &o), 0);
	}
	PTEST_EXPECT(h[0] != NULL && h[1] != NULL);
	/* the second master's slave, by its name: the first open has it */
	PTEST_EXPECT_EQ(phyllo_open(&s[0], slave, &o), 0);
	PTEST_EXPECT_EQ(phyllo_open(&s[1], slave, &o), -EBUSY);
	PTEST_EXPECT(s[1] == NULL);
	phyllo_close(s[0]);
	for (i = 0; i < 2; i++) {
		phyllo_close(h[i]);
		close(keep[i]);
	}
}

static void lib_json_helpers_keep_integers_and_reals_apart(void)
{
	uint8_t mp[64];
	char json[64], err[128];

	PTEST_EXPECT_EQ(phyllo_json_to_msgpack("90", mp, sizeof(mp), err, sizeof(err)), 1);
	PTEST_EXPECT_EQ(mp[0], 0x5a);
	PTEST_EXPECT_EQ(phyllo_json_to_msgpack("90.5", mp, sizeof(mp), err, sizeof(err)), 9);
	PTEST_EXPECT_EQ(phyllo_msgpack_to_json(mp, 9, json, sizeof(json)), 4);
	PTEST_EXPECT(!strcmp(json, "90.5"));
	PTEST_EXPECT_EQ(phyllo_json_to_msgpack("nan", mp, sizeof(mp), err, sizeof(err)), -EINVAL);
	PTEST_EXPECT(strstr(err, "offset") != NULL);
	PTEST_EXPECT_EQ(phyllo_json_to_msgpack("\"0123456789\"", mp, 4, err, sizeof(err)),
			-EMSGSIZE);
	PTEST_EXPECT_EQ(phyllo_msgpack_to_json("\x92\x01", 2, json, sizeof(json)), -EINVAL);
	PTEST_EXPECT_EQ(phyllo_msgpack_to_json("\x92\x01\x02", 3, json, 4), -EMSGSIZE);
	PTEST_EXPECT(phyllo_baud_valid(115200) && !phyllo_baud_valid(12345));
	PTEST_EXPECT(!strcmp(phyllo_version(), PHYLLO_VERSION));
}

/* Units queued before they are asked for: a read each, no poll. */
static void lib_recv_reads_a_backlog_without_polls(void)
{
	enum { N = 32 };
	struct phyllo_message m;
	int dev;
	struct phyllo *h = fake_open(&dev);

	for (unsigned int i = 0; i < N; i++)
		fake_unit(dev, i);
	for (unsigned int i = 0; i < N; i++) {
		PTEST_EXPECT_EQ(phyllo_recv(h, &m, WAIT_MS), 0);
		PTEST_EXPECT_EQ(m.data[0], i);
	}
	PTEST_LOG("kernel transport, %d queued units: %u reads (%u empty), %u polls\n", N,
		  fake_reads, fake_empty, fake_polls);
	PTEST_EXPECT_EQ(fake_reads, N);
	PTEST_EXPECT_EQ(fake_empty, 0);
	PTEST_EXPECT(fake_polls <= 1);
	fake_close(h, dev);
}

struct spaced {
	int dev;
	unsigned int n;
};

/* Each unit only once the reader waits in poll for it. */
static void *spaced_writer(void *arg)
{
	struct spaced *sp = arg;

	for (unsigned int i = 0; i < sp->n; i++) {
		for (int t = 0; t < WAIT_MS * 10 &&
				__atomic_load_n(&fake_polls, __ATOMIC_SEQ_CST) <= i; t++)
			usleep(100);
		fake_unit(sp->dev, i);
	}
	return NULL;
}

/* Units that come one at a time after they were asked for: a poll and a
 * read each; the reads that find nothing stay few (b3d7324's strace of
 * phyllo sub in test-kernel: 153 reads, 101 empty, before it). */
static void lib_recv_polls_for_spaced_units(void)
{
	enum { N = 50 };
	struct phyllo_message m;
	struct spaced sp = { .n = N };
	pthread_t t;
	struct phyllo *h = fake_open(&sp.dev);

	PTEST_EXPECT_EQ(pthread_create(&t, NULL, spaced_writer, &sp), 0);
	for (unsigned int i = 0; i < N; i++) {
		PTEST_EXPECT_EQ(phyllo_recv(h, &m, WAIT_MS), 0);
		PTEST_EXPECT_EQ(m.data[0], i);
	}
	pthread_join(t, NULL);
	PTEST_LOG("kernel transport, %d spaced units: %u reads (%u empty), %u polls\n", N,
		  fake_reads, fake_empty, fake_polls);
	PTEST_EXPECT_EQ(fake_polls, N);
	PTEST_EXPECT(fake_empty <= N / 10);
	PTEST_EXPECT_EQ(fake_reads, N + fake_empty);
	fake_close(h, sp.dev);
}

#define STAT_AT(f) (offsetof(struct phyllo_stats, f) / sizeof(uint32_t))

/* The first counter (but skip) where phyllo_stats64() and phyllo_stats()
 * of h differ, or -1 */
static int stats_differ_at(struct phyllo *h, int skip)
{
	uint32_t v32[FAKE_STATS + 2];
	uint64_t v64[FAKE_STATS + 2];

	PTEST_EXPECT_EQ(phyllo_stats(h, v32, FAKE_STATS + 2), FAKE_STATS);
	PTEST_EXPECT_EQ(phyllo_stats64(h, v64, FAKE_STATS + 2), FAKE_STATS);
	for (int i = 0; i < (int)FAKE_STATS; i++)
		if (i != skip && v64[i] != v32[i]) {
			PTEST_LOG("counter %d (%s): 64-bit %llu, 32-bit %u\n", i,
				  phyllo_stat_name((unsigned int)i), (unsigned long long)v64[i],
				  v32[i]);
			return i;
		}
	return -1;
}

static uint64_t counter64(struct phyllo *h, unsigned int i)
{
	uint64_t v[FAKE_STATS];

	PTEST_EXPECT_EQ(phyllo_stats64(h, v, FAKE_STATS), FAKE_STATS);
	return v[i];
}

static uint32_t counter32(struct phyllo *h, unsigned int i)
{
	uint32_t v[FAKE_STATS];

	PTEST_EXPECT_EQ(phyllo_stats(h, v, FAKE_STATS), FAKE_STATS);
	return v[i];
}

/* The fold counts what each counter grew by, modulo 2^32: across the
 * wrap, onto totals past 2^32, up to 2^32 - 1 in one fold. */
static void lib_stats_fold_counts_growth_across_the_wrap(void)
{
	static const struct { uint64_t total; uint32_t seen, now; uint64_t want; } c[] = {
		{ 0, 0, 0, 0 },
		{ 10, 10, 25, 25 },
		{ 0xfffffff0, 0xfffffff0, 0x10, 0x100000010 },
		{ 0x5ffffffff, 0xffffffff, 0, 0x600000000 },
		{ 0x100000010, 0x10, 0x0f, 0x20000000f },
		{ 7, 7, 7, 7 },
	};
	enum { N = sizeof(c) / sizeof(c[0]) };
	uint64_t total[N];
	uint32_t seen[N], now[N];

	for (unsigned int i = 0; i < N; i++) {
		total[i] = c[i].total;
		seen[i] = c[i].seen;
		now[i] = c[i].now;
	}
	phyllo_lib_stats_fold(total, seen, now, N);
	for (unsigned int i = 0; i < N; i++) {
		if (total[i] != c[i].want || seen[i] != c[i].now)
			PTEST_LOG("total %#llx seen %#x now %#x: got %#llx seen %#x, want %#llx\n",
				  (unsigned long long)c[i].total, c[i].seen, c[i].now,
				  (unsigned long long)total[i], seen[i],
				  (unsigned long long)c[i].want);
		PTEST_EXPECT(total[i] == c[i].want);
		PTEST_EXPECT_EQ(seen[i], c[i].now);
	}
}

/*
 * On a tty the 64-bit counters are the core's 32-bit ones while those are
 * small, and carry on past 2^32 where those wrap. The core's byte counters
 * are set just below 2^32 (as if that many bytes had gone by) and the
 * handles serviced once, without asking for counters; then one unit
 * wraps them. rtt_ms is a gauge: what it is now.
 */
static void lib_stats64_carry_past_2_32_on_a_tty(void)
{
	static uint8_t payload[200];
	struct phyllo *a, *b;
	struct phyllo_message m;
	const unsigned int rx = STAT_AT(rx_bytes), tx = STAT_AT(tx_bytes), rtt = STAT_AT(rtt_ms);

	pair(&a, &b, NULL);
	PTEST_EXPECT_EQ(phyllo_send(a, 0x10, payload, 10, 0), 0);
	PTEST_EXPECT_EQ(recv_both(a, b, &m), 0);
	for (int i = 0; i < 10; i++) {
		phyllo_dispatch(a);
		phyllo_dispatch(b);
		usleep(1000);
	}
	PTEST_EXPECT_EQ(stats_differ_at(a, -1), -1);
	PTEST_EXPECT_EQ(stats_differ_at(b, -1), -1);
	PTEST_EXPECT(counter32(b, rx) > 10 && counter32(a, tx) > 10);

	b->eng.st.stats.rx_bytes = UINT32_MAX - 99;
	a->eng.st.stats.tx_bytes = UINT32_MAX - 99;
	phyllo_dispatch(b);
	phyllo_dispatch(a);
	PTEST_EXPECT_EQ(phyllo_send(a, 0x10, payload, sizeof(payload), 0), 0);
	PTEST_EXPECT_EQ(recv_both(a, b, &m), 0);
	PTEST_EXPECT_EQ(m.len, sizeof(payload));
	PTEST_LOG("tty, past 2^32: rx_bytes %llu (32-bit %u), tx_bytes %llu (32-bit %u)\n",
		  (unsigned long long)counter64(b, rx), counter32(b, rx),
		  (unsigned long long)counter64(a, tx), counter32(a, tx));
	PTEST_EXPECT(counter32(b, rx) >= 100 && counter32(b, rx) < 1000);
	PTEST_EXPECT_EQ(counter64(b, rx), (1ull << 32) + counter32(b, rx));
	PTEST_EXPECT(counter32(a, tx) >= 100 && counter32(a, tx) < 1000);
	PTEST_EXPECT_EQ(counter64(a, tx), (1ull << 32) + counter32(a, tx));
	PTEST_EXPECT_EQ(stats_differ_at(b, (int)rx), -1);
	PTEST_EXPECT_EQ(stats_differ_at(a, (int)tx), -1);

	b->eng.st.stats.rtt_ms = 50;
	PTEST_EXPECT_EQ(counter64(b, rtt), 50);
	b->eng.st.stats.rtt_ms = 7;
	PTEST_EXPECT_EQ(counter64(b, rtt), 7);
	phyllo_close(a);
	phyllo_close(b);
}

/* /dev/phylloN: PHYLLO_IOC_GET_STATS64's totals as they are; a module
 * from before it (ENOTTY) gives PHYLLO_IOC_GET_STATS's, widened. */
static void lib_stats64_on_the_kernel_falls_back_to_32_bits(void)
{
	uint64_t v[FAKE_STATS + 2];
	int dev;
	struct phyllo *h = fake_open(&dev);

	fake_has_stats64 = false;
	PTEST_EXPECT_EQ(phyllo_stats64(h, v, FAKE_STATS + 2), FAKE_STATS);
	for (unsigned int i = 0; i < FAKE_STATS; i++)
		PTEST_EXPECT(v[i] == fake_stat32(i));
	PTEST_EXPECT_EQ(stats_differ_at(h, -1), -1);

	fake_has_stats64 = true;
	PTEST_EXPECT_EQ(phyllo_stats64(h, v, FAKE_STATS + 2), FAKE_STATS);
	for (unsigned int i = 0; i < FAKE_STATS; i++)
		PTEST_EXPECT(v[i] == fake_stat64(i));
	/* max: no more is written */
	v[1] = 0;
	PTEST_EXPECT_EQ(phyllo_stats64(h, v, 1), FAKE_STATS);
	PTEST_EXPECT(v[0] == fake_stat64(0) && v[1] == 0);
	fake_has_stats64 = false;
	fake_close(h, dev);
}

/* A named link's down and up on /dev/phylloN: the units before, one
 * -ENOLINK, one -ECONNRESET, the new session's units; in that order even
 * when all of it is there before the first phyllo_recv(), and the handle
 * goes on; phyllo_status() says down between. */
static void lib_down_and_up_are_events_in_order(void)
{
	static const int want[] = { 0, 0, -ENOLINK, -ECONNRESET, 0, -EAGAIN };
	struct phyllo_message m;
	struct phyllo_status st;
	int dev;
	struct phyllo *h = fake_open(&dev);

	fake_unit(dev, 1);
	fake_unit(dev, 2);
	fake_event(dev, FAKE_ENOLINK);
	fake_event(dev, FAKE_ECONNRESET);
	fake_unit(dev, 3);
	/* a dispatch reads up to the down, not past it */
	PTEST_EXPECT_EQ(phyllo_dispatch(h), 2);
	for (unsigned int i = 0, unit = 1; i < sizeof(want) / sizeof(want[0]); i++) {
		int ret = phyllo_recv(h, &m, 0);

		if (ret != want[i])
			PTEST_LOG("receive %u: %d, expected %d\n", i, ret, want[i]);
		PTEST_EXPECT_EQ(ret, want[i]);
		if (!ret)
			PTEST_EXPECT_EQ(m.data[0], unit++);
	}
	__atomic_store_n(&fake_state, PHYLLO_LINK_DOWN, __ATOMIC_SEQ_CST);
	PTEST_EXPECT_EQ(phyllo_status(h, &st), 0);
	PTEST_EXPECT_EQ(st.state, PHYLLO_STATE_DOWN);
	__atomic_store_n(&fake_state, PHYLLO_LINK_UP, __ATOMIC_SEQ_CST);
	PTEST_EXPECT_EQ(phyllo_status(h, &st), 0);
	PTEST_EXPECT_EQ(st.state, PHYLLO_STATE_UP);
	PTEST_EXPECT(!strcmp(phyllo_strerror(-ENOLINK), "the link is down: its board went away; "
			     "this named link comes back when the board does"));
	fake_close(h, dev);
}

/* phyllo_fd() is readable while a down waits to be reported, and not
 * after: the application's poll loop hears of it once. */
static void lib_fd_is_readable_for_a_down(void)
{
	struct pollfd p;
	struct phyllo_message m;
	int dev;
	struct phyllo *h = fake_open(&dev);

	fake_event(dev, FAKE_ENOLINK);
	p = (struct pollfd){ .fd = phyllo_fd(h), .events = POLLIN };
	PTEST_EXPECT_EQ(poll(&p, 1, WAIT_MS), 1);
	PTEST_EXPECT_EQ(phyllo_dispatch(h), 0);
	p.revents = 0;
	PTEST_EXPECT_EQ(poll(&p, 1, 0), 1);
	PTEST_EXPECT_EQ(phyllo_recv(h, &m, 0), -ENOLINK);
	PTEST_EXPECT_EQ(phyllo_recv(h, &m, 0), -EAGAIN);
	p.revents = 0;
	PTEST_EXPECT_EQ(poll(&p, 1, 0), 0);
	fake_close(h, dev);
}

/* After ms, the stand-in link comes up again. */
static void *fake_up_after(void *arg)
{
	usleep((useconds_t)(uintptr_t)arg * 1000);
	__atomic_store_n(&fake_state, PHYLLO_LINK_UP, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Sends while the link is down: -EAGAIN without waiting on a
 * non-blocking handle; a blocking one waits and sends once it is up.
 * phyllo_wait_up() waits across the down, or times out. */
static void lib_send_and_wait_up_wait_while_down(void)
{
	uint8_t unit[8];
	int64_t t0;
	pthread_t t;
	int dev;
	struct phyllo *h = fake_open(&dev);

	h->flags |= PHYLLO_OPEN_NONBLOCK;
	__atomic_store_n(&fake_state, PHYLLO_LINK_DOWN, __ATOMIC_SEQ_CST);
	PTEST_EXPECT_EQ(phyllo_send(h, 0x10, "a", 1, 0), -EAGAIN);
	PTEST_EXPECT_EQ(phyllo_wait_up(h, 50), -ETIMEDOUT);
	h->flags &= ~PHYLLO_OPEN_NONBLOCK;
	t0 = phyllo_lib_now_ms();
	PTEST_EXPECT_EQ(pthread_create(&t, NULL, fake_up_after, (void *)(uintptr_t)300), 0);
	PTEST_EXPECT_EQ(phyllo_send(h, 0x10, "b", 1, 0), 0);
	PTEST_EXPECT(phyllo_lib_now_ms() - t0 >= 250);
	pthread_join(t, NULL);
	PTEST_EXPECT_EQ(read(dev, unit, sizeof(unit)), 2);
	PTEST_EXPECT_EQ(unit[1], 'b');

	__atomic_store_n(&fake_state, PHYLLO_LINK_DOWN, __ATOMIC_SEQ_CST);
	t0 = phyllo_lib_now_ms();
	PTEST_EXPECT_EQ(pthread_create(&t, NULL, fake_up_after, (void *)(uintptr_t)300), 0);
	PTEST_EXPECT_EQ(phyllo_wait_up(h, WAIT_MS), 0);
	PTEST_EXPECT(phyllo_lib_now_ms() - t0 >= 250);
	pthread_join(t, NULL);
	fake_close(h, dev);
}

static const struct ptest_case lib_cases[] = {
	PTEST_CASE(lib_publish_reaches_subscriber),
	PTEST_CASE(lib_subscriptions_filter_by_topic_and_type),
	PTEST_CASE(lib_request_gets_the_reply_and_keeps_the_rest),
	PTEST_CASE(lib_request_sleeps_while_units_wait),
	PTEST_CASE(lib_fd_is_readable_when_a_unit_waits),
	PTEST_CASE(lib_nonblocking_send_says_eagain),
	PTEST_CASE(lib_small_queue_holds_the_link_and_loses_nothing),
	PTEST_CASE(lib_reset_and_hangup_are_reported),
	PTEST_CASE(lib_flush_over_a_reset_reports_the_loss),
	PTEST_CASE(lib_flush_after_the_reset_was_read_reports_the_loss),
	PTEST_CASE(lib_open_refuses_what_is_no_tty),
	PTEST_CASE(lib_pty_masters_side_by_side_slaves_locked),
	PTEST_CASE(lib_json_helpers_keep_integers_and_reals_apart),
	PTEST_CASE(lib_recv_reads_a_backlog_without_polls),
	PTEST_CASE(lib_recv_polls_for_spaced_units),
	PTEST_CASE(lib_stats_fold_counts_growth_across_the_wrap),
	PTEST_CASE(lib_stats64_carry_past_2_32_on_a_tty),
	PTEST_CASE(lib_stats64_on_the_kernel_falls_back_to_32_bits),
	PTEST_CASE(lib_down_and_up_are_events_in_order),
	PTEST_CASE(lib_fd_is_readable_for_a_down),
	PTEST_CASE(lib_send_and_wait_up_wait_while_down),
};

PTEST_MAIN(phyllo_suite_lib, "phyllo_lib", lib_cases)
