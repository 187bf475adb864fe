// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * storm.c - a concurrency storm against phyllo.ko, run as root inside the
 * make test-storm guest (tests/storm/storm-init.sh starts it).
 *
 * Contract:
 *  1. Three links: L0 is the tty ECHO (a pty whose master `phyllo peer
 *     --echo` serves, attached by ldattach before we start); L1 is a pty
 *     pair of our own whose master a flooder thread fills with random bytes
 *     and drains, torn down and rebuilt over and over (TIOCVHANGUP on the
 *     slave, close of the master, or N_TTY then close); L2 is a pty whose
 *     master is never read, set to the minimal preset, so its writers end
 *     up blocked on a full tty. L2 stays attached until the end: the module
 *     is in use the whole time.
 *  2. Workers on /dev/phyllo0..3 (whichever exist): 8 readers (1 read in
 *     32 into a PROT_NONE page: EFAULT must leave the unit queued), 8
 *     writers, poll and epoll waiters, fsync waiters, an ioctl thread, a
 *     sysfs reader, an open/close loop, an ldisc thread (TIOCSETD N_TTY /
 *     29 on L0), an rmmod thread (delete_module must fail while L2 is
 *     attached), and an interrupter sending SIGUSR1 to random workers.
 *  3. One iteration is one system call on the module's interfaces: an
 *     open, read, write, poll, fsync, ioctl, sysfs read, TIOCSETD, hangup
 *     or delete_module. The storm stops when --iter of them have run.
 *  4. Then every link is detached or hung up, and every thread must end
 *     within --watchdog seconds: one that does not is named with the call
 *     it is blocked in and its kernel stack. A storm with no progress for
 *     --stall seconds fails the same way.
 *  5. At the end the module must unload, load again from --ko, carry a
 *     link, and unload again.
 *  6. An errno outside what phyllo(4) documents for a call, a unit whose
 *     payload is not what a writer sent, or any of the above fails the run:
 *     the last line is "storm: PASS ..." or "storm: FAIL ...", exit 0 or 1.
 *  7. L3, the ACK link (--ack N): a pty of our own, attached and opened by
 *     an ack-reader thread before `phyllo peer --stream` starts on its
 *     master and sends N numbered reliable units. When the peer is done,
 *     what its ARQ saw acknowledged is compared with what the reader got:
 *     every acknowledged unit read exactly once, none lost. The reader is
 *     in hold mode with the largest hold budget (one SET_CONFIG at the
 *     start: rxq_stall_ms, and rxq_units 16): a single reliable consumer. Beside it
 *     two files in drop mode (PHYLLO_RECV_DROP) share L3, one that never reads
 *     and one that reads a unit every 50 ms: they may lose units (each
 *     counted, and reported with ENOBUFS), the reader may not (phyllo(4),
 *     "Receive queues"). Nothing else touches L3's settings.
 *  7a. A paused reader reads into pages registered with userfaultfd that a
 *     pager thread fills 0 to 20 ms after the fault, so its read stops
 *     inside copy_to_user() while the storm evicts, resets, reconfigures
 *     and closes around it; every unit it reads must verify.
 *  8. --failslab PCT: fail_slab fails PCT % of the kmalloc-* allocations
 *     (slub_debug=A,kmalloc-* on the kernel command line, cache-filter)
 *     made by the storm's threads and by the kernel's workers (kworker,
 *     where the tty's receive and the link's work run; task-filter with
 *     make-it-fail, re-marked every 20 ms), sleeping ones included. ENOMEM
 *     is then an allowed errno of every call; the injected failures are
 *     counted from fail_slab's `times`.
 *  9. --failpage PCT: fail_page_alloc fails PCT % of the page allocations
 *     of order 2 and up (min-order 2: the link's 16 KiB transmit fifo, any
 *     kmalloc above 8 KiB; slub_max_order=1 on the guest's command line
 *     keeps the slab's own refills below that) made by the same marked
 *     tasks, sleeping ones included, user (highmem) pages left alone. An attach made marked holds a lock across TIOCSETD, so
 *     no two such attaches overlap, and counts fail_page_alloc's `times`
 *     around it: an ENOMEM attach during which it moved is counted as
 *     failed for a page allocation.
 * 10. Before the storm (with --failslab or --failpage), an attach of a new
 *     pty by this thread alone is repeated with the 1st, 2nd, 3rd, ...
 *     allocation it makes failed (fail-nth), one at a time, until it makes
 *     no more: each must end in ENOMEM or be survived; with --failpage at
 *     least one of them must be a page allocation that made the attach
 *     fail (the fifo's failure path). kmemleak checks what they left.
 * Kernel reports (KASAN, lockdep, ...) are checked by the caller in dmesg.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <linux/tty.h>
#include <linux/userfaultfd.h>
#include <time.h>
#include <unistd.h>

#include "phyllo.h"
#include "storm-guest.h"

#define UNITS		4	/* /dev/phyllo0..3 are tried */
#define N_TTY_LDISC	0
#define SUB_NEVER	0xee	/* type writers subscribe to and never send */
#define MAGIC		"PhYl"	/* payload marker of units the writers send */
#define MAX_THREADS	40
#define PHYLLO_TYPE_PUBSUB_UAPI	0x60	/* phyllo(4): a pub-sub unit */

enum op {
	OP_OPEN, OP_READ, OP_WRITE, OP_POLL, OP_FSYNC, OP_IOCTL, OP_SYSFS,
	OP_SETD, OP_HANGUP, OP_RMMOD, OP_COUNT
};

static const char *const op_names[OP_COUNT] = {
	"open", "read", "write", "poll", "fsync", "ioctl", "sysfs",
	"tiocsetd", "hangup", "rmmod",
};

struct worker {
	pthread_t tid;
	pid_t ktid;
	char name[24];
	void *(*fn)(struct worker *);
	unsigned int rng;
	bool interruptible;	/* the interrupter may signal it */
	bool failable;		/* under --failslab, its allocations may fail */
	_Atomic(const char *) op;	/* call in progress, or NULL */
	atomic_long since_ms;
	atomic_bool exited;
	int arg;
};

static struct {
	long iter;
	int stall_s;
	int watchdog_s;
	unsigned int seed;
	const char *echo_path;
	const char *ko;
	int ldisc;
	long ack;		/* units L3's peer sends; 0: iter / 25 */
	int failslab;		/* percent of the scoped allocations to fail */
	int failpage;		/* percent of the scoped page allocations */
	const char *phyllo;	/* the phyllo tool, for L3's peer */
} opt = { 20000, 120, 120, 1, NULL, "/lib/phyllo.ko", N_DEVELOPMENT,
	  0, 0, 0, "phyllo" };

static atomic_long total;
static atomic_long op_count[OP_COUNT];
static atomic_long units_verified, units_foreign, writes_blocked_eio;
static atomic_long rmmod_refused, attaches, hangups, setd_busy;
static atomic_long enomem_seen;
static atomic_long attach_enomem, attach_enomem_page, page_in_attach;
static pthread_mutex_t attach_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int stop;
static atomic_int marker_stop;	/* the ACK link is done with */
static atomic_int marker_passes;	/* scans of /proc the marker made */
static atomic_int failures;
static struct worker workers[MAX_THREADS];
static int n_workers;
static int n_io;	/* workers[0..n_io) do I/O, the rest is chaos */
static int l2_unit = -1;
static int l3_unit = -1;
static void *bad_page;	/* PROT_NONE: copy_to_user() into it faults */

/* L1: the master the flooder writes and the hangup thread replaces. */
static pthread_rwlock_t l1_lock = PTHREAD_RWLOCK_INITIALIZER;
static int l1_master = -1;

static unsigned int rnd(struct worker *w, unsigned int n)
{
	return xorshift(&w->rng, n);
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&failures, 1) >= 20)
		return;
	va_start(ap, fmt);
	fputs("storm: FAILURE: ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
	va_end(ap);
}

/* Either fault injection on: tasks are marked, ENOMEM is allowed. */
static bool faults(void)
{
	return opt.failslab || opt.failpage;
}

/* Mark the start and end of one counted call. */
static void op_begin(struct worker *w, enum op op)
{
	atomic_store(&w->since_ms, now_ms());
	atomic_store(&w->op, op_names[op]);
}

static void op_end(struct worker *w, enum op op)
{
	atomic_store(&w->op, NULL);
	atomic_fetch_add(&op_count[op], 1);
	atomic_fetch_add(&total, 1);
}

/* errno is one of the listed values (terminated by 0), else a failure. */
static bool errno_in(struct worker *w, const char *what, int err, ...)
{
	va_list ap;
	int e;

	if (err == ENOMEM && faults()) {
		atomic_fetch_add(&enomem_seen, 1);
		return true;
	}
	va_start(ap, err);
	while ((e = va_arg(ap, int)) != 0)
		if (e == err)
			break;
	va_end(ap);
	if (e == 0)
		fail("%s: %s: unexpected errno %d (%s)", w->name, what, err,
		     strerror(err));
	return e != 0;
}

/* Under fault injection, a call that failed with ENOMEM: allowed, counted. */
static bool enomem(int r)
{
	if (r >= 0 || errno != ENOMEM || !faults())
		return false;
	atomic_fetch_add(&enomem_seen, 1);
	return true;
}

/* Open /dev/phyllo<unit>; -1 when it does not exist (detached). */
static int unit_open(struct worker *w, int unit, int flags)
{
	char path[32];
	int fd;

	snprintf(path, sizeof(path), "/dev/phyllo%d", unit);
	op_begin(w, OP_OPEN);
	fd = open(path, O_RDWR | O_CLOEXEC | flags);
	op_end(w, OP_OPEN);
	if (fd < 0)
		errno_in(w, "open", errno, ENOENT, ENODEV, ENXIO, EINTR, EBUSY, 0);
	return fd;
}

static int xioctl(struct worker *w, int fd, unsigned long req, void *arg)
{
	int r;

	op_begin(w, OP_IOCTL);
	r = ioctl(fd, req, arg);
	op_end(w, OP_IOCTL);
	return r;
}

/* A unit the readers can check: [type][MAGIC][len-6][pattern]. */
static size_t unit_make(struct worker *w, uint8_t *u, size_t len)
{
	size_t i;

	u[0] = (uint8_t)(0x10 + rnd(w, 0x50));
	if (len < 7)
		return len;	/* too short to carry the marker: plain bytes */
	memcpy(u + 1, MAGIC, 4);
	u[5] = (uint8_t)rnd(w, 256);
	for (i = 6; i < len; i++)
		u[i] = (uint8_t)(u[5] * 31 + i * 7);
	return len;
}

static void unit_verify(struct worker *w, const uint8_t *u, ssize_t len)
{
	ssize_t i;

	if (len < 1 || u[0] < 0x10) {
		fail("%s: read a unit of %zd bytes, type 0x%02x", w->name, len,
		     len > 0 ? u[0] : 0);
		return;
	}
	if (len < 7 || memcmp(u + 1, MAGIC, 4)) {
		atomic_fetch_add(&units_foreign, 1);	/* from the flood */
		return;
	}
	for (i = 6; i < len; i++)
		if (u[i] != (uint8_t)(u[5] * 31 + i * 7)) {
			fail("%s: unit of %zd bytes corrupt at byte %zd", w->name,
			     len, i);
			return;
		}
	atomic_fetch_add(&units_verified, 1);
}

static void subscribe(struct worker *w, int fd, unsigned int type)
{
	struct phyllo_subscription sub = { 0 };

	if (type) {
		sub.flags = PHYLLO_SUB_TYPE;
		sub.type = type;
	}
	if (xioctl(w, fd, PHYLLO_IOC_SUBSCRIBE, &sub))
		errno_in(w, "SUBSCRIBE", errno, EINTR, 0);
}

/*
 * One read into a bad address: EFAULT leaves the unit queued (phyllo(4)),
 * so the file's count of units read must not move.
 */
static void read_fault(struct worker *w, int fd)
{
	struct phyllo_file_stats before, after;
	ssize_t r;
	int err;

	if (xioctl(w, fd, PHYLLO_IOC_GET_FILE_STATS, &before))
		return;
	op_begin(w, OP_READ);
	r = read(fd, bad_page, 512);
	err = errno;
	op_end(w, OP_READ);
	if (r > 0) {
		fail("%s: read into a bad address returned %zd", w->name, r);
		return;
	}
	if (r < 0)
		errno_in(w, "bad-address read", err, EFAULT, EAGAIN, EINTR,
			 ECONNRESET, ENOBUFS, 0);
	if (r < 0 && err == EFAULT &&
	    !xioctl(w, fd, PHYLLO_IOC_GET_FILE_STATS, &after) &&
	    after.rx_units != before.rx_units)
		fail("%s: a read that failed with EFAULT consumed a unit", w->name);
}

/* One read; false when the file is done with (EOF). */
static bool read_one(struct worker *w, int fd, size_t cap)
{
	uint8_t buf[512];
	ssize_t r;
	int err;

	if (!rnd(w, 32)) {
		read_fault(w, fd);
		return true;
	}
	op_begin(w, OP_READ);
	r = read(fd, buf, cap);
	err = errno;
	op_end(w, OP_READ);
	if (r > 0) {
		if ((size_t)r > cap)
			fail("%s: read %zd bytes into %zu", w->name, r, cap);
		unit_verify(w, buf, r);
		return true;
	}
	if (r == 0)
		return false;
	/* ENOBUFS: this file fell behind and was told (a drop-mode file) */
	errno_in(w, "read", err, EAGAIN, EINTR, ECONNRESET, EMSGSIZE, ENOBUFS, 0);
	return true;
}

/*
 * A reader paused inside its copy (phyllo(4), read(2)): its buffers are
 * pages registered with userfaultfd, missing until the pager fills them
 * 0 to 20 ms later, so copy_to_user() stops there while the rest of the
 * storm goes on (evictions, resets, new settings, closes, hangups). What
 * it reads must be a whole unit, as any reader's.
 */
#define UFFD_PAGES	16
static int uffd = -1;
static char *uffd_pages, *uffd_zero;
static long uffd_page;
static atomic_bool paused_done;
static atomic_long paused_reads;

static bool uffd_setup(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };

	uffd_page = sysconf(_SC_PAGESIZE);
	uffd_pages = mmap(NULL, (UFFD_PAGES + 1) * uffd_page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (uffd_pages == MAP_FAILED)
		return false;
	uffd_zero = uffd_pages + UFFD_PAGES * uffd_page;
	memset(uffd_zero, 0, uffd_page);
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	reg.range.start = (unsigned long)uffd_pages;
	reg.range.len = UFFD_PAGES * uffd_page;
	return uffd >= 0 && !ioctl(uffd, UFFDIO_API, &api) &&
	       !ioctl(uffd, UFFDIO_REGISTER, &reg);
}

/* Fills each page a paused reader faulted on, after a random pause. */
static void *pager(struct worker *w)
{
	struct pollfd p = { .fd = uffd, .events = POLLIN };
	struct uffdio_copy cp;
	struct uffd_msg msg;

	while (!atomic_load(&paused_done)) {
		if (poll(&p, 1, 100) <= 0 ||
		    read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
		    msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		pause_us(rnd(w, 20000));
		memset(&cp, 0, sizeof(cp));
		cp.dst = msg.arg.pagefault.address & ~(unsigned long)(uffd_page - 1);
		cp.src = (unsigned long)uffd_zero;
		cp.len = (unsigned long)uffd_page;
		while (ioctl(uffd, UFFDIO_COPY, &cp) && errno != EEXIST)
			pause_us(1000);
	}
	return NULL;
}

static void *paused_reader(struct worker *w)
{
	unsigned int next = 0;
	char *buf;
	ssize_t r;
	int fd, n, err;

	while (!atomic_load(&stop)) {
		fd = unit_open(w, (int)rnd(w, UNITS), O_NONBLOCK);
		if (fd < 0) {
			pause_us(2000);
			continue;
		}
		for (n = 1 + (int)rnd(w, 16); n > 0 && !atomic_load(&stop); n--) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			/* a unit waiting: the read copies it into a missing page */
			if (poll(&p, 1, 50) <= 0)
				continue;
			buf = uffd_pages + (next++ % UFFD_PAGES) * uffd_page;
			madvise(buf, uffd_page, MADV_DONTNEED);	/* missing again */
			op_begin(w, OP_READ);
			r = read(fd, buf, 512);
			err = errno;
			op_end(w, OP_READ);
			atomic_fetch_add(&paused_reads, 1);
			if (r > 0) {
				unit_verify(w, (const uint8_t *)buf, r);
				continue;
			}
			if (r == 0)
				break;
			errno_in(w, "paused read", err, EAGAIN, EINTR, ECONNRESET,
				 ENOBUFS, 0);
		}
		close(fd);
	}
	atomic_store(&paused_done, true);
	return NULL;
}

static void *reader(struct worker *w)
{
	int fd, n;

	while (!atomic_load(&stop)) {
		fd = unit_open(w, (int)rnd(w, UNITS), rnd(w, 4) ? 0 : O_NONBLOCK);
		if (fd < 0) {
			pause_us(2000);
			continue;
		}
		if (!rnd(w, 8))
			subscribe(w, fd, rnd(w, 2) ? 0 : 0x10 + rnd(w, 0x50));
		for (n = (int)rnd(w, 64); n > 0 && !atomic_load(&stop); n--)
			if (!read_one(w, fd, rnd(w, 8) ? 512 : rnd(w, 300)))
				break;
		close(fd);
	}
	return NULL;
}

/* One write; false when the link is gone (EIO). */
static bool write_one(struct worker *w, int fd)
{
	uint8_t u[PHYLLO_UNIT_MAX + 8];
	size_t len = 1 + rnd(w, PHYLLO_UNIT_MAX);
	unsigned int kind = rnd(w, 32);
	ssize_t r;
	int err;

	unit_make(w, u, len);
	if (kind == 0)
		len = 0;			/* EINVAL */
	else if (kind == 1)
		len = PHYLLO_UNIT_MAX + 1;	/* EMSGSIZE */
	else if (kind == 2)
		u[0] = (uint8_t)rnd(w, 0x10);	/* EINVAL: reserved type */
	op_begin(w, OP_WRITE);
	r = write(fd, u, len);
	op_end(w, OP_WRITE);
	err = errno;
	if (r >= 0) {
		if (kind <= 2 || (size_t)r != len)
			fail("%s: write of %zu bytes (kind %u) returned %zd",
			     w->name, len, kind, r);
		return true;
	}
	if (kind == 0 || kind == 2)
		errno_in(w, "bad write", err, EINVAL, 0);
	else if (kind == 1)
		errno_in(w, "long write", err, EMSGSIZE, 0);
	else
		errno_in(w, "write", err, EAGAIN, EINTR, EIO, ECONNRESET,
			 EMSGSIZE, ENOBUFS, ENOTCONN, 0);
	return kind <= 2 || err != EIO;
}

static void *writer(struct worker *w)
{
	uint32_t mode;
	int fd, n;

	while (!atomic_load(&stop)) {
		fd = unit_open(w, (int)rnd(w, UNITS), rnd(w, 4) ? 0 : O_NONBLOCK);
		if (fd < 0) {
			pause_us(2000);
			continue;
		}
		subscribe(w, fd, SUB_NEVER);	/* nobody reads this queue */
		if (!rnd(w, 5)) {
			mode = PHYLLO_SEND_UNRELIABLE;
			if (xioctl(w, fd, PHYLLO_IOC_SET_SEND_MODE, &mode))
				errno_in(w, "SET_SEND_MODE", errno, EINTR, 0);
		}
		for (n = (int)rnd(w, 64); n > 0 && !atomic_load(&stop); n--)
			if (!write_one(w, fd))
				break;
		close(fd);
	}
	return NULL;
}

/* L2's writers: unreliable units into a tty nobody drains, until EIO. */
static void *stuck_writer(struct worker *w)
{
	uint8_t u[PHYLLO_UNIT_MAX];
	uint32_t mode = PHYLLO_SEND_UNRELIABLE;
	size_t len;
	ssize_t r;
	int fd, err;

	while ((fd = unit_open(w, l2_unit, 0)) < 0 && enomem(fd))
		pause_us(1000);
	if (fd < 0) {
		fail("%s: cannot open the stuck link's /dev/phyllo%d", w->name, l2_unit);
		return NULL;
	}
	subscribe(w, fd, SUB_NEVER);
	xioctl(w, fd, PHYLLO_IOC_SET_SEND_MODE, &mode);
	for (;;) {
		len = unit_make(w, u, sizeof(u) - rnd(w, 200));
		op_begin(w, OP_WRITE);
		r = write(fd, u, len);
		op_end(w, OP_WRITE);
		err = errno;
		if (r < 0 && err == EIO)
			break;
		if (r < 0)
			errno_in(w, "stuck write", err, EINTR, ECONNRESET, 0);
	}
	atomic_fetch_add(&writes_blocked_eio, 1);
	close(fd);
	return NULL;
}

static void *fsyncer(struct worker *w)
{
	int fd, n, r, err;

	while (!atomic_load(&stop)) {
		fd = unit_open(w, (int)rnd(w, UNITS), 0);
		if (fd < 0) {
			pause_us(2000);
			continue;
		}
		subscribe(w, fd, SUB_NEVER);
		for (n = (int)rnd(w, 16); n > 0 && !atomic_load(&stop); n--) {
			if (rnd(w, 2) && !write_one(w, fd))
				break;
			op_begin(w, OP_FSYNC);
			r = fsync(fd);
			err = errno;
			op_end(w, OP_FSYNC);
			if (r < 0) {
				errno_in(w, "fsync", err, EINTR, EIO, ECONNRESET, 0);
				if (err == EIO)
					break;
			}
		}
		close(fd);
	}
	return NULL;
}

static void *poller(struct worker *w)
{
	struct pollfd p[3];
	int i, n, r;

	while (!atomic_load(&stop)) {
		n = 1 + (int)rnd(w, 3);
		for (i = 0; i < n; i++) {
			p[i].fd = unit_open(w, (int)rnd(w, UNITS), O_NONBLOCK);
			p[i].events = POLLIN | POLLOUT | POLLPRI;
		}
		for (r = (int)rnd(w, 32); r > 0 && !atomic_load(&stop); r--) {
			op_begin(w, OP_POLL);
			if (poll(p, (nfds_t)n, (int)rnd(w, 50)) < 0) {
				op_end(w, OP_POLL);
				errno_in(w, "poll", errno, EINTR, 0);
				continue;
			}
			op_end(w, OP_POLL);
			for (i = 0; i < n; i++) {
				if (p[i].revents & POLLNVAL && p[i].fd >= 0)
					fail("%s: POLLNVAL on an open file", w->name);
				if (p[i].revents & (POLLIN | POLLPRI))
					read_one(w, p[i].fd, 512);
			}
		}
		for (i = 0; i < n; i++)
			if (p[i].fd >= 0)
				close(p[i].fd);
	}
	return NULL;
}

/*
 * epoll keeps its wait entry on the link's queue between calls: files are
 * closed while still registered, and the link may die meanwhile.
 */
static void *epoller(struct worker *w)
{
	struct epoll_event ev[4], add;
	int ep, fds[3], i, n, r;

	while ((ep = epoll_create1(EPOLL_CLOEXEC)) < 0 && enomem(ep))
		pause_us(1000);
	if (ep < 0) {
		fail("%s: epoll_create1: %s", w->name, strerror(errno));
		return NULL;
	}
	while (!atomic_load(&stop)) {
		n = 1 + (int)rnd(w, 3);
		for (i = 0; i < n; i++) {
			fds[i] = unit_open(w, (int)rnd(w, UNITS), O_NONBLOCK);
			add.events = EPOLLIN | EPOLLOUT | EPOLLPRI |
				     (rnd(w, 2) ? EPOLLET : 0);
			add.data.fd = fds[i];
			if (fds[i] >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &add) &&
			    !enomem(-1))
				fail("%s: EPOLL_CTL_ADD: %s", w->name, strerror(errno));
		}
		for (r = (int)rnd(w, 32); r > 0 && !atomic_load(&stop); r--) {
			op_begin(w, OP_POLL);
			i = epoll_wait(ep, ev, 4, (int)rnd(w, 50));
			op_end(w, OP_POLL);
			if (i < 0)
				errno_in(w, "epoll_wait", errno, EINTR, 0);
			while (i-- > 0)
				if (ev[i].events & EPOLLIN)
					read_one(w, ev[i].data.fd, 512);
		}
		/* Closing a registered file removes it from the set. */
		for (i = 0; i < n; i++)
			if (fds[i] >= 0)
				close(fds[i]);
	}
	close(ep);
	return NULL;
}

