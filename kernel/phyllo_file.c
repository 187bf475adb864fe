// SPDX-License-Identifier: GPL-2.0-only
/*
 * phyllo_file.c - one open /dev/phylloN: its receive queue, subscription,
 * send mode and the blocking rules of read, write, fsync and poll.
 *
 * Contract:
 *  1. Every received unit is copied to each file whose subscription
 *     matches (fan-out); the pub-sub header is parsed once per unit.
 *     Receive memory is bounded per file (units, bytes), per link (bytes
 *     of all files together) and by the number of open files.
 *  2. A reliable unit that a matching file has no room for is refused as
 *     a whole (the peer keeps it and resends it after a read makes room),
 *     unless that file has been full for lim.stall_ms: a stalled reader
 *     then loses its copy (counted) and the others get theirs. Files the
 *     unit does not match never hold it. Other units (NOS, lower presets)
 *     are dropped, and counted, for the files that have no room.
 *  3. A read returns one whole unit or fails (EMSGSIZE leaves it queued;
 *     EFAULT puts it back at the head).
 *  4. A pending session reset fails the next read, write or fsync once
 *     with ECONNRESET; a dead link gives EOF to readers, EIO to writers.
 *     fsync waits for this file's own frames to leave and its reliable
 *     units to be acknowledged (or lost to a reset), not for other files'.
 *  5. Functions here take kernel buffers; phyllo_chrdev.c copies to and
 *     from userspace, so the KUnit suites drive these directly.
 */
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "phyllo_link.h"
#include "phyllo_pubsub.h"

/* NULL with *err -ENOMEM, or -EBUSY when the link has lim.files open. */
struct phyllo_file *phyllo_file_open(struct phyllo_link *link, int *err)
{
	struct phyllo_file *pf = kzalloc(sizeof(*pf), GFP_KERNEL);

