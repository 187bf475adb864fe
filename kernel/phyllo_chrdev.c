// SPDX-License-Identifier: GPL-2.0-only
/*
 * phyllo_chrdev.c - /dev/phylloN: file operations, ioctls and sysfs.
 *
 * Contract:
 *  1. Units are numbered by an IDR under phyllo_units_lock; open looks the
 *     link up and takes a reference there, so a link being detached is
 *     either found with a reference or not found at all.
 *  2. This file is the only one touching userspace memory. Structs going
 *     out are zeroed first; structs coming in with a nonzero reserved word
 *     are rejected with EINVAL.
 *  3. sysfs: /sys/class/phyllo/phylloN/tty, name, state, down_ms,
 *     statistics/<counter> and
 *     config/<setting> (mode 0644: root writes; the mode is the check,
 *     made when the attribute is opened, not the writer's capabilities
 *     at write time); the device's parent is the tty's device when the
 *     tty has one (none for a named link: it outlives the tty).
 *  4. Names (PHYLLO_IOC_TTY_ATTACH): the registry is the IDR, a link's
 *     name set once under phyllo_units_lock. A tty is moved to a down link
 *     of the name by claiming it there, so two attaches never both take
 *     it, and the link's linger never ends it meanwhile.
 */
#include <linux/bitops.h>
#include <linux/capability.h>
#include <linux/cdev.h>
#include <linux/ctype.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/user_namespace.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "phyllo_link.h"

#define PHYLLO_MINORS	256

/* The ABI: every struct of uapi/phyllo.h keeps its size (__u32 words). */
static_assert(sizeof(struct phyllo_link_config) == 64);
static_assert(sizeof(struct phyllo_link_state) == 64);
static_assert(sizeof(struct phyllo_link_stats) == 160);
static_assert(sizeof(struct phyllo_link_stats64) == 320);
static_assert(sizeof(struct phyllo_subscription) == 48);
static_assert(sizeof(struct phyllo_file_stats) == 64);
static_assert(sizeof(struct phyllo_attach) == 64);

static dev_t phyllo_devt;
static struct cdev phyllo_cdev;
static DEFINE_IDR(phyllo_units);
static DEFINE_MUTEX(phyllo_units_lock);

static int phyllo_open(struct inode *inode, struct file *file)
{
	struct phyllo_link *link;
	struct phyllo_file *pf;
	int err;

	mutex_lock(&phyllo_units_lock);
	link = idr_find(&phyllo_units, iminor(inode));
	if (link)
		phyllo_link_get(link);
	mutex_unlock(&phyllo_units_lock);
	if (!link)
		return -ENODEV;
	/* a class, not a permission: no audit record for the others */
	pf = phyllo_file_open(link, ns_capable_noaudit(&init_user_ns,
						       CAP_NET_ADMIN), &err);
	if (!pf) {
		phyllo_link_put(link);
		return err;
	}
	file->private_data = pf;
	return stream_open(inode, file);
}

static int phyllo_release(struct inode *inode, struct file *file)
{
	struct phyllo_file *pf = file->private_data;
	struct phyllo_link *link = pf->link;

	phyllo_file_release(pf);
	phyllo_link_put(link);
	return 0;
}

static int phyllo_copy_out(void *ctx, const u8 *data, size_t len)
{
	return copy_to_user((char __user *)ctx, data, len) ? -EFAULT : 0;
}

/* Nothing is lost to a bad buffer: on EFAULT the unit stays first. */
static ssize_t phyllo_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos)
{
	return phyllo_file_read(file->private_data, count,
				file->f_flags & O_NONBLOCK, phyllo_copy_out,
				(void __force *)buf);
}

static ssize_t phyllo_write(struct file *file, const char __user *buf,
			    size_t count, loff_t *ppos)
{
	u8 unit[PHYLLO_UNIT_MAX];

	if (!count)
		return -EINVAL;
	if (count > sizeof(unit))
		return -EMSGSIZE;
	if (copy_from_user(unit, buf, count))
		return -EFAULT;
	return phyllo_file_send(file->private_data, unit, count,
				file->f_flags & O_NONBLOCK);
}

