// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo-share.c - make test-kernel's sharing scenarios: one link, one
 * prompt privileged reader, and unprivileged readers that stop, lag or
 * crowd it (phyllo(4), "Receive queues").
 *
 * As root it makes a pty, attaches the line discipline to the slave and
 * runs a peer of its own on the master (the protocol core, a child
 * process) that sends numbered reliable units as fast as the kernel
 * acknowledges them. Each phase streams COUNT units to a root reader
 * (the default receive mode, hold, reading promptly) with, beside it,
 * readers that run as uid/gid 65534 in group dialout (20) and ask for hold
 * mode, the worst they can do, unless the phase says otherwise:
 *   alone      nobody else;
 *   staggered  31 readers, reader i reads i units and stops;
 *   budget     17 readers, reader i reads i * COUNT / 17 units and stops, so
 *              their queues fill the link's budget;
 *   crowd      27 readers that never read, 9 in hold mode, 9 in drop
 *              mode, 9 in the default mode: they fill their class's
 *              memory, and must not cost root's reader a unit;
 *   slow       one reader that reads a unit every 2 s;
 *   cycling    one reader that lets its queue fill (and hold) for 2.5 s,
 *              then reads it to half, again and again: its holds are
 *              held to the class's rate;
 *   opens      unprivileged opens until refused, then root's open;
 * and alone again after the others, as a control of the first.
 * Checks, each phase: the root reader gets every unit the peer saw
 * acknowledged, once and in order; the link's hold time (its rx_hold_ms
 * counter) grows by at most rxq_stall_ms + W/8 (W: the phase's time, the
 * budget's refill) per class of opener plus one resend: the users' and
 * root's, whose reader, in the default mode, holds too whenever a loaded
 * machine makes it lag; every other
 * reader's units are read, queued or counted as lost, and a reader that
 * lost units is told (ENOBUFS). The wall time beside them minus the time
 * alone is printed, not checked. Exit 0 when all hold.
 * Usage: phyllo-share [COUNT]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/tty.h>

#include "phyllo.h"
#include "phyllo_stack.h"

#define SHARE_UID	65534
#define SHARE_GID	65534
#define SHARE_DIALOUT	20
#define SHARE_LEN	243	/* a very large unit: the standard MTU */
#define SHARE_SLACK_MS	200	/* one resend after a hold's budget ran out */
#define SHARE_MAX	64
#define SHARE_DEFAULT	(-1)	/* a reader's mode: leave the default */
#define SHARE_CYCLE	(-100000) /* quota: fill 2.5 s, read to half, again */

static int master = -1, failed;
static char dev[32];

static uint32_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)(ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

static void check(int ok, const char *phase, const char *what)
{
	if (ok)
		return;
	printf("phyllo-share: FAIL: %s: %s\n", phase, what);
	failed = 1;
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* ---- the peer: a child process on the pty master ---- */

static struct phyllo_stack st;

static void out_write(void *ctx, const uint8_t *b, uint16_t n)
{
	(void)ctx;
	while (n) {
		ssize_t w = write(master, b, n);
		struct pollfd p = { master, POLLOUT, 0 };

		if (w < 0 && errno != EAGAIN && errno != EINTR)
			exit(3);
		if (w < 0) {
			poll(&p, 1, 100);
			continue;
		}
		b += w;
		n -= (uint16_t)w;
	}
}

static void peer_pump(int ms)
{
	struct pollfd p = { master, POLLIN, 0 };
	uint8_t buf[4096];
	struct phyllo_unit u;
	ssize_t r;
	uint16_t used;
	bool got;

	if (poll(&p, 1, ms) > 0) {
		r = read(master, buf, sizeof(buf));
		for (used = 0; r > 0 && used < r;)
			used += phyllo_stack_receive(&st, buf + used, (uint16_t)(r - used),
						     now_ms(), &u, &got);
	}
	phyllo_stack_poll(&st, now_ms());
}

/* Reads a count from cmd, sends that many, answers with the count the
 * kernel acknowledged once it is all of them. */
static void peer_run(int cmd, int res)
{
	static const struct phyllo_out out = { .write = out_write };
	struct phyllo_arq_config cfg = PHYLLO_ARQ_CONFIG_DEFAULT;
	uint8_t body[SHARE_LEN];
	uint32_t n = 0, sent = 0, base = 0;
	bool streaming = false;

	cfg.window = PHYLLO_ARQ_WINDOW_MAX;
	if (phyllo_stack_init(&st, PHYLLO_PRESET_STANDARD, &cfg, &out, 0x5eed, now_ms()) < 0)
		exit(2);
	fcntl(cmd, F_SETFL, O_NONBLOCK);
	memset(body, 0x5a, sizeof(body));
	for (;;) {
		if (!streaming && read(cmd, &n, sizeof(n)) == sizeof(n)) {
			if (!n)
				exit(0);
			streaming = true;
			sent = 0;
			base = st.arq.tx_retired_total;
		}
		while (streaming && sent < n && phyllo_stack_room(&st) > 0) {
			memcpy(body, &sent, sizeof(sent));
			if (phyllo_stack_send(&st, 0x10, body, sizeof(body), true, now_ms()) < 0)
				break;
			sent++;
		}
		if (streaming && st.arq.tx_retired_total - base == n) {
			if (write(res, &n, sizeof(n)) != sizeof(n))
				exit(3);
			streaming = false;
		}
		peer_pump(streaming ? 1 : 20);
	}
}

/* ---- unprivileged readers ---- */

struct reader_result {
	int opened;			/* 1, or 0 with err */
	int err;
	uint32_t read, queued, drops, enobufs;
};

static volatile sig_atomic_t report;

static void on_usr1(int sig)
{
	(void)sig;
	report = 1;
}

/* The cycling reader: its queue read down to half, then 2.5 s asleep. */
static void reader_cycle(int fd, struct reader_result *r)
{
	struct phyllo_file_stats fs;
	struct phyllo_link_config cfg;
	uint8_t buf[PHYLLO_UNIT_MAX];
	ssize_t n;

	if (ioctl(fd, PHYLLO_IOC_GET_CONFIG, &cfg))
		die("phyllo-share: PHYLLO_IOC_GET_CONFIG");
	while (!report) {
		usleep(2500 * 1000);
		fcntl(fd, F_SETFL, O_NONBLOCK);
		while (!report && !ioctl(fd, PHYLLO_IOC_GET_FILE_STATS, &fs) &&
		       fs.rx_queued > cfg.rxq_units / 2) {
			n = read(fd, buf, sizeof(buf));
			if (n > 0)
				r->read++;
			else if (n < 0 && errno == ENOBUFS)
				r->enobufs++;
			else
				break;
		}
		fcntl(fd, F_SETFL, 0);
	}
}

/*
 * A reader as uid 65534 in group dialout, in mode (SHARE_DEFAULT: as
 * opened): quota units and stop (quota < 0: one every -quota ms until
 * told; SHARE_CYCLE: reader_cycle()); on SIGUSR1 it reports its file's
 * counters on res and exits.
 */
static pid_t reader_start(int quota, int mode, int res)
{
	gid_t groups[1] = { SHARE_DIALOUT };
	struct reader_result r = { 0 };
	struct phyllo_file_stats fs;
	uint32_t m = (uint32_t)mode;
	uint8_t buf[PHYLLO_UNIT_MAX];
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */
	pid_t pid = fork();
	int fd;

	if (pid)
		return pid;
	sigaction(SIGUSR1, &sa, NULL);
	if (setgroups(1, groups) || setresgid(SHARE_GID, SHARE_GID, SHARE_GID) ||
	    setresuid(SHARE_UID, SHARE_UID, SHARE_UID))
		die("phyllo-share: drop privileges");
	fd = open(dev, O_RDWR | O_CLOEXEC);
	r.opened = fd >= 0;
	r.err = fd < 0 ? errno : 0;
	if (fd >= 0 && mode != SHARE_DEFAULT &&
	    ioctl(fd, PHYLLO_IOC_SET_RECV_MODE, &m))
		die("phyllo-share: PHYLLO_IOC_SET_RECV_MODE");
	if (write(res, &r, sizeof(r)) != sizeof(r))	/* opened: go on */
		exit(3);
	if (fd >= 0 && quota == SHARE_CYCLE)
		reader_cycle(fd, &r);
	while (!report && fd >= 0 && (quota < 0 || (int)r.read < quota)) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n > 0)
			r.read++;
		else if (n < 0 && errno == ENOBUFS)
			r.enobufs++;
		else if (n < 0 && errno != EINTR)
			break;
		if (quota < 0)
			usleep((useconds_t)-quota * 1000);
	}
	while (!report)
		pause();
	if (fd >= 0) {
		if (ioctl(fd, PHYLLO_IOC_GET_FILE_STATS, &fs))
			die("phyllo-share: PHYLLO_IOC_GET_FILE_STATS");
		r.queued = fs.rx_queued;
		r.drops = fs.rx_drops;
		fcntl(fd, F_SETFL, O_NONBLOCK);
		if (read(fd, buf, sizeof(buf)) < 0 && errno == ENOBUFS)
			r.enobufs++;
	}
	if (write(res, &r, sizeof(r)) != sizeof(r))
		exit(3);
	exit(0);
}