/* A valid configuration, mostly standard so the echo peer keeps up. */
static void config_random(struct worker *w, struct phyllo_link_config *c)
{
	memset(c, 0, sizeof(*c));
	c->preset = rnd(w, 10) ? PHYLLO_CFG_STANDARD : rnd(w, 2);
	c->window = 1 + rnd(w, 8);
	c->rto_min_ms = 5 + rnd(w, 20);
	c->rto_max_ms = c->rto_min_ms + rnd(w, 2000);
	c->rto_init_ms = c->rto_min_ms + rnd(w, c->rto_max_ms - c->rto_min_ms + 1);
	c->ack_delay_ms = rnd(w, 10);
	c->max_retries = rnd(w, 4) ? 0 : rnd(w, 20);
	c->mask = PHYLLO_SET_PRESET | PHYLLO_SET_WINDOW | PHYLLO_SET_RTO_MIN_MS |
		  PHYLLO_SET_RTO_MAX_MS | PHYLLO_SET_RTO_INIT_MS | PHYLLO_SET_ACK_DELAY_MS |
		  PHYLLO_SET_MAX_RETRIES | PHYLLO_SET_FLAGS;	/* the protocol's words */
}

static void ioctl_one(struct worker *w, int fd, int unit)
{
	union {
		struct phyllo_link_state st;
		struct phyllo_link_stats stats;
		struct phyllo_link_config cfg;
		struct phyllo_file_stats fst;
		struct phyllo_subscription sub;
		uint32_t mode;
	} u;
	unsigned int k = rnd(w, 10);
	unsigned long req[] = {
		PHYLLO_IOC_GET_STATE, PHYLLO_IOC_GET_STATS, PHYLLO_IOC_GET_CONFIG,
		PHYLLO_IOC_GET_FILE_STATS, PHYLLO_IOC_TTY_UNIT,
	};
	int r;

	memset(&u, 0, sizeof(u));
	/* A new configuration is a new session: rare, or nothing gets echoed. */
	if (k == 5 && rnd(w, 25))
		k = 0;
	if (k < 5) {
		r = xioctl(w, fd, req[k], &u);
		if (!enomem(r) && (k == 4 ? r == 0 || errno != ENOTTY : r != 0))
			fail("%s: ioctl %u: %d (%s)", w->name, k, r, strerror(errno));
		return;
	}
	if (k < 7 && unit != l2_unit && unit != l3_unit) {
		config_random(w, &u.cfg);
		if (k == 6)
			u.cfg.reserved = 1;
		r = xioctl(w, fd, PHYLLO_IOC_SET_CONFIG, &u.cfg);
		if (k == 6 ? r == 0 || errno != EINVAL : r != 0)
			errno_in(w, "SET_CONFIG", r ? errno : 0, EIO, 0);
		return;
	}
	if (k < 9) {
		/* Never everything: this file is not read, its queue would fill. */
		u.sub.flags = PHYLLO_SUB_TYPE | (rnd(w, 2) ? PHYLLO_SUB_TOPIC : 0);
		u.sub.type = rnd(w, 2) ? SUB_NEVER : PHYLLO_TYPE_PUBSUB_UAPI;
		u.sub.topic_len = u.sub.flags & PHYLLO_SUB_TOPIC ? 1 + rnd(w, 15) : 0;
		memset(u.sub.topic, 'a', u.sub.topic_len);
		if (k == 8)
			u.sub.reserved[rnd(w, 5)] = 1;
		r = xioctl(w, fd, PHYLLO_IOC_SUBSCRIBE, &u.sub);
		if (!enomem(r) && (k == 8 ? r == 0 || errno != EINVAL : r != 0))
			fail("%s: SUBSCRIBE (%u): %d (%s)", w->name, k, r, strerror(errno));
		return;
	}
	u.mode = rnd(w, 3);
	r = xioctl(w, fd, PHYLLO_IOC_SET_SEND_MODE, &u.mode);
	if (!enomem(r) && (u.mode == 2 ? r == 0 || errno != EINVAL : r != 0))
		fail("%s: SET_SEND_MODE %u: %d (%s)", w->name, u.mode, r, strerror(errno));
}