static int phyllo_fsync(struct file *file, loff_t start, loff_t end,
			int datasync)
{
	return phyllo_file_fsync(file->private_data);
}

static __poll_t phyllo_poll(struct file *file, poll_table *wait)
{
	struct phyllo_file *pf = file->private_data;

	poll_wait(file, &pf->rwait, wait);
	poll_wait(file, &pf->link->wwait, wait);
	return phyllo_file_poll_mask(pf);
}

static long phyllo_ioctl_set_config(struct phyllo_link *link, void __user *arg)
{
	struct phyllo_link_config cfg;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	if (copy_from_user(&cfg, arg, sizeof(cfg)))
		return -EFAULT;
	return phyllo_link_configure(link, &cfg);
}

static long phyllo_ioctl_subscribe(struct phyllo_file *pf, void __user *arg)
{
	struct phyllo_subscription sub;

	if (copy_from_user(&sub, arg, sizeof(sub)))
		return -EFAULT;
	return phyllo_file_subscribe(pf, &sub);
}

static long phyllo_ioctl_send_mode(struct phyllo_file *pf, u32 __user *arg)
{
	u32 mode;

	if (get_user(mode, arg))
		return -EFAULT;
	return phyllo_file_set_send_mode(pf, mode);
}

static long phyllo_ioctl_recv_mode(struct phyllo_file *pf, u32 __user *arg)
{
	u32 mode;

	if (get_user(mode, arg))
		return -EFAULT;
	return phyllo_file_set_recv_mode(pf, mode);
}

/* Every answer struct is zeroed here, then filled, then copied out. */
static long phyllo_ioctl_get(struct phyllo_file *pf, unsigned int cmd,
			     void __user *arg)
{
	struct phyllo_link *link = pf->link;
	union {
		struct phyllo_link_state state;
		struct phyllo_link_stats stats;
		struct phyllo_link_stats64 stats64;
		struct phyllo_link_config cfg;
		struct phyllo_file_stats fstats;
	} u;

	memset(&u, 0, sizeof(u));
	if (cmd == PHYLLO_IOC_GET_FILE_STATS) {
		phyllo_file_stats(pf, &u.fstats);
	} else {
		mutex_lock(&link->lock);
		if (cmd == PHYLLO_IOC_GET_STATE)
			phyllo_link_state_locked(link, &u.state);
		else if (cmd == PHYLLO_IOC_GET_STATS)
			phyllo_link_stats_locked(link, &u.stats);
		else if (cmd == PHYLLO_IOC_GET_STATS64)
			phyllo_link_stats64_locked(link, &u.stats64);
		else
			u.cfg = link->cfg;
		mutex_unlock(&link->lock);
	}
	return copy_to_user(arg, &u, _IOC_SIZE(cmd)) ? -EFAULT : 0;
}

static long phyllo_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct phyllo_file *pf = file->private_data;
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case PHYLLO_IOC_GET_STATE:
	case PHYLLO_IOC_GET_STATS:
	case PHYLLO_IOC_GET_STATS64:
	case PHYLLO_IOC_GET_CONFIG:
	case PHYLLO_IOC_GET_FILE_STATS:
		return phyllo_ioctl_get(pf, cmd, argp);
	case PHYLLO_IOC_SET_CONFIG:
		return phyllo_ioctl_set_config(pf->link, argp);
	case PHYLLO_IOC_SUBSCRIBE:
		return phyllo_ioctl_subscribe(pf, argp);
	case PHYLLO_IOC_SET_SEND_MODE:
		return phyllo_ioctl_send_mode(pf, argp);
	case PHYLLO_IOC_SET_RECV_MODE:
		return phyllo_ioctl_recv_mode(pf, argp);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations phyllo_fops = {
	.owner = THIS_MODULE,
	.open = phyllo_open,
	.release = phyllo_release,
	.read = phyllo_read,
	.write = phyllo_write,
	.fsync = phyllo_fsync,
	.poll = phyllo_poll,
	.unlocked_ioctl = phyllo_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static ssize_t tty_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	struct phyllo_link *link = dev_get_drvdata(dev);
	ssize_t ret;

	mutex_lock(&link->lock);
	ret = sysfs_emit(buf, "%s\n", link->tty_name);
	mutex_unlock(&link->lock);
	return ret;
}
static DEVICE_ATTR_RO(tty);