/* ---- the root reader and the phases ---- */

static int cmd_w, res_r;

static struct phyllo_link_stats link_stats(int fd)
{
	struct phyllo_link_stats s;

	if (ioctl(fd, PHYLLO_IOC_GET_STATS, &s))
		die("phyllo-share: PHYLLO_IOC_GET_STATS");
	return s;
}

/* Stream n units to root's fd; returns the ms it took it to read them. */
static uint32_t stream(int fd, uint32_t n, const char *phase)
{
	uint32_t start = now_ms(), got = 0, seq, acked = 0;
	uint8_t buf[PHYLLO_UNIT_MAX];
	struct pollfd p = { fd, POLLIN, 0 };

	if (write(cmd_w, &n, sizeof(n)) != sizeof(n))
		die("phyllo-share: peer");
	while (got < n) {
		ssize_t r;

		if (poll(&p, 1, 30000) <= 0) {
			check(0, phase, "the root reader waited 30 s for a unit");
			return now_ms() - start;
		}
		r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EAGAIN)
			continue;
		if (r != 1 + SHARE_LEN) {
			printf("phyllo-share: %s: read %zd (%s) after %u units\n", phase, r,
			       r < 0 ? strerror(errno) : "size", got);
			check(0, phase, "the root reader lost a unit or got an error");
			return now_ms() - start;
		}
		memcpy(&seq, buf + 1, sizeof(seq));
		if (seq != got) {
			printf("phyllo-share: %s: unit %u where %u was due\n", phase, seq, got);
			check(0, phase, "the root reader's units out of order or missing");
			return now_ms() - start;
		}
		got++;
	}
	if (read(res_r, &acked, sizeof(acked)) != sizeof(acked) || acked != n)
		check(0, phase, "the peer did not see every unit acknowledged");
	return now_ms() - start;
}

