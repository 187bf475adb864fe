/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo_stats.h - every counter of one link, in one struct.
 *
 * Drops on the receive path are counted here instead of logged. The order
 * and meaning of the fields is also the order of the kernel's statistics
 * ioctl and of `phyllo stats`: append only.
 */
#ifndef PHYLLO_STATS_H
#define PHYLLO_STATS_H

#include "phyllo_types.h"

struct phyllo_stats {
	/* receive path */
	uint32_t rx_bytes;        /* bytes fed in */
	uint32_t rx_frames;       /* non-empty chunks seen */
	uint32_t rx_units;        /* units delivered to the application */
	uint32_t rx_overflow;     /* chunk longer than 255 bytes */
	uint32_t rx_framing;      /* COBS decode error */
	uint32_t rx_length;       /* truncated / length mismatch */
	uint32_t rx_crc;          /* checksum mismatch */
	uint32_t rx_type;         /* unexpected type for the preset */
	uint32_t rx_flags;        /* unsupported reliable flags */
	uint32_t rx_seq;          /* out of order, dropped (Go-Back-N) */
	uint32_t rx_dup;          /* already delivered, re-acknowledged */
	uint32_t rx_ack_stale;    /* acknowledgment outside the window */
	uint32_t rx_nosession;    /* reliable unit before the handshake */
	uint32_t rx_hold;         /* receiver full, left unacknowledged */
	uint32_t rx_naks;         /* NAKs received */
	/* transmit path */
	uint32_t tx_units;        /* units accepted from the application */
	uint32_t tx_frames;       /* frames written, retransmissions included */
	uint32_t tx_bytes;        /* bytes written, delimiters included */
	uint32_t tx_retransmits;  /* units sent again */
	uint32_t tx_timeouts;     /* retransmit timer expiries */
	uint32_t tx_acks;         /* pure acknowledgments sent */
	uint32_t tx_naks;         /* NAKs sent */
	uint32_t tx_reset_lost;   /* sent, unacknowledged, lost to a reset */
	/* link */
	uint32_t sessions;        /* handshakes completed (session number) */
	uint32_t peer_resets;     /* sessions ended by the peer restarting */
	uint32_t rtt_ms;          /* smoothed round trip */
	uint32_t rto_ms;          /* current retransmit timeout */
	uint32_t rx_ctrl_stale;   /* SYN, SYN|ACK or RST that fits neither the
				   * session's state nor its nonces: dropped
				   */
};

#define PHYLLO_STATS_FIELDS (sizeof(struct phyllo_stats) / sizeof(uint32_t))

#endif /* PHYLLO_STATS_H */
