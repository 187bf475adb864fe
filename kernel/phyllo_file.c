// SPDX-License-Identifier: GPL-2.0-only
/*
 * phyllo_file.c - one open /dev/phylloN: its receive queue, subscription,
 * send mode and the blocking rules of read, write, fsync and poll.
 *
 * Contract:
 *  1. A received unit is allocated once, with one queue entry for each
 *     file whose subscription matches (fan-out), and freed when the last
 *     of them reads or drops it; the pub-sub header is parsed once.
 *     Receive memory is bounded per file (cfg.rxq_units, cfg.rxq_bytes),
 *     per link (cfg.rxq_link_bytes, each unit counted once) and by the
 *     number of open files (cfg.max_files).
 *  2. A reliable unit is taken only when every matching file can take it
 *     and its copy is allocated; otherwise it is refused as a whole (never
 *     acknowledged: the peer resends it after a read makes room). A file
 *     that is short of room starts its own stall clock then, every such
 *     file at once, and a file with room stops it; a file short for
 *     cfg.rxq_stall_ms no longer holds the link: it loses its copy
 *     (counted) and the others get theirs. So however many readers stop,
 *     a live reader waits at most rxq_stall_ms plus one retransmission.
 *     Files the unit does not match never hold it. Other units (NOS,
 *     lower presets) are dropped, and counted, for files with no room.
 *  3. A read returns one whole unit or fails; the unit leaves the queue
 *     only once it was copied out (EMSGSIZE and EFAULT leave it first).
 *     Readers of one file take turns (read_lock).
 *  4. A session reset reaches a reader in order: units queued before it
 *     are read first, then one read fails with ECONNRESET, then the new
 *     session's units follow. The next write or fsync also fails once
 *     with ECONNRESET unless a read or write of this file reported that
 *     reset already. A dead link gives EOF to readers (after what is
 *     queued), EIO to writers. fsync waits for this file's own frames to
 *     leave and its reliable units to be acknowledged (or lost to a
 *     reset), not for other files'.
 *  5. Functions here take kernel buffers; phyllo_chrdev.c copies to and
 *     from userspace, so the KUnit suites drive these directly.
 */
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "phyllo_link.h"
#include "phyllo_pubsub.h"

/* NULL with *err -ENOMEM, or -EBUSY when the link has max_files open. */
struct phyllo_file *phyllo_file_open(struct phyllo_link *link, int *err)
{
	struct phyllo_file *pf = kzalloc(sizeof(*pf), GFP_KERNEL);

	*err = -ENOMEM;
	if (!pf)
		return NULL;
	pf->link = link;
	INIT_LIST_HEAD(&pf->rxq);
	mutex_init(&pf->read_lock);
	init_waitqueue_head(&pf->rwait);
	mutex_lock(&link->lock);
	if (link->nfiles >= link->cfg.max_files) {
		mutex_unlock(&link->lock);
		mutex_destroy(&pf->read_lock);
		kfree(pf);
		*err = -EBUSY;
		return NULL;
	}
	link->nfiles++;
	pf->reset_gen = link->reset_gen;
	list_add_tail(&pf->node, &link->files);
	mutex_unlock(&link->lock);
	*err = 0;
	return pf;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_file_open);

/* One file is done with an entry (read or released): the last frees it. */
static void phyllo_rxent_pop_locked(struct phyllo_file *pf,
				    struct phyllo_rxent *ent)
{
	struct phyllo_link *link = pf->link;
	struct phyllo_rxbuf *buf = ent->buf;

	lockdep_assert_held(&link->lock);
	list_del(&ent->node);
	pf->rxq_units--;
	pf->rxq_bytes -= buf->len;
	if (--buf->refs)
		return;
	link->rxq_bytes -= buf->len;
	kfree(buf);
}

void phyllo_file_release(struct phyllo_file *pf)
{
	struct phyllo_link *link = pf->link;
	struct phyllo_rxent *ent, *tmp;

	mutex_lock(&link->lock);
	list_del(&pf->node);
	link->nfiles--;
	list_for_each_entry_safe(ent, tmp, &pf->rxq, node)
		phyllo_rxent_pop_locked(pf, ent);
	phyllo_link_room_locked(link);
	phyllo_link_kick_locked(link);
	mutex_unlock(&link->lock);
	mutex_destroy(&pf->read_lock);
	kfree(pf);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_file_release);

static bool phyllo_topic_zero_after(const struct phyllo_subscription *sub,
				    u32 from)
{
	for (; from < PHYLLO_TOPIC_BYTES; from++)
		if (sub->topic[from])
			return false;
	return true;
}

