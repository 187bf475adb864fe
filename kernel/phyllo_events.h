/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * phyllo_events.h - the phyllo trace-event system
 * (/sys/kernel/tracing/events/phyllo/), every event with the link's unit
 * (N of /dev/phylloN, -1 once detached). Documented in phyllo(4).
 *
 * From the core (through phyllo_trace_hook.h): phyllo_rx_frame,
 * phyllo_tx_frame, phyllo_tx_control, phyllo_rx_ack, phyllo_retransmit,
 * phyllo_timeout. From the glue: phyllo_rx_unit (delivered to the files),
 * phyllo_queue_drop, phyllo_session. Off, each costs a static branch.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM phyllo

#if !defined(PHYLLO_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define PHYLLO_EVENTS_H

#include <linux/tracepoint.h>

/* The unit of the link a core trace context belongs to (phyllo_link.c). */
int phyllo_trace_unit(const void *ctx);

TRACE_EVENT(phyllo_rx_frame,
	    TP_PROTO(const void *ctx, int len, int err),
	    TP_ARGS(ctx, len, err),
	    TP_STRUCT__entry(__field(int, unit)
			     __field(int, len)
			     __field(int, err)),
	    TP_fast_assign(__entry->unit = phyllo_trace_unit(ctx);
			   __entry->len = len;
			   __entry->err = err;),
	    TP_printk("phyllo%d len=%d %s", __entry->unit, __entry->len,
		      __print_symbolic(__entry->err, { 0, "ok" }, { -4, "overflow" },
				       { -5, "framing" }, { -6, "length" },
				       { -7, "crc" }, { -8, "type" }, { -9, "flags" },
				       { -10, "seq" }, { -11, "dup" }, { -12, "ack" },
				       { -13, "nosession" }, { -14, "hold" }))
);

TRACE_EVENT(phyllo_tx_frame,
	    TP_PROTO(const void *ctx, int bytes, int type),
	    TP_ARGS(ctx, bytes, type),
	    TP_STRUCT__entry(__field(int, unit)
			     __field(int, bytes)
			     __field(int, type)),
	    TP_fast_assign(__entry->unit = phyllo_trace_unit(ctx);
			   __entry->bytes = bytes;
			   __entry->type = type;),
	    TP_printk("phyllo%d bytes=%d type=0x%02x", __entry->unit,
		      __entry->bytes, __entry->type)
);

TRACE_EVENT(phyllo_tx_control,
	    TP_PROTO(const void *ctx, int ack, int flags),
	    TP_ARGS(ctx, ack, flags),
	    TP_STRUCT__entry(__field(int, unit)
			     __field(int, ack)
			     __field(int, nak)),
	    TP_fast_assign(__entry->unit = phyllo_trace_unit(ctx);
			   __entry->ack = ack;
			   __entry->nak = !!(flags & 0x10);),
	    TP_printk("phyllo%d %s ack=%d", __entry->unit,
		      __entry->nak ? "NAK" : "ACK", __entry->ack)
);

TRACE_EVENT(phyllo_rx_ack,
	    TP_PROTO(const void *ctx, int ack, int bits),
	    TP_ARGS(ctx, ack, bits),
	    TP_STRUCT__entry(__field(int, unit)
			     __field(int, ack)
			     __field(int, nak)
			     __field(int, retired)),
	    TP_fast_assign(__entry->unit = phyllo_trace_unit(ctx);
			   __entry->ack = ack;
			   __entry->nak = bits & 1;
			   __entry->retired = bits >> 1;),
	    TP_printk("phyllo%d %s ack=%d retired=%d", __entry->unit,
		      __entry->nak ? "NAK" : "ACK", __entry->ack, __entry->retired)
);

TRACE_EVENT(phyllo_retransmit,
	    TP_PROTO(const void *ctx, int units, int timeout),
	    TP_ARGS(ctx, units, timeout),
	    TP_STRUCT__entry(__field(int, unit)
			     __field(int, units)
			     __field(int, timeout)),
	    TP_fast_assign(__entry->unit = phyllo_trace_unit(ctx);
			   __entry->units = units;
			   __entry->timeout = timeout;),
	    TP_printk("phyllo%d units=%d on=%s", __entry->unit, __entry->units,
		      __entry->timeout ? "timeout" : "nak")
);

TRACE_EVENT(phyllo_timeout,
	    TP_PROTO(const void *ctx, int rto_ms, int retries),
	    TP_ARGS(ctx, rto_ms, retries),
	    TP_STRUCT__entry(__field(int, unit)
			     __field(int, rto_ms)
			     __field(int, retries)),
	    TP_fast_assign(__entry->unit = phyllo_trace_unit(ctx);
			   __entry->rto_ms = rto_ms;
			   __entry->retries = retries;),
	    TP_printk("phyllo%d rto_ms=%d retries=%d", __entry->unit,
		      __entry->rto_ms, __entry->retries)
);

TRACE_EVENT(phyllo_rx_unit,
	    TP_PROTO(int unit, int type, int len, int files),
	    TP_ARGS(unit, type, len, files),
	    TP_STRUCT__entry(__field(int, unit)
			     __field(int, type)
			     __field(int, len)
			     __field(int, files)),
	    TP_fast_assign(__entry->unit = unit;
			   __entry->type = type;
			   __entry->len = len;
			   __entry->files = files;),
	    TP_printk("phyllo%d type=0x%02x len=%d files=%d", __entry->unit,
		      __entry->type, __entry->len, __entry->files)
);

TRACE_EVENT(phyllo_queue_drop,
	    TP_PROTO(int unit, int type, int len, int queued),
	    TP_ARGS(unit, type, len, queued),
	    TP_STRUCT__entry(__field(int, unit)
			     __field(int, type)
			     __field(int, len)
			     __field(int, queued)),
	    TP_fast_assign(__entry->unit = unit;
			   __entry->type = type;
			   __entry->len = len;
			   __entry->queued = queued;),
	    TP_printk("phyllo%d type=0x%02x len=%d queued=%d", __entry->unit,
		      __entry->type, __entry->len, __entry->queued)
);

TRACE_EVENT(phyllo_session,
	    TP_PROTO(int unit, bool reset, u32 session, u32 lost),
	    TP_ARGS(unit, reset, session, lost),
	    TP_STRUCT__entry(__field(int, unit)
			     __field(bool, reset)
			     __field(u32, session)
			     __field(u32, lost)),
	    TP_fast_assign(__entry->unit = unit;
			   __entry->reset = reset;
			   __entry->session = session;
			   __entry->lost = lost;),
	    TP_printk("phyllo%d %s session=%u lost=%u", __entry->unit,
		      __entry->reset ? "reset" : "open", __entry->session,
		      __entry->lost)
);

#endif /* PHYLLO_EVENTS_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE phyllo_events
#include <trace/define_trace.h>
