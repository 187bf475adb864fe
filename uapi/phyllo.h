/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * phyllo.h - userspace ABI of the phyllo line discipline and /dev/phylloN.
 *
 * Contract (see phyllo(4)):
 *  1. Attaching the line discipline to a tty (CAP_NET_ADMIN) creates
 *     /dev/phylloN; PHYLLO_IOC_TTY_UNIT on the tty tells N.
 *     PHYLLO_IOC_TTY_ATTACH names the link: a named link outlives its tty
 *     (it goes down, not away, when the tty hangs up or is detached) and
 *     the next tty attached under the same name brings it up again, with
 *     its /dev/phylloN, its open files and their queues.
 *  2. One write(2) sends one unit, one read(2) returns one unit; a unit is
 *     [type byte >= 0x10][payload], at most PHYLLO_UNIT_MAX bytes.
 *  3. Every struct is made of __u32 words with explicit reserved space.
 *     The kernel zeroes what it copies out and rejects a nonzero reserved
 *     word coming in with EINVAL, so the ABI can grow into them.
 */
#ifndef _UAPI_LINUX_PHYLLO_H
#define _UAPI_LINUX_PHYLLO_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* Largest unit on /dev/phylloN: type byte + 252 payload bytes (minimal). */
#define PHYLLO_UNIT_MAX			253

/* Values of phyllo_link_config.preset and phyllo_link_state.preset. */
#define PHYLLO_CFG_MINIMAL		0	/* chunk + COBS + datagram */
#define PHYLLO_CFG_REDUCED		1	/* + CRC-32 validated datagram */
#define PHYLLO_CFG_STANDARD		2	/* + Go-Back-N reliable buffer */

/* phyllo_link_config.flags */
#define PHYLLO_CFG_NO_HANDSHAKE		0x1	/* start open at seq 0 */

/*
 * Per-link settings. The first eight are the protocol's: changing any of
 * them starts a new session. The rxq_* and max_files words are the link's
 * receive policy (phyllo(4), "Receive queues"): changing only those keeps
 * the session. PHYLLO_IOC_SET_CONFIG sets the words named in mask
 * (PHYLLO_SET_*) and keeps the others, in one step; GET_CONFIG returns
 * mask 0.
 */
struct phyllo_link_config {
	__u32 preset;		/* PHYLLO_CFG_* */
	__u32 window;		/* 1..8 units in flight (standard) */
	__u32 rto_min_ms;	/* retransmit timeout bounds, 1..65535 */
	__u32 rto_max_ms;
	__u32 rto_init_ms;
	__u32 ack_delay_ms;	/* pure-ACK delay, 0..65535 */
	__u32 max_retries;	/* timeouts before the session is lost, 0..255 */
	__u32 flags;		/* PHYLLO_CFG_NO_HANDSHAKE */
	__u32 rxq_units;	/* queued units per open file, 1..65536 */
	__u32 rxq_bytes;	/* queued bytes per open file, 1 KiB..16 MiB */
	__u32 rxq_link_bytes;	/* queued bytes per class, rxq_bytes..64 MiB */
	__u32 max_files;	/* open files of the link, 1..1024 */
	__u32 rxq_stall_ms;	/* the link's hold budget per class, 1..600000 */
	__u32 mask;		/* SET_CONFIG: the words it sets, PHYLLO_SET_* */
	/* a named link down with no open file goes away after this long,
	 * 0..PHYLLO_LINGER_MS_MAX, or PHYLLO_LINGER_FOREVER
	 */
	__u32 linger_ms;
	__u32 reserved;
};

