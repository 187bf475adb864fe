// SPDX-License-Identifier: GPL-2.0-only
/*
 * phyllo_link.c - one protocol stack on one tty: bytes in, units out,
 * frames through a fifo to the tty, timers as hrtimer + work.
 *
 * The short path: what a receive calls for (the ACK above all) is written
 * by the poll at the end of that same receive_buf call, straight to the
 * tty; only timers and write_wakeup go through the work, on the module's
 * own high-priority workqueue. The hrtimer runs only while the reliable
 * layer has a deadline (phyllo_arq_has_deadline()), with 1/8 of its
 * delay as slack, so an idle link, and any link of a preset without
 * timers, never wakes the CPU.
 *
 * Contract (locking in phyllo_link.h):
 *  1. The stack's output sink only appends to the transmit fifo; the fifo
 *     goes to tty->ops->write from process context (receive path, writers,
 *     the link work), with TTY_DO_WRITE_WAKEUP set first. A partly written
 *     fifo waits for write_wakeup, which only schedules the link work.
 *  2. Received bytes never make the stack write (the core's contract);
 *     the poll runs only with PHYLLO_TX_RESERVE bytes free in the fifo and
 *     a send only with PHYLLO_TX_SEND_ROOM, so the sink never has to cut a
 *     frame (tx_overruns would count it). However the peer floods, the
 *     fifo holds at most what the tty has not taken plus one poll.
 *  3. Core error codes become errno values in phyllo_err_to_errno() only.
 *  4. A session reset (the core's PHYLLO_EV_RESET, or a new configuration)
 *     bumps reset_gen; every file reports it once.
 *  5. Time comes from link->clock, so the KUnit cases drive it by hand.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/tty_flip.h>

#include "phyllo_link.h"

#ifdef PHYLLO_TRACE_HEADER
#define CREATE_TRACE_POINTS
#include "phyllo_events.h"
#endif

/* The link work: timers and write wakeups of every link. */
static struct workqueue_struct *phyllo_wq;

int phyllo_link_wq_init(void)
{
#ifdef PHYLLO_NO_WQ_PERCPU
	phyllo_wq = alloc_workqueue("phyllo", WQ_HIGHPRI, 0);
#else
	phyllo_wq = alloc_workqueue("phyllo", WQ_HIGHPRI | WQ_PERCPU, 0);
#endif
	return phyllo_wq ? 0 : -ENOMEM;
}

void phyllo_link_wq_exit(void)
{
	destroy_workqueue(phyllo_wq);
}

#ifdef PHYLLO_TRACE_HEADER
int phyllo_trace_unit(const void *ctx)
{
	return READ_ONCE(((const struct phyllo_link *)ctx)->unit);
}
#endif