static ssize_t name_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct phyllo_link *link = dev_get_drvdata(dev);
	ssize_t ret;

	mutex_lock(&phyllo_units_lock);
	ret = sysfs_emit(buf, "%s\n", link->name);
	mutex_unlock(&phyllo_units_lock);
	return ret;
}
static DEVICE_ATTR_RO(name);

static const char *const phyllo_state_names[] = {
	[PHYLLO_LINK_CONNECTING] = "connecting",
	[PHYLLO_LINK_UP] = "up",
	[PHYLLO_LINK_HUNGUP] = "hungup",
	[PHYLLO_LINK_DOWN] = "down",
};

static void phyllo_state_get(struct device *dev, struct phyllo_link_state *st)
{
	struct phyllo_link *link = dev_get_drvdata(dev);

	memset(st, 0, sizeof(*st));
	mutex_lock(&link->lock);
	phyllo_link_state_locked(link, st);
	mutex_unlock(&link->lock);
}

/* state: as PHYLLO_IOC_GET_STATE says it */
static ssize_t state_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct phyllo_link_state st;

	phyllo_state_get(dev, &st);
	return sysfs_emit(buf, "%s\n", phyllo_state_names[st.state]);
}
static DEVICE_ATTR_RO(state);

/* down_ms: for how long the link has been down, 0 when it is not */
static ssize_t down_ms_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct phyllo_link_state st;

	phyllo_state_get(dev, &st);
	return sysfs_emit(buf, "%u\n", st.down_ms);
}
static DEVICE_ATTR_RO(down_ms);

static ssize_t phyllo_stat_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct dev_ext_attribute *ea = container_of(attr, struct dev_ext_attribute, attr);
	struct phyllo_link *link = dev_get_drvdata(dev);
	struct phyllo_link_stats64 st = {};
	u64 value;

	mutex_lock(&link->lock);
	phyllo_link_stats64_locked(link, &st);
	mutex_unlock(&link->lock);
	memcpy(&value, (u8 *)&st + (uintptr_t)ea->var, sizeof(value));
	return sysfs_emit(buf, "%llu\n", value);
}

/* statistics/<counter>: the 64-bit totals of PHYLLO_IOC_GET_STATS64 */
#define PHYLLO_STAT(f) { __ATTR(f, 0444, phyllo_stat_show, NULL), \
			 (void *)offsetof(struct phyllo_link_stats64, f) }

/* The core's counters (struct phyllo_stats), then the glue's. */
static struct dev_ext_attribute phyllo_stat_attrs[] = {
	PHYLLO_STAT(rx_bytes), PHYLLO_STAT(rx_frames), PHYLLO_STAT(rx_units),
	PHYLLO_STAT(rx_overflow), PHYLLO_STAT(rx_framing),
	PHYLLO_STAT(rx_length), PHYLLO_STAT(rx_crc), PHYLLO_STAT(rx_type),
	PHYLLO_STAT(rx_flags), PHYLLO_STAT(rx_seq), PHYLLO_STAT(rx_dup),
	PHYLLO_STAT(rx_ack_stale), PHYLLO_STAT(rx_nosession),
	PHYLLO_STAT(rx_hold), PHYLLO_STAT(rx_naks), PHYLLO_STAT(tx_units),
	PHYLLO_STAT(tx_frames), PHYLLO_STAT(tx_bytes),
	PHYLLO_STAT(tx_retransmits), PHYLLO_STAT(tx_timeouts),
	PHYLLO_STAT(tx_acks), PHYLLO_STAT(tx_naks), PHYLLO_STAT(tx_reset_lost),
	PHYLLO_STAT(sessions), PHYLLO_STAT(peer_resets), PHYLLO_STAT(rtt_ms),
	PHYLLO_STAT(rto_ms), PHYLLO_STAT(rx_ctrl_stale),
	PHYLLO_STAT(rx_tty_errors), PHYLLO_STAT(rx_queue_drops),
	PHYLLO_STAT(rx_unclaimed), PHYLLO_STAT(tx_overruns),
	PHYLLO_STAT(rx_evictions), PHYLLO_STAT(rx_hold_ms),
};

