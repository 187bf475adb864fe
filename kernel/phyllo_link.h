/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * phyllo_link.h - internals shared by the files of the kernel glue.
 *
 * Objects and lifetimes:
 *  - struct phyllo_link is one attached tty running one protocol stack. It
 *    is refcounted: the line discipline holds a reference from open to
 *    close, every open /dev/phylloN file holds one.
 *  - struct phyllo_file is one open /dev/phylloN with its own receive queue.
 *  - A named link (PHYLLO_IOC_TTY_ATTACH) outlives its tty: when the tty
 *    hangs up or the line discipline is detached it goes down (no tty, no
 *    session, files kept) and the next tty attached under its name brings
 *    it up. While down, the line discipline's reference is the name
 *    registry's (phyllo_chrdev.c); a down link with no open file goes away
 *    after cfg.linger_ms (its linger work holds a reference while queued).
 *
 * Locking: link->lock (a mutex) protects the stack, the transmit fifo, the
 * file list and every file's queue. All its users run in process context:
 * receive_buf (flip-buffer work), the link work (timer and write wakeup,
 * on the module's own WQ_HIGHPRI workqueue) and the file operations. The
 * hrtimer and write_wakeup only queue the link work; the hrtimer runs
 * only while the reliable layer has a deadline. Sleepers wait without
 * the lock, for conditions read with READ_ONCE, then retake the lock and
 * check again, on one of two kinds of queue, woken only when their
 * condition may have changed: a file's rwait (its readers and EPOLLIN),
 * when a unit or a reset is queued to that file (for units: once per
 * receive_buf, after the ACK they call for is written); the link's wwait
 * (writers, fsync and EPOLLOUT), when the fifo drained, units were
 * retired, a session opened or reset. Death wakes everyone.
 *
 * Teardown (ldisc close): unpublish the device, mark the link dead, stop
 * the timer and the work, forget the tty, drop the reference. Open files
 * keep the link alive and see it dead: readers get EOF, writers EIO. A
 * named link goes down instead (phyllo_link_down()), and away only when
 * its linger runs out with no file open, or at module exit.
 *
 * Lock order: the line discipline's channel lock, then phyllo_units_lock
 * (the registry), then link->lock.
 */
#ifndef PHYLLO_LINK_H
#define PHYLLO_LINK_H

#include <linux/fault-inject.h>
#include <linux/hrtimer.h>
#include <linux/kfifo.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/tty.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/export.h>
#include <kunit/visibility.h>

#include "phyllo_stack.h"
#include "phyllo.h"

/*
 * What one receive_buf delivers per hold of link->lock (phyllo_link.c):
 * at most 16 units, and fewer with many files open (each unit's passes
 * visit every file), so that a long burst lets readers, writers and the
 * timer work in between.
 */
#define PHYLLO_RX_UNITS_PER_LOCK	16
#define PHYLLO_RX_VISITS_PER_LOCK	2048

/* Transmit fifo: a full window resent several times over. */
#define PHYLLO_TX_FIFO		16384
/* Room kept free before the stack may poll: all one poll can write. */
#define PHYLLO_TX_RESERVE	PHYLLO_STACK_POLL_OUT_MAX
/* Room a send needs: its own frame, and the reserve left after it. */
#define PHYLLO_TX_SEND_ROOM	(PHYLLO_TX_RESERVE + PHYLLO_WIRE_MAX)
static_assert(PHYLLO_TX_FIFO >= 2 * PHYLLO_TX_SEND_ROOM);

/* The glue's counters, in struct phyllo_link_stats's order after the core's. */
struct phyllo_glue_stats {
	u64 rx_tty_errors;
	u64 rx_queue_drops;
	u64 rx_unclaimed;
	u64 tx_overruns;
	u64 rx_evictions;
	u64 rx_hold_ms;
};

/*
 * The two classes of files (phyllo_file.c, rules 2 and 3): files opened
 * with CAP_NET_ADMIN and the others draw on separate queue memory and
 * separate hold budgets, so no number of the one can cost the other.
 */
enum {
	PHYLLO_CLASS_USER,
	PHYLLO_CLASS_ADMIN,
	PHYLLO_CLASSES
};

/*
 * A class's hold budget, a token bucket in eighths of a ms: a hold spends
 * 8 a ms, the bucket refills 1 a ms while the class does not hold, up to
 * rxq_stall_ms * 8. So a class holds at most rxq_stall_ms at a stretch
 * and at most rxq_stall_ms + W / 8 in any window of W ms.
 */
#define PHYLLO_HOLD_REFILL_SHIFT	3

struct phyllo_hold {
	u32 tokens;			/* eighths of a ms of hold left */
	u32 stamp;			/* when tokens was brought up to date */
	bool on;			/* the link refuses a unit for this class */
};

/* The longest quiet the module parameter allows (a minute). */
#define PHYLLO_QUIET_MS_MAX	60000

struct phyllo_link {
	struct kref ref;
	struct mutex lock;		/* everything below, see above */
	struct tty_struct *tty;		/* NULL when detached (or in tests) */
	u32 (*clock)(void);		/* ms; phyllo_now_ms but in tests */
	bool dead;			/* hung up or detached: no more I/O */
	/*
	 * A named link without a tty: no session, writers wait, the files
	 * stay. down_since is when it went down; downs counts the times.
	 */
	bool down;
	u32 down_since;
	u32 downs;
	/*
	 * A link a tty's line discipline just made is quiet until a file
	 * opens it, it is named or moved (PHYLLO_IOC_TTY_ATTACH), or
	 * quiet_until passes: it sends nothing and keeps what arrives in
	 * quiet_buf, fed to the stack when it speaks (phyllo_link_speak()).
	 * So it opens no session that the named link it is about to become,
	 * or be replaced by, would not have: no unit acknowledged, unread.
	 */
	bool quiet;
	u16 quiet_len;
	u32 quiet_until;
	/* the registry's (phyllo_units_lock): "" unless named; a tty is
	 * being moved to this down link
	 */
	char name[PHYLLO_NAME_MAX];
	bool claimed;
	struct delayed_work linger;	/* a down link with no file goes */
	/*
	 * For lockless wait conditions, written under the lock: the stack's
	 * preset, and whether a reliable / an unreliable send has room
	 */
	u8 preset;
	bool room[2];
	int unit;			/* N of /dev/phylloN, -1 if none */
	u16 line_ms;			/* a largest frame's time on the line */
	struct device *dev;
	char tty_name[64];
	struct phyllo_link_config cfg;	/* protocol and receive policy */
	struct phyllo_stack stack;
	struct phyllo_glue_stats gstats;
	/*
	 * The core's u32 counters carried to 64 bits: core_seen is what
	 * core64 last took from stack.stats (phyllo_link_fold_locked()).
	 */
	u64 core64[PHYLLO_STATS_FIELDS];
	u32 core_seen[PHYLLO_STATS_FIELDS];
	DECLARE_KFIFO_PTR(txfifo, u8);
	union {
		u8 bounce[PHYLLO_WIRE_MAX];	/* fifo -> tty staging */
		/* while quiet, when nothing is sent: what came (a SYN or
		 * two; more ends the quiet at once)
		 */
		u8 quiet_buf[PHYLLO_WIRE_MAX];
	};
	struct work_struct work;
	struct hrtimer timer;
	wait_queue_head_t wwait;	/* writers, fsync and EPOLLOUT */
	bool wake_writers;		/* a reset since wwait was last woken */
	u32 fifo_woken;			/* fifo_out when wwait was last woken */
	struct list_head files;
	u32 nfiles;
	u32 nfiles_cls[PHYLLO_CLASSES];	/* of them in each class */
	u32 rxq_mem;			/* bytes allocated for queued units */
	/* each class's files' charges, <= rxq_link_bytes */
	u32 rxq_charged[PHYLLO_CLASSES];
	/* a hold: the link refuses units for holders since held_since */
	bool held;
	u32 held_since;
	struct phyllo_hold hold[PHYLLO_CLASSES];
	/*
	 * sessions: the core's PHYLLO_EV_RESET bumps reset_gen, and so does
	 * a new configuration; the bases carry totals across configurations
	 */
	u32 reset_gen;
	u32 session_base;
	u32 lost_base;
	u32 tx_total_base;		/* reliable units of earlier configurations */
	u32 fifo_in;			/* bytes ever put in / taken from txfifo */
	u32 fifo_out;
	u32 events;			/* bumped at every wake of wwait, for fsync */
};

/*
 * A received unit, allocated once however many files queue it, and one
 * small entry per file that took it. The unit is freed when the last
 * entry goes. Each file is charged its entry and the whole unit's
 * allocation (cost), which any one entry keeps alive.
 */
struct phyllo_rxent {
	struct list_head node;		/* in the file's rxq */
	struct phyllo_rxbuf *buf;
	/* before this unit: the link went down; a new session (reset, up) */
	bool down_before;
	bool reset_before;
};

struct phyllo_rxbuf {
	u16 refs;			/* entries still queued (link->lock) */
	u16 len;			/* type byte + payload */
	u32 cost;			/* what each entry is charged */
	u8 data[];
};

/* What one delivery does with a file (phyllo_file.c). */
enum phyllo_verdict {
	PHYLLO_V_NONE,			/* not matched */
	PHYLLO_V_FILTER,		/* its subscription does not match */
	PHYLLO_V_TAKE,			/* queues the unit */
	PHYLLO_V_DROP,			/* matched, loses it (counted, told) */
	PHYLLO_V_HOLD,			/* short of room, holds the link */
	PHYLLO_V_SKIP,			/* a holder short of room for an
					 * unreliable unit: loses it (counted,
					 * told), no overrun
					 */
};

struct phyllo_file {
	struct phyllo_link *link;
	struct list_head node;		/* in link->files */
	struct list_head rxq;		/* struct phyllo_rxent, oldest first */
	u32 rxq_units;
	u32 rxq_bytes;			/* type bytes + payloads queued */
	u32 rxq_charge;			/* what its queue holds in memory */
	struct mutex read_lock;		/* one reader copies the head at a time */
	/*
	 * The entry a reader is copying out without link->lock: pinned, no
	 * one else removes it (eviction takes the next one)
	 */
	struct phyllo_rxent *reading;
	wait_queue_head_t rwait;	/* its readers and EPOLLIN */
	struct phyllo_subscription sub;
	bool unreliable;		/* PHYLLO_SEND_UNRELIABLE */
	u8 cls;				/* PHYLLO_CLASS_*, fixed at open */
	bool hold;			/* PHYLLO_RECV_HOLD */
	bool overrun;			/* fell behind: drops until drained */
	bool lost;			/* drops not yet reported to a read */
	u8 verdict;			/* this delivery's (link->lock) */
	bool wake;			/* units queued, readers not yet woken */
	struct phyllo_rxent *pending;	/* this delivery's entry, if it takes */
	/*
	 * Resets, downs and ups reach a reader in order, as marks in the gaps
	 * between units: after the last queued unit (down_tail, reset_tail)
	 * or before an entry (its down_before, reset_before). In one gap a
	 * down comes first and ends a reset before it; an up is a reset (a
	 * new session). rd_resets counts the gaps with a mark. reset_gen is
	 * the link's last reset this file's writers (or its reader) were
	 * told of.
	 */
	bool down_tail;
	bool reset_tail;
	u32 rd_resets;
	u32 reset_gen;
	u32 tx_mark;			/* tx total to be acked for fsync */
	bool tx_marked;
	u32 fifo_mark;			/* link->fifo_in after its last write */
	bool fifo_marked;
	struct phyllo_file_stats stats;
};

/* phyllo_ldisc.c: a new link's settings, from the module parameters. */
void phyllo_config_default(struct phyllo_link_config *cfg);

/* phyllo_link.c */
int phyllo_link_wq_init(void);
void phyllo_link_wq_exit(void);
int phyllo_err_to_errno(int err);
u32 phyllo_now_ms(void);
const char *phyllo_config_invalid(const struct phyllo_link_config *cfg);
int phyllo_config_check(const struct phyllo_link_config *cfg);
struct phyllo_link *phyllo_link_create(const struct phyllo_link_config *cfg);
u32 phyllo_link_now(struct phyllo_link *link);
void phyllo_link_get(struct phyllo_link *link);
void phyllo_link_put(struct phyllo_link *link);
void phyllo_link_start(struct phyllo_link *link, struct tty_struct *tty);
void phyllo_link_quiet(struct phyllo_link *link, u32 ms);
void phyllo_link_speak(struct phyllo_link *link);
void phyllo_link_speak_locked(struct phyllo_link *link);
void phyllo_link_kill(struct phyllo_link *link);
void phyllo_link_down(struct phyllo_link *link);
void phyllo_link_up(struct phyllo_link *link, struct tty_struct *tty);
void phyllo_link_take_handshake(struct phyllo_link *link, struct phyllo_link *fresh);
void phyllo_link_linger(struct phyllo_link *link);
bool phyllo_link_linger_cancel(struct phyllo_link *link);
int phyllo_link_configure(struct phyllo_link *link,
			  const struct phyllo_link_config *cfg);
int phyllo_link_set_word(struct phyllo_link *link, size_t offset, u32 value);
void phyllo_link_receive(struct phyllo_link *link, const u8 *cp,
			 const char *fp, size_t count);
void phyllo_link_termios(struct phyllo_link *link);
void phyllo_link_schedule(struct phyllo_link *link);
void phyllo_link_kick_locked(struct phyllo_link *link);
bool phyllo_link_has_deadline_locked(struct phyllo_link *link);
bool phyllo_link_room_locked(struct phyllo_link *link);
bool phyllo_link_can_send(struct phyllo_link *link, bool reliable);
void phyllo_link_note_room_locked(struct phyllo_link *link);
int phyllo_link_send_locked(struct phyllo_link *link, const u8 *unit,
			    size_t len, bool reliable);
u32 phyllo_link_tx_done_locked(struct phyllo_link *link);
void phyllo_link_state_locked(struct phyllo_link *link,
			      struct phyllo_link_state *st);
void phyllo_link_stats_locked(struct phyllo_link *link,
			      struct phyllo_link_stats *st);
void phyllo_link_stats64_locked(struct phyllo_link *link,
				struct phyllo_link_stats64 *st);

/* phyllo_file.c */
struct phyllo_file *phyllo_file_open(struct phyllo_link *link, bool admin,
				     int *err);
void phyllo_file_release(struct phyllo_file *pf);
bool phyllo_sub_match(const struct phyllo_subscription *sub, u8 type,
		      const u8 *data, size_t len);
int phyllo_sub_check(const struct phyllo_subscription *sub);
/* false: a reliable unit some file cannot take yet, to be refused */
bool phyllo_files_deliver_locked(struct phyllo_link *link,
				 const struct phyllo_unit *u, bool refusable);
/* after the kick that acknowledges them: wake who was queued units */
void phyllo_files_wake_queued_locked(struct phyllo_link *link);
void phyllo_files_reset_locked(struct phyllo_link *link);
/* the link went down: every file's reader sees it after what is queued */
void phyllo_files_down_locked(struct phyllo_link *link);
/* a reset, a new configuration or death: every hold ends */
void phyllo_files_hold_stop_locked(struct phyllo_link *link);
/* a new link: every class's hold budget full */
void phyllo_files_hold_init_locked(struct phyllo_link *link);
/* the least rxq_bytes: one largest unit's charge fits */
u32 phyllo_rxq_bytes_min(void);
/* the link died: every file's readers see it */
void phyllo_files_wake_locked(struct phyllo_link *link);
/* ms until the running hold's budget runs out (U32_MAX: none running) */
u32 phyllo_files_hold_left_locked(struct phyllo_link *link, u32 now);
/* a new rxq_stall_ms: no budget above it */
void phyllo_files_policy_locked(struct phyllo_link *link);
int phyllo_file_set_recv_mode(struct phyllo_file *pf, u32 mode);
int phyllo_file_set_send_mode(struct phyllo_file *pf, u32 mode);
/* copy: copy_to_user in phyllo_chrdev.c, 0 or -EFAULT */
ssize_t phyllo_file_read(struct phyllo_file *pf, size_t cap, bool nonblock,
			 int (*copy)(void *ctx, const u8 *data, size_t len),
			 void *ctx);
ssize_t phyllo_file_send(struct phyllo_file *pf, const u8 *unit, size_t len,
			 bool nonblock);
int phyllo_file_fsync(struct phyllo_file *pf);
__poll_t phyllo_file_poll_mask(struct phyllo_file *pf);
int phyllo_file_subscribe(struct phyllo_file *pf,
			  const struct phyllo_subscription *sub);
void phyllo_file_stats(struct phyllo_file *pf, struct phyllo_file_stats *st);

/* the kernel's fault injection for a received unit's allocations */
extern struct fault_attr phyllo_fail_rx;

/* phyllo_chrdev.c */
int phyllo_chrdev_init(void);
void phyllo_chrdev_exit(void);
int phyllo_chrdev_add(struct phyllo_link *link, struct device *parent);
void phyllo_chrdev_remove(struct phyllo_link *link);
void phyllo_chrdev_changed(struct phyllo_link *link);
bool phyllo_name_valid(const char *name, size_t size);
/* *next: the link the tty carries after naming cur (cur, or a down link) */
int phyllo_name_attach(struct phyllo_link *cur, const char *name,
		       struct phyllo_link **next);
/* a down link with no file goes away (its linger ran out) */
void phyllo_name_expire(struct phyllo_link *link);
/* module exit: the down links still waiting go away */
void phyllo_names_exit(void);

#endif /* PHYLLO_LINK_H */