int phyllo_sub_check(const struct phyllo_subscription *sub)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sub->reserved); i++)
		if (sub->reserved[i])
			return -EINVAL;
	if (sub->flags & ~(PHYLLO_SUB_TYPE | PHYLLO_SUB_TOPIC))
		return -EINVAL;
	if (sub->flags & PHYLLO_SUB_TYPE ?
	    sub->type <= PHYLLO_TYPE_INTERNAL_MAX || sub->type > U8_MAX :
	    sub->type != 0)
		return -EINVAL;
	if (!(sub->flags & PHYLLO_SUB_TOPIC))
		return sub->topic_len || !phyllo_topic_zero_after(sub, 0) ?
		       -EINVAL : 0;
	if (sub->topic_len > PHYLLO_TOPIC_MAX ||
	    !phyllo_topic_zero_after(sub, sub->topic_len))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_sub_check);

/* One received unit, with its pub-sub header parsed once for all files. */
struct phyllo_rx {
	const struct phyllo_unit *u;
	bool pubsub;			/* m holds a valid pub-sub header */
	struct phyllo_pubsub m;
};

static void phyllo_rx_parse(struct phyllo_rx *rx, const struct phyllo_unit *u)
{
	rx->u = u;
	rx->pubsub = u->type == PHYLLO_TYPE_PUBSUB &&
		     phyllo_pubsub_parse(u->data, u->len, &rx->m) >= 0;
}

static bool phyllo_sub_match_rx(const struct phyllo_subscription *sub,
				const struct phyllo_rx *rx)
{
	if ((sub->flags & PHYLLO_SUB_TYPE) && rx->u->type != sub->type)
		return false;
	if (!(sub->flags & PHYLLO_SUB_TOPIC))
		return true;
	return rx->pubsub &&
	       phyllo_pubsub_topic_match(&rx->m, sub->topic, sub->topic_len);
}

bool phyllo_sub_match(const struct phyllo_subscription *sub, u8 type,
		      const u8 *data, size_t len)
{
	struct phyllo_unit u = { .type = type, .data = data, .len = len };
	struct phyllo_rx rx;

	phyllo_rx_parse(&rx, &u);
	return phyllo_sub_match_rx(sub, &rx);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_sub_match);

/* Room for a unit of len bytes in this file's own bounds. */
static bool phyllo_file_room(const struct phyllo_file *pf, u32 len)
{
	const struct phyllo_link_config *cfg = &pf->link->cfg;

	return pf->rxq_units < cfg->rxq_units &&
	       pf->rxq_bytes + len <= cfg->rxq_bytes;
}

/*
 * Can this file take the unit? Every file short of room runs its own
 * stall clock from the first time it is found short, and a file found
 * with room stops it, so clocks run side by side, never one after the
 * other. Returns false if it is short; *stalled then says it has been
 * short for rxq_stall_ms.
 */
static bool phyllo_file_check_room(struct phyllo_file *pf, u32 len,
				   bool link_room, u32 now, bool *stalled)
{
	*stalled = false;
	if (link_room && phyllo_file_room(pf, len)) {
		pf->full = false;
		return true;
	}
	if (!pf->full) {
		pf->full = true;
		pf->full_since = now;
	}
	*stalled = now - pf->full_since >= pf->link->cfg.rxq_stall_ms;
	return false;
}

/*
 * Which matching files take the unit; returns how many, or -1 if it is
 * to be refused (refusable, and a matching file short of room that has
 * not stalled). Files that match but do not take it have take false.
 */
static int phyllo_files_claim_locked(struct phyllo_link *link,
				     const struct phyllo_rx *rx, u32 len,
				     bool refusable, int *claimed)
{
	bool link_room = link->rxq_bytes + len <= link->cfg.rxq_link_bytes;
	u32 now = phyllo_link_now(link);
	struct phyllo_file *pf;
	bool refuse = false, stalled;
	int takers = 0;

	lockdep_assert_held(&link->lock);
	*claimed = 0;
	list_for_each_entry(pf, &link->files, node) {
		pf->take = false;
		if (!phyllo_sub_match_rx(&pf->sub, rx))
			continue;
		(*claimed)++;
		pf->take = phyllo_file_check_room(pf, len, link_room, now,
						  &stalled);
		if (pf->take)
			takers++;
		else if (!stalled)
			refuse = true;
	}
	return refusable && refuse ? -1 : takers;
}

