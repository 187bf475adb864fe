// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib.c - libphyllo's API (libphyllo.h): opening a link whatever carries
 * it, the queue of received units, subscriptions, messages, requests.
 * The transports (lib_kernel.c, lib_tty.c) only move units.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "lib.h"
#include "json.h"
#include "phyllo.h"
#include "phyllo_pubsub.h"

#define LIB_QUEUE_DEFAULT 64

int64_t phyllo_lib_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int phyllo_lib_errno(int err)
{
	switch (err) {
	case PHYLLO_E_TOOBIG:  return EMSGSIZE;
	case PHYLLO_E_AGAIN:   return EAGAIN;
	case PHYLLO_E_NOSPACE: return EMSGSIZE;
	case PHYLLO_E_TOPIC:   return EINVAL;
	case PHYLLO_E_INVAL:   return EINVAL;
	default:               return EPROTO;
	}
}

const char *phyllo_version(void)
{
	return PHYLLO_VERSION;
}

const char *phyllo_strerror(int err)
{
	switch (-err) {
	case 0: return "success";
	case ENOTTY: return "not a tty nor a phyllo link device";
	case ECONNRESET: return "session reset: the far end restarted or the link was lost";
	case EPIPE: return "the link hung up or was detached (a named link would wait for its "
			   "board: phyllo attach --name)";
	case ENOLINK: return "the link is down: its board went away; this named link comes "
			     "back when the board does";
	case EMSGSIZE: return "message larger than the link carries";
	case ETIMEDOUT: return "timed out";
	case ECANCELED: return "the capture file PHYLLO_CAPTURE names cannot be written";
	default: return strerror(-err);
	}
}

void phyllo_options_init(struct phyllo_options *o)
{
	memset(o, 0, sizeof(*o));
	o->preset = PHYLLO_LIB_STANDARD;
}

/* ---- the queue and its filter ---- */

static bool lib_topic_is(const uint8_t *unit, uint16_t len, const uint8_t *topic, uint8_t n,
			 bool prefix)
{
	struct phyllo_pubsub m;

	if (len < 1 || unit[0] != PHYLLO_TYPE_PUBSUB ||
	    phyllo_pubsub_parse(unit + 1, (uint16_t)(len - 1), &m))
		return false;
	if (!prefix && m.topic_len != n)
		return false;
	return phyllo_pubsub_topic_match(&m, topic, n);
}

static bool lib_wanted(const struct phyllo *h, const uint8_t *unit, uint16_t len)
{
	unsigned int i;

	if (!h->n_subs)
		return true;
	for (i = 0; i < h->n_subs; i++) {
		const struct lib_sub *s = &h->subs[i];

		if (s->by_type ? unit[0] == s->type
			       : lib_topic_is(unit, len, s->topic, s->len, true))
			return true;
	}
	return false;
}

int phyllo_lib_ingest(struct phyllo *h, const uint8_t *unit, uint16_t len)
{
	struct lib_unit *u;

	if (!len || len > LIB_UNIT_MAX)
		return 0;
	if (h->req_active && !h->req_done &&
	    lib_topic_is(unit, len, h->req_topic, h->req_len, false)) {
		memcpy(h->req_reply.data, unit, len);
		h->req_reply.len = len;
		h->req_done = true;
		return 0;
	}
	if (!lib_wanted(h, unit, len)) {
		h->filtered++;
		return 0;
	}
	if (h->q_n == h->q_cap)
		return -ENOBUFS;
	u = &h->q[(h->q_head + h->q_n++) % h->q_cap];
	memcpy(u->data, unit, len);
	u->len = len;
	return 0;
}

void phyllo_lib_event_update(struct phyllo *h)
{
	bool want = h->q_n || h->reset_pending || h->down_pending ||
		    (h->hungup && !h->hup_reported);
	uint64_t v = 1;

	if (want == h->event_set)
		return;
	if (want) {
		if (write(h->event_fd, &v, sizeof(v)) != sizeof(v))
			return;
	} else if (read(h->event_fd, &v, sizeof(v)) != sizeof(v)) {
		return;
	}
	h->event_set = want;
}

void phyllo_lib_io_events(struct phyllo *h, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = h->io_fd };

	if (events == h->ep_events || h->io_fd < 0 || !h->ep_events)
		return;
	/* none: out of the set for good (a hung-up fd would report EPOLLHUP
	 * whatever it is asked for) */
	if (epoll_ctl(h->ep_fd, events ? EPOLL_CTL_MOD : EPOLL_CTL_DEL, h->io_fd, &ev) == 0)
		h->ep_events = events;
}