int phyllo_err_to_errno(int err)
{
	switch (err) {
	case PHYLLO_OK:
		return 0;
	case PHYLLO_E_TOOBIG:
	case PHYLLO_E_OVERFLOW:
		return -EMSGSIZE;
	case PHYLLO_E_AGAIN:
		return -EAGAIN;
	case PHYLLO_E_NOSPACE:
	case PHYLLO_E_HOLD:
		return -ENOBUFS;
	case PHYLLO_E_NOSESSION:
		return -ENOTCONN;
	case PHYLLO_E_EMPTY:
		return -ENODATA;
	case PHYLLO_E_FRAMING:
	case PHYLLO_E_LENGTH:
	case PHYLLO_E_CRC:
	case PHYLLO_E_TYPE:
	case PHYLLO_E_FLAGS:
	case PHYLLO_E_SEQ:
	case PHYLLO_E_DUP:
	case PHYLLO_E_ACK:
	case PHYLLO_E_TOPIC:
	case PHYLLO_E_MSGPACK:
		return -EBADMSG;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_err_to_errno);

u32 phyllo_now_ms(void)
{
	return (u32)ktime_to_ms(ktime_get());
}

/* NULL if cfg is a valid, complete configuration, else the bad field. */
const char *phyllo_config_invalid(const struct phyllo_link_config *cfg)
{
	if (cfg->reserved)
		return "reserved";
	if (cfg->flags & ~PHYLLO_CFG_NO_HANDSHAKE)
		return "flags";
	if (cfg->preset > PHYLLO_CFG_STANDARD)
		return "preset";
	if (cfg->window < 1 || cfg->window > PHYLLO_ARQ_WINDOW_MAX)
		return "window";
	if (cfg->rto_min_ms < 1 || cfg->rto_min_ms > U16_MAX)
		return "rto_min_ms";
	if (cfg->rto_max_ms < cfg->rto_min_ms || cfg->rto_max_ms > U16_MAX)
		return "rto_max_ms";
	if (cfg->rto_init_ms < cfg->rto_min_ms ||
	    cfg->rto_init_ms > cfg->rto_max_ms)
		return "rto_init_ms";
	if (cfg->ack_delay_ms > U16_MAX)
		return "ack_delay_ms";
	if (cfg->max_retries > U8_MAX)
		return "max_retries";
	if (cfg->rxq_units < 1 || cfg->rxq_units > PHYLLO_RXQ_UNITS_MAX)
		return "rxq_units";
	if (cfg->rxq_bytes < phyllo_rxq_bytes_min() ||
	    cfg->rxq_bytes > PHYLLO_RXQ_BYTES_MAX)
		return "rxq_bytes";
	if (cfg->rxq_link_bytes < cfg->rxq_bytes ||
	    cfg->rxq_link_bytes > PHYLLO_RXQ_LINK_BYTES_MAX)
		return "rxq_link_bytes";
	if (cfg->max_files < 1 || cfg->max_files > PHYLLO_FILES_MAX)
		return "max_files";
	if (cfg->rxq_stall_ms < 1 || cfg->rxq_stall_ms > PHYLLO_STALL_MS_MAX)
		return "rxq_stall_ms";
	if (cfg->linger_ms > PHYLLO_LINGER_MS_MAX &&
	    cfg->linger_ms != PHYLLO_LINGER_FOREVER)
		return "linger_ms";
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_config_invalid);

int phyllo_config_check(const struct phyllo_link_config *cfg)
{
	return phyllo_config_invalid(cfg) ? -EINVAL : 0;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_config_check);

/* Do a and b differ in what starts a new session (the first 8 words)? */
static bool phyllo_config_protocol_differs(const struct phyllo_link_config *a,
					   const struct phyllo_link_config *b)
{
	return a->preset != b->preset || a->window != b->window ||
	       a->rto_min_ms != b->rto_min_ms || a->rto_max_ms != b->rto_max_ms ||
	       a->rto_init_ms != b->rto_init_ms ||
	       a->ack_delay_ms != b->ack_delay_ms ||
	       a->max_retries != b->max_retries || a->flags != b->flags;
}

u32 phyllo_link_now(struct phyllo_link *link)
{
	return link->clock();
}

/* The stack's output sink: append to the transmit fifo, never block. */
static void phyllo_link_out(void *ctx, const uint8_t *buf, uint16_t n)
{
	struct phyllo_link *link = ctx;
	unsigned int done = kfifo_in(&link->txfifo, buf, n);

	link->fifo_in += done;
	link->gstats.tx_overruns += n - done;
}

/*
 * A largest frame's time on the line, from the tty's speed, for the RTO
 * floor; a pty has no line, so 0. Called when the link starts and from
 * the ldisc's set_termios, with termios_rwsem held by the caller.
 */
void phyllo_link_termios(struct phyllo_link *link)
{
	struct tty_struct *tty;
	speed_t baud;
	u16 line_ms = 0;

	mutex_lock(&link->lock);
	tty = link->tty;
	if (tty && tty->driver->type != TTY_DRIVER_TYPE_PTY) {
		baud = tty_get_baud_rate(tty);
		if (baud)
			line_ms = PHYLLO_LINE_MS(baud);
	}
	link->line_ms = line_ms;
	if (link->stack.preset == PHYLLO_PRESET_STANDARD)
		phyllo_arq_set_line_ms(&link->stack.arq, line_ms);
	mutex_unlock(&link->lock);
}

/*
 * The core's counters into their 64-bit totals: what each grew by since
 * the last fold (u32 arithmetic: a wrap in between is counted right). At
 * every kick, so far more often than any counter can wrap.
 */
static void phyllo_link_fold_locked(struct phyllo_link *link)
{
	const u32 *cur = (const u32 *)&link->stack.stats;
	unsigned int i;

	lockdep_assert_held(&link->lock);
	for (i = 0; i < PHYLLO_STATS_FIELDS; i++) {
		link->core64[i] += (u32)(cur[i] - link->core_seen[i]);
		link->core_seen[i] = cur[i];
	}
}

/* (Re)start the stack with cfg: a new configuration is a new session. */
static int phyllo_link_restart_locked(struct phyllo_link *link,
				      const struct phyllo_link_config *cfg)
{
	struct phyllo_arq_config ac = {
		.window = cfg->window,
		.handshake = !(cfg->flags & PHYLLO_CFG_NO_HANDSHAKE),
		.rto_min_ms = cfg->rto_min_ms,
		.rto_max_ms = cfg->rto_max_ms,
		.rto_init_ms = cfg->rto_init_ms,
		.ack_delay_ms = cfg->ack_delay_ms,
		.max_retries = cfg->max_retries,
	};
	struct phyllo_out out = { .write = phyllo_link_out, .ctx = link };
	const struct phyllo_arq *arq = &link->stack.arq;
	int ret;

	lockdep_assert_held(&link->lock);
	/* Units still queued are lost with the old stack: counted, and
	 * retired, so every file's fsync mark is met.
	 */
	link->session_base += link->stack.stats.sessions;
	link->lost_base += link->stack.stats.tx_reset_lost +
			   (arq->tx_queued_total - arq->tx_retired_total);
	link->tx_total_base += arq->tx_queued_total;
	phyllo_link_fold_locked(link);
	memset(link->core_seen, 0, sizeof(link->core_seen));
	ret = phyllo_stack_init(&link->stack, cfg->preset, &ac, &out,
				get_random_u32(), phyllo_link_now(link));
	if (ret < 0)
		return phyllo_err_to_errno(ret);
	link->stack.trace_ctx = link;
	link->stack.arq.trace_ctx = link;
	WRITE_ONCE(link->preset, link->stack.preset);
	link->cfg = *cfg;
	link->cfg.mask = 0;
	phyllo_files_policy_locked(link);
	if (cfg->preset == PHYLLO_CFG_STANDARD)
		phyllo_arq_set_line_ms(&link->stack.arq, link->line_ms);
	return 0;
}

static void phyllo_link_work(struct work_struct *work)
{
	struct phyllo_link *link = container_of(work, struct phyllo_link, work);

	mutex_lock(&link->lock);
	phyllo_link_kick_locked(link);
	mutex_unlock(&link->lock);
}

/* From write_wakeup and the timer: no I/O here, only the work. */
void phyllo_link_schedule(struct phyllo_link *link)
{
	queue_work(phyllo_wq, &link->work);
}

static enum hrtimer_restart phyllo_link_timer(struct hrtimer *timer)
{
	struct phyllo_link *link = container_of(timer, struct phyllo_link, timer);

	phyllo_link_schedule(link);
	return HRTIMER_NORESTART;
}

/* A down link's linger ran out: it goes if still down with no file. */
static void phyllo_link_linger_work(struct work_struct *work)
{
	struct phyllo_link *link = container_of(to_delayed_work(work),
						struct phyllo_link, linger);

	phyllo_name_expire(link);
	phyllo_link_put(link);		/* the work's own reference */
}

struct phyllo_link *phyllo_link_create(const struct phyllo_link_config *cfg)
{
	struct phyllo_link *link;
	int ret;

	ret = phyllo_config_check(cfg);
	if (ret)
		return ERR_PTR(ret);
	link = kzalloc(sizeof(*link), GFP_KERNEL);
	if (!link)
		return ERR_PTR(-ENOMEM);
	kref_init(&link->ref);
	mutex_init(&link->lock);
	init_waitqueue_head(&link->wwait);
	INIT_LIST_HEAD(&link->files);
	INIT_WORK(&link->work, phyllo_link_work);
	INIT_DELAYED_WORK(&link->linger, phyllo_link_linger_work);
#ifdef PHYLLO_NO_HRTIMER_SETUP
	hrtimer_init(&link->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	link->timer.function = phyllo_link_timer;
#else
	hrtimer_setup(&link->timer, phyllo_link_timer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL);
#endif
	link->unit = -1;
	link->clock = phyllo_now_ms;
	ret = kfifo_alloc(&link->txfifo, PHYLLO_TX_FIFO, GFP_KERNEL);
	if (!ret) {
		mutex_lock(&link->lock);
		ret = phyllo_link_restart_locked(link, cfg);
		phyllo_files_hold_init_locked(link);
		phyllo_link_note_room_locked(link);
		mutex_unlock(&link->lock);
	}
	if (ret) {
		phyllo_link_put(link);
		return ERR_PTR(ret);
	}
	return link;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_create);

void phyllo_link_get(struct phyllo_link *link)
{
	kref_get(&link->ref);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_get);

static void phyllo_link_free(struct kref *ref)
{
	struct phyllo_link *link = container_of(ref, struct phyllo_link, ref);

	kfifo_free(&link->txfifo);
	mutex_destroy(&link->lock);
	kfree(link);
}

void phyllo_link_put(struct phyllo_link *link)
{
	kref_put(&link->ref, phyllo_link_free);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_put);

void phyllo_link_start(struct phyllo_link *link, struct tty_struct *tty)
{
	mutex_lock(&link->lock);
	link->tty = tty;
	mutex_unlock(&link->lock);
	down_read(&tty->termios_rwsem);
	phyllo_link_termios(link);
	up_read(&tty->termios_rwsem);
	mutex_lock(&link->lock);
	phyllo_link_kick_locked(link);
	mutex_unlock(&link->lock);
}

static void phyllo_link_unquiet_locked(struct phyllo_link *link);

/*
 * A link the line discipline just made keeps quiet for up to ms (0: not
 * at all) before it starts its handshake: see struct phyllo_link. Only
 * a session with a handshake needs it; other presets open none.
 */
void phyllo_link_quiet(struct phyllo_link *link, u32 ms)
{
	mutex_lock(&link->lock);
	if (ms && link->stack.preset == PHYLLO_PRESET_STANDARD &&
	    link->stack.arq.cfg.handshake) {
		link->quiet = true;
		link->quiet_until = phyllo_link_now(link) + ms;
		link->quiet_len = 0;
	}
	mutex_unlock(&link->lock);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_quiet);

/* Hangup or detach: no more I/O; wake every sleeper to see it. */
void phyllo_link_kill(struct phyllo_link *link)
{
	mutex_lock(&link->lock);
	WRITE_ONCE(link->dead, true);
	WRITE_ONCE(link->events, link->events + 1);
	phyllo_files_hold_stop_locked(link);
	phyllo_files_wake_locked(link);
	mutex_unlock(&link->lock);
	/* Nothing re-arms the timer once dead is set under the lock. */
	hrtimer_cancel(&link->timer);
	cancel_work_sync(&link->work);
	wake_up_interruptible_all(&link->wwait);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_kill);

/* A new session: every file is told, its reader in order. */
static void phyllo_link_reset_locked(struct phyllo_link *link)
{
	lockdep_assert_held(&link->lock);
	WRITE_ONCE(link->reset_gen, link->reset_gen + 1);
	link->wake_writers = true;
	phyllo_files_hold_stop_locked(link);
	phyllo_files_reset_locked(link);
}

/*
 * A named link lost its tty (hangup or detach; the line discipline no
 * longer reaches it): it goes down, not away. The session ends as a new
 * configuration ends it (units not yet acknowledged are lost, counted,
 * and every file is told), the transmit fifo's bytes for the old tty
 * go, and every file's reader sees the down after what is queued.
 * Writers wait for the next tty (phyllo_link_up()).
 */
void phyllo_link_down(struct phyllo_link *link)
{
	struct phyllo_link_config cfg;

	mutex_lock(&link->lock);
	if (link->dead || link->down) {
		mutex_unlock(&link->lock);
		return;
	}
	link->tty = NULL;
	link->tty_name[0] = '\0';
	WRITE_ONCE(link->down, true);
	link->down_since = phyllo_link_now(link);
	link->downs++;
	kfifo_reset(&link->txfifo);
	link->fifo_out = link->fifo_in;
	/* the config is valid: restarting the stack with it cannot fail */
	cfg = link->cfg;
	WARN_ON(phyllo_link_restart_locked(link, &cfg));
	phyllo_link_reset_locked(link);
	phyllo_files_down_locked(link);
	phyllo_link_note_room_locked(link);
	WRITE_ONCE(link->events, link->events + 1);
	mutex_unlock(&link->lock);
	hrtimer_cancel(&link->timer);
	cancel_work_sync(&link->work);
	wake_up_interruptible_all(&link->wwait);
	phyllo_chrdev_changed(link);
	phyllo_link_linger(link);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_down);

/*
 * A down named link gets a tty (NULL in tests): up, with a new session,
 * its files as they were. The caller holds the claim on it
 * (phyllo_name_attach()) and gives it the line discipline's reference.
 */
void phyllo_link_up(struct phyllo_link *link, struct tty_struct *tty)
{
	phyllo_link_linger_cancel(link);
	mutex_lock(&link->lock);
	WRITE_ONCE(link->down, false);
	link->claimed = false;
	if (tty)
		strscpy(link->tty_name, tty_name(tty), sizeof(link->tty_name));
	/* the first tty's frame cut off by the hangup is not completed */
	phyllo_cobs_rx_init(&link->stack.rx);
	link->wake_writers = true;
	phyllo_files_reset_locked(link);
	mutex_unlock(&link->lock);
	phyllo_chrdev_changed(link);
	if (tty) {
		phyllo_link_start(link, tty);
		return;
	}
	mutex_lock(&link->lock);
	phyllo_link_kick_locked(link);
	mutex_unlock(&link->lock);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_up);

/* A session of the standard preset, with a handshake, not yet open. */
static bool phyllo_link_handshaking_locked(struct phyllo_link *link)
{
	lockdep_assert_held(&link->lock);
	return link->stack.preset == PHYLLO_PRESET_STANDARD &&
	       link->stack.arq.cfg.handshake &&
	       link->stack.arq.state != PHYLLO_ARQ_OPEN;
}

/*
 * A tty moves from its fresh link to the down link (phyllo_ldisc_attach()),
 * whose session starts only at phyllo_link_up(). The fresh link's SYN
 * may be on the wire already, and the board may have answered it. While
 * that handshake is unfinished the down link takes its nonce, so the
 * board sees the same SYN again (answered, its session kept), not a
 * second new session: one plug, one reset at the board. A fresh link
 * that opened already keeps its nonce to itself, since the board may
 * have sent it units that no file got; the board then sees two sessions.
 */
void phyllo_link_take_handshake(struct phyllo_link *link,
				struct phyllo_link *fresh)
{
	bool pending;
	u32 nonce;

	mutex_lock(&fresh->lock);
	pending = phyllo_link_handshaking_locked(fresh);
	nonce = fresh->stack.arq.local_nonce;
	mutex_unlock(&fresh->lock);
	if (!pending)
		return;
	mutex_lock(&link->lock);
	if (link->down && phyllo_link_handshaking_locked(link))
		link->stack.arq.local_nonce = nonce;
	mutex_unlock(&link->lock);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_take_handshake);

/*
 * A down link with no open file goes away after cfg.linger_ms (never
 * with PHYLLO_LINGER_FOREVER); a later call starts the wait again. The
 * queued work holds a reference.
 */
void phyllo_link_linger(struct phyllo_link *link)
{
	u32 ms;

	mutex_lock(&link->lock);
	ms = link->cfg.linger_ms;
	if (!link->down || link->nfiles || ms == PHYLLO_LINGER_FOREVER) {
		mutex_unlock(&link->lock);
		return;
	}
	mutex_unlock(&link->lock);
	phyllo_link_get(link);
	if (mod_delayed_work(phyllo_wq, &link->linger, msecs_to_jiffies(ms)))
		phyllo_link_put(link);	/* it was queued with its own */
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_linger);

/* The linger stops (the link is up again, or going); true if it was queued. */
bool phyllo_link_linger_cancel(struct phyllo_link *link)
{
	if (!cancel_delayed_work(&link->linger))
		return false;
	phyllo_link_put(link);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_linger_cancel);

/* Under the lock: apply a complete, checked configuration. */
static int phyllo_link_apply_locked(struct phyllo_link *link,
				    const struct phyllo_link_config *cfg)
{
	int ret = 0;

	lockdep_assert_held(&link->lock);
	if (link->dead)
		return -EIO;
	if (phyllo_config_check(cfg))
		return -EINVAL;
	if (phyllo_config_protocol_differs(cfg, &link->cfg)) {
		ret = phyllo_link_restart_locked(link, cfg);
		if (!ret)
			phyllo_link_reset_locked(link);
	} else {
		/* a hold ends; the peer is asked again for a refused unit */
		phyllo_files_hold_stop_locked(link);
		link->cfg = *cfg;
		link->cfg.mask = 0;
		phyllo_files_policy_locked(link);
		phyllo_link_room_locked(link);
	}
	if (!ret)
		phyllo_link_kick_locked(link);
	return ret;
}

/* The words of struct phyllo_link_config that mask can name. */
#define PHYLLO_CFG_WORDS (sizeof(struct phyllo_link_config) / sizeof(u32))
static_assert(PHYLLO_SET_ALL ==
	      ((BIT(offsetof(struct phyllo_link_config, mask) / sizeof(u32)) - 1) |
	       BIT(offsetof(struct phyllo_link_config, linger_ms) / sizeof(u32))));

/*
 * A new configuration: the words req->mask names, the link's own values
 * for the others, checked and applied in one section under the lock, so
 * two writers never undo each other. Only a change of the protocol's
 * words starts a new session; a receive policy that grew may let a
 * refused unit in, so the peer is asked again.
 */
int phyllo_link_configure(struct phyllo_link *link,
			  const struct phyllo_link_config *req)
{
	struct phyllo_link_config cfg;
	const u32 *in = (const u32 *)req;
	u32 *out = (u32 *)&cfg;
	unsigned int i;
	int ret;

	if (!req->mask || req->mask & ~PHYLLO_SET_ALL || req->reserved)
		return -EINVAL;
	mutex_lock(&link->lock);
	cfg = link->cfg;
	for (i = 0; i < PHYLLO_CFG_WORDS; i++)
		if (req->mask & PHYLLO_SET_ALL & BIT(i))
			out[i] = in[i];
	ret = phyllo_link_apply_locked(link, &cfg);
	mutex_unlock(&link->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_configure);

/* One word of the configuration (sysfs config/), as SET_CONFIG sets it. */
int phyllo_link_set_word(struct phyllo_link *link, size_t offset, u32 value)
{
	struct phyllo_link_config req = {};

	if (offset % sizeof(u32) || offset >= sizeof(req) ||
	    !(PHYLLO_SET_ALL & BIT(offset / sizeof(u32))))
		return -EINVAL;
	memcpy((u8 *)&req + offset, &value, sizeof(value));
	req.mask = BIT(offset / sizeof(u32));
	return phyllo_link_configure(link, &req);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_set_word);

/* Hand the fifo to the tty; what it does not take waits for write_wakeup. */
static void phyllo_link_flush_locked(struct phyllo_link *link)
{
	struct tty_struct *tty = link->tty;
	unsigned int n;
	int done;

	lockdep_assert_held(&link->lock);

	if (!tty || link->dead)
		return;
	while (!kfifo_is_empty(&link->txfifo)) {
		n = kfifo_out_peek(&link->txfifo, link->bounce,
				   sizeof(link->bounce));
		set_bit(TTY_DO_WRITE_WAKEUP, &tty->flags);
		done = tty->ops->write(tty, link->bounce, n);
		if (done <= 0)
			return;
		link->fifo_out += done;
#ifdef PHYLLO_NO_KFIFO_SKIP_COUNT
		/* Discard what the tty took, by copying it out. */
		done = kfifo_out(&link->txfifo, link->bounce, done);
#else
		kfifo_skip_count(&link->txfifo, done);
#endif
		if (done < n)
			return;
	}
	clear_bit(TTY_DO_WRITE_WAKEUP, &tty->flags);
}

/* What the core says happened; a reset is reported to every file. */
static u8 phyllo_link_events_locked(struct phyllo_link *link)
{
	u8 ev = phyllo_stack_take_events(&link->stack);
#ifdef PHYLLO_TRACE_HEADER
	const struct phyllo_stats *st = &link->stack.stats;
#endif

	lockdep_assert_held(&link->lock);

	if (ev & PHYLLO_EV_RESET)
		phyllo_link_reset_locked(link);
#ifdef PHYLLO_TRACE_HEADER
	if (ev & PHYLLO_EV_RESET)
		trace_phyllo_session(link->unit, true,
				     link->session_base + st->sessions,
				     link->lost_base + st->tx_reset_lost);
	if (ev & PHYLLO_EV_OPEN)
		trace_phyllo_session(link->unit, false,
				     link->session_base + st->sessions,
				     link->lost_base + st->tx_reset_lost);
#endif
	return ev;
}

/* Does the reliable layer have a deadline (timer running, frame owed)? */
bool phyllo_link_has_deadline_locked(struct phyllo_link *link)
{
	lockdep_assert_held(&link->lock);
	return link->stack.preset == PHYLLO_PRESET_STANDARD &&
	       phyllo_arq_has_deadline(&link->stack.arq);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_has_deadline_locked);

/*
 * The hrtimer for the next deadline, in next ms, or none: the reliable
 * layer's (slack 1/8 of the delay), or the end of a hold's budget
 * (slack 1 ms at most: the hold's bound is stated to the ms).
 */
static void phyllo_link_arm_locked(struct phyllo_link *link, u32 next,
				   bool hold)
{
	u64 ns = (u64)max_t(u32, next, 1) * NSEC_PER_MSEC;
	u64 slack = hold ? min_t(u64, ns >> 3, NSEC_PER_MSEC) : ns >> 3;

	if (!link->tty ||
	    (!phyllo_link_has_deadline_locked(link) && !link->held)) {
		hrtimer_try_to_cancel(&link->timer);
		return;
	}
	hrtimer_start_range_ns(&link->timer, ns_to_ktime(ns), slack,
			       HRTIMER_MODE_REL);
}

/*
 * Writers and fsync, only if what they wait for may have changed: the
 * fifo drained (room to write, a file's frames gone), units retired
 * (window room, fsync), a session opened or was reset.
 */
static void phyllo_link_wake_writers_locked(struct phyllo_link *link, u8 ev)
{
	if (!(ev & (PHYLLO_EV_ROOM | PHYLLO_EV_OPEN | PHYLLO_EV_RESET)) &&
	    !link->wake_writers && link->fifo_out == link->fifo_woken)
		return;
	link->wake_writers = false;
	link->fifo_woken = link->fifo_out;
	WRITE_ONCE(link->events, link->events + 1);
	wake_up_interruptible_poll(&link->wwait, EPOLLOUT | EPOLLWRNORM);
}

/*
 * After any stack activity: run the timers if the fifo has room, send,
 * note resets, arm the timer for the next deadline (if any) and wake the
 * writers if their condition changed (readers are woken as units reach
 * their queue).
 */
void phyllo_link_kick_locked(struct phyllo_link *link)
{
	/* With the fifo backed up, write_wakeup brings the next kick. */
	u32 next = 1000, hold;
	u8 ev;

	lockdep_assert_held(&link->lock);
	if (link->dead || link->down)
		return;
	if (link->quiet) {
		u32 now = phyllo_link_now(link);

		if (!phyllo_time_reached(now, link->quiet_until)) {
			u64 ns = (u64)(link->quiet_until - now) * NSEC_PER_MSEC;

			if (link->tty)
				hrtimer_start_range_ns(&link->timer, ns,
						       NSEC_PER_MSEC,
						       HRTIMER_MODE_REL);
			return;
		}
		phyllo_link_unquiet_locked(link);	/* nobody claimed it */
	}
	/*
	 * The peer is asked again (a NAK) for a refused unit at once when
	 * no file holds it: a hold whose budget ran out (the holders that
	 * still have no room lose it, phyllo_file.c), or an allocation that
	 * failed. A holder's refusal waits for its read to make room.
	 */
	hold = phyllo_files_hold_left_locked(link, phyllo_link_now(link));
	if (!hold || !link->held)
		phyllo_link_room_locked(link);
	phyllo_link_flush_locked(link);
	if (kfifo_avail(&link->txfifo) >= PHYLLO_TX_RESERVE)
		next = phyllo_stack_poll(&link->stack, phyllo_link_now(link));
	phyllo_link_flush_locked(link);
	ev = phyllo_link_events_locked(link);
	phyllo_link_arm_locked(link, hold && hold < next ? hold : next,
			       hold && hold < next);
	phyllo_link_note_room_locked(link);
	phyllo_link_wake_writers_locked(link, ev);
	phyllo_link_fold_locked(link);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_kick_locked);

/*
 * A file made room: ask the peer for what was refused (a NAK, owed to the
 * next poll, which the caller's kick runs). True if there was something
 * to ask for.
 */
bool phyllo_link_room_locked(struct phyllo_link *link)
{
	lockdep_assert_held(&link->lock);
	if (link->stack.preset != PHYLLO_PRESET_STANDARD ||
	    !link->stack.arq.hold_dropped)
		return false;
	phyllo_arq_hold(&link->stack.arq, false);
	return true;
}

/*
 * Units one hold of link->lock may deliver: PHYLLO_RX_UNITS_PER_LOCK, or
 * fewer with many files open, so that a hold visits at most
 * PHYLLO_RX_VISITS_PER_LOCK files (each unit's passes visit each file).
 */
static int phyllo_link_rx_batch(const struct phyllo_link *link)
{
	return clamp_t(u32, PHYLLO_RX_VISITS_PER_LOCK / max(link->nfiles, 1U), 1,
		       PHYLLO_RX_UNITS_PER_LOCK);
}

/*
 * Bytes into the stack, one unit at a time, until n bytes or *units
 * reaches phyllo_link_rx_batch(); returns the bytes taken. A reliable
 * unit some file cannot take yet is refused: the peer keeps it and
 * resends it when a read makes room (phyllo_link_room_locked()). Only a
 * reliable unit can be refused (the core's undo is valid for it alone).
 */
static size_t phyllo_link_feed_locked(struct phyllo_link *link, const u8 *p,
				      size_t n, int *units)
{
	struct phyllo_stack *s = &link->stack;
	struct phyllo_unit u;
	size_t done = 0;
	bool got, reliable;
	u16 used;

	lockdep_assert_held(&link->lock);

	while (done < n && *units < phyllo_link_rx_batch(link)) {
		used = phyllo_stack_receive(s, p + done,
					    min_t(size_t, n - done, U16_MAX),
					    phyllo_link_now(link), &u, &got);
		if (got) {
			reliable = s->preset == PHYLLO_PRESET_STANDARD &&
				   s->arq.undo_valid;
			(*units)++;
			if (!phyllo_files_deliver_locked(link, &u, reliable) &&
			    phyllo_stack_refuse(s) < 0)
				phyllo_files_deliver_locked(link, &u, false);
		}
		if (!used)
			return n;
		done += used;
	}
	return done;
}

/* The ACK first, then the readers of what it acknowledges. */
static void phyllo_link_received_locked(struct phyllo_link *link)
{
	phyllo_link_kick_locked(link);
	phyllo_files_wake_queued_locked(link);
}

/*
 * The quiet ends: what arrived meanwhile goes to the stack first, in
 * order, without letting the lock go (so no later byte overtakes it),
 * from a copy (quiet_buf is the transmit path's bounce buffer). The
 * caller kicks.
 */
static void phyllo_link_unquiet_locked(struct phyllo_link *link)
{
	u8 kept[sizeof(link->quiet_buf)];
	size_t done = 0, n = link->quiet_len;
	int units;

	lockdep_assert_held(&link->lock);
	if (!link->quiet)
		return;
	link->quiet = false;
	link->quiet_len = 0;
	memcpy(kept, link->quiet_buf, n);
	while (done < n && !link->dead && !link->down) {
		units = 0;
		done += phyllo_link_feed_locked(link, kept + done, n - done,
						&units);
	}
}

/* A file opened, or the link was named: it speaks now. */
void phyllo_link_speak_locked(struct phyllo_link *link)
{
	lockdep_assert_held(&link->lock);
	if (!link->quiet)
		return;
	phyllo_link_unquiet_locked(link);
	phyllo_link_received_locked(link);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_speak_locked);

void phyllo_link_speak(struct phyllo_link *link)
{
	mutex_lock(&link->lock);
	phyllo_link_speak_locked(link);
	mutex_unlock(&link->lock);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_speak);

/* No byte flagged bad (a tty passes no flags, or TTY_NORMAL's). */
static bool phyllo_link_all_normal(const char *fp, size_t count)
{
	size_t i;

	for (i = 0; fp && i < count; i++)
		if (fp[i] != TTY_NORMAL)
			return false;
	return true;
}

/*
 * Bytes from the tty; bytes it flags as bad are counted and skipped. The
 * lock is let go after every phyllo_link_rx_batch() units. A quiet link
 * keeps them for later (struct phyllo_link).
 */
void phyllo_link_receive(struct phyllo_link *link, const u8 *cp,
			 const char *fp, size_t count)
{
	size_t run;
	int units = 0;

	mutex_lock(&link->lock);
	if (link->quiet && phyllo_link_all_normal(fp, count) &&
	    count <= sizeof(link->quiet_buf) - link->quiet_len) {
		memcpy(link->quiet_buf + link->quiet_len, cp, count);
		link->quiet_len += count;
		mutex_unlock(&link->lock);
		return;
	}
	/* bytes flagged bad, or more than a quiet link keeps: it speaks */
	phyllo_link_unquiet_locked(link);
	while (count && !link->dead && !link->down) {
		for (run = 0; run < count; run++)
			if (fp && fp[run] != TTY_NORMAL)
				break;
		if (run) {
			run = phyllo_link_feed_locked(link, cp, run, &units);
		} else {
			link->gstats.rx_tty_errors++;
			run = 1;
		}
		cp += run;
		count -= run;
		if (fp)
			fp += run;
		if (count && units >= phyllo_link_rx_batch(link)) {
			phyllo_link_received_locked(link);
			mutex_unlock(&link->lock);
			cond_resched();
			mutex_lock(&link->lock);
			units = 0;
		}
	}
	phyllo_link_received_locked(link);
	mutex_unlock(&link->lock);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_receive);

static bool phyllo_link_can_send_locked(struct phyllo_link *link,
					bool reliable)
{
	lockdep_assert_held(&link->lock);
	if (link->down || kfifo_avail(&link->txfifo) < PHYLLO_TX_SEND_ROOM)
		return false;
	return !reliable || phyllo_stack_room(&link->stack) > 0;
}

/* What the lockless wait conditions read, after every change. */
void phyllo_link_note_room_locked(struct phyllo_link *link)
{
	WRITE_ONCE(link->room[0], phyllo_link_can_send_locked(link, false));
	WRITE_ONCE(link->room[1], phyllo_link_can_send_locked(link, true));
}

/* Lockless for wait conditions; rechecked under the lock before sending. */
bool phyllo_link_can_send(struct phyllo_link *link, bool reliable)
{
	return READ_ONCE(link->room[reliable]);
}

/* unit is [type][payload]; reliable only on the standard preset. */
int phyllo_link_send_locked(struct phyllo_link *link, const u8 *unit,
			    size_t len, bool reliable)
{
	int ret;

	lockdep_assert_held(&link->lock);

	if (link->dead)
		return -EIO;
	if (!phyllo_link_can_send_locked(link, reliable))
		return -EAGAIN;
	ret = phyllo_stack_send(&link->stack, unit[0], unit + 1, len - 1,
				reliable, phyllo_link_now(link));
	if (ret < 0)
		return phyllo_err_to_errno(ret);
	phyllo_link_kick_locked(link);
	return 0;
}

/* Reliable units acknowledged or lost to a reset, since the link began
 * (earlier configurations included): compare with u32 wrap in mind.
 */
u32 phyllo_link_tx_done_locked(struct phyllo_link *link)
{
	lockdep_assert_held(&link->lock);
	return link->tx_total_base + link->stack.arq.tx_retired_total;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_tx_done_locked);

void phyllo_link_state_locked(struct phyllo_link *link,
			      struct phyllo_link_state *st)
{
	const struct phyllo_stack *s = &link->stack;
	bool arq = s->preset == PHYLLO_PRESET_STANDARD;

	lockdep_assert_held(&link->lock);

	if (link->dead)
		st->state = PHYLLO_LINK_HUNGUP;
	else if (link->down)
		st->state = PHYLLO_LINK_DOWN;
	else if (!arq || s->arq.state == PHYLLO_ARQ_OPEN)
		st->state = PHYLLO_LINK_UP;
	else
		st->state = PHYLLO_LINK_CONNECTING;
	st->session = link->session_base + s->stats.sessions;
	st->resets = link->reset_gen;
	st->preset = s->preset;
	st->mtu = phyllo_stack_mtu(s->preset);
	st->tx_in_flight = arq ? s->arq.tx_count : 0;
	st->tx_reset_lost = link->lost_base + s->stats.tx_reset_lost;
	st->unit = link->unit < 0 ? PHYLLO_UNIT_NONE : link->unit;
	if (arq && s->arq.state == PHYLLO_ARQ_OPEN)
		st->window = phyllo_arq_window(&s->arq);
	st->downs = link->downs;
	if (link->down)
		st->down_ms = phyllo_link_now(link) - link->down_since;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_state_locked);

/* The core's counters are all u32 in the uapi order: copy them whole. */
static_assert(offsetof(struct phyllo_link_stats, rx_ctrl_stale) ==
	      offsetof(struct phyllo_stats, rx_ctrl_stale));
static_assert(offsetof(struct phyllo_link_stats, rx_tty_errors) ==
	      sizeof(struct phyllo_stats));
static_assert(offsetof(struct phyllo_link_stats, rto_ms) ==
	      offsetof(struct phyllo_stats, rto_ms));
static_assert(offsetof(struct phyllo_link_stats, tx_reset_lost) ==
	      offsetof(struct phyllo_stats, tx_reset_lost));

void phyllo_link_stats_locked(struct phyllo_link *link,
			      struct phyllo_link_stats *st)
{
	lockdep_assert_held(&link->lock);
	memcpy(st, &link->stack.stats, sizeof(link->stack.stats));
	st->rx_tty_errors = link->gstats.rx_tty_errors;
	st->rx_queue_drops = link->gstats.rx_queue_drops;
	st->rx_unclaimed = link->gstats.rx_unclaimed;
	st->tx_overruns = link->gstats.tx_overruns;
	st->rx_evictions = link->gstats.rx_evictions;
	st->rx_hold_ms = link->gstats.rx_hold_ms;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_stats_locked);

/* The same counters, 64 bits wide, in the same order: the core's, the glue's. */
static_assert(offsetof(struct phyllo_link_stats64, rx_tty_errors) ==
	      PHYLLO_STATS_FIELDS * sizeof(u64));
static_assert(offsetof(struct phyllo_link_stats64, reserved) -
	      offsetof(struct phyllo_link_stats64, rx_tty_errors) ==
	      sizeof(struct phyllo_glue_stats));

void phyllo_link_stats64_locked(struct phyllo_link *link,
				struct phyllo_link_stats64 *st)
{
	lockdep_assert_held(&link->lock);
	phyllo_link_fold_locked(link);
	memcpy(st, link->core64, sizeof(link->core64));
	memcpy((u8 *)st + offsetof(struct phyllo_link_stats64, rx_tty_errors),
	       &link->gstats, sizeof(link->gstats));
	/* gauges, not counters */
	st->rtt_ms = link->stack.stats.rtt_ms;
	st->rto_ms = link->stack.stats.rto_ms;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_link_stats64_locked);