/* One allocation for every file that takes the unit. */
static struct phyllo_rxbuf *phyllo_rxbuf_alloc(struct phyllo_link *link,
					       const struct phyllo_unit *u,
					       int takers)
{
	struct phyllo_rxbuf *buf;

#ifdef PHYLLO_KUNIT_HOOKS
	if (link->test_fail_allocs) {
		link->test_fail_allocs--;
		return NULL;
	}
#endif
	buf = kmalloc(struct_size(buf, ent, takers) + u->len + 1,
		      GFP_KERNEL | __GFP_NOWARN);
	if (!buf)
		return NULL;
	buf->refs = 0;
	buf->len = u->len + 1;
	buf->data = (u8 *)&buf->ent[takers];
	buf->data[0] = u->type;
	memcpy(buf->data + 1, u->data, u->len);
	return buf;
}

static void phyllo_file_enqueue_locked(struct phyllo_file *pf,
				       struct phyllo_rxbuf *buf)
{
	struct phyllo_rxent *ent = &buf->ent[buf->refs++];

	lockdep_assert_held(&pf->link->lock);
	ent->buf = buf;
	ent->reset_before = pf->reset_tail;
	pf->reset_tail = false;
	list_add_tail(&ent->node, &pf->rxq);
	pf->rxq_units++;
	pf->rxq_bytes += buf->len;
	wake_up_interruptible_poll(&pf->rwait, EPOLLIN | EPOLLRDNORM);
}

static void phyllo_file_drop_locked(struct phyllo_file *pf,
				    const struct phyllo_unit *u)
{
	lockdep_assert_held(&pf->link->lock);
	pf->stats.rx_drops++;
	pf->link->gstats.rx_queue_drops++;
	trace_phyllo_queue_drop(pf->link->unit, u->type, u->len,
				pf->rxq_units);
}

/*
 * Deliver a unit to every matching file. False: a reliable unit that is
 * refused as a whole (no copy queued anywhere), because a matching file
 * has no room and has not stalled, or its copy could not be allocated.
 */
bool phyllo_files_deliver_locked(struct phyllo_link *link,
				 const struct phyllo_unit *u, bool refusable)
{
	struct phyllo_rxbuf *buf = NULL;
	struct phyllo_file *pf;
	struct phyllo_rx rx;
	int takers, claimed;

	lockdep_assert_held(&link->lock);
	phyllo_rx_parse(&rx, u);
	takers = phyllo_files_claim_locked(link, &rx, u->len + 1, refusable,
					   &claimed);
	if (takers < 0)
		return false;
	if (takers) {
		buf = phyllo_rxbuf_alloc(link, u, takers);
		if (!buf && refusable)
			return false;
	}
	list_for_each_entry(pf, &link->files, node) {
		if (!phyllo_sub_match_rx(&pf->sub, &rx)) {
			pf->stats.rx_filtered++;
			continue;
		}
		if (pf->take && buf)
			phyllo_file_enqueue_locked(pf, buf);
		else
			phyllo_file_drop_locked(pf, u);
	}
	if (buf)
		link->rxq_bytes += buf->len;
	trace_phyllo_rx_unit(link->unit, u->type, u->len, claimed);
	if (!claimed)
		link->gstats.rx_unclaimed++;
	return true;
}

/* A session reset: each file's reader sees it after what is queued. */
void phyllo_files_reset_locked(struct phyllo_link *link)
{
	struct phyllo_file *pf;

	lockdep_assert_held(&link->lock);
	list_for_each_entry(pf, &link->files, node) {
		if (!pf->reset_tail)
			pf->rd_resets++;
		pf->reset_tail = true;
		wake_up_interruptible_poll(&pf->rwait, EPOLLIN | EPOLLRDNORM |
					   EPOLLPRI | EPOLLERR);
	}
}

void phyllo_files_wake_locked(struct phyllo_link *link)
{
	struct phyllo_file *pf;

	lockdep_assert_held(&link->lock);
	list_for_each_entry(pf, &link->files, node)
		wake_up_interruptible_all(&pf->rwait);
}

/* For writers and fsync: a reset not yet reported to this file, once. */
static bool phyllo_file_take_reset(struct phyllo_file *pf)
{
	if (pf->reset_gen == pf->link->reset_gen)
		return false;
	pf->reset_gen = pf->link->reset_gen;
	return true;
}

static bool phyllo_file_reset_pending(struct phyllo_file *pf)
{
	return READ_ONCE(pf->reset_gen) != READ_ONCE(pf->link->reset_gen);
}

