/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * fuzz_stack.h - the whole-stack libFuzzer target (fuzz_stack.c, the script
 * and the peer model; fuzz_stack_out.c, the frames in and out).
 *
 * The bounds below are the contract the target holds the stack to. They
 * are named here, at the top, so they can be set against the core's
 * documented contract (core/phyllo_stack.h); tests/fuzz/README.md explains
 * each. w is the node's configured window (1..8).
 */
#ifndef PHYLLO_FUZZ_STACK_H
#define PHYLLO_FUZZ_STACK_H

#include "fuzz_util.h"
#include "phyllo_stack.h"

/*
 * Per call, as core/phyllo_stack.h and docs/reliable.md promise:
 * phyllo_stack_receive() writes nothing (what input calls for is owed to
 * the next poll), phyllo_stack_send() at most one frame, and
 * phyllo_stack_poll() (and init, which polls) at most
 * PHYLLO_ARQ_POLL_FRAMES(w) = w + 3 frames, however much input came.
 */
#define FZ_RECEIVE_OUT_MAX 0
#define FZ_SEND_OUT_MAX PHYLLO_WIRE_MAX
#define FZ_POLL_FRAMES(w) PHYLLO_ARQ_POLL_FRAMES(w)
#define FZ_POLL_OUT_MAX(w) (FZ_POLL_FRAMES(w) * PHYLLO_WIRE_MAX)

/*
 * Over a whole run, bytes written <= FZ_OUT_PER_IN_BYTE * bytes received
 *   + FZ_OUT_PER_SEND(w) * units the application sent
 *   + FZ_OUT_PER_EXPIRY(w) * timer expiries + FZ_OUT_SLACK(w),
 * where timer expiries = elapsed ms / rto_min_ms + 1: no timer of the
 * reliable layer (retransmit, SYN retry, NAK repeat) runs more often than
 * once per rto_min_ms. An answer to a frame (ACK, NAK, SYN|ACK, RST's SYN)
 * is small beside the frame that asked for it. A unit sent costs its own
 * frame plus one window resent on a NAK: a NAK is honoured once per
 * position, and a new position means units were retired
 * (docs/reliable.md, "bounded output"). Anything else is paid by time.
 */
#define FZ_OUT_PER_IN_BYTE 4
#define FZ_OUT_PER_SEND(w) ((1 + (w)) * PHYLLO_WIRE_MAX)
#define FZ_OUT_PER_EXPIRY(w) (2 * FZ_POLL_OUT_MAX(w))
#define FZ_OUT_SLACK(w) FZ_POLL_OUT_MAX(w)

/* Every application unit of the target starts with a tag, then filler
 * bytes derived from it, so a unit delivered is known and checked whole. */
#define FZ_TAG_LEN 8
#define FZ_KIND_PEER 'P'	/* the scripted peer's units (one-stack mode) */
#define FZ_MAX_UNITS 4096	/* application units per node and run */
#define FZ_WIRE_CAP 16384	/* bytes in flight one way (two-stack mode) */

struct fz_tag {
	uint8_t kind;		/* FZ_KIND_PEER or the sending node's name */
	bool reliable;
	uint16_t epoch;		/* the peer model's session (one-stack mode) */
	uint32_t k;		/* unit number */
};

struct fz_wire {
	uint32_t len;
	uint8_t buf[FZ_WIRE_CAP];
};

/* One stack under test and everything the checks remember about it. */
struct fz_node {
	struct phyllo_stack st;
	char name;		/* 'L' (one-stack), 'A' or 'B' */
	uint8_t win;		/* configured window */
	uint8_t limit;		/* in-flight limit the peer's opening SYN set */
	/* output of the current call, checked whole at its end */
	uint8_t call[FZ_POLL_OUT_MAX(PHYLLO_ARQ_WINDOW_MAX)];
	uint16_t call_len, call_max;
	const char *call_what;
	/* state when the call began, for its events */
	uint32_t nonce_before, sessions_before, retired_before;
	bool open_before;
	struct fz_wire *to;	/* where checked output goes, or NULL */
	/* totals for the whole-run bound */
	uint64_t out_total, in_total, sends;
	uint32_t app_next[2];	/* next unit number our application sends,
				 * [0] NOS and [1] reliable ones */
	/* our data frames: seq and unit number move together in a session */
	bool tx_off_known;
	uint8_t tx_off;
	uint32_t tx_sessions;	/* the session tx_off belongs to */
	/* units of the other node delivered here (two-stack mode) */
	uint32_t rx_sessions, rx_last, nos_last, rx_count;
	bool rx_any, nos_any;
	uint8_t seen[FZ_MAX_UNITS / 8];
};

/* Reliable header fields and body of a frame the target builds. */
struct fz_frame {
	uint8_t seq, ack, flags, type;
	uint8_t next, ext_decl;	/* ext bytes, and the length byte sent */
	const uint8_t *body;
	uint16_t nb;
};

/* FZ_TRACE=1 in the environment: print every operation and frame out. */
extern bool fz_trace;

void fz_tag_fill(uint8_t *p, uint16_t len, const struct fz_tag *t);
bool fz_tag_read(const uint8_t *p, uint16_t len, struct fz_tag *t);
/* The frame on the wire (delimiters included) into out; returns its length. */
uint16_t fz_frame_build(uint8_t *out, const struct fz_frame *f);
/* Start and end of one call (what, and the most it may write): output
 * checked as whole valid frames, events against the state. */
void fz_call_begin(struct fz_node *nd, const char *what, uint16_t max);
void fz_call_end(struct fz_node *nd);
/* The sink of every node: counts against the per-call bound. */
void fz_sink(void *ctx, const uint8_t *buf, uint16_t n);
/* Whole-run bound and in-flight bounds, after every operation. */
void fz_check_node(const struct fz_node *nd, uint64_t elapsed_ms);

#endif /* PHYLLO_FUZZ_STACK_H */
