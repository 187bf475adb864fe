// SPDX-License-Identifier: GPL-2.0-only
/*
 * phyllo-kclient.c - test client for /dev/phylloN (make test-kernel and
 * make test-qemu), against a peer that echoes every unit back.
 *
 *   phyllo-kclient echo DEV COUNT [PEERPID]   send COUNT units of varying
 *       type and size (up to the link's MTU), check every echo arrives
 *       once, in order, unchanged; fsync. With PEERPID, then stop the peer
 *       (SIGTERM) and wait for the hangup, so the counters printed are
 *       final. Prints one JSON line with the link's counters; exit 1 on
 *       any loss, duplicate, reordering or reset.
 *   phyllo-kclient hangup DEV PEERPID   stop the peer (no more acks), block
 *       a reader and a writer, kill the peer (its pty master closes: the
 *       tty hangs up); the reader must get EOF, the writer EIO and poll
 *       POLLHUP.
 *   phyllo-kclient ldisc TTY N      set the tty's line discipline (0
 *       detaches phyllo while other processes keep the tty open).
 *   phyllo-kclient unit TTY         print N of the /dev/phylloN on TTY.
 *   phyllo-kclient insmod KO [PARAMS] | rmmod NAME   load (with module
 *       parameters, "a=1 b=2") or unload a module with the bare system
 *       calls (Debian's kmod insmod refuses UML modules).
 *   phyllo-kclient stall DEV MS [hold]  open DEV (in hold mode with
 *       hold) and do not read (a stalled reader) until the file has lost
 *       a unit (rx_drops: a full queue, and in hold mode a hold budget
 *       spent), or for MS ms at most, then print the file's counters as
 *       JSON, read what is queued, and print how many units that was and
 *       how many reads said ENOBUFS.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "phyllo.h"

#define OUTSTANDING	32	/* units in flight: well under the queues */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Unit i: type 0x30..0x3f, 5..mtu+1 bytes, seq in bytes 1..4. */
static size_t unit_make(uint32_t i, uint32_t mtu, uint8_t *u)
{
	size_t len = 5 + (i * 37u) % (mtu - 3), k;

	if (i % 97 == 0)
		len = mtu + 1;
	u[0] = (uint8_t)(0x30 + i % 16);
	u[1] = (uint8_t)(i >> 24);
	u[2] = (uint8_t)(i >> 16);
	u[3] = (uint8_t)(i >> 8);
	u[4] = (uint8_t)i;
	for (k = 5; k < len; k++)
		u[k] = (uint8_t)(i * 7 + k);
	return len;
}

static int get_state(int fd, struct phyllo_link_state *st)
{
	memset(st, 0, sizeof(*st));
	if (ioctl(fd, PHYLLO_IOC_GET_STATE, st) < 0) {
		perror("PHYLLO_IOC_GET_STATE");
		return -1;
	}
	return 0;
}

struct echo_run {
	uint32_t count, sent, recvd, lost, dup, bad;
};

static int echo_read(int fd, struct echo_run *r, uint32_t mtu)
{
	uint8_t got[PHYLLO_UNIT_MAX + 8], want[PHYLLO_UNIT_MAX];
	ssize_t n = read(fd, got, sizeof(got));
	uint32_t seq;
	size_t wn;

	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	if (n < 5) {
		r->bad++;
		return 1;
	}
	seq = (uint32_t)got[1] << 24 | (uint32_t)got[2] << 16 |
	      (uint32_t)got[3] << 8 | got[4];
	if (seq < r->recvd) {
		r->dup++;
		return 1;
	}
	if (seq > r->recvd)
		r->lost += seq - r->recvd;
	wn = unit_make(seq, mtu, want);
	if ((size_t)n != wn || memcmp(got, want, wn))
		r->bad++;
	r->recvd = seq + 1;
	return 1;
}

static int echo_write(int fd, struct echo_run *r, uint32_t mtu)
{
	uint8_t u[PHYLLO_UNIT_MAX];
	size_t len = unit_make(r->sent, mtu, u);
	ssize_t n = write(fd, u, len);

	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	if ((size_t)n != len)
		return -EIO;
	r->sent++;
	return 1;
}