static void phase(int fd, const char *name, int nreaders, const int *quota,
		  const int *mode, uint32_t n, uint32_t alone, uint32_t stall)
{
	struct phyllo_link_stats before, after;
	struct reader_result r[SHARE_MAX];
	pid_t pid[SHARE_MAX];
	uint32_t held, took, lost = 0;
	int res[2], i;

	if (pipe(res))
		die("phyllo-share: pipe");
	for (i = 0; i < nreaders; i++) {
		pid[i] = reader_start(quota[i], mode[i], res[1]);
		if (read(res[0], &r[i], sizeof(r[i])) != sizeof(r[i]))
			die("phyllo-share: reader");
		check(r[i].opened, name, "an unprivileged reader could not open");
	}
	before = link_stats(fd);
	took = stream(fd, n, name);
	after = link_stats(fd);
	held = after.rx_hold_ms - before.rx_hold_ms;
	for (i = 0; i < nreaders; i++) {
		kill(pid[i], SIGUSR1);
		if (read(res[0], &r[i], sizeof(r[i])) != sizeof(r[i]))
			die("phyllo-share: reader report");
		waitpid(pid[i], NULL, 0);
		if (r[i].read + r[i].queued + r[i].drops != n) {
			printf("phyllo-share: %s: reader %d: read %u + queued %u + lost %u != %u\n",
			       name, i, r[i].read, r[i].queued, r[i].drops, n);
			check(0, name, "a reader's units are not all accounted for");
		}
		check(!r[i].drops || r[i].enobufs, name, "a reader lost units and was not told");
		lost += r[i].drops;
	}
	close(res[0]);
	close(res[1]);
	printf("{\"phase\":\"%s\",\"readers\":%d,\"units\":%u,\"ms\":%u,\"held_up_ms\":%d,"
	       "\"hold_ms\":%u,\"stall_ms\":%u,\"others_lost\":%u,\"refused\":%u,"
	       "\"naks\":%u,\"evictions\":%u}\n", name, nreaders, n,
	       took, (int)(took - alone), held, stall, lost, after.rx_hold - before.rx_hold,
	       after.tx_naks - before.tx_naks, after.rx_evictions - before.rx_evictions);
	check(held <= 2 * (stall + took / 8) + SHARE_SLACK_MS, name,
	      "the link was held longer than rxq_stall_ms + W/8 a class and one resend");
	fflush(stdout);
}

