// SPDX-License-Identifier: GPL-2.0-only
/*
 * phyllo_file.c - one open /dev/phylloN: its receive queue, subscription,
 * send mode and the blocking rules of read, write, fsync and poll.
 *
 * Contract (the receive rules are phyllo(4)'s "Receive queues"):
 *  1. A received unit is allocated once, with one small entry for each
 *     file whose subscription matches (fan-out), and freed when the last
 *     entry goes; the pub-sub header is parsed once. Each file is charged
 *     what its entry keeps alive: the entry and the unit's allocation
 *     (their kmalloc sizes), against its own bounds (cfg.rxq_units,
 *     cfg.rxq_bytes). The files' charges together stay within
 *     cfg.rxq_link_bytes, so the link's queued memory does too.
 *  2. Isolation: a file with room never loses a unit for another file.
 *     Files opened with CAP_NET_ADMIN and the others are two classes,
 *     each with its own cfg.rxq_link_bytes of queue memory: nothing files
 *     of one class do costs a file of the other a unit. Within a class the
 *     bound is kept by the files over their share (rxq_link_bytes / the
 *     class's files): those that would take the unit lose it (or hold it,
 *     rule 3), then room is taken back from the file with the largest
 *     charge, which is over its share whenever the bound is reached; an
 *     entry a reader is copying out is never taken (the next one is). A
 *     file that loses a unit, for want of its own room or taken back, is
 *     in overrun: every loss is counted (rx_drops), its next read fails
 *     once with ENOBUFS, and it takes no unit until it has drained to half
 *     its bounds, so it cannot hold the link's memory again unit by unit.
 *  3. Holding (PHYLLO_RECV_HOLD, the default; standard preset): a file
 *     short of room for a reliable unit makes the link refuse it (never
 *     acknowledged; the peer resends it) instead of losing it. Only a
 *     reliable unit is held: an unreliable one a holder has no room for
 *     is counted as lost (rx_drops, ENOBUFS once) without overrun. Each
 *     class has a budget of hold time, a token bucket (struct
 *     phyllo_hold): a class holds at most cfg.rxq_stall_ms at a stretch
 *     and rxq_stall_ms + W / 8 in any window of W ms; its clock runs only
 *     while a file of that class is the reason a unit is refused. Once the
 *     budget is spent the class's holders lose what they have no room for,
 *     as if they dropped. A unit let through, a session reset, a new
 *     configuration or the link's death ends every hold. PHYLLO_RECV_DROP
 *     files never hold: they lose what they have no room for at once.
 *  4. Opens: at most cfg.max_files, of which max_files / 8 (rounded up)
 *     are kept for openers with CAP_NET_ADMIN.
 *  5. A read returns one whole unit or fails; the unit leaves the queue
 *     only once it was copied out (EMSGSIZE and EFAULT leave it first),
 *     and it is pinned while it is copied (pf->reading): nothing else
 *     frees it. Readers of one file take turns (read_lock); a
 *     non-blocking read never waits for another reader (EAGAIN).
 *  6. A session reset reaches a reader in order: units queued before it
 *     are read first, then one read fails with ECONNRESET, then the new
 *     session's units follow. The next write or fsync also fails once
 *     with ECONNRESET unless a read or write of this file reported that
 *     reset already. A named link that goes down (phyllo_link_down())
 *     is read as ENOLINK in its place, and coming up as ECONNRESET (a
 *     new session); a down ends the session as a reset does, so writers
 *     are told as of a reset, and wait while the link is down. A dead
 *     link gives EOF to readers (after what is queued), EIO to writers.
 *     fsync waits for this file's own frames to leave and its reliable
 *     units to be acknowledged (or lost to a reset), not for other
 *     files'.
 *  7. Functions here take kernel buffers; phyllo_chrdev.c copies to and
 *     from userspace, so the KUnit suites drive these directly.
 */
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/fault-inject.h>

#include "phyllo_link.h"
#include "phyllo_pubsub.h"

/* Opens without CAP_NET_ADMIN: all but max_files / 8, rounded up. */
static u32 phyllo_user_slots(const struct phyllo_link_config *cfg)
{
	return cfg->max_files - DIV_ROUND_UP(cfg->max_files, 8);
}

/*
 * NULL with *err -ENOMEM, or -EBUSY when the link has max_files open, or
 * (without admin) all the slots of openers without CAP_NET_ADMIN.
 */
