// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * paused-read.c - a reader paused inside its copy (phyllo(4), "Receive
 * queues", rule 5), in the storm's SMP guest, before the storm.
 *
 * A (subscribed to type 0x10) holds 13 units of 200 bytes (288 bytes'
 * charge each), near the admin class's bound of 4096 that this program
 * sets. A's read buffer is a page registered with userfaultfd, so the
 * kernel's copy_to_user() stops on it until this program resolves the
 * fault. While it is stopped, B (the echo peer returns what B writes to
 * every file) streams 40 units of type 0x11, which A does not take, and
 * reads them keeping one queued, so the class goes over its bound and the
 * link takes units back from A's queue, the largest; in round 2 a new
 * protocol setting resets the session, in round 3 a receive policy word
 * changes, in round 4 a third file with queued units is closed. Then the
 * fault is resolved and A's read must return the unit it started (the
 * head of its queue when it began). Passes (exit 0) when every round
 * does and the link counted evictions in each; the kernel's log (KASAN,
 * DEBUG_LIST) is checked by storm-init.sh afterwards.
 * Usage: paused-read DEVICE
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "phyllo.h"

#define UNIT	200
#define ROUNDS	4
#define BURST	40

static const char *dev;
static int fa, fb, uffd;
static long page;
static char *pages;
static unsigned char next_seq;
static int round_no;
static unsigned int evicted;

static void die(const char *what)
{
	fprintf(stderr, "paused-read: round %d: %s: %s\n", round_no, what,
		strerror(errno));
	exit(1);
}

static void fail(const char *what)
{
	fprintf(stderr, "paused-read: round %d: FAIL: %s\n", round_no, what);
	exit(1);
}

static void send_unit(int fd, unsigned char type, unsigned char seq)
{
	unsigned char u[UNIT];

	memset(u, seq, sizeof(u));
	u[0] = type;
	/* a session reset is told to the next write once */
	if (write(fd, u, sizeof(u)) != (ssize_t)sizeof(u) &&
	    (errno != ECONNRESET || write(fd, u, sizeof(u)) != (ssize_t)sizeof(u)))
		die("write");
}

static struct phyllo_file_stats file_stats(int fd)
{
	struct phyllo_file_stats st;

	if (ioctl(fd, PHYLLO_IOC_GET_FILE_STATS, &st))
		die("GET_FILE_STATS");
	return st;
}

static unsigned int evictions(void)
{
	struct phyllo_link_stats st;

	if (ioctl(fb, PHYLLO_IOC_GET_STATS, &st))
		die("GET_STATS");
	return st.rx_evictions;
}

/* Read everything fd has (non-blocking), any errno but EAGAIN included. */
static void drain(int fd)
{
	unsigned char u[PHYLLO_UNIT_MAX];
	int fl = fcntl(fd, F_GETFL);

	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	while (read(fd, u, sizeof(u)) > 0 || errno != EAGAIN)
		;
	fcntl(fd, F_SETFL, fl);
}

static void set_config(__u32 mask, __u32 window, __u32 units)
{
	struct phyllo_link_config c;

	memset(&c, 0, sizeof(c));
	c.mask = mask;
	c.window = window;
	c.rxq_units = units;
	c.rxq_bytes = 4096;
	c.rxq_link_bytes = 4096;
	if (ioctl(fb, PHYLLO_IOC_SET_CONFIG, &c))
		die("SET_CONFIG");
}

/* Wait (10 s at most) until fd has at least n units queued. */
static void wait_queued(int fd, unsigned int n)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if (file_stats(fd).rx_queued >= n)
			return;
		usleep(10000);
	}
	fail("units did not arrive");
}

/*
 * B streams a burst A does not take and reads it as it comes, but for the
 * last unit: one queued, and the next over the class's bound.
 */
static void burst(void)
{
	unsigned char u[PHYLLO_UNIT_MAX];
	int i;

	for (i = 0; i < BURST; i++) {
		send_unit(fb, 0x11, (unsigned char)(100 + i));
		while (file_stats(fb).rx_queued > 1)
			if (read(fb, u, sizeof(u)) < 0 && errno != ENOBUFS &&
			    errno != ECONNRESET)
				die("B's read");
	}
}