/* Opens as the unprivileged user until refused; then root's open. */
static void phase_opens(const struct phyllo_link_config *cfg)
{
	uint32_t want = cfg->max_files - (cfg->max_files + 7) / 8;
	struct reader_result r;
	int res[2], quota = 0, i, opened = 0, fd;
	pid_t pid[SHARE_MAX];

	if (pipe(res))
		die("phyllo-share: pipe");
	for (i = 0; i < SHARE_MAX; i++) {
		pid[i] = reader_start(quota, PHYLLO_RECV_HOLD, res[1]);
		if (read(res[0], &r, sizeof(r)) != sizeof(r))
			die("phyllo-share: reader");
		if (!r.opened)
			break;
		opened++;
	}
	check(i < SHARE_MAX && r.err == EBUSY, "opens", "unprivileged opens were not refused with EBUSY");
	fd = open(dev, O_RDWR | O_CLOEXEC);
	check(fd >= 0, "opens", "root's open failed beside the unprivileged opens");
	printf("{\"phase\":\"opens\",\"max_files\":%u,\"unprivileged\":%d,\"expected\":%u,"
	       "\"root_open\":%s}\n", cfg->max_files, opened, want, fd >= 0 ? "true" : "false");
	check((uint32_t)opened == want, "opens", "unprivileged opens other than max_files - max_files/8");
	if (fd >= 0)
		close(fd);
	for (i = 0; i <= opened && i < SHARE_MAX; i++) {
		kill(pid[i], SIGUSR1);
		waitpid(pid[i], NULL, 0);
	}
	close(res[0]);
	close(res[1]);
}

