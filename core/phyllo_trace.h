/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo_trace.h - trace points of the protocol core.
 *
 * Contract:
 *  1. By default every PHYLLO_TRACE() compiles to nothing and the structs
 *     carry no trace field: the firmware and the tools pay nothing.
 *  2. A glue that traces defines PHYLLO_TRACE_HEADER (a header of its own)
 *     at build time; that header defines PHYLLO_TRACE(ctx, point, a, b)
 *     and the core then gives struct phyllo_stack and struct phyllo_arq a
 *     `void *trace_ctx` (NULL: not traced), which the glue sets.
 *  3. The points and what a and b carry (both int):
 *       RX_FRAME    a decoded length, b 0 or the enum phyllo_err dropping it
 *       TX_FRAME    a bytes written (delimiters included), b the frame type
 *       TX_CONTROL  a the ack carried, b the reliable flags (ACK, NAK, ...)
 *       RX_ACK      a the ack, b bit 0 NAK, bits 1.. units it retired
 *       RETRANSMIT  a units resent, b 0 on a NAK, 1 on a timeout
 *       TIMEOUT     a the RTO that expired (ms), b timeouts in a row
 */
#ifndef PHYLLO_TRACE_H
#define PHYLLO_TRACE_H

enum phyllo_trace_point {
	PHYLLO_TP_RX_FRAME,
	PHYLLO_TP_TX_FRAME,
	PHYLLO_TP_TX_CONTROL,
	PHYLLO_TP_RX_ACK,
	PHYLLO_TP_RETRANSMIT,
	PHYLLO_TP_TIMEOUT,
};

#ifdef PHYLLO_TRACE_HEADER
#include PHYLLO_TRACE_HEADER
#define PHYLLO_TRACE_FIELD void *trace_ctx;
#else
/*
 * a and b are side-effect free: "used", and optimised away; ctx names a
 * field that only exists with a trace header, so it is never expanded
 */
#define PHYLLO_TRACE(ctx, point, a, b) do { (void)(a); (void)(b); } while (0)
#define PHYLLO_TRACE_FIELD
#endif

#endif /* PHYLLO_TRACE_H */
