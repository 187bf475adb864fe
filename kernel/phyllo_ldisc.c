// SPDX-License-Identifier: GPL-2.0-only
/*
 * phyllo_ldisc.c - the tty line discipline and the module.
 *
 * Contract:
 *  1. open: only CAP_NET_ADMIN may attach (any user may otherwise attach a
 *     loaded ldisc to a pty they own), and only to a tty that can write.
 *     Each attach makes one link and one /dev/phylloN.
 *  2. receive_buf hands bytes and their error flags to the link (all of
 *     them: a pty's writer is woken as n_tty wakes it, nothing else
 *     would); write_wakeup only schedules the link work, it never sends.
 *  3. hangup kills the link (every sleeper wakes); close unpublishes the
 *     device, kills the link, forgets the tty and drops the reference. A
 *     named link goes down at either instead (phyllo_link_down()), kept
 *     for the next tty attached under its name.
 *  6. The tty reaches its link through a channel (tty->disc_data), as a
 *     ppp channel reaches its unit: PHYLLO_IOC_TTY_ATTACH may move the tty
 *     to another link. The channel's lock orders receive_buf, the ioctls,
 *     hangup and close; write_wakeup (which may not sleep) and set_termios
 *     (termios_rwsem held, which an attach takes under the channel's lock)
 *     read the link under RCU, and a link the channel lets go is ended
 *     only after a grace period.
 *  4. Module parameters are read-only and checked at load: the settings
 *     a new link starts with. Each link's own settings are its config
 *     (ioctl, sysfs). The line discipline is N_PHYLLO; out of tree,
 *     where <linux/tty.h> has no N_PHYLLO, it is N_DEVELOPMENT (29).
 *  5. set_termios (termios_rwsem held) gives the link its line speed.
 */
#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/module.h>
#include <linux/tty.h>
#include <linux/tty_ldisc.h>
#include <linux/uaccess.h>

#include "phyllo_link.h"

#ifndef N_PHYLLO
#define N_PHYLLO N_DEVELOPMENT
#endif

/*
 * The module parameters are the settings a new link starts with. They
 * are read-only (a link's own settings change through PHYLLO_IOC_SET_CONFIG
 * or /sys/class/phyllo/phylloN/config/) and checked at load: a bad value
 * fails the load with a message naming it.
 */
static uint preset = PHYLLO_CFG_STANDARD;
module_param(preset, uint, 0444);
MODULE_PARM_DESC(preset, "a new link's preset: 0 minimal, 1 reduced, 2 standard");

static uint window = 4;
module_param(window, uint, 0444);
MODULE_PARM_DESC(window, "a new link's send window, 1..8 units");

static uint rto_min_ms = 10;
module_param(rto_min_ms, uint, 0444);
MODULE_PARM_DESC(rto_min_ms, "a new link's lower bound of the retransmit timeout");

static uint rto_max_ms = 1000;
module_param(rto_max_ms, uint, 0444);
MODULE_PARM_DESC(rto_max_ms, "a new link's upper bound of the retransmit timeout");

static uint rto_init_ms = 100;
module_param(rto_init_ms, uint, 0444);
MODULE_PARM_DESC(rto_init_ms, "a new link's retransmit timeout before an RTT sample");

static uint ack_delay_ms = 4;
module_param(ack_delay_ms, uint, 0444);
MODULE_PARM_DESC(ack_delay_ms, "a new link's delay of a pure ACK");

/*
 * A new tty's link sends nothing for up to quiet_ms, until a file opens
 * it or PHYLLO_IOC_TTY_ATTACH names or moves it: the time `phyllo attach
 * --name` takes between TIOCSETD and its ioctl, in which the link would
 * otherwise open a session with the board and acknowledge units that no
 * file gets. What arrives meanwhile is kept and taken in after.
 */
static uint quiet_ms = 1000;
module_param(quiet_ms, uint, 0444);
MODULE_PARM_DESC(quiet_ms, "ms a new tty's link waits for a reader or a name before its handshake (0 none)");

static uint max_retries;
module_param(max_retries, uint, 0444);
MODULE_PARM_DESC(max_retries, "a new link's timeouts before a session is lost (0 never)");

static uint rxq_units = 256;
module_param(rxq_units, uint, 0444);
MODULE_PARM_DESC(rxq_units, "a new link's receive queue bound per open file, units");