/* A reader reached a reset: the last one it had queued tells writers too. */
static int phyllo_file_read_reset_locked(struct phyllo_file *pf)
{
	lockdep_assert_held(&pf->link->lock);
	if (!--pf->rd_resets)
		pf->reset_gen = pf->link->reset_gen;
	return -ECONNRESET;
}

/*
 * What the next read gets: the head entry (left queued), or an errno:
 * ECONNRESET for a reset in its place, EMSGSIZE, EAGAIN, or 0 at end.
 */
static int phyllo_file_head_locked(struct phyllo_file *pf, size_t cap,
				   struct phyllo_rxent **head)
{
	struct phyllo_rxent *ent;

	lockdep_assert_held(&pf->link->lock);
	*head = NULL;
	ent = list_first_entry_or_null(&pf->rxq, struct phyllo_rxent, node);
	if (ent && ent->reset_before) {
		ent->reset_before = false;
		return phyllo_file_read_reset_locked(pf);
	}
	if (!ent && pf->reset_tail) {
		pf->reset_tail = false;
		return phyllo_file_read_reset_locked(pf);
	}
	if (!ent)
		return pf->link->dead ? 0 : -EAGAIN;
	if (ent->buf->len > cap)
		return -EMSGSIZE;
	*head = ent;
	return 0;
}

/* The head was copied out: it leaves the queue, and room may open. */
static void phyllo_file_consume_locked(struct phyllo_file *pf,
				       struct phyllo_rxent *ent)
{
	struct phyllo_link *link = pf->link;

	lockdep_assert_held(&link->lock);
	phyllo_rxent_pop_locked(pf, ent);
	pf->stats.rx_units++;
	if (phyllo_link_room_locked(link))
		phyllo_link_kick_locked(link);
}

static bool phyllo_file_readable(struct phyllo_file *pf)
{
	return READ_ONCE(pf->rxq_units) || READ_ONCE(pf->reset_tail) ||
	       READ_ONCE(pf->link->dead);
}

/* One turn of a reader holding read_lock; -EAGAIN: nothing yet. */
static ssize_t phyllo_file_read_once(struct phyllo_file *pf, size_t cap,
				     int (*copy)(void *ctx, const u8 *data,
						 size_t len),
				     void *ctx)
{
	struct phyllo_link *link = pf->link;
	struct phyllo_rxent *ent;
	ssize_t ret;

	mutex_lock(&link->lock);
	ret = phyllo_file_head_locked(pf, cap, &ent);
	mutex_unlock(&link->lock);
	if (!ent)
		return ret;
	/*
	 * Copied without link->lock (the copy may fault and sleep); only a
	 * reader removes entries and readers take turns, so ent stays first.
	 */
	ret = copy(ctx, ent->buf->data, ent->buf->len);
	if (ret)
		return ret;
	ret = ent->buf->len;
	mutex_lock(&link->lock);
	phyllo_file_consume_locked(pf, ent);
	mutex_unlock(&link->lock);
	return ret;
}

/*
 * One unit of at most cap bytes, through copy; its length, 0 at end of
 * file (dead link, queue empty) or a negative errno.
 */
ssize_t phyllo_file_read(struct phyllo_file *pf, size_t cap, bool nonblock,
			 int (*copy)(void *ctx, const u8 *data, size_t len),
			 void *ctx)
{
	ssize_t ret;

	for (;;) {
		if (mutex_lock_interruptible(&pf->read_lock))
			return -ERESTARTSYS;
		ret = phyllo_file_read_once(pf, cap, copy, ctx);
		mutex_unlock(&pf->read_lock);
		if (ret != -EAGAIN || nonblock)
			return ret;
		if (wait_event_interruptible(pf->rwait,
					     phyllo_file_readable(pf)))
			return -ERESTARTSYS;
	}
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_file_read);

static bool phyllo_file_reliable(struct phyllo_file *pf)
{
	return !pf->unreliable &&
	       pf->link->stack.preset == PHYLLO_PRESET_STANDARD;
}

static int phyllo_file_send_locked(struct phyllo_file *pf, const u8 *unit,
				   size_t len)
{
	struct phyllo_link *link = pf->link;
	bool reliable = phyllo_file_reliable(pf);
	int ret;

	lockdep_assert_held(&link->lock);
	if (phyllo_file_take_reset(pf))
		return -ECONNRESET;
	if (link->dead)
		return -EIO;
	if (len - 1 > phyllo_stack_mtu(link->stack.preset))
		return -EMSGSIZE;
	ret = phyllo_link_send_locked(link, unit, len, reliable);
	if (ret)
		return ret;
	pf->stats.tx_units++;
	if (reliable) {
		pf->tx_mark = link->tx_total_base + link->stack.arq.tx_queued_total;
		pf->tx_marked = true;
	} else {
		pf->fifo_mark = link->fifo_in;
		pf->fifo_marked = true;
	}
	return 0;
}