	*err = -ENOMEM;
	if (!pf)
		return NULL;
	pf->link = link;
	INIT_LIST_HEAD(&pf->rxq);
	mutex_lock(&link->lock);
	if (link->nfiles >= link->lim.files) {
		mutex_unlock(&link->lock);
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

void phyllo_file_release(struct phyllo_file *pf)
{
	struct phyllo_link *link = pf->link;
	struct phyllo_rxunit *ru, *tmp;

	mutex_lock(&link->lock);
	list_del(&pf->node);
	link->nfiles--;
	list_for_each_entry_safe(ru, tmp, &pf->rxq, node)
		kfree(ru);
	link->rxq_bytes -= pf->rxq_bytes;
	phyllo_link_room_locked(link);
	phyllo_link_kick_locked(link);
	mutex_unlock(&link->lock);
	kfree(pf);
}

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

/* Room for a unit of len bytes in this file and in the link's budget. */
static bool phyllo_file_room(const struct phyllo_file *pf, u32 len)
{
	const struct phyllo_link *link = pf->link;

	return pf->rxq_units < link->lim.units &&
	       pf->rxq_bytes + len <= link->lim.bytes &&
	       link->rxq_bytes + len <= link->lim.link_bytes;
}

/* Full, and for longer than stall_ms: this file no longer holds the link. */
static bool phyllo_file_stalled(struct phyllo_file *pf, u32 now)
{
	if (!pf->full) {
		pf->full = true;
		pf->full_since = now;
	}
	return (s32)(now - pf->full_since) >= (s32)pf->link->lim.stall_ms;
}

static bool phyllo_file_enqueue(struct phyllo_file *pf,
				const struct phyllo_unit *u)
{
	struct phyllo_link *link = pf->link;
	struct phyllo_rxunit *ru;

	if (!phyllo_file_room(pf, u->len + 1))
		return false;
	ru = kmalloc(struct_size(ru, data, u->len + 1), GFP_KERNEL | __GFP_NOWARN);
	if (!ru)
		return false;
	ru->len = u->len + 1;
	ru->data[0] = u->type;
	memcpy(ru->data + 1, u->data, u->len);
	list_add_tail(&ru->node, &pf->rxq);
	pf->rxq_units++;
	pf->rxq_bytes += ru->len;
	link->rxq_bytes += ru->len;
	return true;
}

/* Refusable: would a matching file that is not stalled have to drop it? */
static bool phyllo_files_must_refuse(struct phyllo_link *link,
				     const struct phyllo_rx *rx)
{
	u32 now = phyllo_link_now(link);
	struct phyllo_file *pf;

	list_for_each_entry(pf, &link->files, node)
		if (phyllo_sub_match_rx(&pf->sub, rx) &&
		    !phyllo_file_room(pf, rx->u->len + 1) &&
		    !phyllo_file_stalled(pf, now))
			return true;
	return false;
}

bool phyllo_files_deliver_locked(struct phyllo_link *link,
				 const struct phyllo_unit *u, bool refusable)
{
	struct phyllo_file *pf;
	struct phyllo_rx rx;
	int claimed = 0;

	phyllo_rx_parse(&rx, u);
	if (refusable && phyllo_files_must_refuse(link, &rx))
		return false;
	list_for_each_entry(pf, &link->files, node) {
		if (!phyllo_sub_match_rx(&pf->sub, &rx)) {
			pf->stats.rx_filtered++;
			continue;
		}
		claimed++;
		if (!phyllo_file_enqueue(pf, u)) {
			pf->stats.rx_drops++;
			link->gstats.rx_queue_drops++;
			trace_phyllo_queue_drop(link->unit, u->type, u->len,
						pf->rxq_units);
		}
	}
	trace_phyllo_rx_unit(link->unit, u->type, u->len, claimed);
	if (!claimed)
		link->gstats.rx_unclaimed++;
	return true;
}

/* Report a pending reset once: true if it was pending. */
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

static struct phyllo_rxunit *phyllo_file_take_locked(struct phyllo_file *pf,
						     size_t cap, int *err)
{
	struct phyllo_link *link = pf->link;
	struct phyllo_rxunit *ru;

	*err = -ECONNRESET;
	if (phyllo_file_take_reset(pf))
		return NULL;
	ru = list_first_entry_or_null(&pf->rxq, struct phyllo_rxunit, node);
	*err = ru ? -EMSGSIZE : link->dead ? 0 : -EAGAIN;
	if (!ru || ru->len > cap)
		return NULL;
	list_del(&ru->node);
	pf->rxq_units--;
	pf->rxq_bytes -= ru->len;
	link->rxq_bytes -= ru->len;
	pf->stats.rx_units++;
	pf->full = false;
	if (phyllo_link_room_locked(link))
		phyllo_link_kick_locked(link);
	*err = 0;
	return ru;
}

/* A unit the reader could not take (EFAULT): back at the head, as if it
 * had never been read.
 */
void phyllo_file_unread(struct phyllo_file *pf, struct phyllo_rxunit *ru)
{
	struct phyllo_link *link = pf->link;

	mutex_lock(&link->lock);
	list_add(&ru->node, &pf->rxq);
	pf->rxq_units++;
	pf->rxq_bytes += ru->len;
	link->rxq_bytes += ru->len;
	pf->stats.rx_units--;
	mutex_unlock(&link->lock);
}

static bool phyllo_file_readable(struct phyllo_file *pf)
{
	return READ_ONCE(pf->rxq_units) || READ_ONCE(pf->link->dead) ||
	       phyllo_file_reset_pending(pf);
}

/*
 * One unit of at most cap bytes, which the caller frees; NULL with *err
 * 0 at end of file (dead link, queue empty) or a negative errno.
 */
struct phyllo_rxunit *phyllo_file_recv(struct phyllo_file *pf, size_t cap,
				       bool nonblock, int *err)
{
	struct phyllo_link *link = pf->link;
	struct phyllo_rxunit *ru;

	for (;;) {
		mutex_lock(&link->lock);
		ru = phyllo_file_take_locked(pf, cap, err);
		mutex_unlock(&link->lock);
		if (ru || *err != -EAGAIN || nonblock)
			return ru;
		if (wait_event_interruptible(link->wait,
					     phyllo_file_readable(pf))) {
			*err = -ERESTARTSYS;
			return NULL;
		}
	}
}

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
		if (wait_event_interruptible(link->wait,
					     phyllo_file_writable(pf)))
			return -ERESTARTSYS;
	}
}

static int phyllo_file_synced_locked(struct phyllo_file *pf)
{
	struct phyllo_link *link = pf->link;

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
		if (wait_event_interruptible(link->wait,
					     READ_ONCE(link->events) != events))
			return -ERESTARTSYS;
	}
}

__poll_t phyllo_file_poll_mask(struct phyllo_file *pf)
{
	struct phyllo_link *link = pf->link;
	__poll_t mask = 0;

	mutex_lock(&link->lock);
	if (pf->rxq_units)
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