static void *ioctler(struct worker *w)
{
	int fd, unit, n;

	while (!atomic_load(&stop)) {
		unit = (int)rnd(w, UNITS);
		fd = unit_open(w, unit, O_NONBLOCK);
		if (fd < 0) {
			pause_us(2000);
			continue;
		}
		subscribe(w, fd, SUB_NEVER);
		for (n = (int)rnd(w, 32); n > 0 && !atomic_load(&stop); n--) {
			ioctl_one(w, fd, unit);
			if (!rnd(w, 4))
				pause_us(1000);	/* let the echo session settle */
		}
		close(fd);
	}
	return NULL;
}

/* Every file under /sys/class/phyllo/phylloN/, racing its removal. */
static void sysfs_unit(struct worker *w, int unit)
{
	char dir[96], path[96], buf[64];
	struct dirent *de;
	DIR *d;
	int fd;

	snprintf(dir, sizeof(dir), "/sys/class/phyllo/phyllo%d/statistics", unit);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)) && !atomic_load(&stop)) {
		if (de->d_name[0] == '.')
			continue;
		op_begin(w, OP_SYSFS);
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && read(fd, buf, sizeof(buf)) < 0)
			errno_in(w, "sysfs read", errno, ENODEV, ENOENT, 0);
		op_end(w, OP_SYSFS);
		if (fd >= 0)
			close(fd);
	}
	closedir(d);
	snprintf(path, sizeof(path), "/sys/class/phyllo/phyllo%d/tty", unit);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf)) < 0)
			errno_in(w, "sysfs tty", errno, ENODEV, ENOENT, 0);
		close(fd);
	}
}

