/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * libphyllo.h - Phyllo links for applications: publish and subscribe,
 * request/reply and raw units over a serial line, one API whatever carries
 * the protocol. See libphyllo(3).
 *
 * Contract:
 *  1. phyllo_open() takes /dev/phylloN (the kernel line discipline runs the
 *     protocol) or a tty such as /dev/ttyACM0 (the library runs the same
 *     protocol core itself, with its own timers). Anything else is refused
 *     with -ENOTTY before it is written to. A tty that carries the line
 *     discipline already is opened through its /dev/phylloN.
 *  2. Every function returns >= 0 on success and a negative errno value on
 *     failure; phyllo_strerror() says it in words.
 *  3. A unit is a type byte (>= 0x10) and a payload of at most
 *     phyllo_mtu() bytes; pub-sub messages (type 0x60) carry a topic of 0 to
 *     15 bytes and, usually, a MessagePack document (0x40, format 0x11).
 *  4. phyllo_fd() is one descriptor to poll(2)/epoll(7) for reading: it is
 *     readable when phyllo_recv() has something to return or the link needs
 *     service. Then call phyllo_recv(h, &m, 0) until -EAGAIN (or
 *     phyllo_dispatch()). On a tty the protocol's timers run only inside
 *     the library's calls: an application that waits elsewhere must poll
 *     this descriptor.
 *  5. A session reset (the far end restarted, or the link was lost) is
 *     returned once by phyllo_recv() as -ECONNRESET: reliable units in
 *     flight then may have been lost. A hung-up or detached link returns
 *     -EPIPE once everything received before it was read.
 *  6. A named link (/dev/phyllo/NAME, phyllo(4)) whose board goes away is
 *     down, not gone: phyllo_recv() returns what was received before, then
 *     -ENOLINK once; when the board is back (the same name attached on any
 *     tty) it returns -ECONNRESET once, then the new session's units. The
 *     handle stays usable throughout: neither is an error that ends it.
 *     Sends while the link is down wait for it (-EAGAIN with
 *     PHYLLO_OPEN_NONBLOCK) and go out in the next session.
 *  7. A handle is used by one thread at a time. Messages returned point
 *     into the handle and stay valid until the next call on it.
 */
#ifndef LIBPHYLLO_H
#define LIBPHYLLO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PHYLLO_API __attribute__((visibility("default")))
#else
#define PHYLLO_API
#endif

#define PHYLLO_LIB_VERSION_MAJOR 0
#define PHYLLO_LIB_VERSION_MINOR 3	/* 2: phyllo_stats64(); 3: PHYLLO_STATE_DOWN,
					 * -ENOLINK from phyllo_recv() */

struct phyllo;

/* struct phyllo_options.transport; phyllo_transport() */
#define PHYLLO_TRANSPORT_AUTO	0	/* by what the path is */
#define PHYLLO_TRANSPORT_KERNEL	1	/* /dev/phylloN */
#define PHYLLO_TRANSPORT_TTY	2	/* the protocol in the library */

/* struct phyllo_options.preset (tty transport) */
#define PHYLLO_LIB_MINIMAL	0	/* chunk + COBS + datagram */
#define PHYLLO_LIB_REDUCED	1	/* + CRC-32 */
#define PHYLLO_LIB_STANDARD	2	/* + Go-Back-N reliable buffer (default) */

/* struct phyllo_options.flags */
#define PHYLLO_OPEN_NONBLOCK	 0x1	/* sends return -EAGAIN, never wait */
#define PHYLLO_OPEN_NO_HANDSHAKE 0x2	/* tty: start open at seq 0, as the
					 * public peers do */

/* flags of the send functions */
#define PHYLLO_MSG_UNRELIABLE	0x1	/* no acknowledgement, no resend */