/* Bits of phyllo_link_config.mask: one per word, in the struct's order. */
#define PHYLLO_SET_PRESET		0x0001U
#define PHYLLO_SET_WINDOW		0x0002U
#define PHYLLO_SET_RTO_MIN_MS		0x0004U
#define PHYLLO_SET_RTO_MAX_MS		0x0008U
#define PHYLLO_SET_RTO_INIT_MS		0x0010U
#define PHYLLO_SET_ACK_DELAY_MS		0x0020U
#define PHYLLO_SET_MAX_RETRIES		0x0040U
#define PHYLLO_SET_FLAGS		0x0080U
#define PHYLLO_SET_RXQ_UNITS		0x0100U
#define PHYLLO_SET_RXQ_BYTES		0x0200U
#define PHYLLO_SET_RXQ_LINK_BYTES	0x0400U
#define PHYLLO_SET_MAX_FILES		0x0800U
#define PHYLLO_SET_RXQ_STALL_MS		0x1000U
/* (0x2000 would name mask itself: no such setting) */
#define PHYLLO_SET_LINGER_MS		0x4000U
#define PHYLLO_SET_ALL			0x5fffU

/* Bounds of the receive policy words of struct phyllo_link_config. */
#define PHYLLO_RXQ_UNITS_MAX		65536
/* rxq_bytes: at least one largest unit's charge (its allocations) */
#define PHYLLO_RXQ_BYTES_MIN		1024
#define PHYLLO_RXQ_BYTES_MAX		(16U << 20)
#define PHYLLO_RXQ_LINK_BYTES_MAX	(64U << 20)
#define PHYLLO_FILES_MAX		1024
#define PHYLLO_STALL_MS_MAX		600000
#define PHYLLO_LINGER_MS_MAX		86400000	/* a day */
#define PHYLLO_LINGER_FOREVER		0xffffffffU

/* phyllo_link_state.state */
#define PHYLLO_LINK_CONNECTING		0	/* handshake under way */
#define PHYLLO_LINK_UP			1	/* session open (or no ARQ) */
#define PHYLLO_LINK_HUNGUP		2	/* tty hung up or detached */
/* a named link whose tty went away: its files stay open, reads of what
 * was queued go on, then one read fails with ENOLINK; writes wait
 */
#define PHYLLO_LINK_DOWN		3

#define PHYLLO_UNIT_NONE		0xffffffffU

struct phyllo_link_state {
	__u32 state;		/* PHYLLO_LINK_* */
	__u32 session;		/* sessions established so far */
	__u32 resets;		/* sessions that ended with a reset */
	__u32 preset;		/* PHYLLO_CFG_* */
	__u32 mtu;		/* largest payload: 252, 247 or 243 */
	__u32 tx_in_flight;	/* reliable units queued, not yet acknowledged */
	__u32 tx_reset_lost;	/* units written but lost to session resets */
	/* N of /dev/phylloN; PHYLLO_UNIT_NONE once detached (N may then
	 * belong to another link)
	 */
	__u32 unit;
	/* units in flight this session allows: the smaller of the link's
	 * window and the one the peer's handshake offered; 0 before a
	 * handshake, and below the standard preset
	 */
	__u32 window;
	__u32 downs;		/* times a named link went down */
	__u32 down_ms;		/* PHYLLO_LINK_DOWN: for how long, ms */
	__u32 reserved[5];
};

/*
 * Link statistics: the first 28 words are the protocol core's counters,
 * in the order of its struct phyllo_stats; then the glue's own. New
 * counters take reserved words.
 */
struct phyllo_link_stats {
	__u32 rx_bytes;
	__u32 rx_frames;
	__u32 rx_units;
	__u32 rx_overflow;
	__u32 rx_framing;
	__u32 rx_length;
	__u32 rx_crc;
	__u32 rx_type;
	__u32 rx_flags;
	__u32 rx_seq;
	__u32 rx_dup;
	__u32 rx_ack_stale;
	__u32 rx_nosession;
	__u32 rx_hold;
	__u32 rx_naks;
	__u32 tx_units;
	__u32 tx_frames;
	__u32 tx_bytes;
	__u32 tx_retransmits;
	__u32 tx_timeouts;
	__u32 tx_acks;
	__u32 tx_naks;
	__u32 tx_reset_lost;
	__u32 sessions;
	__u32 peer_resets;
	__u32 rtt_ms;
	__u32 rto_ms;
	__u32 rx_ctrl_stale;	/* session control that fits no session: dropped */
	/* glue counters */
	__u32 rx_tty_errors;	/* bytes flagged bad by the tty driver */
	__u32 rx_queue_drops;	/* unit copies dropped on a full file queue */
	__u32 rx_unclaimed;	/* units no open file wanted */
	__u32 tx_overruns;	/* bytes the transmit buffer could not take */
	__u32 rx_evictions;	/* queued copies taken back for the link's bound */
	__u32 rx_hold_ms;	/* time the link refused units for holders, ms */
	__u32 reserved[6];
};