static void *sysfs_reader(struct worker *w)
{
	while (!atomic_load(&stop))
		sysfs_unit(w, (int)rnd(w, UNITS));
	return NULL;
}

static void *opencloser(struct worker *w)
{
	struct phyllo_link_state st;
	int fd, fd2, r;

	while (!atomic_load(&stop)) {
		fd = unit_open(w, (int)rnd(w, UNITS), rnd(w, 2) ? O_NONBLOCK : 0);
		if (fd < 0) {
			pause_us(500);
			continue;
		}
		fd2 = rnd(w, 2) ? unit_open(w, (int)rnd(w, UNITS), O_NONBLOCK) : -1;
		r = rnd(w, 2) ? xioctl(w, fd, PHYLLO_IOC_GET_STATE, &st) : 0;
		if (r && !enomem(r))
			fail("%s: GET_STATE: %s", w->name, strerror(errno));
		close(fd);
		if (fd2 >= 0)
			close(fd2);
	}
	return NULL;
}

/* Page allocations failed since BEFORE (-1: unknown), the caller unmarked. */
static long failpage_since(long before)
{
	long now = fault_injected(FAILPAGE_DIR);

	return before >= 0 && now >= before ? now - before : 0;
}

/*
 * TIOCSETD, marked for fault injection 1 time in 4: an attach makes some
 * sixty calls that may fail (the sweep counts them), and if every one
 * could, hardly any attach would succeed and the links would stop churning. A marked attach under
 * --failpage holds attach_lock and reads fail_page_alloc's count around
 * its call, unmarked for the reads.
 */
static int setd(struct worker *w, int fd, int ldisc)
{
	bool marked = faults() && !rnd(w, 4);
	bool watch = marked && opt.failpage && ldisc == opt.ldisc;
	long before = -1, pages = 0;
	int r, err;

	if (watch) {
		put(MAKE_IT_FAIL, "0");
		pthread_mutex_lock(&attach_lock);
		before = fault_injected(FAILPAGE_DIR);
	}
	if (faults())
		put(MAKE_IT_FAIL, marked ? "1" : "0");
	op_begin(w, OP_SETD);
	r = ioctl(fd, TIOCSETD, &ldisc);
	err = errno;
	op_end(w, OP_SETD);
	if (watch) {
		put(MAKE_IT_FAIL, "0");
		pages = failpage_since(before);
		pthread_mutex_unlock(&attach_lock);
		put(MAKE_IT_FAIL, "1");
		atomic_fetch_add(&page_in_attach, pages);
	}
	if (r == 0)
		return 0;
	if (err == ENOMEM && ldisc == opt.ldisc) {
		atomic_fetch_add(&attach_enomem, 1);
		atomic_fetch_add(&attach_enomem_page, pages > 0);
	}
	if (err == EBUSY)
		atomic_fetch_add(&setd_busy, 1);	/* ldisc lock timed out (5 s) */
	errno_in(w, "TIOCSETD", err, EIO, EINTR, EBUSY, 0);
	return -1;
}

