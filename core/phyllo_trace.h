/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo_trace.h - trace points of the protocol core.
 *
 * Contract:
 *  1. By default every PHYLLO_TRACE() compiles to nothing: the firmware
 *     and the tools pay one pointer per struct phyllo_stack and struct
 *     phyllo_arq (trace_ctx, left NULL), and no code.
 *  2. A glue that traces defines PHYLLO_TRACE_HEADER (a header of its own)
 *     at build time; that header defines PHYLLO_TRACE(ctx, point, a, b),
 *     and the glue sets trace_ctx (NULL: not traced).
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
#else
/* every argument is side-effect free: "used", and optimised away */
#define PHYLLO_TRACE(ctx, point, a, b) \
	do { (void)(ctx); (void)(point); (void)(a); (void)(b); } while (0)
#endif

#endif /* PHYLLO_TRACE_H */
