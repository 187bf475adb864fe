/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * stats_list.h - the names of struct phyllo_stats's counters, in struct
 * order, X(name) for each: libphyllo names them with it
 * (phyllo_stat_name(), what the tool prints too). The core has no
 * strings. Keep in step with core/phyllo_stats.h (the user asserts the
 * count). The kernel lists its sysfs files itself (by offsetof, so their
 * order does not matter there).
 */
#ifndef PHYLLO_STATS_LIST_H
#define PHYLLO_STATS_LIST_H

#define PHYLLO_STATS_LIST(X) \
	X(rx_bytes) X(rx_frames) X(rx_units) X(rx_overflow) X(rx_framing) \
	X(rx_length) X(rx_crc) X(rx_type) X(rx_flags) X(rx_seq) X(rx_dup) \
	X(rx_ack_stale) X(rx_nosession) X(rx_hold) X(rx_naks) X(tx_units) \
	X(tx_frames) X(tx_bytes) X(tx_retransmits) X(tx_timeouts) X(tx_acks) \
	X(tx_naks) X(tx_reset_lost) X(sessions) X(peer_resets) X(rtt_ms) X(rto_ms) \
	X(rx_ctrl_stale)

#endif /* PHYLLO_STATS_LIST_H */