static_assert(ARRAY_SIZE(phyllo_stat_attrs) == PHYLLO_STATS_FIELDS + 6);

static struct attribute *phyllo_stat_list[ARRAY_SIZE(phyllo_stat_attrs) + 1];

static const struct attribute_group phyllo_stat_group = {
	.name = "statistics",
	.attrs = phyllo_stat_list,
};

/*
 * config/<setting>: one word of the link's struct phyllo_link_config each.
 * Writing one (its owner, root) changes that word alone, under the link's
 * lock (phyllo_link_set_word()): a protocol word starts a new session, a
 * receive policy word does not; a value out of range, 0 in a receive
 * policy word included, fails with EINVAL and changes nothing.
 */
static ssize_t phyllo_cfg_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct dev_ext_attribute *ea = container_of(attr, struct dev_ext_attribute, attr);
	struct phyllo_link *link = dev_get_drvdata(dev);
	u32 value;

	mutex_lock(&link->lock);
	memcpy(&value, (u8 *)&link->cfg + (uintptr_t)ea->var, sizeof(value));
	mutex_unlock(&link->lock);
	return sysfs_emit(buf, "%u\n", value);
}

static ssize_t phyllo_cfg_store(struct device *dev,
				struct device_attribute *attr, const char *buf,
				size_t count)
{
	struct dev_ext_attribute *ea = container_of(attr, struct dev_ext_attribute, attr);
	struct phyllo_link *link = dev_get_drvdata(dev);
	u32 value;
	int ret;

	ret = kstrtou32(buf, 0, &value);
	if (ret)
		return ret;
	ret = phyllo_link_set_word(link, (uintptr_t)ea->var, value);
	return ret ? ret : count;
}

#define PHYLLO_CFG_ATTR(f) { __ATTR(f, 0644, phyllo_cfg_show, phyllo_cfg_store), \
			     (void *)offsetof(struct phyllo_link_config, f) }

static struct dev_ext_attribute phyllo_cfg_attrs[] = {
	PHYLLO_CFG_ATTR(preset), PHYLLO_CFG_ATTR(window),
	PHYLLO_CFG_ATTR(rto_min_ms), PHYLLO_CFG_ATTR(rto_max_ms),
	PHYLLO_CFG_ATTR(rto_init_ms), PHYLLO_CFG_ATTR(ack_delay_ms),
	PHYLLO_CFG_ATTR(max_retries), PHYLLO_CFG_ATTR(flags),
	PHYLLO_CFG_ATTR(rxq_units), PHYLLO_CFG_ATTR(rxq_bytes),
	PHYLLO_CFG_ATTR(rxq_link_bytes), PHYLLO_CFG_ATTR(max_files),
	PHYLLO_CFG_ATTR(rxq_stall_ms), PHYLLO_CFG_ATTR(linger_ms),
};

static_assert(ARRAY_SIZE(phyllo_cfg_attrs) == hweight32(PHYLLO_SET_ALL));

static struct attribute *phyllo_cfg_list[ARRAY_SIZE(phyllo_cfg_attrs) + 1];

static const struct attribute_group phyllo_cfg_group = {
	.name = "config",
	.attrs = phyllo_cfg_list,
};

static struct attribute *phyllo_dev_attrs[] = {
	&dev_attr_tty.attr,
	&dev_attr_name.attr,
	&dev_attr_state.attr,
	&dev_attr_down_ms.attr,
	NULL,
};

static const struct attribute_group phyllo_dev_group = {
	.attrs = phyllo_dev_attrs,
};

static const struct attribute_group *phyllo_dev_groups[] = {
	&phyllo_dev_group,
	&phyllo_stat_group,
	&phyllo_cfg_group,
	NULL,
};

/* Static, not class_create(): the same call on 6.1 and on 7.x. */
static struct class phyllo_class = {
	.name = "phyllo",
	.dev_groups = phyllo_dev_groups,
};

