// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_kernel.c - libphyllo over /dev/phylloN: the line discipline runs
 * the protocol; one read(2) is one unit, one write(2) one unit (see
 * phyllo(4)). The library reads only while its queue has room, so the
 * kernel's own per-file queue and back-pressure stay in charge. The
 * kernel's receive filter is the one subscription when there is exactly
 * one, else everything (the library filters).
 *
 * A blocking phyllo_recv() reads one unit per read (k_one). Whether it
 * reads before poll(2) says a unit is there is learnt from what the last
 * such read found (phyllo_lib_kernel_recv_start(), k_tried()):
 *  - units that queue up faster than the application takes them are
 *    read first, one read a unit and no poll;
 *  - units that come one at a time after the application asked are
 *    polled for first, one poll and one read each: a read first would
 *    find nothing;
 *  - a read first that found nothing means poll first for the next
 *    k_backoff calls, then try again; each try that finds nothing
 *    doubles k_backoff (up to K_BACKOFF_MAX), and the end of a run of
 *    units found at once sets it to 1, so a slow stream costs about one
 *    empty read in K_BACKOFF_MAX units and a stream that speeds up is
 *    read first again soon.
 * Other callers read until the file is empty, as the epoll set wants.
 *
 * A named link's down and up (phyllo(4)) come as one read failing with
 * ENOLINK, and later one with ECONNRESET. Reading stops at either until
 * phyllo_recv() has reported it, so the application learns of the down,
 * the up and the new session's units in the order the kernel gave them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "lib.h"
#include "phyllo.h"

#define K_BACKOFF_FIRST 4	/* a new handle: as after a few empty tries */
#define K_BACKOFF_MAX 64

void phyllo_lib_kernel_recv_start(struct phyllo *h)
{
	h->k_one = true;
	h->k_empty = false;
	h->k_trying = false;
	if (h->q_n)
		return;
	if (!h->k_readable && !h->k_ahead && h->k_skip) {
		h->k_skip--;
		return;
	}
	h->k_readable = true;
	h->k_trying = true;
}

/* What the read tried before any poll found: a unit, or nothing. */
static void k_tried(struct phyllo *h, bool found)
{
	if (!h->k_trying)
		return;
	h->k_trying = false;
	if (!found) {
		h->k_backoff = h->k_ahead ? 1 :
			       h->k_backoff < K_BACKOFF_MAX / 2 ? h->k_backoff * 2 : K_BACKOFF_MAX;
		h->k_skip = h->k_backoff;
	}
	h->k_ahead = found;
}

/* A read said the session ended: the link went down (ENOLINK), or it
 * was reset or came up again (ECONNRESET). */
static void k_event(struct phyllo *h, bool down)
{
	if (down) {
		h->down_pending = true;
		h->down = true;
		h->downs++;
	} else {
		h->reset_pending = true;
		h->down = false;
		h->resets++;
	}
	if (h->k_one)
		h->k_readable = false;
}

static int k_service(struct phyllo *h)
{
	uint8_t unit[LIB_UNIT_MAX];

	if (h->want_out) {
		h->want_out = false;
		phyllo_lib_io_events(h, EPOLLIN);
	}
	/* a request waits for its reply even past a full queue */
	while (!h->hungup && !h->down_pending && !h->reset_pending && h->k_readable &&
	       (h->q_n < h->q_cap || h->req_active)) {
		ssize_t n = read(h->io_fd, unit, sizeof(unit));

		if (n > 0) {
			if (phyllo_lib_ingest(h, unit, (uint16_t)n))
				h->q_drops++;
			k_tried(h, true);
			if (h->k_one && h->q_n)
				h->k_readable = false;	/* the next call decides */
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			k_tried(h, false);
			h->k_readable = false;
			h->k_empty = true;
			break;
		}
		if (n < 0 && errno == ENOBUFS) {
			/* this file fell behind and the kernel dropped units
			 * for it (phyllo(4), rule 3): at least one lost; the
			 * queued ones follow */
			h->q_drops++;
			k_tried(h, true);
			continue;
		}
		if (n < 0 && (errno == ECONNRESET || errno == ENOLINK)) {
			k_event(h, errno == ENOLINK);
			k_tried(h, true);
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
		       "the uapi counters are the core's and the glue's six");
	memcpy(v, &st, n * sizeof(*v));
	return 0;
}

/* The totals since the link was attached; a module from before
 * PHYLLO_IOC_GET_STATS64 does not know it (ENOTTY): its 32-bit ones. */
static int k_stats64(struct phyllo *h, uint64_t *v, unsigned int n)
{
	struct phyllo_link_stats64 st;
	uint32_t v32[PHYLLO_STATS_FIELDS + LIB_GLUE_STATS];
	unsigned int i;
	int ret;

	_Static_assert(offsetof(struct phyllo_link_stats64, reserved) ==
		       (PHYLLO_STATS_FIELDS + LIB_GLUE_STATS) * sizeof(__u64),
		       "the same counters as struct phyllo_link_stats");
	if (!ioctl(h->io_fd, PHYLLO_IOC_GET_STATS64, &st)) {
		memcpy(v, &st, n * sizeof(*v));
		return 0;
	}
	if (errno != ENOTTY)
		return -errno;
	ret = k_stats(h, v32, n);
	for (i = 0; !ret && i < n; i++)
		v[i] = v32[i];
	return ret;
}

/* This file's reliable units not yet acknowledged. */
static int k_in_flight(struct phyllo *h)
{
	struct phyllo_file_stats fs;

	h->ends_unseen = 0;
	if (h->hungup)
		return 0;
	if (ioctl(h->io_fd, PHYLLO_IOC_GET_FILE_STATS, &fs))
		return -errno;
	/* taken together: a unit retired as lost comes with its reset */
	h->ends_unseen = fs.resets_unseen;
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
	.stats64 = k_stats64,
	.in_flight = k_in_flight,
	.taken = k_taken,
	.close = k_close,
};

int phyllo_lib_kernel_init(struct phyllo *h)
{
	h->t = &phyllo_lib_kernel_transport;
	h->k_readable = true;	/* until a read finds it empty */
	h->k_backoff = K_BACKOFF_FIRST;
	return k_filter(h, false);
}