struct phyllo_options {
	unsigned int transport;	/* PHYLLO_TRANSPORT_*; default AUTO */
	unsigned int flags;	/* PHYLLO_OPEN_* */
	unsigned long baud;	/* tty: line speed; 0: 115200, the firmware's */
	int preset;		/* tty: PHYLLO_LIB_*; default standard */
	unsigned int window;	/* tty: units in flight, 1..8; 0: 4 */
	unsigned int queue;	/* units the library holds for the
				 * application, 16..4096; 0: 64 */
	unsigned int reserved[8];	/* zero */
};

/* A received unit. Pointers stay valid until the next call on the handle. */
struct phyllo_message {
	uint8_t type;		/* unit type: 0x60 pub-sub, 0x10 buffer, ... */
	uint8_t is_pubsub;	/* 1: topic and payload_type are set */
	uint8_t is_document;	/* 1: format and schema are set */
	uint8_t payload_type;	/* pub-sub: 0x40 for a document */
	uint8_t format;		/* document: 0x11 MessagePack */
	uint8_t schema;
	uint8_t topic_len;	/* pub-sub: 0..15 */
	char topic[16];		/* pub-sub: NUL-terminated */
	const uint8_t *data;	/* document body, pub-sub payload, or the
				 * unit's payload */
	size_t len;
	const uint8_t *unit;	/* the whole unit, type byte first */
	size_t unit_len;
};

/* struct phyllo_status.state */
#define PHYLLO_STATE_CONNECTING	0	/* handshake under way */
#define PHYLLO_STATE_UP		1	/* session open (or no ARQ) */
#define PHYLLO_STATE_HUNGUP	2	/* tty hung up or link detached */
#define PHYLLO_STATE_DOWN	3	/* a named link waiting for its board */

struct phyllo_status {
	uint32_t transport;	/* PHYLLO_TRANSPORT_KERNEL or _TTY */
	uint32_t state;		/* PHYLLO_STATE_* */
	uint32_t session;	/* sessions established so far */
	uint32_t resets;	/* session resets seen */
	uint32_t preset;	/* PHYLLO_LIB_* */
	uint32_t mtu;		/* largest payload: 252, 247 or 243 */
	uint32_t tx_in_flight;	/* reliable units not yet acknowledged */
	uint32_t queued;	/* units waiting for phyllo_recv() */
	uint32_t window;	/* standard: units in flight the session
				 * allows, the smaller of ours and the one the
				 * far end's handshake offered; 0: unknown */
	uint32_t reserved[7];
};

PHYLLO_API const char *phyllo_version(void);
PHYLLO_API const char *phyllo_strerror(int err);

PHYLLO_API void phyllo_options_init(struct phyllo_options *o);
/* o may be NULL for the defaults. */
PHYLLO_API int phyllo_open(struct phyllo **h, const char *path,
			   const struct phyllo_options *o);
/* The protocol in the library over an open stream fd (a tty, a socket,
 * a pipe pair's one end); the handle owns fd from then on. */
PHYLLO_API int phyllo_open_fd(struct phyllo **h, int fd, const struct phyllo_options *o);
/* Waits up to a second for reliable units still in flight (tty). */
PHYLLO_API void phyllo_close(struct phyllo *h);

PHYLLO_API int phyllo_fd(const struct phyllo *h);
PHYLLO_API int phyllo_transport(const struct phyllo *h);
PHYLLO_API int phyllo_mtu(const struct phyllo *h);
/* Service the link without blocking: read, run timers, write. Returns the
 * number of units waiting for phyllo_recv(). */
PHYLLO_API int phyllo_dispatch(struct phyllo *h);
/* Wait until a session is open (timeout_ms < 0: for ever); -ETIMEDOUT.
 * A named link that is down is waited for until it is up again; -EPIPE
 * only for a link that hung up for good. */
PHYLLO_API int phyllo_wait_up(struct phyllo *h, int timeout_ms);

/* A MessagePack document (format 0x11, schema 0) on topic (0-15 bytes). */
PHYLLO_API int phyllo_publish(struct phyllo *h, const char *topic, const void *doc,
			      size_t len, unsigned int flags);
/* Any document format and schema. */
PHYLLO_API int phyllo_publish_doc(struct phyllo *h, const char *topic, uint8_t format,
				  uint8_t schema, const void *body, size_t len,
				  unsigned int flags);