static void print_stats(int fd, const struct echo_run *r, uint64_t ms)
{
	struct phyllo_link_stats s;

	memset(&s, 0, sizeof(s));
	if (ioctl(fd, PHYLLO_IOC_GET_STATS, &s) < 0)
		perror("PHYLLO_IOC_GET_STATS");
	printf("{\"sent\":%u,\"received\":%u,\"lost\":%u,\"duplicated\":%u,"
	       "\"corrupt\":%u,\"ms\":%llu,\"rx_units\":%u,\"tx_units\":%u,"
	       "\"rx_framing\":%u,\"rx_length\":%u,\"rx_crc\":%u,\"rx_type\":%u,"
	       "\"rx_overflow\":%u,\"rx_flags\":%u,\"rx_seq\":%u,\"rx_dup\":%u,"
	       "\"rx_hold\":%u,\"tx_retransmits\":%u,\"tx_timeouts\":%u,"
	       "\"tx_reset_lost\":%u,\"sessions\":%u,\"rx_queue_drops\":%u,"
	       "\"tx_overruns\":%u}\n",
	       r->sent, r->recvd, r->lost, r->dup, r->bad,
	       (unsigned long long)ms, s.rx_units, s.tx_units, s.rx_framing,
	       s.rx_length, s.rx_crc, s.rx_type, s.rx_overflow, s.rx_flags,
	       s.rx_seq, s.rx_dup, s.rx_hold, s.tx_retransmits, s.tx_timeouts,
	       s.tx_reset_lost, s.sessions, s.rx_queue_drops, s.tx_overruns);
}

static int echo_loop(int fd, struct echo_run *r, uint32_t mtu)
{
	uint64_t last = now_ms();
	struct pollfd p = { .fd = fd };
	int ret;

	while (r->recvd < r->count) {
		p.events = POLLIN;
		if (r->sent < r->count && r->sent - r->recvd < OUTSTANDING)
			p.events |= POLLOUT;
		if (poll(&p, 1, 1000) < 0 && errno != EINTR)
			return -errno;
		if (p.revents & (POLLPRI | POLLHUP)) {
			fprintf(stderr, "kclient: link reset or hung up (revents %#x)\n",
				p.revents);
			return -ECONNRESET;
		}
		ret = 0;
		if (p.revents & POLLIN)
			ret = echo_read(fd, r, mtu);
		if (ret >= 0 && (p.revents & POLLOUT))
			ret |= echo_write(fd, r, mtu);
		if (ret < 0)
			return ret;
		if (ret > 0)
			last = now_ms();
		else if (now_ms() - last > 30000)
			return -ETIMEDOUT;
	}
	return 0;
}

/* Stop the peer and wait until its end of the line is gone. */
static int stop_peer(int fd, pid_t peer)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint64_t t0 = now_ms();
	uint8_t u[PHYLLO_UNIT_MAX];

	if (kill(peer, SIGTERM) < 0)
		return -errno;
	while (now_ms() - t0 < 10000) {
		if (poll(&p, 1, 100) > 0 && (p.revents & POLLHUP))
			return 0;
		while (read(fd, u, sizeof(u)) > 0)
			;	/* late echoes of nothing: there are none */
	}
	return -ETIMEDOUT;
}

static int cmd_echo(const char *dev, uint32_t count, pid_t peer)
{
	struct echo_run r = { .count = count };
	struct phyllo_link_state st;
	uint64_t t0 = now_ms();
	int fd, ret;

	fd = open(dev, O_RDWR | O_NONBLOCK);
	if (fd < 0 || get_state(fd, &st) < 0) {
		perror(dev);
		return 1;
	}
	ret = echo_loop(fd, &r, st.mtu);
	if (ret == 0 && fsync(fd) < 0)
		ret = -errno;
	if (ret == 0 && peer > 0)
		ret = stop_peer(fd, peer);
	print_stats(fd, &r, now_ms() - t0);
	close(fd);
	if (ret < 0)
		fprintf(stderr, "kclient: echo on %s failed: %s (sent %u, received %u)\n",
			dev, strerror(-ret), r.sent, r.recvd);
	return ret < 0 || r.lost || r.dup || r.bad || r.recvd != count;
}

/* Child: block in read (expect EOF) or in write (expect EIO). */
static int hangup_child(const char *dev, int writer)
{
	uint8_t u[8] = { 0x30, 1, 2, 3, 4, 5, 6, 7 };
	int fd = open(dev, O_RDWR);
	ssize_t n;

	if (fd < 0)
		return 2;
	if (!writer) {
		n = read(fd, u, sizeof(u));
		printf("kclient: reader woke: read returned %zd (%s)\n", n,
		       n < 0 ? strerror(errno) : "end of file");
		return n == 0 ? 0 : 1;
	}
	while ((n = write(fd, u, sizeof(u))) > 0)
		;
	printf("kclient: writer woke: write returned %zd (%s)\n", n,
	       n < 0 ? strerror(errno) : "?");
	return n < 0 && errno == EIO ? 0 : 1;
}