/* Publish the link as /dev/phylloN; the ldisc calls it once started. */
int phyllo_chrdev_add(struct phyllo_link *link, struct device *parent)
{
	struct device *dev;
	int id;

	mutex_lock(&phyllo_units_lock);
	id = idr_alloc(&phyllo_units, link, 0, PHYLLO_MINORS, GFP_KERNEL);
	mutex_unlock(&phyllo_units_lock);
	if (id < 0)
		return id;
	link->unit = id;
	dev = device_create(&phyllo_class, parent, MKDEV(MAJOR(phyllo_devt), id),
			    link, "phyllo%d", id);
	if (IS_ERR(dev)) {
		phyllo_chrdev_remove(link);
		return PTR_ERR(dev);
	}
	link->dev = dev;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_chrdev_add);

/* The link's name, tty or state changed: udev updates its links. */
void phyllo_chrdev_changed(struct phyllo_link *link)
{
	if (link->dev)
		kobject_uevent(&link->dev->kobj, KOBJ_CHANGE);
}

/* Unpublish: no new opens; open files keep their reference. */
void phyllo_chrdev_remove(struct phyllo_link *link)
{
	if (link->unit < 0)
		return;
	if (link->dev)
		device_unregister(link->dev);
	link->dev = NULL;
	mutex_lock(&phyllo_units_lock);
	idr_remove(&phyllo_units, link->unit);
	mutex_unlock(&phyllo_units_lock);
	/* The number may be given to the next link: this one has none now. */
	mutex_lock(&link->lock);
	WRITE_ONCE(link->unit, -1);
	mutex_unlock(&link->lock);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_chrdev_remove);

/*
 * A name as udev makes /dev/phyllo/NAME of it: 1 to PHYLLO_NAME_MAX - 1
 * bytes of [A-Za-z0-9._:@+-], NUL-terminated within size and NULs after,
 * starting with a letter or a digit, not "by-" (/dev/phyllo/by-tty/).
 */
bool phyllo_name_valid(const char *name, size_t size)
{
	size_t i, len = strnlen(name, size);

	if (!len || len == size || !isalnum(name[0]) ||
	    !strncmp(name, "by-", 3))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && !strchr("._:@+-", name[i]))
			return false;
	for (; i < size; i++)
		if (name[i])
			return false;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_name_valid);

/*
 * A named link's device is nobody's child, so that its tty's device may
 * go first: made again without a parent, under the same number (open
 * files do not notice; udev sees it go and come back, with its name). Not
 * device_move() to no parent: on 6.1 that leaves /sys/devices/virtual/
 * phyllo behind after the module goes, and the next load cannot make a
 * device. A failure leaves the link unnamed.
 */
static int phyllo_chrdev_unparent(struct phyllo_link *link)
{
	struct device *dev;

	if (link->dev && link->dev->parent) {
		device_unregister(link->dev);
		dev = device_create(&phyllo_class, NULL,
				    MKDEV(MAJOR(phyllo_devt), link->unit), link,
				    "phyllo%d", link->unit);
		link->dev = IS_ERR(dev) ? NULL : dev;
		if (IS_ERR(dev)) {
			mutex_lock(&phyllo_units_lock);
			link->name[0] = '\0';
			mutex_unlock(&phyllo_units_lock);
			return PTR_ERR(dev);
		}
	}
	phyllo_chrdev_changed(link);
	return 0;
}

static struct phyllo_link *phyllo_name_find_locked(const char *name)
{
	struct phyllo_link *link;
	int id;

	lockdep_assert_held(&phyllo_units_lock);
	idr_for_each_entry(&phyllo_units, link, id)
		if (!strcmp(link->name, name))
			return link;
	return NULL;
}

/*
 * The tty carrying cur is attached under name: cur takes it, or gives
 * way to the down link of that name, claimed here for the caller, who
 * moves the tty to it (phyllo_link_up()). *next is the link the tty
 * carries then. EBUSY: the name's link is up on another tty (or being
 * moved to one), or cur has another name.
 */