/*
 * The same counters as struct phyllo_link_stats, in the same order, 64
 * bits wide (PHYLLO_IOC_GET_STATS64): totals since the link was attached,
 * carried across new configurations (where the 32-bit protocol counters
 * start again), so that byte counts do not wrap in hours at 1 Mbaud.
 * rtt_ms and rto_ms are the current values, as in the 32-bit struct.
 */
struct phyllo_link_stats64 {
	__u64 rx_bytes;
	__u64 rx_frames;
	__u64 rx_units;
	__u64 rx_overflow;
	__u64 rx_framing;
	__u64 rx_length;
	__u64 rx_crc;
	__u64 rx_type;
	__u64 rx_flags;
	__u64 rx_seq;
	__u64 rx_dup;
	__u64 rx_ack_stale;
	__u64 rx_nosession;
	__u64 rx_hold;
	__u64 rx_naks;
	__u64 tx_units;
	__u64 tx_frames;
	__u64 tx_bytes;
	__u64 tx_retransmits;
	__u64 tx_timeouts;
	__u64 tx_acks;
	__u64 tx_naks;
	__u64 tx_reset_lost;
	__u64 sessions;
	__u64 peer_resets;
	__u64 rtt_ms;
	__u64 rto_ms;
	__u64 rx_ctrl_stale;
	__u64 rx_tty_errors;
	__u64 rx_queue_drops;
	__u64 rx_unclaimed;
	__u64 tx_overruns;
	__u64 rx_evictions;
	__u64 rx_hold_ms;
	__u64 reserved[6];
};

/* phyllo_subscription.flags */
#define PHYLLO_SUB_TYPE			0x1	/* only units of type `type` */
/* only pub-sub (0x60) units whose topic starts with topic[0..topic_len) */
#define PHYLLO_SUB_TOPIC		0x2

#define PHYLLO_TOPIC_BYTES		16

/* Per-open-file receive filter; flags 0 receives everything. */
struct phyllo_subscription {
	__u32 flags;		/* PHYLLO_SUB_* */
	__u32 type;		/* 0x10..0xff with PHYLLO_SUB_TYPE */
	__u32 topic_len;	/* 0..15 with PHYLLO_SUB_TOPIC */
	__u8 topic[PHYLLO_TOPIC_BYTES];	/* prefix; bytes past topic_len 0 */
	__u32 reserved[5];
};

/* Values for PHYLLO_IOC_SET_SEND_MODE. */
#define PHYLLO_SEND_RELIABLE		0	/* default */
#define PHYLLO_SEND_UNRELIABLE		1	/* NOS units: no ack, no resend */

/*
 * Values for PHYLLO_IOC_SET_RECV_MODE (phyllo(4), "Receive queues"). A
 * file that falls behind loses units, each counted, and its next read
 * fails once with ENOBUFS; one that holds makes the peer wait instead,
 * within the link's hold budget.
 */
#define PHYLLO_RECV_DROP		0	/* lose at once what does not fit */
#define PHYLLO_RECV_HOLD		1	/* default; standard preset: refuse,
						 * peer resends
						 */