static uint rxq_bytes = 65536;
module_param(rxq_bytes, uint, 0444);
MODULE_PARM_DESC(rxq_bytes, "a new link's receive queue bound per open file, bytes");

static uint rxq_link_bytes = 1048576;
module_param(rxq_link_bytes, uint, 0444);
MODULE_PARM_DESC(rxq_link_bytes, "a new link's bound of all its queued units, bytes");

static uint max_files = 32;
module_param(max_files, uint, 0444);
MODULE_PARM_DESC(max_files, "a new link's open files (more: EBUSY)");

static uint rxq_stall_ms = 2000;
module_param(rxq_stall_ms, uint, 0444);
MODULE_PARM_DESC(rxq_stall_ms, "a new link's time a full file holds units back, ms");

/*
 * A minute: a board's reset or re-enumeration, a cable moved to another
 * port, a client restarted by its service manager, all fit in it, and a
 * board gone for good does not leave its name taken for long.
 */
static uint linger_ms = 60000;
module_param(linger_ms, uint, 0444);
MODULE_PARM_DESC(linger_ms, "a new link's time a named link down with no open file is kept, ms");

void phyllo_config_default(struct phyllo_link_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->preset = preset;
	cfg->window = window;
	cfg->rto_min_ms = rto_min_ms;
	cfg->rto_max_ms = rto_max_ms;
	cfg->rto_init_ms = rto_init_ms;
	cfg->ack_delay_ms = ack_delay_ms;
	cfg->max_retries = max_retries;
	cfg->rxq_units = rxq_units;
	cfg->rxq_bytes = rxq_bytes;
	cfg->rxq_link_bytes = rxq_link_bytes;
	cfg->max_files = max_files;
	cfg->rxq_stall_ms = rxq_stall_ms;
	cfg->linger_ms = linger_ms;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_config_default);

/* What the tty holds (tty->disc_data): the link it carries. */
struct phyllo_chan {
	struct mutex lock;		/* all but write_wakeup, see above */
	struct phyllo_link __rcu *link;	/* NULL once it let the link go */
};

static struct phyllo_link *phyllo_chan_link(struct phyllo_chan *chan)
{
	return rcu_dereference_protected(chan->link,
					 lockdep_is_held(&chan->lock));
}

static int phyllo_ldisc_open(struct tty_struct *tty)
{
	struct phyllo_link_config cfg;
	struct phyllo_link *link;
	struct phyllo_chan *chan;
	int ret;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	if (!tty->ops->write)
		return -EOPNOTSUPP;
	chan = kzalloc(sizeof(*chan), GFP_KERNEL);
	if (!chan)
		return -ENOMEM;
	mutex_init(&chan->lock);
	phyllo_config_default(&cfg);
	link = phyllo_link_create(&cfg);
	if (IS_ERR(link)) {
		ret = PTR_ERR(link);
		goto err_chan;
	}
	strscpy(link->tty_name, tty_name(tty), sizeof(link->tty_name));
	/* Publish first: a failure leaves nothing pointing at the tty. */
	ret = phyllo_chrdev_add(link, tty->dev);
	if (ret) {
		phyllo_link_kill(link);
		phyllo_link_put(link);
		goto err_chan;
	}
	RCU_INIT_POINTER(chan->link, link);
	tty->disc_data = chan;
	tty->receive_room = 65536;
	phyllo_link_quiet(link, quiet_ms);
	phyllo_link_start(link, tty);
	return 0;

err_chan:
	mutex_destroy(&chan->lock);
	kfree(chan);
	return ret;
}

/*
 * The channel lets its link go (chan->lock held): after a grace period
 * no write_wakeup reaches it. NULL if it had none.
 */
static struct phyllo_link *phyllo_chan_release(struct phyllo_chan *chan)
{
	struct phyllo_link *link = phyllo_chan_link(chan);

	if (!link)
		return NULL;
	RCU_INIT_POINTER(chan->link, NULL);
	synchronize_rcu();
	return link;
}

/*
 * An unnamed link ends with its tty: unpublished, killed, the tty
 * forgotten, the reference dropped.
 */