struct phyllo_file *phyllo_file_open(struct phyllo_link *link, bool admin,
				     int *err)
{
	struct phyllo_file *pf = kzalloc(sizeof(*pf), GFP_KERNEL);

	*err = -ENOMEM;
	if (!pf)
		return NULL;
	pf->link = link;
	pf->cls = admin ? PHYLLO_CLASS_ADMIN : PHYLLO_CLASS_USER;
	pf->hold = true;
	INIT_LIST_HEAD(&pf->rxq);
	mutex_init(&pf->read_lock);
	init_waitqueue_head(&pf->rwait);
	mutex_lock(&link->lock);
	if (link->nfiles >= link->cfg.max_files ||
	    (!admin && link->nfiles_cls[PHYLLO_CLASS_USER] >=
		       phyllo_user_slots(&link->cfg))) {
		mutex_unlock(&link->lock);
		mutex_destroy(&pf->read_lock);
		kfree(pf);
		*err = -EBUSY;
		return NULL;
	}
	link->nfiles++;
	link->nfiles_cls[pf->cls]++;
	pf->reset_gen = link->reset_gen;
	list_add_tail(&pf->node, &link->files);
	/* a new tty's link waited for a reader (or a name): here is one */
	phyllo_link_speak_locked(link);
	mutex_unlock(&link->lock);
	*err = 0;
	return pf;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_file_open);

static u32 phyllo_rxent_cost(void)
{
	return kmalloc_size_roundup(sizeof(struct phyllo_rxent));
}

/* What each file taking a unit of len bytes is charged (contract 1). */
static u32 phyllo_rxbuf_cost(u32 len)
{
	return kmalloc_size_roundup(sizeof(struct phyllo_rxbuf) + len) +
	       phyllo_rxent_cost();
}

/* One largest unit's charge, PHYLLO_RXQ_BYTES_MIN unless it is more. */
u32 phyllo_rxq_bytes_min(void)
{
	return max_t(u32, PHYLLO_RXQ_BYTES_MIN,
		     phyllo_rxbuf_cost(PHYLLO_UNIT_MAX));
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_rxq_bytes_min);

/* One file is done with an entry (read, dropped or released). */
static void phyllo_rxent_pop_locked(struct phyllo_file *pf,
				    struct phyllo_rxent *ent)
{
	struct phyllo_link *link = pf->link;
	struct phyllo_rxbuf *buf = ent->buf;

	lockdep_assert_held(&link->lock);
	list_del(&ent->node);
	kfree(ent);
	WRITE_ONCE(pf->rxq_units, pf->rxq_units - 1);
	pf->rxq_bytes -= buf->len;
	pf->rxq_charge -= buf->cost;
	link->rxq_charged[pf->cls] -= buf->cost;
	link->rxq_mem -= phyllo_rxent_cost();
	if (--buf->refs)
		return;
	link->rxq_mem -= buf->cost - phyllo_rxent_cost();
	kfree(buf);
}

/* Has the file drained to half its bounds (its share of the link's)? */
static bool phyllo_file_drained(const struct phyllo_file *pf)
{
	const struct phyllo_link *link = pf->link;
	u32 share = link->cfg.rxq_link_bytes /
		    max(link->nfiles_cls[pf->cls], 1U);

	return pf->rxq_units <= link->cfg.rxq_units / 2 &&
	       pf->rxq_charge <= min(link->cfg.rxq_bytes, share) / 2;
}

/* A file that drained leaves overrun. */
static void phyllo_file_recover_locked(struct phyllo_file *pf)
{
	if (phyllo_file_drained(pf))
		pf->overrun = false;
}

