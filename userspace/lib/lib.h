/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * lib.h - libphyllo's insides: the handle, shared by the API (lib.c) and
 * the two transports, kernel (lib_kernel.c: /dev/phylloN) and tty
 * (lib_tty.c: the protocol core in the library, run by the engine of
 * lib_engine.c). Only userspace/lib/ includes it; what the tool may use
 * is in phyllo-internal.h.
 *
 * Every unit a transport receives goes through phyllo_lib_ingest(): a pending
 * request's reply is taken first, then the subscriptions filter, then the
 * queue holds it for phyllo_recv(). The epoll set behind phyllo_fd() holds
 * the transport's fd, a timerfd (tty: the core's next deadline) and an
 * eventfd kept readable while the queue has something to report.
 */
#ifndef PHYLLO_LIB_H
#define PHYLLO_LIB_H

#include <stdbool.h>
#include <stdint.h>
#include <termios.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "phyllo-internal.h"

#define LIB_UNIT_MAX 253		/* type byte + the minimal preset's 252 */
#define LIB_SUBS_MAX 16
#define LIB_GLUE_STATS 6
/* tty: the time a board's bootloader takes after the reset an open may
 * cause */
#define PHYLLO_LIB_BOOT_MS 2000
#define PHYLLO_LIB_BOOT_LISTEN_MS 500	/* its last part: the board's first frames */

struct lib_unit {
	uint16_t len;
	uint8_t data[LIB_UNIT_MAX];
};

struct lib_sub {
	bool by_type;			/* else a pub-sub topic prefix */
	uint8_t type;
	uint8_t len;
	uint8_t topic[PHYLLO_TOPIC_MAX];
};

struct lib_transport;

struct phyllo {
	const struct lib_transport *t;
	int io_fd, ep_fd, timer_fd, event_fd;
	uint32_t ep_events;		/* io_fd's events in the epoll set */
	bool event_set;			/* event_fd is readable */
	bool want_out;			/* /dev/phylloN: a send met a full window */
	unsigned int flags;		/* PHYLLO_OPEN_* */
	/* what the application gets */
	struct lib_unit *q;
	unsigned int q_head, q_n, q_cap;
	uint64_t q_drops, filtered;
	bool reset_pending, hungup, hup_reported;
	/* /dev/phylloN of a named link: went down (-ENOLINK to report), is
	 * down (until the read that says it is up again) */
	bool down_pending, down;
	uint32_t resets, downs;
	/* phyllo_flush(): a reliable unit was sent since the last flush,
	 * and the session ends read (resets + downs) at the first such send;
	 * session ends the kernel has not told this file of yet (read with
	 * its units in flight, lib_kernel.c; 0 on a tty) */
	bool unflushed;
	uint32_t unflushed_ends, ends_unseen;
	struct lib_sub subs[LIB_SUBS_MAX];
	unsigned int n_subs;
	struct lib_unit cur;		/* the unit phyllo_recv() returned */
	/* phyllo_request() */
	bool req_active, req_done;
	uint8_t req_topic[PHYLLO_TOPIC_MAX], req_len;
	struct lib_unit req_reply;
	/* kernel transport */
	bool k_unreliable;		/* the file's send mode */
	bool k_readable;		/* no read found the file empty since
					 * poll said it was readable */
	bool k_one;			/* phyllo_recv(): one read(2) per unit */
	/* phyllo_recv(): read first or poll first (lib_kernel.c) */
	bool k_ahead;			/* the last read tried first found a unit */
	bool k_trying;			/* this call reads before it polls */
	bool k_empty;			/* a read in this call found nothing */
	uint8_t k_skip, k_backoff;	/* calls that poll first before the next try */
	/* tty transport */
	struct phyllo_engine eng;	/* the core, its transmit buffer */
	uint8_t preset;
	bool held;			/* the core holds the link: queue full */
	uint32_t reset_lost_seen;
	/* the core's counters carried into 64 bits (phyllo_lib_stats_fold()) */
	uint64_t stats_total[PHYLLO_STATS_FIELDS];
	uint32_t stats_seen[PHYLLO_STATS_FIELDS];
	char report_path[160];		/* lib_report.c: "" for none */
	int64_t report_ms;		/* when it was last written */
};

/* What a transport does; every function returns >= 0 or -errno. */
struct lib_transport {
	int kind;			/* PHYLLO_TRANSPORT_* */
	/* read, run timers, write: ingest what arrives, without blocking */
	int (*service)(struct phyllo *h);
	int (*send)(struct phyllo *h, const uint8_t *unit, uint16_t len, bool reliable);
	/* the kernel's filter for these subscriptions (no-op on a tty) */
	int (*filter)(struct phyllo *h, bool everything);
	int (*status)(struct phyllo *h, struct phyllo_status *s);
	int (*stats)(struct phyllo *h, uint32_t *v, unsigned int n);
	/* the same counters as totals, 64 bits wide */
	int (*stats64)(struct phyllo *h, uint64_t *v, unsigned int n);
	/* reliable units not yet acknowledged */
	int (*in_flight)(struct phyllo *h);
	/* the application took a unit: room in the queue again */
	void (*taken)(struct phyllo *h);
	void (*close)(struct phyllo *h);
};

extern const struct lib_transport phyllo_lib_kernel_transport;
extern const struct lib_transport phyllo_lib_tty_transport;

/* 0: taken (queued, a reply or filtered out); -ENOBUFS: queue full. */
int phyllo_lib_ingest(struct phyllo *h, const uint8_t *unit, uint16_t len);
/* Keep phyllo_fd() readable exactly while there is something to report. */
void phyllo_lib_event_update(struct phyllo *h);
/* Set io_fd's events in the epoll set (EPOLLIN, EPOLLOUT). */
void phyllo_lib_io_events(struct phyllo *h, uint32_t events);
/* Wait on the epoll set until deadline_ms (-1: for ever). */
int phyllo_lib_wait(struct phyllo *h, int64_t deadline_ms);
int64_t phyllo_lib_now_ms(void);

/* A handle on fd (taken; closed on failure), on the kernel transport or
 * the tty one. The tests start the kernel transport on a socket that
 * reads one unit a read, as /dev/phylloN does. */
int phyllo_lib_start(struct phyllo **out, int fd, bool kernel, bool is_tty,
		     const struct phyllo_options *o);
int phyllo_lib_kernel_init(struct phyllo *h);
/* A blocking phyllo_recv() on the kernel transport begins: one read per
 * unit, and whether to read before poll says a unit is there. */
void phyllo_lib_kernel_recv_start(struct phyllo *h);
int phyllo_lib_tty_init(struct phyllo *h, const struct phyllo_options *o, bool is_tty);

/* lib_report.c: the counters of a tty handle while it runs (its path:
 * phyllo-internal.h): start, write (at most once a second), remove. */
void phyllo_lib_report_open(struct phyllo *h);
void phyllo_lib_report(struct phyllo *h);
void phyllo_lib_report_close(struct phyllo *h);

/*
 * Carry n 32-bit counters into 64-bit totals: each grew by now - seen
 * since the last fold, modulo 2^32 (right, a wrap included, while it
 * grows by less than 2^32 between two folds); seen becomes now. The tty
 * transport folds the core's at every service and send.
 */
void phyllo_lib_stats_fold(uint64_t *total, uint32_t *seen, const uint32_t *now, unsigned int n);

/* The core's error as an errno value (the library's one place). */
int phyllo_lib_errno(int phyllo_err);

#endif