static void phyllo_link_end(struct phyllo_link *link)
{
	phyllo_chrdev_remove(link);
	phyllo_link_kill(link);
	mutex_lock(&link->lock);
	link->tty = NULL;
	mutex_unlock(&link->lock);
	phyllo_link_put(link);
}

/*
 * The channel's link is let go for good (hangup of a named link, close):
 * a named one goes down, its reference the registry's now; an unnamed
 * one ends.
 */
static void phyllo_chan_drop(struct phyllo_chan *chan)
{
	struct phyllo_link *link = phyllo_chan_release(chan);

	if (!link)
		return;
	if (link->name[0])
		phyllo_link_down(link);
	else
		phyllo_link_end(link);
}

static void phyllo_ldisc_close(struct tty_struct *tty)
{
	struct phyllo_chan *chan = tty->disc_data;

	if (!chan)
		return;
	mutex_lock(&chan->lock);
	phyllo_chan_drop(chan);
	mutex_unlock(&chan->lock);
	/* The next line discipline must not inherit our wakeup request. */
	clear_bit(TTY_DO_WRITE_WAKEUP, &tty->flags);
	tty->disc_data = NULL;
	mutex_destroy(&chan->lock);
	kfree(chan);
}

/* An unnamed link dies (every sleeper wakes); a named one goes down. */
static void phyllo_ldisc_hangup(struct tty_struct *tty)
{
	struct phyllo_chan *chan = tty->disc_data;
	struct phyllo_link *link;

	if (!chan)
		return;
	mutex_lock(&chan->lock);
	link = phyllo_chan_link(chan);
	if (link && link->name[0])
		phyllo_chan_drop(chan);
	else if (link)
		phyllo_link_kill(link);
	mutex_unlock(&chan->lock);
}

#ifdef PHYLLO_OLD_TTY_HOOKS
static void phyllo_ldisc_receive_buf(struct tty_struct *tty, const u8 *cp,
				     const char *fp, int count)
#else
static void phyllo_ldisc_receive_buf(struct tty_struct *tty, const u8 *cp,
				     const u8 *fp, size_t count)
#endif
{
	struct phyllo_chan *chan = tty->disc_data;
	struct phyllo_link *link;

	mutex_lock(&chan->lock);
	link = phyllo_chan_link(chan);
	if (link && count > 0)
		phyllo_link_receive(link, cp, (const char *)fp, count);
	mutex_unlock(&chan->lock);
	/*
	 * A pty's writer waits for room in this side's buffer, and only the
	 * reader's line discipline knows when there is some: n_tty calls
	 * tty_wakeup() on the other end as it takes bytes in
	 * (n_tty_check_unthrottle()). This line discipline takes every byte
	 * it is given, so it does the same, or a writer blocked on a full
	 * buffer sleeps until something else wakes it.
	 */
	if (tty->driver->type == TTY_DRIVER_TYPE_PTY && tty->link)
		tty_wakeup(tty->link);
}

/*
 * Called with termios_rwsem held, which an attach takes under the
 * channel's lock (phyllo_link_start()): so the link is found under RCU,
 * where the channel's reference still holds, and kept by one of its own.
 */
static void phyllo_ldisc_set_termios(struct tty_struct *tty,
				     const struct ktermios *old)
{
	struct phyllo_chan *chan = tty->disc_data;
	struct phyllo_link *link;

	rcu_read_lock();
	link = rcu_dereference(chan->link);
	if (link)
		phyllo_link_get(link);
	rcu_read_unlock();
	if (!link)
		return;
	phyllo_link_termios(link);
	phyllo_link_put(link);
}

/* May be called in atomic context: only the link work, under RCU. */
static void phyllo_ldisc_write_wakeup(struct tty_struct *tty)
{
	struct phyllo_chan *chan = tty->disc_data;
	struct phyllo_link *link;

	rcu_read_lock();
	link = rcu_dereference(chan->link);
	if (link)
		phyllo_link_schedule(link);
	rcu_read_unlock();
}

/*
 * PHYLLO_IOC_TTY_ATTACH: the tty's link takes the name, or the tty moves
 * to the down link of that name, which comes up on it; the tty's own
 * link then ends (its /dev/phylloN goes; a file opened on it meanwhile
 * sees it end as at a detach).
 */
