// SPDX-License-Identifier: GPL-2.0-only
/*
 * phyllo_file.c - one open /dev/phylloN: its receive queue, subscription,
 * send mode and the blocking rules of read, write, fsync and poll.
 *
 * Contract:
 *  1. Every received unit is copied to each file whose subscription
 *     matches (fan-out). A full queue drops the copy and counts it; on the
 *     standard preset the link closes its receive window before that can
 *     happen (phyllo_link_update_hold_locked()).
 *  2. A read returns one whole unit or fails (EMSGSIZE leaves it queued).
 *  3. A pending session reset fails the next read, write or fsync once
 *     with ECONNRESET; a dead link gives EOF to readers, EIO to writers.
 *  4. Functions here take kernel buffers; phyllo_chrdev.c copies to and
 *     from userspace, so the KUnit suites drive these directly.
 */
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "phyllo_link.h"
#include "phyllo_pubsub.h"

struct phyllo_file *phyllo_file_open(struct phyllo_link *link)
{
	struct phyllo_file *pf = kzalloc(sizeof(*pf), GFP_KERNEL);

	if (!pf)
		return NULL;
	pf->link = link;
	INIT_LIST_HEAD(&pf->rxq);
	mutex_lock(&link->lock);
	pf->reset_gen = link->reset_gen;
	list_add_tail(&pf->node, &link->files);
	mutex_unlock(&link->lock);
	return pf;
}

void phyllo_file_release(struct phyllo_file *pf)
{
	struct phyllo_link *link = pf->link;
	struct phyllo_rxunit *ru, *tmp;

	mutex_lock(&link->lock);
	list_del(&pf->node);
	list_for_each_entry_safe(ru, tmp, &pf->rxq, node)
		kfree(ru);
	if (link->held) {
		phyllo_link_update_hold_locked(link);
		phyllo_link_kick_locked(link);
	}
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

bool phyllo_sub_match(const struct phyllo_subscription *sub, u8 type,
		      const u8 *data, size_t len)
{
	struct phyllo_pubsub m;

	if ((sub->flags & PHYLLO_SUB_TYPE) && type != sub->type)
		return false;
	if (!(sub->flags & PHYLLO_SUB_TOPIC))
		return true;
	if (type != PHYLLO_TYPE_PUBSUB ||
	    phyllo_pubsub_parse(data, len, &m) < 0)
		return false;
	return phyllo_pubsub_topic_match(&m, sub->topic, sub->topic_len);
}

static bool phyllo_file_full(const struct phyllo_file *pf)
{
	const struct phyllo_link *link = pf->link;

	return pf->rxq_units >= link->rxq_units_max ||
	       pf->rxq_bytes + PHYLLO_UNIT_MAX > link->rxq_bytes_max;
}

bool phyllo_files_full_locked(struct phyllo_link *link)
{
	struct phyllo_file *pf;

	list_for_each_entry(pf, &link->files, node)
		if (phyllo_file_full(pf))
			return true;
	return false;
}

static bool phyllo_file_enqueue(struct phyllo_file *pf,
				const struct phyllo_unit *u)
{
	struct phyllo_rxunit *ru;

	if (phyllo_file_full(pf))
		return false;
	ru = kmalloc(struct_size(ru, data, u->len + 1), GFP_KERNEL);
	if (!ru)
		return false;
	ru->len = u->len + 1;
	ru->data[0] = u->type;
	memcpy(ru->data + 1, u->data, u->len);
	list_add_tail(&ru->node, &pf->rxq);
	pf->rxq_units++;
	pf->rxq_bytes += ru->len;
	return true;
}

void phyllo_files_deliver_locked(struct phyllo_link *link,
				 const struct phyllo_unit *u)
{
	struct phyllo_file *pf;
	bool claimed = false;

	list_for_each_entry(pf, &link->files, node) {
		if (!phyllo_sub_match(&pf->sub, u->type, u->data, u->len)) {
			pf->stats.rx_filtered++;
			continue;
		}
		claimed = true;
		if (!phyllo_file_enqueue(pf, u)) {
			pf->stats.rx_drops++;
			link->gstats.rx_queue_drops++;
		}
	}
	if (!claimed)
		link->gstats.rx_unclaimed++;
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
	pf->stats.rx_units++;
	if (link->held) {
		phyllo_link_update_hold_locked(link);
		phyllo_link_kick_locked(link);
	}
	*err = 0;
	return ru;
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
		pf->tx_mark = link->stack.arq.tx_queued_total;
		pf->tx_marked = true;
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
	if (link->tty && !kfifo_is_empty(&link->txfifo))
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