/* Counters of one open file. */
struct phyllo_file_stats {
	__u32 rx_queued;	/* units waiting to be read */
	__u32 rx_queued_bytes;
	__u32 rx_units;		/* units read */
	__u32 rx_drops;		/* units it lost: full queue, or taken back */
	__u32 rx_filtered;	/* units the subscription did not match */
	__u32 tx_units;		/* units written */
	__u32 tx_unacked;	/* reliable units written, not yet acked */
	__u32 rx_overrun;	/* 1 while it drops: fell behind, not yet drained */
	__u32 recv_mode;	/* PHYLLO_RECV_* */
	/* session ends (resets, downs) this file has not yet been told of
	 * by a read, a write or fsync: a unit it wrote that tx_unacked no
	 * longer counts may have been lost to one (0 on kernels before it)
	 */
	__u32 resets_unseen;
	__u32 reserved[6];
};

#define PHYLLO_IOC_MAGIC		0xBE

#define PHYLLO_IOC_GET_STATE	_IOR(PHYLLO_IOC_MAGIC, 1, struct phyllo_link_state)
#define PHYLLO_IOC_GET_STATS	_IOR(PHYLLO_IOC_MAGIC, 2, struct phyllo_link_stats)
#define PHYLLO_IOC_GET_CONFIG	_IOR(PHYLLO_IOC_MAGIC, 3, struct phyllo_link_config)
#define PHYLLO_IOC_SET_CONFIG	_IOW(PHYLLO_IOC_MAGIC, 4, struct phyllo_link_config)
#define PHYLLO_IOC_SUBSCRIBE	_IOW(PHYLLO_IOC_MAGIC, 5, struct phyllo_subscription)
#define PHYLLO_IOC_SET_SEND_MODE _IOW(PHYLLO_IOC_MAGIC, 6, __u32)
#define PHYLLO_IOC_GET_FILE_STATS _IOR(PHYLLO_IOC_MAGIC, 7, struct phyllo_file_stats)
#define PHYLLO_IOC_SET_RECV_MODE _IOW(PHYLLO_IOC_MAGIC, 9, __u32)
#define PHYLLO_IOC_GET_STATS64	_IOR(PHYLLO_IOC_MAGIC, 10, struct phyllo_link_stats64)
/* On the tty (not /dev/phylloN): N of the /dev/phylloN it carries. */
#define PHYLLO_IOC_TTY_UNIT	_IOR(PHYLLO_IOC_MAGIC, 8, __u32)

/*
 * Named links (phyllo(4), "Named links"). A name is 1 to
 * PHYLLO_NAME_MAX - 1 bytes of [A-Za-z0-9._:@+-], starting with a letter
 * or a digit and not with "by-"; the rest of name[] is NULs. udev makes
 * /dev/phyllo/NAME for it (sysfs: /sys/class/phyllo/phylloN/name).
 */
#define PHYLLO_NAME_MAX			32

struct phyllo_attach {
	char name[PHYLLO_NAME_MAX];
	__u32 flags;		/* 0 */
	__u32 reserved[7];
};

/*
 * On the tty, CAP_NET_ADMIN: the tty's link takes the name; or, if the
 * link of that name is down, the tty moves to it (it comes up with a new
 * session; the tty's own new link, and its /dev/phylloN, go away). EBUSY:
 * that name's link is up on another tty, or this tty's link has another
 * name. Then PHYLLO_IOC_TTY_UNIT tells N.
 *
 * What a file of a named link sees: when the link goes down, the units
 * queued before are read first, then one read fails with ENOLINK; reads
 * then wait (EAGAIN with O_NONBLOCK) until the link is up, and the first
 * read after it comes up fails once with ECONNRESET (a new session).
 * Writes wait (EAGAIN) while it is down and go out in the next session.
 * Going down ends the session as a reset does: units not yet acknowledged
 * are lost (tx_reset_lost) and the next write or fsync fails once with
 * ECONNRESET, unless a read reported the down first. poll: POLLPRI while
 * a read has a reset, a down or an up to report; no POLLOUT while down.
 */
#define PHYLLO_IOC_TTY_ATTACH	_IOW(PHYLLO_IOC_MAGIC, 11, struct phyllo_attach)

#endif /* _UAPI_LINUX_PHYLLO_H */