/*
 * The library's own waits look at the link only (its fd, the core's
 * timer), not at the event fd: that one stays readable while units wait
 * for the application, which is no reason for a request or a flush to
 * wake.
 */
int phyllo_lib_wait(struct phyllo *h, int64_t deadline_ms)
{
	struct pollfd p[2] = {
		{ .fd = h->ep_events ? h->io_fd : -1, .events = 0 },
		{ .fd = h->timer_fd, .events = POLLIN },
	};
	int timeout = -1;

	/* the kernel keeps what a full queue cannot take, and what follows
	 * a down or a reset the application was not told of yet: no reason
	 * to wake */
	if ((h->ep_events & EPOLLIN) && (h->t->kind != PHYLLO_TRANSPORT_KERNEL ||
					 ((h->q_n < h->q_cap || h->req_active) &&
					  !h->down_pending && !h->reset_pending)))
		p[0].events |= POLLIN;
	if (h->ep_events & EPOLLOUT)
		p[0].events |= POLLOUT;
	if (deadline_ms >= 0) {
		int64_t left = deadline_ms - phyllo_lib_now_ms();

		timeout = left < 0 ? 0 : left > 1000000 ? 1000000 : (int)left;
	}
	if (poll(p, h->timer_fd >= 0 ? 2 : 1, timeout) < 0) {
		if (errno != EINTR)
			return -errno;
		p[0].revents = 0;
	}
	if (p[0].revents & (POLLIN | POLLHUP | POLLERR))
		h->k_readable = true;
	return 0;
}

/* ---- opening ---- */

