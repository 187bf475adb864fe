/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * phyllo_trace_hook.h - the kernel's PHYLLO_TRACE_HEADER (see
 * core/phyllo_trace.h): each core trace point becomes its trace event.
 * Kbuild names it for every file, the core's included, so the core's
 * points cost one static branch each while the events are off.
 */
#ifndef PHYLLO_TRACE_HOOK_H
#define PHYLLO_TRACE_HOOK_H

#include "phyllo_events.h"

#define PHYLLO_TRACE_PHYLLO_TP_RX_FRAME   trace_phyllo_rx_frame
#define PHYLLO_TRACE_PHYLLO_TP_TX_FRAME   trace_phyllo_tx_frame
#define PHYLLO_TRACE_PHYLLO_TP_TX_CONTROL trace_phyllo_tx_control
#define PHYLLO_TRACE_PHYLLO_TP_RX_ACK     trace_phyllo_rx_ack
#define PHYLLO_TRACE_PHYLLO_TP_RETRANSMIT trace_phyllo_retransmit
#define PHYLLO_TRACE_PHYLLO_TP_TIMEOUT    trace_phyllo_timeout

/* A NULL context (the core's own KUnit suites) is never traced. */
#define PHYLLO_TRACE(ctx, point, a, b) do { \
	const void *trace_ctx_ = (ctx); \
	\
	if (trace_ctx_) \
		PHYLLO_TRACE_##point(trace_ctx_, a, b); \
} while (0)

#endif /* PHYLLO_TRACE_HOOK_H */
