// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_kernel.c - libphyllo over /dev/phylloN: the line discipline runs
 * the protocol; one read(2) is one unit, one write(2) one unit (see
 * phyllo(4)). The library reads only while its queue has room, so the
 * kernel's own per-file queue and back-pressure stay in charge. The
 * kernel's receive filter is the one subscription when there is exactly
 * one, else everything (the library filters).
 *
 * A blocking phyllo_recv() reads only once poll(2) said the file is
 * readable, and one unit per read: one message costs one poll and one
 * read, never a read that finds nothing (k_one, k_readable). Other
 * callers read until the file is empty, as the epoll set wants.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "lib.h"
#include "phyllo.h"

static int k_service(struct phyllo *h)
{
	uint8_t unit[LIB_UNIT_MAX];

	if (h->want_out) {
		h->want_out = false;
		phyllo_lib_io_events(h, EPOLLIN);
	}
	/* a request waits for its reply even past a full queue */
	while (!h->hungup && h->k_readable && (h->q_n < h->q_cap || h->req_active)) {
		ssize_t n = read(h->io_fd, unit, sizeof(unit));

		if (n > 0) {
			if (phyllo_lib_ingest(h, unit, (uint16_t)n))
				h->q_drops++;
			if (h->k_one && h->q_n)
				h->k_readable = false;	/* poll before the next read */
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			h->k_readable = false;
			break;
		}
		if (n < 0 && errno == ECONNRESET) {
			h->reset_pending = true;
			h->resets++;
			if (h->k_one)
				h->k_readable = false;
			continue;
		}
		/* 0: hung up or detached; any other error ends the link too */
		h->hungup = true;
		phyllo_lib_io_events(h, 0);
	}
	return 0;
}

static int k_mode(struct phyllo *h, bool unreliable)
{
	__u32 mode = unreliable ? PHYLLO_SEND_UNRELIABLE : PHYLLO_SEND_RELIABLE;

	if (unreliable == h->k_unreliable)
		return 0;
	if (ioctl(h->io_fd, PHYLLO_IOC_SET_SEND_MODE, &mode))
		return -errno;
	h->k_unreliable = unreliable;
	return 0;
}

static int k_send(struct phyllo *h, const uint8_t *unit, uint16_t len, bool reliable)
{
	ssize_t n;
	int ret = k_mode(h, !reliable);

	if (ret)
		return ret;
	n = write(h->io_fd, unit, len);
	if (n == len)
		return 0;
	if (n >= 0)
		return -EIO;
	if (errno == ECONNRESET)
		return -ECONNRESET;	/* the reader reports it too: counted there */
	if (errno == EIO) {
		h->hungup = true;	/* hung up or detached */
		return -EPIPE;
	}
	return errno == EINTR ? -EAGAIN : -errno;
}

static int k_filter(struct phyllo *h, bool everything)
{
	struct phyllo_subscription sub;
	const struct lib_sub *s = &h->subs[0];

	memset(&sub, 0, sizeof(sub));
	if (!everything && h->n_subs == 1 && s->by_type) {
		sub.flags = PHYLLO_SUB_TYPE;
		sub.type = s->type;
	} else if (!everything && h->n_subs == 1) {
		sub.flags = PHYLLO_SUB_TYPE | PHYLLO_SUB_TOPIC;
		sub.type = PHYLLO_TYPE_PUBSUB;
		sub.topic_len = s->len;
		memcpy(sub.topic, s->topic, s->len);
	}
	return ioctl(h->io_fd, PHYLLO_IOC_SUBSCRIBE, &sub) ? -errno : 0;
}

static int k_status(struct phyllo *h, struct phyllo_status *s)
{
	struct phyllo_link_state ls;

	if (ioctl(h->io_fd, PHYLLO_IOC_GET_STATE, &ls))
		return -errno;
	s->state = h->hungup ? PHYLLO_STATE_HUNGUP : ls.state;
	s->session = ls.session;
	s->resets = ls.resets;
	s->preset = ls.preset;
	s->mtu = ls.mtu;
	s->tx_in_flight = ls.tx_in_flight;
	s->window = ls.window;
	return 0;
}

static int k_stats(struct phyllo *h, uint32_t *v, unsigned int n)
{
	struct phyllo_link_stats st;

	if (ioctl(h->io_fd, PHYLLO_IOC_GET_STATS, &st))
		return -errno;
	_Static_assert(offsetof(struct phyllo_link_stats, reserved) ==
		       (PHYLLO_STATS_FIELDS + LIB_GLUE_STATS) * sizeof(__u32),
		       "the uapi counters are the core's and the glue's four");
	memcpy(v, &st, n * sizeof(*v));
	return 0;
}

/* This file's reliable units not yet acknowledged. */
static int k_in_flight(struct phyllo *h)
{
	struct phyllo_file_stats fs;

	if (h->hungup)
		return 0;
	if (ioctl(h->io_fd, PHYLLO_IOC_GET_FILE_STATS, &fs))
		return -errno;
	return (int)fs.tx_unacked;
}

static void k_taken(struct phyllo *h)
{
	(void)h;
}

static void k_close(struct phyllo *h)
{
	(void)h;
}

const struct lib_transport phyllo_lib_kernel_transport = {
	.kind = PHYLLO_TRANSPORT_KERNEL,
	.service = k_service,
	.send = k_send,
	.filter = k_filter,
	.status = k_status,
	.stats = k_stats,
	.in_flight = k_in_flight,
	.taken = k_taken,
	.close = k_close,
};

int phyllo_lib_kernel_init(struct phyllo *h)
{
	h->t = &phyllo_lib_kernel_transport;
	h->k_readable = true;	/* until a read finds it empty */
	return k_filter(h, false);
}