static bool phyllo_file_writable(struct phyllo_file *pf)
{
	return READ_ONCE(pf->link->dead) || phyllo_file_reset_pending(pf) ||
	       phyllo_link_can_send(pf->link, phyllo_file_reliable(pf));
}

/* unit is [type][payload]; returns len or a negative errno. */
ssize_t phyllo_file_send(struct phyllo_file *pf, const u8 *unit, size_t len,
			 bool nonblock)
{
	struct phyllo_link *link = pf->link;
	int ret;

	if (!len)
		return -EINVAL;
	if (len > PHYLLO_UNIT_MAX)
		return -EMSGSIZE;
	if (unit[0] <= PHYLLO_TYPE_INTERNAL_MAX)
		return -EINVAL;
	for (;;) {
		mutex_lock(&link->lock);
		ret = phyllo_file_send_locked(pf, unit, len);
		mutex_unlock(&link->lock);
		if (ret != -EAGAIN || nonblock)
			return ret ? ret : len;
		if (wait_event_interruptible(link->wwait,
					     phyllo_file_writable(pf)))
			return -ERESTARTSYS;
	}
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_file_send);

static int phyllo_file_synced_locked(struct phyllo_file *pf)
{
	struct phyllo_link *link = pf->link;

	lockdep_assert_held(&link->lock);
	if (phyllo_file_take_reset(pf))
		return -ECONNRESET;
	if (link->dead)
		return -EIO;
	/* Its unreliable frames have left for the tty (other files' later
	 * writes do not count); its reliable units are acknowledged.
	 */
	if (link->tty && pf->fifo_marked &&
	    (s32)(link->fifo_out - pf->fifo_mark) < 0)
		return -EAGAIN;
	if (!pf->tx_marked ||
	    (s32)(phyllo_link_tx_done_locked(link) - pf->tx_mark) >= 0)
		return 0;
	return -EAGAIN;
}

/* Wait until everything this file sent reliably is acknowledged. */
int phyllo_file_fsync(struct phyllo_file *pf)
{
	struct phyllo_link *link = pf->link;
	u32 events;
	int ret;

	for (;;) {
		mutex_lock(&link->lock);
		ret = phyllo_file_synced_locked(pf);
		events = link->events;
		mutex_unlock(&link->lock);
		if (ret != -EAGAIN)
			return ret;
		if (wait_event_interruptible(link->wwait,
					     READ_ONCE(link->events) != events))
			return -ERESTARTSYS;
	}
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_file_fsync);

__poll_t phyllo_file_poll_mask(struct phyllo_file *pf)
{
	struct phyllo_link *link = pf->link;
	__poll_t mask = 0;

	mutex_lock(&link->lock);
	if (pf->rxq_units || pf->reset_tail)
		mask |= EPOLLIN | EPOLLRDNORM;
	if (link->dead)
		mask |= EPOLLHUP | EPOLLIN | EPOLLRDNORM;
	else if (phyllo_link_can_send(link, phyllo_file_reliable(pf)))
		mask |= EPOLLOUT | EPOLLWRNORM;
	if (pf->reset_gen != link->reset_gen)
		mask |= EPOLLPRI | EPOLLERR;
	mutex_unlock(&link->lock);
	return mask;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_file_poll_mask);

int phyllo_file_subscribe(struct phyllo_file *pf,
			  const struct phyllo_subscription *sub)
{
	int ret = phyllo_sub_check(sub);

	if (ret)
		return ret;
	mutex_lock(&pf->link->lock);
	pf->sub = *sub;
	mutex_unlock(&pf->link->lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_file_subscribe);

void phyllo_file_stats(struct phyllo_file *pf, struct phyllo_file_stats *st)
{
	struct phyllo_link *link = pf->link;
	s32 unacked;

	mutex_lock(&link->lock);
	*st = pf->stats;
	st->rx_queued = pf->rxq_units;
	st->rx_queued_bytes = pf->rxq_bytes;
	unacked = (s32)(pf->tx_mark - phyllo_link_tx_done_locked(link));
	st->tx_unacked = pf->tx_marked && unacked > 0 ? unacked : 0;
	mutex_unlock(&link->lock);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_file_stats);