static int phyllo_ldisc_attach(struct tty_struct *tty, struct phyllo_chan *chan,
			       const struct phyllo_attach __user *arg)
{
	struct phyllo_link *cur, *next;
	struct phyllo_attach req;
	unsigned int i;
	int ret;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	for (i = 0; i < ARRAY_SIZE(req.reserved); i++)
		if (req.reserved[i])
			return -EINVAL;
	if (req.flags || !phyllo_name_valid(req.name, sizeof(req.name)))
		return -EINVAL;
	mutex_lock(&chan->lock);
	cur = phyllo_chan_link(chan);
	ret = cur ? phyllo_name_attach(cur, req.name, &next) : -ENODEV;
	if (!ret && next == cur)
		phyllo_link_speak(cur);
	if (!ret && next != cur) {
		phyllo_chan_release(chan);
		rcu_assign_pointer(chan->link, next);
		phyllo_link_take_handshake(next, cur);
		phyllo_link_end(cur);
		phyllo_link_up(next, tty);
	}
	mutex_unlock(&chan->lock);
	return ret;
}

static int phyllo_ldisc_ioctl(struct tty_struct *tty, unsigned int cmd,
			      unsigned long arg)
{
	struct phyllo_chan *chan = tty->disc_data;
	struct phyllo_link *link;
	int ret;

	switch (cmd) {
	case PHYLLO_IOC_TTY_UNIT:
		mutex_lock(&chan->lock);
		link = phyllo_chan_link(chan);
		ret = link ? put_user(READ_ONCE(link->unit), (u32 __user *)arg) :
			     -ENODEV;
		mutex_unlock(&chan->lock);
		return ret;
	case PHYLLO_IOC_TTY_ATTACH:
		return phyllo_ldisc_attach(tty, chan, (void __user *)arg);
	default:
		return n_tty_ioctl_helper(tty, cmd, arg);
	}
}

/* A 32-bit caller's pointer, widened; the rest is the tty core's. */
static int phyllo_ldisc_compat_ioctl(struct tty_struct *tty, unsigned int cmd,
				     unsigned long arg)
{
	if (cmd == PHYLLO_IOC_TTY_UNIT || cmd == PHYLLO_IOC_TTY_ATTACH)
		return phyllo_ldisc_ioctl(tty, cmd,
					  (unsigned long)compat_ptr(arg));
	return -ENOIOCTLCMD;
}

static struct tty_ldisc_ops phyllo_ldisc = {
	.owner = THIS_MODULE,
	.name = "phyllo",
	.open = phyllo_ldisc_open,
	.close = phyllo_ldisc_close,
	.hangup = phyllo_ldisc_hangup,
	.ioctl = phyllo_ldisc_ioctl,
	.compat_ioctl = phyllo_ldisc_compat_ioctl,
	.set_termios = phyllo_ldisc_set_termios,
	.receive_buf = phyllo_ldisc_receive_buf,
	.write_wakeup = phyllo_ldisc_write_wakeup,
};

static int __init phyllo_init(void)
{
	struct phyllo_link_config cfg;
	const char *bad;
	int ret;

	phyllo_config_default(&cfg);
	bad = phyllo_config_invalid(&cfg);
	if (!bad && quiet_ms > PHYLLO_QUIET_MS_MAX)
		bad = "quiet_ms";
	if (bad) {
		pr_err("phyllo: module parameter %s out of range (see modinfo phyllo, phyllo(4))\n",
		       bad);
		return -EINVAL;
	}
	ret = phyllo_link_wq_init();
	if (ret)
		return ret;
	ret = phyllo_chrdev_init();
	if (ret)
		goto out_wq;
	phyllo_ldisc.num = N_PHYLLO;
	ret = tty_register_ldisc(&phyllo_ldisc);
	if (!ret)
		return 0;
	phyllo_chrdev_exit();
out_wq:
	phyllo_link_wq_exit();
	return ret;
}

static void __exit phyllo_exit(void)
{
	tty_unregister_ldisc(&phyllo_ldisc);
	phyllo_names_exit();
	phyllo_chrdev_exit();
	phyllo_link_wq_exit();
}

module_init(phyllo_init);
module_exit(phyllo_exit);

MODULE_DESCRIPTION("Phyllo serial protocol line discipline");
MODULE_LICENSE("GPL");
MODULE_ALIAS_LDISC(N_PHYLLO);