int main(int argc, char **argv)
{
	uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 4400;
	int ldisc = N_DEVELOPMENT, slave, fd, cmd[2], res[2], i;
	uint32_t unit, alone, took, stop = 0;
	int quota[SHARE_MAX], mode[SHARE_MAX];
	struct phyllo_file_stats fs;
	struct phyllo_link_config cfg, wide;
	pid_t peer;

	setvbuf(stdout, NULL, _IOLBF, 0);
	master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (master < 0 || grantpt(master) || unlockpt(master))
		die("phyllo-share: pty");
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	if (slave < 0 || ioctl(slave, TIOCSETD, &ldisc) ||
	    ioctl(slave, PHYLLO_IOC_TTY_UNIT, &unit))
		die("phyllo-share: attach");
	snprintf(dev, sizeof(dev), "/dev/phyllo%u", unit);
	for (i = 0; i < 200 && access(dev, F_OK); i++)
		usleep(50000);
	/* as the udev rule of the packages does: group dialout, 0660 */
	if (chown(dev, 0, SHARE_DIALOUT) || chmod(dev, 0660))
		die("phyllo-share: chown");
	if (pipe(cmd) || pipe(res))
		die("phyllo-share: pipe");
	peer = fork();
	if (!peer) {
		close(slave);
		peer_run(cmd[0], res[1]);
	}
	cmd_w = cmd[1];
	res_r = res[0];
	fd = open(dev, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || ioctl(fd, PHYLLO_IOC_GET_FILE_STATS, &fs) ||
	    ioctl(fd, PHYLLO_IOC_GET_CONFIG, &cfg))
		die("phyllo-share: root's open");
	check(fs.recv_mode == PHYLLO_RECV_HOLD, "open", "the default mode is not hold");
	/* room for 31 unprivileged readers beside root's */
	wide = cfg;
	wide.max_files = SHARE_MAX;
	wide.mask = PHYLLO_SET_MAX_FILES;
	cfg.mask = PHYLLO_SET_MAX_FILES;	/* to set it back */
	if (ioctl(fd, PHYLLO_IOC_SET_CONFIG, &wide))
		die("phyllo-share: PHYLLO_IOC_SET_CONFIG");

	alone = stream(fd, n, "alone");
	printf("{\"phase\":\"alone\",\"units\":%u,\"ms\":%u}\n", n, alone);
	for (i = 0; i < SHARE_MAX; i++)
		mode[i] = PHYLLO_RECV_HOLD;
	for (i = 0; i < 31; i++)
		quota[i] = i;
	phase(fd, "staggered", 31, quota, mode, n, alone, cfg.rxq_stall_ms);
	for (i = 0; i < 17; i++)
		quota[i] = (int)(n / 17) * i;	/* 256 apart at the default count */
	phase(fd, "budget", 17, quota, mode, n, alone, cfg.rxq_stall_ms);
	for (i = 0; i < 27; i++) {
		quota[i] = 0;
		mode[i] = i < 9 ? PHYLLO_RECV_HOLD :
			  i < 18 ? PHYLLO_RECV_DROP : SHARE_DEFAULT;
	}
	phase(fd, "crowd", 27, quota, mode, n, alone, cfg.rxq_stall_ms);
	mode[0] = PHYLLO_RECV_HOLD;
	quota[0] = -2000;
	phase(fd, "slow", 1, quota, mode, n, alone, cfg.rxq_stall_ms);
	quota[0] = SHARE_CYCLE;
	phase(fd, "cycling", 1, quota, mode, 2 * n, alone, cfg.rxq_stall_ms);
	/* the control: alone again, after the others left */
	took = stream(fd, n, "alone again");
	printf("{\"phase\":\"alone again\",\"units\":%u,\"ms\":%u}\n", n, took);
	if (ioctl(fd, PHYLLO_IOC_SET_CONFIG, &cfg))
		die("phyllo-share: PHYLLO_IOC_SET_CONFIG");
	phase_opens(&cfg);

	if (write(cmd_w, &stop, sizeof(stop)) != sizeof(stop))
		die("phyllo-share: peer");
	waitpid(peer, NULL, 0);
	close(fd);
	close(slave);
	printf("phyllo-share: %s\n", failed ? "FAILED" : "all phases passed");
	return failed;
}