static int lib_epoll_add(struct phyllo *h, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	return epoll_ctl(h->ep_fd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

static struct phyllo *lib_alloc(const struct phyllo_options *o)
{
	unsigned int cap = o->queue ? o->queue : LIB_QUEUE_DEFAULT;
	struct phyllo *h;

	if (cap < 16 || cap > 4096) {
		errno = EINVAL;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->q = calloc(cap, sizeof(*h->q));
	h->q_cap = cap;
	h->io_fd = h->timer_fd = -1;
	h->flags = o->flags;
	h->ep_fd = epoll_create1(EPOLL_CLOEXEC);
	h->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (!h->q || h->ep_fd < 0 || h->event_fd < 0 || lib_epoll_add(h, h->event_fd, EPOLLIN)) {
		phyllo_close(h);
		errno = ENOMEM;
		return NULL;
	}
	return h;
}

/* Attach the handle to its fd and transport. Takes fd (closed on failure). */
int phyllo_lib_start(struct phyllo **out, int fd, bool kernel, bool is_tty,
		     const struct phyllo_options *o)
{
	struct phyllo *h = lib_alloc(o);
	int ret;

	if (!h) {
		ret = -errno;
		close(fd);
		return ret;
	}
	h->io_fd = fd;
	h->ep_events = EPOLLIN;
	ret = lib_epoll_add(h, fd, EPOLLIN);
	if (!ret)
		ret = kernel ? phyllo_lib_kernel_init(h) : phyllo_lib_tty_init(h, o, is_tty);
	if (ret) {
		h->t = NULL;	/* nothing to flush */
		phyllo_close(h);
		return ret;
	}
	*out = h;
	return 0;
}

/* /dev/phylloN of the tty that carries the line discipline, or -1. */
static int lib_ldisc_unit_fd(int fd)
{
	__u32 unit;
	char path[32];

	if (ioctl(fd, PHYLLO_IOC_TTY_UNIT, &unit) || unit == PHYLLO_UNIT_NONE)
		return -1;
	snprintf(path, sizeof(path), "/dev/phyllo%u", unit);
	return open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
}

int phyllo_open(struct phyllo **h, const char *path, const struct phyllo_options *o)
{
	struct phyllo_options def;
	struct phyllo_link_state ls;
	int fd, kfd;

	if (!h || !path)
		return -EINVAL;
	if (!o) {
		phyllo_options_init(&def);
		o = &def;
	}
	/* a regular file, a directory...: refused before it is opened */
	fd = phyllo_port_open(path, O_RDWR | O_NONBLOCK, true, NULL);
	if (fd < 0)
		return fd;
	if (isatty(fd) && o->transport != PHYLLO_TRANSPORT_KERNEL) {
		/* the discipline runs the protocol there already: use its device */
		kfd = lib_ldisc_unit_fd(fd);
		if (kfd < 0)
			return phyllo_lib_start(h, fd, false, true, o);
		close(fd);
		return phyllo_lib_start(h, kfd, true, false, o);
	}
	if (o->transport == PHYLLO_TRANSPORT_TTY ||
	    ioctl(fd, PHYLLO_IOC_GET_STATE, &ls) != 0) {
		close(fd);
		return -ENOTTY;
	}
	return phyllo_lib_start(h, fd, true, false, o);
}

int phyllo_open_fd(struct phyllo **h, int fd, const struct phyllo_options *o)
{
	struct phyllo_options def;

	if (!h || fd < 0)
		return -EINVAL;
	if (!o) {
		phyllo_options_init(&def);
		o = &def;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) || fcntl(fd, F_SETFD, FD_CLOEXEC))
		return -errno;
	return phyllo_lib_start(h, fd, false, isatty(fd), o);
}

void phyllo_close(struct phyllo *h)
{
	if (!h)
		return;
	if (h->t) {
		phyllo_flush(h, 1000);
		h->t->close(h);
	}
	if (h->io_fd >= 0)
		close(h->io_fd);
	if (h->timer_fd >= 0)
		close(h->timer_fd);
	if (h->ep_fd >= 0)
		close(h->ep_fd);
	if (h->event_fd >= 0)
		close(h->event_fd);
	phyllo_engine_free(&h->eng);
	free(h->q);
	free(h);
}

int phyllo_fd(const struct phyllo *h)
{
	return h->ep_fd;
}

int phyllo_transport(const struct phyllo *h)
{
	return h->t->kind;
}

int phyllo_mtu(const struct phyllo *h)
{
	struct phyllo_status s;

	if (phyllo_status((struct phyllo *)h, &s))
		return -EIO;
	return (int)s.mtu;
}

int phyllo_dispatch(struct phyllo *h)
{
	int ret;

	h->k_readable = true;	/* the caller's poll, or none: read to see */
	ret = h->t->service(h);

	phyllo_lib_event_update(h);
	return ret < 0 ? ret : (int)h->q_n;
}

int phyllo_wait_up(struct phyllo *h, int timeout_ms)
{
	int64_t deadline = timeout_ms < 0 ? -1 : phyllo_lib_now_ms() + timeout_ms;
	struct phyllo_status s;
	int ret;

	for (;;) {
		ret = phyllo_dispatch(h);
		if (ret < 0)
			return ret;
		ret = phyllo_status(h, &s);
		if (ret)
			return ret;
		if (s.state == PHYLLO_STATE_UP)
			return 0;
		if (s.state == PHYLLO_STATE_HUNGUP)
			return -EPIPE;
		if (deadline >= 0 && phyllo_lib_now_ms() >= deadline)
			return -ETIMEDOUT;
		ret = phyllo_lib_wait(h, deadline >= 0 && deadline < phyllo_lib_now_ms() + 50 ? deadline
								    : phyllo_lib_now_ms() + 50);
		if (ret)
			return ret;
	}
}

/* ---- sending ---- */

int phyllo_send(struct phyllo *h, uint8_t type, const void *payload, size_t len,
		unsigned int flags)
{
	uint8_t unit[LIB_UNIT_MAX];
	int ret;

	if (type < PHYLLO_TYPE_BUFFER || (len && !payload))
		return -EINVAL;
	if (len > LIB_UNIT_MAX - 1)	/* the transport knows its own, smaller, MTU */
		return -EMSGSIZE;
	unit[0] = type;
	if (len)
		memcpy(unit + 1, payload, len);
	for (;;) {
		if (h->hungup)
			return -EPIPE;
		ret = h->t->send(h, unit, (uint16_t)(len + 1), !(flags & PHYLLO_MSG_UNRELIABLE));
		if (ret != -EAGAIN || (h->flags & PHYLLO_OPEN_NONBLOCK))
			break;
		ret = phyllo_lib_wait(h, phyllo_lib_now_ms() + 100);
		if (ret)
			break;
		ret = h->t->service(h);
		if (ret)
			break;
	}
	/*
	 * /dev/phylloN polls writable when its window has room. A tty's
	 * window opens with bytes in, which wake the handle already; its
	 * POLLOUT says only that the tty takes bytes (nearly always), and a
	 * caller retrying at each wake-up would spin.
	 */
	if (!ret && !(flags & PHYLLO_MSG_UNRELIABLE) && !h->unflushed) {
		h->unflushed = true;
		h->unflushed_ends = h->resets + h->downs;
	}
	if (ret == -EAGAIN && h->t->kind == PHYLLO_TRANSPORT_KERNEL) {
		h->want_out = true;
		phyllo_lib_io_events(h, EPOLLIN | EPOLLOUT);
	}
	phyllo_lib_event_update(h);
	return ret;
}

int phyllo_publish_doc(struct phyllo *h, const char *topic, uint8_t format, uint8_t schema,
		       const void *body, size_t len, unsigned int flags)
{
	uint8_t p[LIB_UNIT_MAX];
	size_t tl = topic ? strlen(topic) : 0;
	int n;

	if (tl > PHYLLO_TOPIC_MAX)
		return -EINVAL;
	n = phyllo_pubsub_header(p, sizeof(p), PHYLLO_TYPE_DOCUMENT, (const uint8_t *)topic,
				 (uint8_t)tl);
	if (n < 0)
		return -phyllo_lib_errno(n);
	n += phyllo_doc_header(p + n, format, schema);
	if (len > sizeof(p) - (size_t)n)
		return -EMSGSIZE;
	if (len)
		memcpy(p + n, body, len);
	return phyllo_send(h, PHYLLO_TYPE_PUBSUB, p, (size_t)n + len, flags);
}

int phyllo_publish(struct phyllo *h, const char *topic, const void *doc, size_t len,
		   unsigned int flags)
{
	return phyllo_publish_doc(h, topic, PHYLLO_FORMAT_MSGPACK, PHYLLO_SCHEMA_NONE, doc, len,
				  flags);
}

int phyllo_publish_json(struct phyllo *h, const char *topic, const char *json,
			unsigned int flags)
{
	uint8_t doc[LIB_UNIT_MAX];
	int n = phyllo_json_to_msgpack(json, doc, sizeof(doc), NULL, 0);

	if (n < 0)
		return n;
	return phyllo_publish(h, topic, doc, (size_t)n, flags);
}

/*
 * A session that ends (a reset, or a named link going down) while units
 * are unacknowledged loses them, and the unit count just drops to 0: so
 * a flush that saw units in flight, or follows a send, and then the
 * session end returns -ECONNRESET, not 0 (it may say so of units
 * acknowledged just before the end; it never says 0 of one lost). The
 * end is seen in two ways: a read reported it since the first send
 * this flush covers (here, or the application's phyllo_recv() before
 * the flush), or the kernel says, with the count that dropped, that it
 * has not told this file yet (the reset may come between this loop's
 * read and its count, or the reads may be stopped by a full queue or an
 * earlier event not yet taken).
 */
int phyllo_flush(struct phyllo *h, int timeout_ms)
{
	int64_t deadline = timeout_ms < 0 ? -1 : phyllo_lib_now_ms() + timeout_ms;
	uint32_t ends = h->unflushed ? h->unflushed_ends : h->resets + h->downs;
	int ret = h->t->in_flight(h);
	bool pending = ret > 0 || h->unflushed;

	h->unflushed = false;
	if (ret < 0)
		return ret;
	for (;;) {
		ret = h->t->service(h);
		if (ret < 0)
			return ret;
		ret = h->t->in_flight(h);
		if (ret < 0)
			return ret;
		if (pending && (h->resets + h->downs != ends || h->ends_unseen))
			return -ECONNRESET;
		if (ret == 0)
			return 0;
		pending = true;
		if (h->hungup)
			return -EPIPE;
		if (deadline >= 0 && phyllo_lib_now_ms() >= deadline)
			return -ETIMEDOUT;
		/* the kernel says nothing when its window empties: look again soon */
		phyllo_lib_wait(h, phyllo_lib_now_ms() + 5 < deadline || deadline < 0 ? phyllo_lib_now_ms() + 5
									 : deadline);
	}
}

/* ---- receiving ---- */

static int lib_filter(struct phyllo *h)
{
	return h->t->filter(h, false);
}

int phyllo_subscribe(struct phyllo *h, const char *prefix)
{
	size_t n = prefix ? strlen(prefix) : 0;
	struct lib_sub *s;

	if (n > PHYLLO_TOPIC_MAX)
		return -EINVAL;
	if (h->n_subs == LIB_SUBS_MAX)
		return -ENOSPC;
	s = &h->subs[h->n_subs++];
	memset(s, 0, sizeof(*s));
	s->len = (uint8_t)n;
	memcpy(s->topic, prefix, n);
	return lib_filter(h);
}

int phyllo_subscribe_type(struct phyllo *h, uint8_t type)
{
	struct lib_sub *s;

	if (type < PHYLLO_TYPE_BUFFER)
		return -EINVAL;
	if (h->n_subs == LIB_SUBS_MAX)
		return -ENOSPC;
	s = &h->subs[h->n_subs++];
	memset(s, 0, sizeof(*s));
	s->by_type = true;
	s->type = type;
	return lib_filter(h);
}

int phyllo_unsubscribe_all(struct phyllo *h)
{
	h->n_subs = 0;
	return lib_filter(h);
}

/* Point m into u. */
static void lib_message(struct phyllo_message *m, const struct lib_unit *u)
{
	struct phyllo_pubsub ps;
	struct phyllo_doc d;

	memset(m, 0, sizeof(*m));
	m->type = u->data[0];
	m->unit = u->data;
	m->unit_len = u->len;
	m->data = u->data + 1;
	m->len = u->len - 1u;
	if (m->type != PHYLLO_TYPE_PUBSUB ||
	    phyllo_pubsub_parse(u->data + 1, (uint16_t)(u->len - 1), &ps))
		return;
	m->is_pubsub = 1;
	m->payload_type = ps.type;
	m->topic_len = ps.topic_len;
	memcpy(m->topic, ps.topic, ps.topic_len);
	m->data = ps.payload;
	m->len = ps.len;
	if (ps.type != PHYLLO_TYPE_DOCUMENT || phyllo_doc_parse(ps.payload, ps.len, &d))
		return;
	m->is_document = 1;
	m->format = d.format;
	m->schema = d.schema;
	m->data = d.body;
	m->len = d.len;
}

/* What the queue has to say now: 0 with a unit, or -EAGAIN. */
static int lib_take(struct phyllo *h, struct phyllo_message *m)
{
	if (h->q_n) {
		h->cur = h->q[h->q_head];
		h->q_head = (h->q_head + 1) % h->q_cap;
		h->q_n--;
		h->t->taken(h);
		lib_message(m, &h->cur);
		return 0;
	}
	if (h->down_pending) {
		h->down_pending = false;
		return -ENOLINK;
	}
	if (h->reset_pending) {
		h->reset_pending = false;
		return -ECONNRESET;
	}
	if (h->hungup) {
		h->hup_reported = true;
		return -EPIPE;
	}
	return -EAGAIN;
}

int phyllo_recv(struct phyllo *h, struct phyllo_message *m, int timeout_ms)
{
	int64_t deadline = timeout_ms < 0 ? -1 : phyllo_lib_now_ms() + timeout_ms;
	/* the kernel file is read only when poll says so or a read found
	 * it empty (lib_kernel.c): poll once even when the time is up */
	bool polled = h->t->kind != PHYLLO_TRANSPORT_KERNEL;
	int ret;

	if (!polled)
		phyllo_lib_kernel_recv_start(h);
	for (;;) {
		ret = h->t->service(h);
		if (ret >= 0)
			ret = lib_take(h, m);
		phyllo_lib_event_update(h);
		if (ret != -EAGAIN)
			break;
		if (deadline >= 0 && phyllo_lib_now_ms() >= deadline &&
		    (polled || h->k_readable || h->k_empty)) {
			ret = timeout_ms ? -ETIMEDOUT : -EAGAIN;
			break;
		}
		ret = phyllo_lib_wait(h, deadline);
		polled = true;
		if (ret)
			break;
	}
	h->k_one = false;
	return ret;
}

int phyllo_request(struct phyllo *h, const char *topic, const void *doc, size_t len,
		   struct phyllo_message *reply, int timeout_ms)
{
	int64_t deadline = timeout_ms < 0 ? -1 : phyllo_lib_now_ms() + timeout_ms;
	size_t tl = topic ? strlen(topic) : 0;
	int ret;

	if (tl > PHYLLO_TOPIC_MAX)
		return -EINVAL;
	h->req_active = true;
	h->req_done = false;
	h->req_len = (uint8_t)tl;
	memcpy(h->req_topic, topic, tl);
	ret = h->t->filter(h, true);	/* the kernel must let the reply through */
	if (!ret)
		ret = phyllo_publish(h, topic, doc, len, 0);
	while (!ret && !h->req_done) {
		ret = h->t->service(h);
		if (ret || h->req_done)
			break;
		if (h->down_pending) {
			h->down_pending = false;
			ret = -ENOLINK;
		} else if (h->reset_pending) {
			h->reset_pending = false;
			ret = -ECONNRESET;
		} else if (h->hungup) {
			ret = -EPIPE;
		} else if (deadline >= 0 && phyllo_lib_now_ms() >= deadline) {
			ret = -ETIMEDOUT;
		} else {
			ret = phyllo_lib_wait(h, deadline);
		}
	}
	h->req_active = false;
	lib_filter(h);
	phyllo_lib_event_update(h);
	if (ret)
		return ret;
	h->cur = h->req_reply;
	lib_message(reply, &h->cur);
	return 0;
}

/* ---- state ---- */

int phyllo_status(struct phyllo *h, struct phyllo_status *s)
{
	memset(s, 0, sizeof(*s));
	s->transport = (uint32_t)h->t->kind;
	s->queued = h->q_n;
	return h->t->status(h, s);
}

int phyllo_stats(struct phyllo *h, uint32_t *v, unsigned int max)
{
	uint32_t all[PHYLLO_STATS_FIELDS + LIB_GLUE_STATS];
	unsigned int n = PHYLLO_STATS_FIELDS + LIB_GLUE_STATS;
	int ret;

	memset(all, 0, sizeof(all));
	ret = h->t->stats(h, all, n);
	if (ret < 0)
		return ret;
	memcpy(v, all, (max < n ? max : n) * sizeof(*v));
	return (int)n;
}

int phyllo_stats64(struct phyllo *h, uint64_t *v, unsigned int max)
{
	uint64_t all[PHYLLO_STATS_FIELDS + LIB_GLUE_STATS];
	unsigned int n = PHYLLO_STATS_FIELDS + LIB_GLUE_STATS;
	int ret;

	memset(all, 0, sizeof(all));
	ret = h->t->stats64(h, all, n);
	if (ret < 0)
		return ret;
	memcpy(v, all, (max < n ? max : n) * sizeof(*v));
	return (int)n;
}

#include "stats_list.h"

#define LIB_STAT_NAME(f) #f,
static const char *const lib_stat_names[] = {
	PHYLLO_STATS_LIST(LIB_STAT_NAME)
	"rx_tty_errors", "rx_queue_drops", "rx_unclaimed", "tx_overruns",
	"rx_evictions", "rx_hold_ms",
};
_Static_assert(sizeof(lib_stat_names) / sizeof(lib_stat_names[0]) ==
	       PHYLLO_STATS_FIELDS + LIB_GLUE_STATS, "every counter needs a name");

const char *phyllo_stat_name(unsigned int i)
{
	return i < sizeof(lib_stat_names) / sizeof(lib_stat_names[0]) ? lib_stat_names[i] : NULL;
}

/* ---- JSON ---- */

int phyllo_json_to_msgpack(const char *json, void *out, size_t cap, char *err, size_t errlen)
{
	struct phyllo_mp_writer w;
	char buf[160];

	if (!json || !out)
		return -EINVAL;
	phyllo_mp_writer_init(&w, out, (uint16_t)(cap > 65535 ? 65535 : cap));
	if (phyllo_json_parse(json, &w, buf, sizeof(buf))) {
		if (err && errlen)
			snprintf(err, errlen, "%s", buf);
		return w.err ? -EMSGSIZE : -EINVAL;
	}
	return w.len;
}

int phyllo_msgpack_to_json(const void *doc, size_t len, char *out, size_t cap)
{
	struct phyllo_mp_reader r;
	FILE *f;
	long n;
	int ret;

	if (!doc || !out || !cap || len > 65535)
		return -EINVAL;
	f = fmemopen(out, cap, "w");
	if (!f)
		return -errno;
	phyllo_mp_reader_init(&r, doc, (uint16_t)len);
	ret = phyllo_json_print(&r, f) || r.pos != len ? -EINVAL : 0;
	n = ftell(f);
	if (fclose(f) || (size_t)n >= cap)
		return -EMSGSIZE;
	return ret ? ret : (int)n;
}