void phyllo_file_release(struct phyllo_file *pf)
{
	struct phyllo_link *link = pf->link;
	struct phyllo_rxent *ent, *tmp;

	mutex_lock(&link->lock);
	list_del(&pf->node);
	link->nfiles--;
	link->nfiles_cls[pf->cls]--;
	list_for_each_entry_safe(ent, tmp, &pf->rxq, node)
		phyllo_rxent_pop_locked(pf, ent);
	phyllo_link_room_locked(link);
	phyllo_link_kick_locked(link);
	mutex_unlock(&link->lock);
	mutex_destroy(&pf->read_lock);
	kfree(pf);
	/* the last file of a down link: its linger starts */
	phyllo_link_linger(link);
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

/* Room for a unit of this cost in the file's own bounds. */
static bool phyllo_file_room(const struct phyllo_file *pf, u32 cost)
{
	const struct phyllo_link_config *cfg = &pf->link->cfg;

	return pf->rxq_units < cfg->rxq_units &&
	       pf->rxq_charge + cost <= cfg->rxq_bytes;
}

/* A class's bucket brought up to now: spent while on, refilled while off. */
static struct phyllo_hold *phyllo_hold_update(struct phyllo_link *link, u8 cls,
					      u32 now)
{
	struct phyllo_hold *h = &link->hold[cls];
	u32 cap = link->cfg.rxq_stall_ms << PHYLLO_HOLD_REFILL_SHIFT;
	u32 el = min(now - h->stamp, cap);

	h->stamp = now;
	if (h->on)
		h->tokens -= min(h->tokens, el << PHYLLO_HOLD_REFILL_SHIFT);
	else
		h->tokens = min(h->tokens + el, cap);
	return h;
}

/* May this file hold the link for the unit instead of losing it? */
static bool phyllo_file_may_hold(struct phyllo_file *pf, bool refusable,
				 u32 now)
{
	return refusable && pf->hold &&
	       phyllo_hold_update(pf->link, pf->cls, now)->tokens;
}

/* A class's clock starts or stops, charged up to now. */
static void phyllo_hold_switch(struct phyllo_link *link, u8 cls, bool on,
			       u32 now)
{
	phyllo_hold_update(link, cls, now)->on = on;
}

/*
 * The link refuses the unit: the clocks of the classes whose files hold
 * it this time run, the others' stop (contract 3).
 */
static void phyllo_hold_start_locked(struct phyllo_link *link, u32 now)
{
	bool on[PHYLLO_CLASSES] = {};
	struct phyllo_file *pf;
	int c;

	list_for_each_entry(pf, &link->files, node)
		if (pf->verdict == PHYLLO_V_HOLD)
			on[pf->cls] = true;
	for (c = 0; c < PHYLLO_CLASSES; c++)
		phyllo_hold_switch(link, c, on[c], now);
	if (!link->held) {
		link->held = true;
		link->held_since = now;
	}
}

/* The hold, if any, ends and is charged. */
static void phyllo_hold_end_locked(struct phyllo_link *link, u32 now)
{
	int c;

	if (!link->held)
		return;
	link->held = false;
	link->gstats.rx_hold_ms += now - link->held_since;
	for (c = 0; c < PHYLLO_CLASSES; c++)
		phyllo_hold_switch(link, c, false, now);
}

void phyllo_files_hold_stop_locked(struct phyllo_link *link)
{
	lockdep_assert_held(&link->lock);
	phyllo_hold_end_locked(link, phyllo_link_now(link));
}

void phyllo_files_hold_init_locked(struct phyllo_link *link)
{
	u32 now = phyllo_link_now(link);
	int c;

	lockdep_assert_held(&link->lock);
	for (c = 0; c < PHYLLO_CLASSES; c++) {
		link->hold[c].stamp = now;
		link->hold[c].tokens = link->cfg.rxq_stall_ms <<
				       PHYLLO_HOLD_REFILL_SHIFT;
	}
}

u32 phyllo_files_hold_left_locked(struct phyllo_link *link, u32 now)
{
	u32 left = U32_MAX;
	int c;

	lockdep_assert_held(&link->lock);
	for (c = 0; c < PHYLLO_CLASSES; c++) {
		const struct phyllo_hold *h = phyllo_hold_update(link, c, now);
		u32 ms = DIV_ROUND_UP(h->tokens, 1U << PHYLLO_HOLD_REFILL_SHIFT);

		if (h->on)
			left = min(left, ms);
	}
	return left;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_files_hold_left_locked);

void phyllo_files_policy_locked(struct phyllo_link *link)
{
	u32 now = phyllo_link_now(link);
	int c;

	lockdep_assert_held(&link->lock);
	for (c = 0; c < PHYLLO_CLASSES; c++) {
		struct phyllo_hold *h = phyllo_hold_update(link, c, now);

		h->tokens = min(h->tokens, link->cfg.rxq_stall_ms <<
					   PHYLLO_HOLD_REFILL_SHIFT);
	}
}

/*
 * First pass: each file's verdict from its subscription and overrun
 * state alone; returns how many files the unit matches.
 */
static int phyllo_files_match_locked(struct phyllo_link *link,
				     const struct phyllo_rx *rx)
{
	struct phyllo_file *pf;
	int n = 0;

	list_for_each_entry(pf, &link->files, node) {
		if (!phyllo_sub_match_rx(&pf->sub, rx)) {
			pf->verdict = PHYLLO_V_FILTER;
			continue;
		}
		if (pf->overrun)
			phyllo_file_recover_locked(pf);
		pf->verdict = pf->overrun ? PHYLLO_V_DROP : PHYLLO_V_TAKE;
		n++;
	}
	return n;
}

/*
 * What a file short of room does with the unit: hold it while its class
 * has budget (reliable units only), skip it (a holder, on the standard
 * preset, and an unreliable unit), or drop it.
 */
static u8 phyllo_file_short_verdict(struct phyllo_file *pf, bool refusable,
				    u32 now)
{
	if (phyllo_file_may_hold(pf, refusable, now))
		return PHYLLO_V_HOLD;
	if (pf->hold && !refusable &&
	    pf->link->stack.preset == PHYLLO_PRESET_STANDARD)
		return PHYLLO_V_SKIP;
	return PHYLLO_V_DROP;
}

/*
 * Second pass: files short of their own room hold, skip or drop. Counts
 * the takers of each class; false if a holder refuses the unit.
 */
static bool phyllo_files_own_room_locked(struct phyllo_link *link, u32 cost,
					 bool refusable, u32 now, int *takers)
{
	struct phyllo_file *pf;
	bool hold = false;

	list_for_each_entry(pf, &link->files, node) {
		if (pf->verdict != PHYLLO_V_TAKE)
			continue;
		if (phyllo_file_room(pf, cost)) {
			takers[pf->cls]++;
			continue;
		}
		pf->verdict = phyllo_file_short_verdict(pf, refusable, now);
		hold |= pf->verdict == PHYLLO_V_HOLD;
	}
	return !hold;
}

/* A loss: counted and told; a skipped unreliable unit sets no overrun. */
static void phyllo_file_lose_locked(struct phyllo_file *pf, bool overrun)
{
	pf->stats.rx_drops++;
	pf->link->gstats.rx_queue_drops++;
	if (overrun)
		pf->overrun = true;
	WRITE_ONCE(pf->lost, true);
	wake_up_interruptible_poll(&pf->rwait, EPOLLIN | EPOLLRDNORM);
}

/* The oldest entry not being read, or NULL. */
static struct phyllo_rxent *phyllo_file_evictable(struct phyllo_file *pf)
{
	struct phyllo_rxent *ent;

	list_for_each_entry(ent, &pf->rxq, node)
		if (ent != pf->reading)
			return ent;
	return NULL;
}

/*
 * The marks of a gap before an entry that goes join the next gap (marks
 * a, then b): a down ends a reset before it, and two gaps with marks
 * become one.
 */
static void phyllo_file_merge_marks(struct phyllo_file *pf,
				    const struct phyllo_rxent *a,
				    bool *down, bool *reset)
{
	if (!a->down_before && !a->reset_before)
		return;
	if (*down || *reset)
		pf->rd_resets--;
	if (!*down)
		WRITE_ONCE(*reset, *reset || a->reset_before);
	WRITE_ONCE(*down, *down || a->down_before);
}

/*
 * Take a file's oldest unit back (not one being read); a reset or a down
 * before it stays in its place.
 */
static void phyllo_file_evict_locked(struct phyllo_file *pf)
{
	struct phyllo_rxent *old = phyllo_file_evictable(pf), *next;
#ifdef PHYLLO_TRACE_HEADER
	u8 type = old->buf->data[0];
	u16 len = old->buf->len - 1;
#endif

	next = list_is_last(&old->node, &pf->rxq) ? NULL :
	       list_next_entry(old, node);
	if (next)
		phyllo_file_merge_marks(pf, old, &next->down_before,
					&next->reset_before);
	else
		phyllo_file_merge_marks(pf, old, &pf->down_tail,
					&pf->reset_tail);
	phyllo_rxent_pop_locked(pf, old);
	pf->link->gstats.rx_evictions++;
	phyllo_file_lose_locked(pf, true);
#ifdef PHYLLO_TRACE_HEADER
	trace_phyllo_queue_drop(pf->link->unit, type, len, pf->rxq_units);
#endif
}

/*
 * The file of class cls with the largest charge that can be taken back
 * (an entry being read cannot), the unit's cost counted for takers.
 */
static struct phyllo_file *phyllo_files_largest_locked(struct phyllo_link *link,
						       u8 cls, u32 cost)
{
	struct phyllo_file *pf, *big = NULL;
	u32 load, most = 0;

	list_for_each_entry(pf, &link->files, node) {
		if (pf->cls != cls)
			continue;
		load = pf->rxq_charge - (pf->reading ? pf->reading->buf->cost : 0);
		if (pf->verdict == PHYLLO_V_TAKE)
			load += cost;
		if (load > most) {
			most = load;
			big = pf;
		}
	}
	return big;
}

/*
 * Over a class's bound, the takers over their share shed the unit first,
 * in one pass over the files (one pass per unit however many files must
 * shed it): a holder among them refuses it instead (-1), the others lose
 * it. Returns the takers left.
 */
static int phyllo_files_shed_locked(struct phyllo_link *link, u8 cls, u32 cost,
				    int takers, bool refusable, u32 now)
{
	u32 share = link->cfg.rxq_link_bytes /
		    max(link->nfiles_cls[cls], 1U);
	struct phyllo_file *pf;

	list_for_each_entry(pf, &link->files, node)
		if (pf->cls == cls && pf->verdict == PHYLLO_V_TAKE &&
		    pf->rxq_charge + cost > share &&
		    phyllo_file_may_hold(pf, refusable, now)) {
			pf->verdict = PHYLLO_V_HOLD;
			return -1;
		}
	list_for_each_entry(pf, &link->files, node)
		if (pf->cls == cls && pf->verdict == PHYLLO_V_TAKE &&
		    pf->rxq_charge + cost > share) {
			pf->verdict = phyllo_file_short_verdict(pf, refusable,
								now);
			takers--;
		}
	return takers;
}

/*
 * Third pass, contract 2, for one class: keep its bound. Takers over
 * their share shed the unit (phyllo_files_shed_locked()); then room is
 * taken back from the class's largest file, which is over its share. A
 * holder among them refuses a reliable unit instead while its class has
 * budget; for an unreliable unit it keeps what it has, and the unit is
 * skipped by the class's takers. Returns the class's takers, or -1 to
 * refuse.
 */
static int phyllo_files_class_room_locked(struct phyllo_link *link, u8 cls,
					  u32 cost, int takers, bool refusable,
					  u32 now)
{
	struct phyllo_file *big;
	u8 verdict;

	if (link->rxq_charged[cls] + cost * takers > link->cfg.rxq_link_bytes)
		takers = phyllo_files_shed_locked(link, cls, cost, takers,
						  refusable, now);
	while (takers >= 0 && link->rxq_charged[cls] + cost * takers >
	       link->cfg.rxq_link_bytes) {
		big = phyllo_files_largest_locked(link, cls, cost);
		if (!big)
			break;
		verdict = phyllo_file_short_verdict(big, refusable, now);
		if (verdict == PHYLLO_V_HOLD) {
			big->verdict = PHYLLO_V_HOLD;
			return -1;
		}
		if (big->verdict == PHYLLO_V_TAKE) {
			big->verdict = verdict;
			takers--;
			continue;
		}
		if (verdict == PHYLLO_V_SKIP) {
			list_for_each_entry(big, &link->files, node)
				if (big->cls == cls &&
				    big->verdict == PHYLLO_V_TAKE)
					big->verdict = PHYLLO_V_SKIP;
			return 0;
		}
		phyllo_file_evict_locked(big);
	}
	return takers;
}

/* Third pass for every class: the takers in all, or -1 to refuse. */
static int phyllo_files_link_room_locked(struct phyllo_link *link, u32 cost,
					 int *takers, bool refusable, u32 now)
{
	int c, n = 0;

	for (c = 0; c < PHYLLO_CLASSES; c++) {
		takers[c] = phyllo_files_class_room_locked(link, c, cost,
							   takers[c],
							   refusable, now);
		if (takers[c] < 0)
			return -1;
		n += takers[c];
	}
	return n;
}

#ifdef CONFIG_FAULT_INJECTION
/* The kernel's fault injection: a unit's allocation made to fail. */
struct fault_attr phyllo_fail_rx = FAULT_ATTR_INITIALIZER;
EXPORT_SYMBOL_IF_KUNIT(phyllo_fail_rx);

static bool phyllo_rx_fail(size_t size)
{
	return should_fail(&phyllo_fail_rx, size);
}
#else
static bool phyllo_rx_fail(size_t size)
{
	return false;
}
#endif

/* The unit's one allocation, then an entry for each taker. */
static struct phyllo_rxbuf *phyllo_rxbuf_alloc(const struct phyllo_unit *u,
					       u32 cost)
{
	size_t size = sizeof(struct phyllo_rxbuf) + u->len + 1;
	struct phyllo_rxbuf *buf;

	if (phyllo_rx_fail(size))
		return NULL;
	buf = kmalloc(size, GFP_KERNEL | __GFP_NOWARN);
	if (!buf)
		return NULL;
	buf->refs = 0;
	buf->len = u->len + 1;
	buf->cost = cost;
	buf->data[0] = u->type;
	memcpy(buf->data + 1, u->data, u->len);
	return buf;
}

/* Entries for every taker, or none (false) if one cannot be had. */
static bool phyllo_rxents_alloc_locked(struct phyllo_link *link)
{
	struct phyllo_file *pf;

	list_for_each_entry(pf, &link->files, node) {
		if (pf->verdict != PHYLLO_V_TAKE)
			continue;
		pf->pending = phyllo_rx_fail(sizeof(*pf->pending)) ? NULL :
			      kmalloc(sizeof(*pf->pending),
				      GFP_KERNEL | __GFP_NOWARN);
		if (pf->pending)
			continue;
		list_for_each_entry(pf, &link->files, node) {
			if (pf->verdict == PHYLLO_V_TAKE)
				kfree(pf->pending);
			pf->pending = NULL;
		}
		return false;
	}
	return true;
}

static void phyllo_file_enqueue_locked(struct phyllo_file *pf,
				       struct phyllo_rxbuf *buf)
{
	struct phyllo_link *link = pf->link;
	struct phyllo_rxent *ent = pf->pending;

	lockdep_assert_held(&link->lock);
	pf->pending = NULL;
	buf->refs++;
	ent->buf = buf;
	ent->down_before = pf->down_tail;
	ent->reset_before = pf->reset_tail;
	WRITE_ONCE(pf->down_tail, false);
	WRITE_ONCE(pf->reset_tail, false);
	list_add_tail(&ent->node, &pf->rxq);
	WRITE_ONCE(pf->rxq_units, pf->rxq_units + 1);
	pf->rxq_bytes += buf->len;
	pf->rxq_charge += buf->cost;
	link->rxq_charged[pf->cls] += buf->cost;
	link->rxq_mem += phyllo_rxent_cost();
	pf->wake = true;	/* phyllo_files_wake_queued_locked() */
}

/*
 * The readers of every file that was queued units, once: called after the
 * kick that writes the ACK for them, so the ACK does not wait for a
 * wake-up per reader (about 8 us each in the bench's guest, which put
 * the ACK of a link with 32 readers 250 us behind one with one reader).
 */
void phyllo_files_wake_queued_locked(struct phyllo_link *link)
{
	struct phyllo_file *pf;

	lockdep_assert_held(&link->lock);
	list_for_each_entry(pf, &link->files, node) {
		if (!pf->wake)
			continue;
		pf->wake = false;
		wake_up_interruptible_poll(&pf->rwait, EPOLLIN | EPOLLRDNORM);
	}
}

static void phyllo_file_drop_locked(struct phyllo_file *pf,
				    const struct phyllo_unit *u)
{
	lockdep_assert_held(&pf->link->lock);
	phyllo_file_lose_locked(pf, pf->verdict != PHYLLO_V_SKIP);
#ifdef PHYLLO_TRACE_HEADER
	trace_phyllo_queue_drop(pf->link->unit, u->type, u->len,
				pf->rxq_units);
#endif
}

/*
 * Deliver a unit to every matching file. False: a reliable unit that is
 * refused as a whole (no copy queued anywhere), because a holder has no
 * room (contract 3), or its copies could not be allocated.
 */
bool phyllo_files_deliver_locked(struct phyllo_link *link,
				 const struct phyllo_unit *u, bool refusable)
{
	u32 cost = phyllo_rxbuf_cost(u->len + 1);
	u32 now = phyllo_link_now(link);
	struct phyllo_rxbuf *buf = NULL;
	struct phyllo_file *pf;
	int takers[PHYLLO_CLASSES] = {};
	struct phyllo_rx rx;
	int taking, claimed;

	lockdep_assert_held(&link->lock);
	phyllo_rx_parse(&rx, u);
	claimed = phyllo_files_match_locked(link, &rx);
	taking = -1;
	if (phyllo_files_own_room_locked(link, cost, refusable, now, takers))
		taking = phyllo_files_link_room_locked(link, cost, takers,
						       refusable, now);
	if (taking < 0) {
		phyllo_hold_start_locked(link, now);
		return false;
	}
	if (taking) {
		buf = phyllo_rxbuf_alloc(u, cost);
		if (buf && !phyllo_rxents_alloc_locked(link)) {
			kfree(buf);
			buf = NULL;
		}
		if (!buf && refusable)
			return false;
	}
	list_for_each_entry(pf, &link->files, node) {
		if (pf->verdict == PHYLLO_V_FILTER)
			pf->stats.rx_filtered++;
		else if (pf->verdict == PHYLLO_V_TAKE && buf)
			phyllo_file_enqueue_locked(pf, buf);
		else
			phyllo_file_drop_locked(pf, u);
	}
	if (buf)
		link->rxq_mem += cost - phyllo_rxent_cost();
	/* the refused unit, or a reliable one after it, is through */
	if (refusable)
		phyllo_hold_end_locked(link, now);
#ifdef PHYLLO_TRACE_HEADER
	trace_phyllo_rx_unit(link->unit, u->type, u->len, claimed);
#endif
	if (!claimed)
		link->gstats.rx_unclaimed++;
	return true;
}

/*
 * A session reset (or an up), or a down: a mark in the gap after each
 * file's last unit, read after what is queued; a down there ends a reset
 * before it.
 */
static void phyllo_files_mark_locked(struct phyllo_link *link, bool down)
{
	struct phyllo_file *pf;

	lockdep_assert_held(&link->lock);
	list_for_each_entry(pf, &link->files, node) {
		if (!pf->reset_tail && !pf->down_tail)
			pf->rd_resets++;
		WRITE_ONCE(pf->reset_tail, !down);
		if (down)
			WRITE_ONCE(pf->down_tail, true);
		wake_up_interruptible_poll(&pf->rwait, EPOLLIN | EPOLLRDNORM |
					   (down ? EPOLLPRI : EPOLLPRI | EPOLLERR));
	}
}

void phyllo_files_reset_locked(struct phyllo_link *link)
{
	phyllo_files_mark_locked(link, false);
}

void phyllo_files_down_locked(struct phyllo_link *link)
{
	phyllo_files_mark_locked(link, true);
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
	WRITE_ONCE(pf->reset_gen, pf->link->reset_gen);
	return true;
}

static bool phyllo_file_reset_pending(struct phyllo_file *pf)
{
	return READ_ONCE(pf->reset_gen) != READ_ONCE(pf->link->reset_gen);
}

/*
 * A reader reached a gap's marks (*down, *reset): a down is read first,
 * as ENOLINK, then a reset as ECONNRESET. The last gap it had queued
 * tells writers too.
 */
static int phyllo_file_read_marks_locked(struct phyllo_file *pf, bool *down,
					 bool *reset)
{
	int ret = *down ? -ENOLINK : -ECONNRESET;

	lockdep_assert_held(&pf->link->lock);
	if (*down)
		WRITE_ONCE(*down, false);
	else
		WRITE_ONCE(*reset, false);
	if (!*down && !*reset && !--pf->rd_resets)
		WRITE_ONCE(pf->reset_gen, pf->link->reset_gen);
	return ret;
}

/*
 * What the next read gets: the head entry (left queued), or an errno:
 * ENOBUFS once after units were lost, ECONNRESET for a reset in its
 * place, EMSGSIZE, EAGAIN, or 0 at end.
 */
static int phyllo_file_head_locked(struct phyllo_file *pf, size_t cap,
				   struct phyllo_rxent **head)
{
	struct phyllo_rxent *ent;

	lockdep_assert_held(&pf->link->lock);
	*head = NULL;
	if (pf->lost) {
		WRITE_ONCE(pf->lost, false);
		return -ENOBUFS;
	}
	ent = list_first_entry_or_null(&pf->rxq, struct phyllo_rxent, node);
	if (ent && (ent->down_before || ent->reset_before))
		return phyllo_file_read_marks_locked(pf, &ent->down_before,
						     &ent->reset_before);
	if (!ent && (pf->down_tail || pf->reset_tail))
		return phyllo_file_read_marks_locked(pf, &pf->down_tail,
						     &pf->reset_tail);
	if (!ent)
		return pf->link->dead ? 0 : -EAGAIN;
	if (ent->buf->len > cap)
		return -EMSGSIZE;
	*head = ent;
	return 0;
}

/* The entry read was copied out: it leaves the queue, room may open. */
static void phyllo_file_consume_locked(struct phyllo_file *pf,
				       struct phyllo_rxent *ent)
{
	struct phyllo_link *link = pf->link;

	lockdep_assert_held(&link->lock);
	pf->reading = NULL;
	phyllo_rxent_pop_locked(pf, ent);
	pf->stats.rx_units++;
	phyllo_file_recover_locked(pf);
	if (phyllo_link_room_locked(link))
		phyllo_link_kick_locked(link);
}

static bool phyllo_file_readable(struct phyllo_file *pf)
{
	return READ_ONCE(pf->rxq_units) || READ_ONCE(pf->reset_tail) ||
	       READ_ONCE(pf->down_tail) || READ_ONCE(pf->lost) ||
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
	pf->reading = ent;
	mutex_unlock(&link->lock);
	if (!ent)
		return ret;
	/*
	 * Copied without link->lock (the copy may fault and sleep): the
	 * entry is pinned, eviction takes the next one and only this reader
	 * removes it (read_lock), whatever else happens meanwhile.
	 */
	ret = copy(ctx, ent->buf->data, ent->buf->len);
	mutex_lock(&link->lock);
	if (ret) {
		pf->reading = NULL;
	} else {
		ret = ent->buf->len;
		phyllo_file_consume_locked(pf, ent);
	}
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
		/* another reader may be paused in its copy (a page fault) */
		if (nonblock ? !mutex_trylock(&pf->read_lock) :
		    mutex_lock_interruptible(&pf->read_lock))
			return nonblock ? -EAGAIN : -ERESTARTSYS;
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
	return !READ_ONCE(pf->unreliable) &&
	       READ_ONCE(pf->link->preset) == PHYLLO_PRESET_STANDARD;
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
	if (pf->rxq_units || pf->reset_tail || pf->down_tail || pf->lost)
		mask |= EPOLLIN | EPOLLRDNORM;
	if (link->dead)
		mask |= EPOLLHUP | EPOLLIN | EPOLLRDNORM;
	else if (phyllo_link_can_send(link, phyllo_file_reliable(pf)))
		mask |= EPOLLOUT | EPOLLWRNORM;
	if (pf->reset_gen != link->reset_gen)
		mask |= EPOLLPRI | EPOLLERR;
	/* a reset, a down or an up waits for a read */
	if (pf->rd_resets)
		mask |= EPOLLPRI;
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

/* A writer blocked on the window may now write unreliably: wake it. */
int phyllo_file_set_send_mode(struct phyllo_file *pf, u32 mode)
{
	struct phyllo_link *link = pf->link;

	if (mode != PHYLLO_SEND_RELIABLE && mode != PHYLLO_SEND_UNRELIABLE)
		return -EINVAL;
	mutex_lock(&link->lock);
	WRITE_ONCE(pf->unreliable, mode == PHYLLO_SEND_UNRELIABLE);
	mutex_unlock(&link->lock);
	wake_up_interruptible_poll(&link->wwait, EPOLLOUT | EPOLLWRNORM);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_file_set_send_mode);

/* Drop or hold (contract 3); leaving hold lets a refused unit in. */
int phyllo_file_set_recv_mode(struct phyllo_file *pf, u32 mode)
{
	struct phyllo_link *link = pf->link;

	if (mode != PHYLLO_RECV_DROP && mode != PHYLLO_RECV_HOLD)
		return -EINVAL;
	mutex_lock(&link->lock);
	pf->hold = mode == PHYLLO_RECV_HOLD;
	if (!pf->hold && phyllo_link_room_locked(link))
		phyllo_link_kick_locked(link);
	mutex_unlock(&link->lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_file_set_recv_mode);

void phyllo_file_stats(struct phyllo_file *pf, struct phyllo_file_stats *st)
{
	struct phyllo_link *link = pf->link;
	s32 unacked;

	mutex_lock(&link->lock);
	*st = pf->stats;
	st->rx_queued = pf->rxq_units;
	st->rx_queued_bytes = pf->rxq_bytes;
	st->rx_overrun = pf->overrun;
	st->recv_mode = pf->hold ? PHYLLO_RECV_HOLD : PHYLLO_RECV_DROP;
	unacked = (s32)(pf->tx_mark - phyllo_link_tx_done_locked(link));
	st->tx_unacked = pf->tx_marked && unacked > 0 ? unacked : 0;
	/* read with tx_unacked: a unit retired as lost shows its reset */
	st->resets_unseen = link->reset_gen - pf->reset_gen;
	mutex_unlock(&link->lock);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_file_stats);