/* A JSON text, sent as MessagePack (integers stay integers). */
PHYLLO_API int phyllo_publish_json(struct phyllo *h, const char *topic, const char *json,
				   unsigned int flags);
/* A raw unit: type >= 0x10 and its payload. Every send returns 0, or
 * -EAGAIN (PHYLLO_OPEN_NONBLOCK: the window is full, or a named link is
 * down), -ECONNRESET (/dev/phylloN: the session ended, by a reset or a
 * down, before a receive reported it; this unit was not sent: send it
 * again), -EPIPE (hung up for good), -EMSGSIZE, -EINVAL. */
PHYLLO_API int phyllo_send(struct phyllo *h, uint8_t type, const void *payload, size_t len,
			   unsigned int flags);
/* Wait until every reliable unit sent is acknowledged; -ETIMEDOUT, or
 * -ECONNRESET when the session ended (a reset, or the named link down)
 * while some were not: those may be lost. */
PHYLLO_API int phyllo_flush(struct phyllo *h, int timeout_ms);

/*
 * What phyllo_recv() returns: with no subscription, every unit; otherwise
 * the pub-sub messages whose topic starts with one of the prefixes ("" for
 * all) and the units of the subscribed types.
 */
PHYLLO_API int phyllo_subscribe(struct phyllo *h, const char *prefix);
PHYLLO_API int phyllo_subscribe_type(struct phyllo *h, uint8_t type);
PHYLLO_API int phyllo_unsubscribe_all(struct phyllo *h);

/*
 * The next unit: 0 and *m filled; -EAGAIN (timeout_ms 0, nothing there),
 * -ETIMEDOUT, -ECONNRESET (a session reset, or a named link up again:
 * reported once), -ENOLINK (a named link went down: reported once, after
 * the units received before; call again to wait for it), -EPIPE (the
 * link hung up for good). timeout_ms < 0 waits for ever.
 */
PHYLLO_API int phyllo_recv(struct phyllo *h, struct phyllo_message *m, int timeout_ms);
/*
 * Publish doc on topic, then wait for the next message on the same topic
 * (as a board answers): 0 and *reply filled, or as phyllo_recv(). Other
 * messages arriving meanwhile stay queued for phyllo_recv().
 */
PHYLLO_API int phyllo_request(struct phyllo *h, const char *topic, const void *doc,
			      size_t len, struct phyllo_message *reply, int timeout_ms);

PHYLLO_API int phyllo_status(struct phyllo *h, struct phyllo_status *s);
/* The link's counters into v[0..max): returns how many there are (34:
 * the protocol core's 28, then the glue's 6), in phyllo_stat_name() order. */
PHYLLO_API int phyllo_stats(struct phyllo *h, uint32_t *v, unsigned int max);
/* The same counters 64 bits wide, as totals that do not wrap: since the
 * link was attached on /dev/phylloN, since the open on a tty. rtt_ms and
 * rto_ms are the current values, as in phyllo_stats(). */
PHYLLO_API int phyllo_stats64(struct phyllo *h, uint64_t *v, unsigned int max);
/* Name of counter i, or NULL past the last. */
PHYLLO_API const char *phyllo_stat_name(unsigned int i);

/* JSON text to MessagePack: its length, or -EINVAL (err says why, with
 * the offset) or -EMSGSIZE. */
PHYLLO_API int phyllo_json_to_msgpack(const char *json, void *out, size_t cap, char *err,
				      size_t errlen);
/* One MessagePack object as JSON text (NUL-terminated): its length, or
 * -EINVAL (malformed) or -EMSGSIZE. */
PHYLLO_API int phyllo_msgpack_to_json(const void *doc, size_t len, char *out, size_t cap);

/* A speed the serial driver takes (1200 .. 4000000)? 1 or 0. */
PHYLLO_API int phyllo_baud_valid(unsigned long baud);

#ifdef __cplusplus
}
#endif

#endif /* LIBPHYLLO_H */