static int wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int cmd_hangup(const char *dev, pid_t peer)
{
	struct pollfd p;
	pid_t rd, wr;
	int fd, bad = 0;

	fd = open(dev, O_RDWR);
	if (fd < 0 || kill(peer, SIGSTOP) < 0) {
		perror("kclient: hangup setup");
		return 1;
	}
	fflush(stdout);
	rd = fork();
	if (rd == 0)
		exit(hangup_child(dev, 0));
	wr = fork();
	if (wr == 0)
		exit(hangup_child(dev, 1));
	sleep(2);	/* both are asleep in the kernel by now */
	printf("kclient: reader and writer blocked; killing the peer\n");
	fflush(stdout);
	kill(peer, SIGKILL);
	alarm(30);
	bad |= wait_child(rd);
	bad |= wait_child(wr);
	p.fd = fd;
	p.events = POLLIN | POLLOUT;
	if (poll(&p, 1, 0) != 1 || !(p.revents & POLLHUP)) {
		printf("kclient: poll after hangup: revents %#x, no POLLHUP\n", p.revents);
		bad = 1;
	}
	close(fd);
	printf("kclient: hangup %s\n", bad ? "FAILED" : "ok: EOF, EIO, POLLHUP");
	return bad;
}

static int cmd_tty(const char *tty, int ldisc, int set)
{
	int fd = open(tty, O_RDWR | O_NOCTTY | O_NONBLOCK);
	__u32 unit;

	if (fd < 0) {
		perror(tty);
		return 1;
	}
	if (set && ioctl(fd, TIOCSETD, &ldisc) < 0) {
		perror("TIOCSETD");
		return 1;
	}
	if (!set) {
		if (ioctl(fd, PHYLLO_IOC_TTY_UNIT, &unit) < 0) {
			perror("PHYLLO_IOC_TTY_UNIT");
			return 1;
		}
		printf("%u\n", unit);
	}
	close(fd);
	return 0;
}

static int cmd_module(const char *arg, int load, const char *params)
{
	long ret;
	int fd;

	if (load) {
		fd = open(arg, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			perror(arg);
			return 1;
		}
		ret = syscall(SYS_finit_module, fd, params, 0);
		close(fd);
	} else {
		ret = syscall(SYS_delete_module, arg, O_NONBLOCK);
	}
	if (ret < 0) {
		fprintf(stderr, "kclient: %s %s: %s\n", load ? "insmod" : "rmmod",
			arg, strerror(errno));
		return 1;
	}
	return 0;
}

static int cmd_stall(const char *dev, unsigned int ms, uint32_t mode)
{
	struct phyllo_file_stats fs;
	unsigned char buf[PHYLLO_UNIT_MAX];
	unsigned long drained = 0, enobufs = 0;
	int fd = open(dev, O_RDWR | O_NONBLOCK);

	if (fd < 0) {
		perror(dev);
		return 1;
	}
	if (ioctl(fd, PHYLLO_IOC_SET_RECV_MODE, &mode) < 0) {
		perror("PHYLLO_IOC_SET_RECV_MODE");
		return 1;
	}
	/* the condition, not a time: a slow flood fills the queue later */
	for (;;) {
		if (ioctl(fd, PHYLLO_IOC_GET_FILE_STATS, &fs) < 0) {
			perror("PHYLLO_IOC_GET_FILE_STATS");
			return 1;
		}
		if (fs.rx_drops || ms < 50)
			break;
		usleep(50 * 1000u);
		ms -= 50;
	}
	while (read(fd, buf, sizeof(buf)) > 0 || errno == ECONNRESET ||
	       errno == ENOBUFS) {
		if (errno == ENOBUFS)
			enobufs++;
		else
			drained++;
		errno = 0;
	}
	printf("{\"rx_queued\":%u,\"rx_queued_bytes\":%u,\"rx_drops\":%u,"
	       "\"rx_filtered\":%u,\"drained\":%lu,\"enobufs\":%lu}\n", fs.rx_queued,
	       fs.rx_queued_bytes, fs.rx_drops, fs.rx_filtered, drained, enobufs);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "echo"))
		return cmd_echo(argv[2], (uint32_t)strtoul(argv[3], NULL, 0),
				argc == 5 ? (pid_t)strtol(argv[4], NULL, 0) : 0);
	if (argc == 4 && !strcmp(argv[1], "hangup"))
		return cmd_hangup(argv[2], (pid_t)strtol(argv[3], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "ldisc"))
		return cmd_tty(argv[2], atoi(argv[3]), 1);
	if (argc == 3 && !strcmp(argv[1], "unit"))
		return cmd_tty(argv[2], 0, 0);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "insmod"))
		return cmd_module(argv[2], 1, argc == 4 ? argv[3] : "");
	if (argc == 3 && !strcmp(argv[1], "rmmod"))
		return cmd_module(argv[2], 0, "");
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "stall"))
		return cmd_stall(argv[2], (unsigned int)strtoul(argv[3], NULL, 0),
				 argc == 5 && !strcmp(argv[4], "hold") ?
				 PHYLLO_RECV_HOLD : PHYLLO_RECV_DROP);
	fprintf(stderr, "usage: phyllo-kclient echo DEV COUNT [PEERPID] | hangup DEV PEERPID\n"
		"       | ldisc TTY N | unit TTY | insmod KO [PARAMS] | rmmod NAME\n"
		"       | stall DEV MS [hold]\n");
	return 2;
}