/* Detach L0 from phyllo and attach it again, over and over. */
static void *ldisc_toggler(struct worker *w)
{
	int fd;

	while ((fd = open(opt.echo_path, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0 &&
	       enomem(fd))
		pause_us(1000);
	if (fd < 0) {
		fail("%s: open %s: %s", w->name, opt.echo_path, strerror(errno));
		return NULL;
	}
	while (!atomic_load(&stop)) {
		pause_us(10000 + rnd(w, 90000));	/* let the echo link run */
		if (setd(w, fd, N_TTY_LDISC))
			continue;
		pause_us(rnd(w, 5000));
		if (rnd(w, 4) == 0)
			setd(w, fd, N_TTY_LDISC);	/* N_TTY to N_TTY */
		if (setd(w, fd, opt.ldisc) == 0) {
			atomic_fetch_add(&attaches, 1);
			if (rnd(w, 4) == 0)
				setd(w, fd, opt.ldisc);	/* phyllo to phyllo */
		}
	}
	close(fd);	/* L0 as it is: the teardown detaches it */
	return NULL;
}

static void l1_set_master(int m)
{
	int old;

	pthread_rwlock_wrlock(&l1_lock);
	old = l1_master;
	l1_master = m;
	if (old >= 0)
		close(old);	/* the slave side hangs up */
	pthread_rwlock_unlock(&l1_lock);
}

/* L1: attach, let the flood run, then end it one of three ways. */
static void *hangupper(struct worker *w)
{
	int m, s, how, r;

	while (!atomic_load(&stop)) {
		m = pty_open(&s);
		if (m < 0 && enomem(m))
			continue;
		if (m < 0) {
			fail("%s: cannot create a pty: %s", w->name, strerror(errno));
			break;
		}
		if (setd(w, s, opt.ldisc) == 0)
			atomic_fetch_add(&attaches, 1);
		l1_set_master(m);
		pause_us(rnd(w, 50000));
		how = (int)rnd(w, 3);
		op_begin(w, OP_HANGUP);
		if (how == 0) {
			r = ioctl(s, TIOCVHANGUP);
			if (r && !enomem(r))
				fail("%s: TIOCVHANGUP: %s", w->name, strerror(errno));
		} else if (how == 1) {
			l1_set_master(-1);
		}
		op_end(w, OP_HANGUP);
		atomic_fetch_add(&hangups, 1);
		if (how == 2)
			setd(w, s, N_TTY_LDISC);
		close(s);
		l1_set_master(-1);
	}
	return NULL;
}

/* Random bytes into L1's master, its output drained. */
static void *flooder(struct worker *w)
{
	uint8_t buf[512];
	size_t n, i;

	while (!atomic_load(&stop)) {
		n = 1 + rnd(w, sizeof(buf));
		for (i = 0; i < n; i++)
			buf[i] = rnd(w, 16) ? (uint8_t)rnd(w, 256) : 0;
		pthread_rwlock_rdlock(&l1_lock);
		if (l1_master >= 0) {
			if (write(l1_master, buf, n) < 0 && errno != EAGAIN && errno != EIO &&
			    !enomem(-1))
				fail("%s: write to the pty master: %s", w->name, strerror(errno));
			while (read(l1_master, buf, sizeof(buf)) > 0)
				;
		}
		pthread_rwlock_unlock(&l1_lock);
		pause_us(rnd(w, 2000));
	}
	return NULL;
}

static long delete_module(const char *name, unsigned int flags)
{
	return syscall(SYS_delete_module, name, flags);
}

/* rmmod must be refused the whole time: L2 keeps the module in use. */
static void *rmmoder(struct worker *w)
{
	long r;

	while (!atomic_load(&stop)) {
		pause_us(10000 + rnd(w, 40000));
		op_begin(w, OP_RMMOD);
		r = delete_module("phyllo", O_NONBLOCK);
		op_end(w, OP_RMMOD);
		if (r == 0) {
			fail("%s: rmmod phyllo succeeded while a tty is attached", w->name);
			atomic_store(&stop, 1);
		} else if (errno_in(w, "rmmod", errno, EWOULDBLOCK, EBUSY, 0)) {
			atomic_fetch_add(&rmmod_refused, 1);
		}
	}
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
}

/* SIGUSR1 to random interruptible workers: the EINTR and restart paths. */
static void *interrupter(struct worker *w)
{
	struct worker *t;

	while (!atomic_load(&stop)) {
		pause_us(1000 + rnd(w, 4000));
		t = &workers[rnd(w, (unsigned int)n_workers)];
		if (t->interruptible && !atomic_load(&t->exited))
			pthread_kill(t->tid, SIGUSR1);
	}
	return NULL;
}

/*
 * --failslab: the kernel's workers run the tty's receive and the link's
 * work, so they are marked too; new ones appear, so every 20 ms, until
 * the ACK link's peer is done.
 */
static void *kworker_marker(struct worker *w)
{
	(void)w;
	while (!atomic_load(&marker_stop)) {
		kworkers_mark("1");
		atomic_fetch_add(&marker_passes, 1);
		pause_us(20000);
	}
	return NULL;
}

/* L3: the reader's file, the peer, and what the reader saw. */
static struct {
	int master, slave, fd, stopped, slow;
	pid_t peer;
	unsigned char *seen;	/* per unit index: times read */
	atomic_long got, dups, untagged, resets, slow_got, slow_enobufs;
} l3 = { -1, -1, -1, -1, -1, -1, NULL, 0, 0, 0, 0, 0, 0 };

/* The index `phyllo peer --payload counter` tags unit p[0..n) with. */
static long ack_index(const uint8_t *p, ssize_t n)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuv";
	const char *d;
	long v = 0;
	int i;

	if (n < 1 + 5 || p[0] != 0x10)
		return -1;
	for (i = 1; i <= 5; i++) {
		d = p[i] ? strchr(digits, p[i]) : NULL;
		if (!d)
			return -1;
		v = v * 32 + (d - digits);
	}
	return v;
}

/* L3's one reader: every unit until end of file, each index counted. */
static void *ack_reader(struct worker *w)
{
	uint8_t buf[512];
	ssize_t r;
	long i;

	for (;;) {
		op_begin(w, OP_READ);
		r = read(l3.fd, buf, sizeof(buf));
		op_end(w, OP_READ);
		if (r == 0 || (r < 0 && errno == EIO))
			break;
		if (r < 0) {
			if (errno == ECONNRESET)
				atomic_fetch_add(&l3.resets, 1);
			else
				errno_in(w, "ack read", errno, EINTR, 0);
			continue;
		}
		i = ack_index(buf, r);
		if (i < 0 || i >= opt.ack) {
			atomic_fetch_add(&l3.untagged, 1);
			continue;
		}
		if (l3.seen[i]++)
			atomic_fetch_add(&l3.dups, 1);
		else
			atomic_fetch_add(&l3.got, 1);
	}
	return NULL;
}

/* L3's slow reader (drop mode): a unit every 50 ms until end of file. */
static void *slow_reader(struct worker *w)
{
	uint8_t buf[512];
	ssize_t r;

	for (;;) {
		op_begin(w, OP_READ);
		r = read(l3.slow, buf, sizeof(buf));
		op_end(w, OP_READ);
		if (r == 0 || (r < 0 && errno == EIO))
			break;
		if (r > 0)
			atomic_fetch_add(&l3.slow_got, 1);
		else if (errno == ENOBUFS)
			atomic_fetch_add(&l3.slow_enobufs, 1);
		else if (errno != ECONNRESET)
			errno_in(w, "slow read", errno, EINTR, 0);
		pause_us(50000);
	}
	return NULL;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	void *r;

	w->ktid = (pid_t)syscall(SYS_gettid);
	if (faults() && w->failable && !put(MAKE_IT_FAIL, "1"))
		fail("%s: make-it-fail: %s", w->name, strerror(errno));
	r = w->fn(w);
	atomic_store(&w->exited, true);
	return r;
}

static struct worker *spawn(const char *name, int i, void *(*fn)(struct worker *),
			    bool interruptible)
{
	struct worker *w = &workers[n_workers];

	/* the pager's UFFDIO_COPY must not fail: a paused reader waits on it */
	w->failable = fn != kworker_marker && fn != interrupter && fn != pager;

	snprintf(w->name, sizeof(w->name), i < 0 ? "%s" : "%s%d", name, i);
	w->fn = fn;
	w->rng = opt.seed * 2654435761u + (unsigned int)n_workers * 40503u + 1;
	w->interruptible = interruptible;
	if (pthread_create(&w->tid, NULL, worker_main, w)) {
		fail("cannot start thread %s", w->name);
		exit(1);
	}
	n_workers++;
	return w;
}

/* Name every thread of [from, to) not exited, with its call and stack. */
static int report_hung(const char *why, int from, int to)
{
	long t = now_ms();
	const char *op;
	int i, hung = 0;

	for (i = from; i < to; i++) {
		struct worker *w = &workers[i];

		if (atomic_load(&w->exited))
			continue;
		op = atomic_load(&w->op);
		hung++;
		fail("%s: thread %s (tid %d) in %s for %ld ms", why, w->name, w->ktid,
		     op ? op : "user code", op ? t - atomic_load(&w->since_ms) : 0);
		show_kernel_stack("storm", w->ktid);
	}
	if (hung)
		sysrq("storm", 'w');
	return hung;
}

/* Join the threads [from, to) within the watchdog; false if one hangs. */
static bool join_range(const char *why, int from, int to)
{
	long deadline = now_ms() + opt.watchdog_s * 1000L;
	int i, left;

	do {
		left = 0;
		for (i = from; i < to; i++)
			left += !atomic_load(&workers[i].exited);
		if (!left)
			break;
		pause_us(50000);
	} while (now_ms() < deadline);
	if (left && report_hung(why, from, to))
		return false;	/* _exit() ends them; the kernel log shows the rest */
	for (i = from; i < to; i++)
		pthread_join(workers[i].tid, NULL);
	return true;
}

static void progress(long start)
{
	int i;

	printf("storm: %ld/%ld iterations in %ld s:", atomic_load(&total), opt.iter,
	       (now_ms() - start) / 1000);
	for (i = 0; i < OP_COUNT; i++)
		printf(" %s %ld", op_names[i], atomic_load(&op_count[i]));
	printf("\n");
	fflush(stdout);
}

/* Run until opt.iter calls, or fail when nothing moves for opt.stall_s. */
static void storm_run(long start)
{
	long last = -1, last_change = now_ms(), next_report = now_ms() + 10000, t;

	while (atomic_load(&total) < opt.iter && !atomic_load(&stop)) {
		pause_us(200000);
		t = now_ms();
		if (atomic_load(&total) != last) {
			last = atomic_load(&total);
			last_change = t;
		} else if (t - last_change > opt.stall_s * 1000L) {
			report_hung("no progress", 0, n_workers);
			break;
		}
		if (t >= next_report) {
			progress(start);
			next_report = t + 10000;
		}
	}
	atomic_store(&stop, 1);
}

static int tty_unit(int tty)
{
	uint32_t unit;

	return ioctl(tty, PHYLLO_IOC_TTY_UNIT, &unit) ? -1 : (int)unit;
}

/* L2: attached, minimal preset, its master never read. */
static int stuck_setup(int *master, int *slave)
{
	struct phyllo_link_config cfg;
	int ldisc = opt.ldisc, fd;
	char path[32];

	*master = pty_open(slave);
	if (*master < 0 || ioctl(*slave, TIOCSETD, &ldisc)) {
		fail("stuck link: cannot attach: %s", strerror(errno));
		return -1;
	}
	l2_unit = tty_unit(*slave);
	snprintf(path, sizeof(path), "/dev/phyllo%d", l2_unit);
	fd = open(path, O_RDWR);
	if (fd < 0 || ioctl(fd, PHYLLO_IOC_GET_CONFIG, &cfg)) {
		fail("stuck link: %s: %s", path, strerror(errno));
		return -1;
	}
	cfg.preset = PHYLLO_CFG_MINIMAL;
	cfg.mask = PHYLLO_SET_PRESET;
	if (ioctl(fd, PHYLLO_IOC_SET_CONFIG, &cfg))
		fail("stuck link: SET_CONFIG minimal: %s", strerror(errno));
	close(fd);
	return 0;
}

/*
 * L3: attach a pty of our own and open its device before the peer runs,
 * so that no unit can be acknowledged before a file is there to take it.
 */
static int ack_setup(void)
{
	struct phyllo_link_config cfg;
	uint32_t hold = PHYLLO_RECV_HOLD, drop = PHYLLO_RECV_DROP;
	int ldisc = opt.ldisc;
	char path[32];

	l3.seen = calloc((size_t)opt.ack, 1);
	l3.master = pty_open(&l3.slave);
	if (!l3.seen || l3.master < 0 || ioctl(l3.slave, TIOCSETD, &ldisc) ||
	    (l3_unit = tty_unit(l3.slave)) < 0) {
		fail("ACK link: cannot attach: %s", strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "/dev/phyllo%d", l3_unit);
	l3.fd = open(path, O_RDWR | O_CLOEXEC);
	l3.stopped = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	l3.slow = open(path, O_RDWR | O_CLOEXEC);
	if (l3.fd < 0 || l3.stopped < 0 || l3.slow < 0 ||
	    ioctl(l3.fd, PHYLLO_IOC_SET_RECV_MODE, &hold) ||
	    ioctl(l3.stopped, PHYLLO_IOC_SET_RECV_MODE, &drop) ||
	    ioctl(l3.slow, PHYLLO_IOC_SET_RECV_MODE, &drop) ||
	    ioctl(l3.fd, PHYLLO_IOC_GET_CONFIG, &cfg)) {
		fail("ACK link: %s: %s", path, strerror(errno));
		return -1;
	}
	/* small queues, so that the stopped and slow readers lose units */
	cfg.rxq_units = 16;
	cfg.rxq_stall_ms = PHYLLO_STALL_MS_MAX;
	cfg.mask = PHYLLO_SET_RXQ_UNITS | PHYLLO_SET_RXQ_STALL_MS;
	if (ioctl(l3.fd, PHYLLO_IOC_SET_CONFIG, &cfg)) {
		fail("ACK link: SET_CONFIG: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* The peer starts once the storm runs and, with fault injection, every kworker
 * has been marked once, so that its units meet the injected failures.
 */
static int ack_start_peer(void)
{
	long deadline = now_ms() + 10000;
	char count[24];

	while (faults() && atomic_load(&marker_passes) < 1 && now_ms() < deadline)
		pause_us(1000);
	snprintf(count, sizeof(count), "%ld", opt.ack);
	l3.peer = fork();
	if (l3.peer == 0) {
		dup2(l3.master, 0);
		dup2(l3.master, 1);
		execlp(opt.phyllo, opt.phyllo, "peer", "--stream", "--payload", "counter",
		       "--count", count, "--timeout", "3600", "--stats",
		       "/tmp/ack-peer.json", (char *)NULL);
		_exit(127);
	}
	if (l3.peer < 0)
		fail("ACK link: cannot start the peer: %s", strerror(errno));
	return l3.peer < 0 ? -1 : 0;
}

/* A number after "KEY": in the peer's JSON summary, or -1. */
static long json_num(const char *json, const char *key)
{
	char k[32];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(json, k);
	return p ? atol(p + strlen(k)) : -1;
}

/* Wait up to SECS for the peer; its exit status, or -1 if it is killed. */
static int ack_wait_peer(int secs)
{
	long deadline = now_ms() + secs * 1000L;
	int st;

	while (waitpid(l3.peer, &st, WNOHANG) == 0) {
		if (now_ms() > deadline) {
			kill(l3.peer, SIGTERM);
			waitpid(l3.peer, &st, 0);
			return -1;
		}
		pause_us(100000);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * L3's stopped and slow readers: within their bounds, and told of what
 * they lost (the stopped one reads once now; ENOBUFS first if it lost).
 */
static void ack_verdict_others(void)
{
	struct phyllo_file_stats st = { 0 }, sl = { 0 };
	struct phyllo_link_config cfg = { 0 };
	uint8_t buf[512];
	ssize_t r;

	if (ioctl(l3.stopped, PHYLLO_IOC_GET_FILE_STATS, &st) ||
	    ioctl(l3.slow, PHYLLO_IOC_GET_FILE_STATS, &sl) ||
	    ioctl(l3.fd, PHYLLO_IOC_GET_CONFIG, &cfg)) {
		fail("ACK link: the other readers' counters: %s", strerror(errno));
		return;
	}
	r = read(l3.stopped, buf, sizeof(buf));
	printf("storm: ACK link: stopped reader queued %u, lost %u (first read %s); slow "
	       "reader read %ld, lost %u, told %ld times\n", st.rx_queued, st.rx_drops,
	       r < 0 ? strerror(errno) : "a unit", atomic_load(&l3.slow_got), sl.rx_drops,
	       atomic_load(&l3.slow_enobufs));
	if (st.rx_queued > cfg.rxq_units || sl.rx_queued > cfg.rxq_units)
		fail("ACK link: a reader's queue beyond rxq_units (%u, %u)", st.rx_queued,
		     sl.rx_queued);
	if (st.rx_drops && !(r < 0 && errno == ENOBUFS))
		fail("ACK link: the stopped reader lost %u units and was not told",
		     st.rx_drops);
	if (sl.rx_drops && !atomic_load(&l3.slow_enobufs) && !sl.rx_overrun)
		fail("ACK link: the slow reader lost %u units and was not told", sl.rx_drops);
}

/*
 * The peer is done: every unit its ARQ saw acknowledged must have been
 * read once. Without a reset in the session (none is made on L3) that is
 * every unit 0..N-1; with one, the units lost in flight were never
 * acknowledged, and what was read must cover at least what was.
 */
static void ack_verdict(void)
{
	struct phyllo_file_stats fst = { 0 };
	struct phyllo_link_stats lst = { 0 };
	long sent, acked, lost, got, deadline = now_ms() + 30000;
	char json[4096] = "";
	int st = ack_wait_peer(opt.watchdog_s * 5), fd;
	ssize_t n;

	/* the reader drains what is queued */
	while (!ioctl(l3.fd, PHYLLO_IOC_GET_FILE_STATS, &fst) && fst.rx_queued &&
	       now_ms() < deadline)
		pause_us(100000);
	atomic_store(&marker_stop, 1);
	pause_us(200000);
	ioctl(l3.fd, PHYLLO_IOC_GET_STATS, &lst);
	fd = open("/tmp/ack-peer.json", O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, json, sizeof(json) - 1);
	if (fd >= 0)
		close(fd);
	sent = json_num(json, "sent");
	acked = json_num(json, "acked");
	lost = json_num(json, "reset_lost");
	got = atomic_load(&l3.got);
	printf("storm: ACK link /dev/phyllo%d: peer sent %ld, acknowledged %ld, lost in "
	       "resets %ld; read %ld (duplicates %ld, untagged %ld, resets seen %ld); "
	       "file drops %u; kernel: units %u, refused %u, NAKs %u\n", l3_unit,
	       sent, acked, lost, got, atomic_load(&l3.dups), atomic_load(&l3.untagged),
	       atomic_load(&l3.resets), fst.rx_drops, lst.rx_units, lst.rx_hold,
	       lst.tx_naks);
	if (n <= 0 || st != 0 || acked < 0)
		fail("ACK link: the peer did not finish (status %d): %s", st,
		     n > 0 ? json : "no summary");
	else if (acked > got || atomic_load(&l3.dups))
		fail("ACK link: %ld acknowledged units lost (%ld acked, %ld read, %ld "
		     "duplicates)", acked - got, acked, got, atomic_load(&l3.dups));
	else if (!lost && (got != acked || acked != opt.ack))
		fail("ACK link: %ld units read of %ld acknowledged, %ld sent", got, acked,
		     sent);
	ack_verdict_others();
}

/* Every link detached or hung up: each sleeper must now wake and leave. */
static void teardown(int l2_master, int l2_slave)
{
	int fd = open(opt.echo_path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	int ldisc = N_TTY_LDISC;

	if (fd < 0 || ioctl(fd, TIOCSETD, &ldisc))
		fail("teardown: N_TTY on %s: %s", opt.echo_path, strerror(errno));
	if (fd >= 0)
		close(fd);
	close(l2_master);	/* hangs up L2: its blocked writers get EIO */
	close(l2_slave);
	if (l3.master >= 0) {
		close(l3.master);	/* L3's reader sees end of file */
		close(l3.slave);
	}
}

static int finit_module(int fd)
{
	return (int)syscall(SYS_finit_module, fd, "", 0);
}

/* Unload (retrying while the last references go), load, use, unload. */
static void reload_check(void)
{
	long deadline = now_ms() + 20000;
	int fd, m, s, unit, ldisc = opt.ldisc;
	struct phyllo_link_state st;
	char path[32];

	while (delete_module("phyllo", O_NONBLOCK) && now_ms() < deadline)
		pause_us(100000);
	if (access("/sys/module/phyllo", F_OK) == 0) {
		fail("rmmod phyllo after the storm: %s", strerror(errno));
		return;
	}
	fd = open(opt.ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || finit_module(fd)) {
		fail("insmod %s again: %s", opt.ko, strerror(errno));
		return;
	}
	close(fd);
	m = pty_open(&s);
	if (m < 0 || ioctl(s, TIOCSETD, &ldisc) || (unit = tty_unit(s)) < 0) {
		fail("attach after reload: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "/dev/phyllo%d", unit);
	fd = open(path, O_RDWR | O_NONBLOCK);
	if (fd < 0 || ioctl(fd, PHYLLO_IOC_GET_STATE, &st) || st.unit != (uint32_t)unit)
		fail("%s after reload: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	close(s);
	close(m);
	deadline = now_ms() + 20000;
	while (delete_module("phyllo", O_NONBLOCK) && now_ms() < deadline)
		pause_us(100000);
	if (access("/sys/module/phyllo", F_OK) == 0)
		fail("final rmmod phyllo: %s", strerror(errno));
}

/* Point 10's sweep, and the failures injected before the storm began. */
static struct {
	int failed, survived, enomem, page;
	char page_calls[64];	/* which calls those were: ": call 2 37" */
	long slab_base, page_base;
} sweep;

/* An attached link sends its first frame (the SYN) on its own. */
static bool link_sends(int master)
{
	struct pollfd p = { master, POLLIN, 0 };
	uint8_t buf[64];

	return poll(&p, 1, opt.watchdog_s * 1000 / 4) == 1 && read(master, buf, sizeof(buf)) > 0;
}

/* One attach of a new pty with its Nth injectable call failed (fail-nth). */
static bool sweep_one(int nth, int n)
{
	int ldisc = opt.ldisc, m, s, r, err;
	char v[16] = "";
	long before;
	bool hit;

	m = pty_open(&s);
	if (m < 0) {
		fail("attach sweep: pty: %s", strerror(errno));
		return false;
	}
	before = fault_injected(FAILPAGE_DIR);
	snprintf(v, sizeof(v), "%d", n);
	if (pwrite(nth, v, strlen(v), 0) < 0)
		fail("attach sweep: fail-nth: %s", strerror(errno));
	r = ioctl(s, TIOCSETD, &ldisc);
	err = errno;
	hit = pread(nth, v, sizeof(v) - 1, 0) > 0 && atoi(v) == 0;
	if (pwrite(nth, "0", 1, 0) < 0)
		fail("attach sweep: fail-nth: %s", strerror(errno));
	if (hit)
		sweep.failed++;
	if (hit && r && err == ENOMEM) {
		sweep.enomem++;
		if (failpage_since(before) > 0 && ++sweep.page <= 8)
			snprintf(sweep.page_calls + strlen(sweep.page_calls),
				 sizeof(sweep.page_calls) - strlen(sweep.page_calls), "%s %d",
				 sweep.page == 1 ? ": call" : "", n);
	} else if (r) {
		fail("attach sweep: call %d %s: attach: %s", n, hit ? "failed" : "not reached",
		     strerror(err));
	} else {
		sweep.survived += hit;
		if (!link_sends(m))
			fail("attach sweep: the link attached with call %d %s sends nothing", n,
			     hit ? "failed" : "not reached");
	}
	close(s);
	close(m);
	return hit;
}

/*
 * Point 10: the Nth call the fault injection could fail, failed in this
 * thread alone, for N = 1, 2, ... until the attach makes fewer.
 */
static void attach_sweep(void)
{
	int nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	int n = 1;

	if (nth < 0) {
		fail("attach sweep: fail-nth: %s", strerror(errno));
		return;
	}
	while (n < 1000 && sweep_one(nth, n))
		n++;
	close(nth);
	sweep.slab_base = fault_injected(FAILSLAB_DIR);
	sweep.page_base = fault_injected(FAILPAGE_DIR);
	printf("storm: attach sweep: %d calls of an attach failed one at a time: %d attaches "
	       "failed with ENOMEM (%d for a page allocation%s), %d survived\n",
	       sweep.failed, sweep.enomem, sweep.page, sweep.page_calls, sweep.survived);
	if (opt.failpage && !sweep.page)
		fail("attach sweep: no attach failed for a page allocation: is the link's "
		     "transmit fifo still allocated from the page allocator?");
}

/* The injected failures, where ENOMEM came back, and the sweep's count. */
static void faults_report(void)
{
	fault_set(FAILSLAB_DIR, 0);
	fault_set(FAILPAGE_DIR, 0);
	if (opt.failslab)
		printf("storm: fail_slab: %ld allocations failed (%d %% of the storm's and "
		       "the kworkers' kmalloc-* allocations)\n",
		       fault_injected(FAILSLAB_DIR) - sweep.slab_base, opt.failslab);
	if (opt.failpage)
		printf("storm: fail_page_alloc: %ld page allocations failed (%d %% of the "
		       "storm's and the kworkers' of order 2 and up), %ld during marked "
		       "attaches\n", fault_injected(FAILPAGE_DIR) - sweep.page_base, opt.failpage,
		       atomic_load(&page_in_attach));
	printf("storm: ENOMEM returned %ld times; attaches: %ld failed with ENOMEM, %ld "
	       "of them with a page allocation failed during the call\n",
	       atomic_load(&enomem_seen), atomic_load(&attach_enomem),
	       atomic_load(&attach_enomem_page));
}

static void usage(void)
{
	fprintf(stderr, "usage: storm --echo TTY [--iter N] [--seed S] [--ko PATH]\n"
		"             [--stall SECS] [--watchdog SECS] [--ldisc N]\n"
		"             [--ack N] [--failslab PCT] [--failpage PCT]\n"
		"             [--phyllo PATH]\n");
	exit(2);
}

static void parse(int argc, char **argv)
{
	int i;

	for (i = 1; i + 1 < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];

		if (!strcmp(k, "--echo"))
			opt.echo_path = v;
		else if (!strcmp(k, "--iter"))
			opt.iter = atol(v);
		else if (!strcmp(k, "--seed"))
			opt.seed = (unsigned int)strtoul(v, NULL, 0);
		else if (!strcmp(k, "--ko"))
			opt.ko = v;
		else if (!strcmp(k, "--stall"))
			opt.stall_s = atoi(v);
		else if (!strcmp(k, "--watchdog"))
			opt.watchdog_s = atoi(v);
		else if (!strcmp(k, "--ldisc"))
			opt.ldisc = atoi(v);
		else if (!strcmp(k, "--ack"))
			opt.ack = atol(v);
		else if (!strcmp(k, "--failslab"))
			opt.failslab = atoi(v);
		else if (!strcmp(k, "--failpage"))
			opt.failpage = atoi(v);
		else if (!strcmp(k, "--phyllo"))
			opt.phyllo = v;
		else
			usage();
	}
	if (i != argc || !opt.echo_path || opt.iter < 1 || opt.ack < 0 ||
	    opt.failslab < 0 || opt.failslab > 100 || opt.failpage < 0 || opt.failpage > 100)
		usage();
	if (!opt.ack)
		opt.ack = opt.iter / 25 > 100 ? opt.iter / 25 : 100;
}

static void spawn_all(void)
{
	int i;

	for (i = 0; i < 8; i++)
		spawn("reader", i, reader, true);
	for (i = 0; i < 8; i++)
		spawn("writer", i, writer, true);
	for (i = 0; i < 2; i++)
		spawn("poller", i, poller, true);
	spawn("epoller", -1, epoller, true);
	for (i = 0; i < 2; i++)
		spawn("fsyncer", i, fsyncer, true);
	for (i = 0; i < 2; i++)
		spawn("stuck-writer", i, stuck_writer, false);
	spawn("ioctl", -1, ioctler, true);
	spawn("sysfs", -1, sysfs_reader, false);
	spawn("openclose", -1, opencloser, true);
	spawn("ack-reader", -1, ack_reader, false);
	spawn("slow-reader", -1, slow_reader, false);
	spawn("paused-reader", -1, paused_reader, false);
	spawn("pager", -1, pager, false);	/* joined after the reader */
	if (faults())
		spawn("kworker-marker", -1, kworker_marker, false);
	n_io = n_workers;
	spawn("ldisc", -1, ldisc_toggler, false);
	spawn("hangup", -1, hangupper, false);
	spawn("flooder", -1, flooder, false);
	spawn("rmmod", -1, rmmoder, false);
	spawn("interrupter", -1, interrupter, false);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */
	int l2_master, l2_slave;
	long start = now_ms();

	parse(argc, argv);
	bad_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (bad_page == MAP_FAILED)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!uffd_setup()) {
		fail("userfaultfd: %s", strerror(errno));
		return 1;
	}
	if (stuck_setup(&l2_master, &l2_slave) || ack_setup())
		return 1;
	printf("storm: %ld iterations, seed %u, echo link %s, stuck link /dev/phyllo%d, "
	       "ACK link /dev/phyllo%d (%ld units)\n", opt.iter, opt.seed, opt.echo_path,
	       l2_unit, l3_unit, opt.ack);
	if (faults() && !faults_on(opt.failslab, opt.failpage)) {
		fail("fault injection: cannot set up %s or %s: %s", FAILSLAB_DIR,
		     FAILPAGE_DIR, strerror(errno));
		return 1;
	}
	if (faults())
		attach_sweep();
	spawn_all();
	if (!ack_start_peer())
		storm_run(start);
	atomic_store(&stop, 1);
	progress(start);
	printf("storm: stopping: every link detached or hung up, %d threads must end\n",
	       n_workers);
	/* The chaos ends first, so that nothing attaches again. */
	if (join_range("watchdog, chaos threads", n_io, n_workers)) {
		if (l3.peer > 0)
			ack_verdict();
		atomic_store(&marker_stop, 1);
		teardown(l2_master, l2_slave);
		if (join_range("watchdog after teardown", 0, n_io)) {
			close(l3.fd);	/* its readers have left */
			close(l3.stopped);
			close(l3.slow);
		}
	}
	if (faults())
		faults_report();
	if (!atomic_load(&failures))
		reload_check();
	printf("storm: units verified %ld, foreign %ld, paused reads %ld; attaches %ld, "
	       "hangups %ld, rmmod refused %ld, stuck writers released %ld, TIOCSETD EBUSY %ld\n",
	       atomic_load(&units_verified), atomic_load(&units_foreign),
	       atomic_load(&paused_reads),
	       atomic_load(&attaches), atomic_load(&hangups),
	       atomic_load(&rmmod_refused), atomic_load(&writes_blocked_eio),
	       atomic_load(&setd_busy));
	if (atomic_load(&failures)) {
		printf("storm: FAIL: %d failures in %ld iterations\n",
		       atomic_load(&failures), atomic_load(&total));
		fflush(stdout);
		_exit(1);
	}
	printf("storm: PASS: %ld iterations in %ld s, %d threads ended, module reloaded\n",
	       atomic_load(&total), (now_ms() - start) / 1000, n_workers);
	return 0;
}