int phyllo_name_attach(struct phyllo_link *cur, const char *name,
		       struct phyllo_link **next)
{
	char buf[PHYLLO_NAME_MAX] = {};
	struct phyllo_link *found;
	int ret = 0;

	if (strscpy(buf, name, sizeof(buf)) < 0 ||
	    !phyllo_name_valid(buf, sizeof(buf)))
		return -EINVAL;
	name = buf;
	mutex_lock(&phyllo_units_lock);
	found = phyllo_name_find_locked(name);
	*next = found ? found : cur;
	if (found == cur)
		goto out;
	if (cur->name[0]) {
		ret = -EBUSY;
	} else if (!found) {
		strscpy(cur->name, name, sizeof(cur->name));
	} else {
		mutex_lock(&found->lock);
		if (!found->down || found->claimed)
			ret = -EBUSY;
		else
			found->claimed = true;
		mutex_unlock(&found->lock);
	}
out:
	mutex_unlock(&phyllo_units_lock);
	if (!ret && !found)
		ret = phyllo_chrdev_unparent(cur);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_name_attach);

/* Unpublish, end and drop a down link the registry held. */
static void phyllo_name_end(struct phyllo_link *link)
{
	phyllo_chrdev_remove(link);
	phyllo_link_kill(link);
	phyllo_link_put(link);
}

/*
 * A down link's linger ran out: it goes if it is still down, unclaimed,
 * with no file open (one opened meanwhile sees it end), its name free
 * at once.
 */
void phyllo_name_expire(struct phyllo_link *link)
{
	bool gone;

	mutex_lock(&phyllo_units_lock);
	mutex_lock(&link->lock);
	gone = link->down && !link->claimed && !link->nfiles && !link->dead;
	if (gone) {
		/* an attach under its name now makes a new link */
		link->claimed = true;
		link->name[0] = '\0';
	}
	mutex_unlock(&link->lock);
	mutex_unlock(&phyllo_units_lock);
	if (gone)
		phyllo_name_end(link);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_name_expire);

/*
 * Module exit (no tty carries a phyllo link, no file is open): the down
 * links left go, their lingers stopped.
 */
void phyllo_names_exit(void)
{
	struct phyllo_link *link;
	int id;

	for (;;) {
		mutex_lock(&phyllo_units_lock);
		idr_for_each_entry(&phyllo_units, link, id) {
			mutex_lock(&link->lock);
			if (link->down && !link->claimed) {
				link->claimed = true;
				mutex_unlock(&link->lock);
				break;
			}
			mutex_unlock(&link->lock);
		}
		mutex_unlock(&phyllo_units_lock);
		if (!link)
			return;
		/* a linger running now finds it claimed */
		if (cancel_delayed_work_sync(&link->linger))
			phyllo_link_put(link);
		phyllo_name_end(link);
	}
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_names_exit);

int phyllo_chrdev_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(phyllo_stat_attrs); i++)
		phyllo_stat_list[i] = &phyllo_stat_attrs[i].attr.attr;
	for (i = 0; i < ARRAY_SIZE(phyllo_cfg_attrs); i++)
		phyllo_cfg_list[i] = &phyllo_cfg_attrs[i].attr.attr;
	ret = alloc_chrdev_region(&phyllo_devt, 0, PHYLLO_MINORS, "phyllo");
	if (ret)
		return ret;
	cdev_init(&phyllo_cdev, &phyllo_fops);
	/* chrdev_open() pins the module through the cdev before fops_get(). */
	phyllo_cdev.owner = THIS_MODULE;
	ret = cdev_add(&phyllo_cdev, phyllo_devt, PHYLLO_MINORS);
	if (ret)
		goto err_region;
	ret = class_register(&phyllo_class);
	if (ret)
		goto err_cdev;
	return 0;

err_cdev:
	cdev_del(&phyllo_cdev);
err_region:
	unregister_chrdev_region(phyllo_devt, PHYLLO_MINORS);
	return ret;
}

void phyllo_chrdev_exit(void)
{
	class_unregister(&phyllo_class);
	cdev_del(&phyllo_cdev);
	unregister_chrdev_region(phyllo_devt, PHYLLO_MINORS);
	idr_destroy(&phyllo_units);
}