/* What happens while A is paused; then the fault is resolved. */
static void *handler(void *arg)
{
	struct uffdio_copy cp;
	struct uffd_msg msg;
	struct pollfd p = { .fd = uffd, .events = POLLIN };
	unsigned int before;
	int fc = -1;

	(void)arg;
	if (poll(&p, 1, 20000) != 1)
		fail("A's read never reached its copy");
	if (read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT)
		die("uffd read");
	before = evictions();
	if (round_no == 4) {
		__u32 drop = PHYLLO_RECV_DROP;

		fc = open(dev, O_RDWR);
		if (fc < 0 || ioctl(fc, PHYLLO_IOC_SET_RECV_MODE, &drop))
			die("open C");
	}
	burst();
	if (round_no == 2)
		set_config(PHYLLO_SET_WINDOW, 3, 0);
	if (round_no == 3)
		set_config(PHYLLO_SET_RXQ_UNITS, 0, 60);
	if (round_no == 4 && close(fc))
		die("close C");
	evicted = evictions() - before;
	memset(&cp, 0, sizeof(cp));
	cp.dst = msg.arg.pagefault.address & ~(page - 1);
	cp.src = (unsigned long)(pages + ROUNDS * page);
	cp.len = page;
	if (ioctl(uffd, UFFDIO_COPY, &cp))
		die("UFFDIO_COPY");
	return NULL;
}

static void setup_uffd(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;

	page = sysconf(_SC_PAGESIZE);
	/* ROUNDS pages to fault on, one of zeros to resolve them with */
	pages = mmap(NULL, (ROUNDS + 1) * page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED)
		die("mmap");
	memset(pages + ROUNDS * page, 0, page);
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		die("userfaultfd");
	if (ioctl(uffd, UFFDIO_API, &api))
		die("UFFDIO_API");
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (unsigned long)pages;
	reg.range.len = ROUNDS * page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		die("UFFDIO_REGISTER");
}

static void one_round(void)
{
	unsigned char *buf = (unsigned char *)pages + (round_no - 1) * page;
	unsigned char want = next_seq;
	pthread_t t;
	ssize_t n;
	int i;

	drain(fa);
	drain(fb);
	for (i = 0; i < 13; i++) {
		send_unit(fb, 0x10, next_seq++);
		wait_queued(fa, i + 1);
		drain(fb);
	}
	if (pthread_create(&t, NULL, handler, NULL))
		die("pthread_create");
	n = read(fa, buf, PHYLLO_UNIT_MAX);
	pthread_join(t, NULL);
	if (n != UNIT)
		die("A's read");
	if (buf[0] != 0x10 || buf[1] != want) {
		fprintf(stderr, "paused-read: round %d: read unit %u, started %u\n",
			round_no, buf[1], want);
		fail("not the unit it started");
	}
	if (!evicted)
		fail("no unit was taken back from A during its copy");
	printf("paused-read: round %d: read the unit it started (%u) across %u evictions\n",
	       round_no, want, evicted);
}

int main(int argc, char **argv)
{
	struct phyllo_subscription sub = { .flags = PHYLLO_SUB_TYPE, .type = 0x10 };
	struct phyllo_link_config saved;
	__u32 drop = PHYLLO_RECV_DROP;

	if (argc != 2) {
		fprintf(stderr, "usage: paused-read DEVICE\n");
		return 2;
	}
	dev = argv[1];
	fa = open(dev, O_RDWR);
	fb = open(dev, O_RDWR);
	if (fa < 0 || fb < 0)
		die("open");
	if (ioctl(fb, PHYLLO_IOC_GET_CONFIG, &saved))
		die("GET_CONFIG");
	if (ioctl(fa, PHYLLO_IOC_SET_RECV_MODE, &drop) ||
	    ioctl(fb, PHYLLO_IOC_SET_RECV_MODE, &drop) ||
	    ioctl(fa, PHYLLO_IOC_SUBSCRIBE, &sub))
		die("SET_RECV_MODE, SUBSCRIBE");
	set_config(PHYLLO_SET_RXQ_UNITS | PHYLLO_SET_RXQ_BYTES |
		   PHYLLO_SET_RXQ_LINK_BYTES, 0, 64);
	setup_uffd();
	for (round_no = 1; round_no <= ROUNDS; round_no++)
		one_round();
	saved.mask = PHYLLO_SET_ALL;
	if (ioctl(fb, PHYLLO_IOC_SET_CONFIG, &saved))
		die("SET_CONFIG (restore)");
	close(fa);
	close(fb);
	printf("paused-read: PASS: %d rounds\n", ROUNDS);
	return 0;
}
