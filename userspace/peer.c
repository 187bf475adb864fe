// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * peer.c - `phyllo peer`. One thread, one poll loop around libphyllo's
 * engine (lib_engine.c, the one that runs the core under the library's
 * tty transport too): read bytes into it, act on each unit and on the
 * core's events, run the core's timers, write what it produced. The
 * engine keeps the core's contract (a bounded transmit buffer, events
 * after every receive and every poll); peer adds its roles:
 *  - every session reset is reported on stderr and counted (`resets` in
 *    the JSON), and the role settles what the reset took (client_reset(),
 *    stream_lost());
 *  - one back-pressure rule: the echo role queues what its send window
 *    cannot take; with the queue full it refuses the unit just received
 *    (phyllo_stack_refuse()) and holds the link until the queue has room
 *    for a whole window again, when the core asks for the rest (NAK).
 * The fault injector (fault.h) is the engine's hook: between the core and
 * the fd, on whole frames. A --device is locked as `phyllo attach` locks
 * its tty (bytestream.c).
 * --crash-after N stops an echo peer dead after N echoes, as a board
 * whose power is cut: nothing more is written, nothing is said.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "peer.h"
#include "fault.h"
#include "capture.h"
#include "bytestream.h"
#include "client.h"
#include "stream.h"
#include "payload.h"
#include "util.h"
#include "phyllo-internal.h"

#define PEND_MAX 64

enum peer_role { ROLE_NONE, ROLE_ECHO, ROLE_CLIENT, ROLE_STREAM, ROLE_SINK };
static const char *const role_names[] = { "?", "echo", "client", "stream", "sink" };

struct pend {
	uint8_t type;
	uint16_t len;
	uint8_t data[PHYLLO_DATAGRAM_MAX];
};

struct peer_opts {
	struct bytestream_spec link;
	uint8_t preset;
	enum peer_role role;
	bool unreliable, verbose;
	unsigned long pause_ms, interval_ms;
	unsigned long count, window, timeout_s, crash_after;
	struct phyllo_arq_config arq;
	struct fault_cfg fault;
	bool faulty;
	struct payload_spec payload;
	const char *stats_file;
};

struct peer {
	struct peer_opts o;
	struct phyllo_engine e;		/* the core, its buffer and capture */
	struct bytestream io;
	struct fault *fault;
	struct phyllo_engine_hook hook;	/* the fault injector, with faults on */
	uint32_t now;
	bool eof;
	/* echo */
	struct pend pend[PEND_MAX];
	unsigned int pend_head, pend_n;
	uint64_t echoed, refused, echo_dropped;
	bool held;		/* the link is held until pend has room */
	bool crashed;		/* --crash-after reached: stop dead */
	/* sessions */
	uint64_t resets;	/* session resets reported */
	uint32_t reset_lost_seen, peer_resets_seen;	/* stats already reported */
	struct client cl;
	struct stream sm;
	uint64_t sunk;		/* units a sink received */
	bool timed_out;
	bool progress;		/* a progress line on stderr (a terminal) */
	bool progress_shown;
};

static volatile sig_atomic_t peer_stop;	/* the signal that asked us to stop */

static void on_signal(int sig)
{
	peer_stop = sig;
}

_Static_assert((int)FAULT_TX == (int)PHYLLO_ENGINE_TX && (int)FAULT_RX == (int)PHYLLO_ENGINE_RX,
	       "the injector's directions are the engine's");

/* The engine's hook: each frame to the injector... */
static void peer_fault_frame(void *ctx, enum phyllo_engine_dir dir, const uint8_t *frame,
			     uint16_t n, uint32_t now_ms)
{
	struct peer *p = ctx;

	fault_frame(p->fault, (enum fault_dir)dir, frame, n, now_ms);
}

/* ...and what it passes on, back to the engine. */
static void fault_emit(void *ctx, enum fault_dir dir, const uint8_t *frame, uint16_t n)
{
	struct peer *p = ctx;

	phyllo_engine_pass(&p->e, (enum phyllo_engine_dir)dir, frame, n);
}

static void echo_count(struct peer *p)
{
	p->echoed++;
	if (p->o.crash_after && p->echoed >= p->o.crash_after)
		p->crashed = p->e.halted = true;
}

static int echo_try(struct peer *p, uint8_t type, const uint8_t *data, uint16_t len)
{
	int ret = phyllo_engine_send(&p->e, type, data, len, !p->o.unreliable, p->now);

	if (ret == 0)
		echo_count(p);
	return ret;
}

/* No room for the unit just received: refuse it (the peer keeps it) and
 * hold the link until there is room again. */
static void echo_refuse(struct peer *p)
{
	if (phyllo_stack_refuse(&p->e.st) != 0) {
		p->echo_dropped++;	/* unreliable: nobody keeps it */
		return;
	}
	p->refused++;
	if (!p->held) {
		p->held = true;
		phyllo_arq_hold(&p->e.st.arq, true);
	}
}

/* Echo: send the unit back unchanged, or queue it while the window is
 * full; with the queue full too, refuse it. */
static void echo_unit(struct peer *p, const struct phyllo_unit *u)
{
	struct pend *e;

	if (!p->pend_n && echo_try(p, u->type, u->data, u->len) == 0)
		return;
	if (p->pend_n == PEND_MAX) {
		echo_refuse(p);
		return;
	}
	e = &p->pend[(p->pend_head + p->pend_n++) % PEND_MAX];
	e->type = u->type;
	e->len = u->len;
	memcpy(e->data, u->data, u->len);
}

static void echo_drain(struct peer *p)
{
	while (p->pend_n && !p->crashed) {
		struct pend *e = &p->pend[p->pend_head];

		if (echo_try(p, e->type, e->data, e->len) != 0)
			break;
		p->pend_head = (p->pend_head + 1) % PEND_MAX;
		p->pend_n--;
	}
	/* Released when a whole window, resent on the core's NAK, fits. */
	if (p->held && PEND_MAX - p->pend_n >= PHYLLO_ARQ_WINDOW_MAX) {
		p->held = false;
		phyllo_arq_hold(&p->e.st.arq, false);
	}
}

/* A session ended: say so, count it, settle what the role had in flight.
 * The core retired the lost units last, after any acknowledged ones. */
static void peer_reset(struct peer *p)
{
	const struct phyllo_stats *st = &p->e.st.stats;
	uint32_t lost = st->tx_reset_lost - p->reset_lost_seen;
	bool restart = st->peer_resets != p->peer_resets_seen;
	uint64_t gone = lost;

	p->reset_lost_seen = st->tx_reset_lost;
	p->peer_resets_seen = st->peer_resets;
	p->resets++;
	if (p->o.role == ROLE_CLIENT) {
		gone = client_reset(&p->cl, p->e.st.arq.tx_count);
	} else if (p->o.role == ROLE_STREAM) {
		stream_retired(&p->sm, p->e.st.arq.tx_retired_total - lost, util_now_us());
		stream_lost(&p->sm, lost);
	}
	/* a new program on the port (each `phyllo pub --tty` is one) is a
	 * restart too: only what it cost is worth a warning */
	if (restart && !lost && !gone)
		fprintf(stderr, "phyllo peer: session reset: the far end started a new session (a new "
			"program on the port, or it restarted); nothing was in flight");
	else
		fprintf(stderr, "phyllo peer: session reset (%s): %u unit%s in flight lost",
			restart ? "the far end restarted" : "link lost or RST", lost,
			lost == 1 ? "" : "s");
	if (p->o.role == ROLE_CLIENT && gone)
		fprintf(stderr, ", %llu echo%s will not come back", (unsigned long long)gone,
			gone == 1 ? "" : "es");
	fprintf(stderr, "; %s\n", p->e.st.arq.state == PHYLLO_ARQ_OPEN ? "new session open"
									 : "reconnecting");
}

static void peer_events(void *ctx, uint8_t ev)
{
	struct peer *p = ctx;

	if (ev & PHYLLO_EV_RESET)
		peer_reset(p);
	if ((ev & PHYLLO_EV_OPEN) && p->o.verbose)
		fprintf(stderr, "phyllo peer: session %u open\n", p->e.st.stats.sessions);
	if ((ev & PHYLLO_EV_ROOM) && p->o.role == ROLE_ECHO)
		echo_drain(p);
}

/* A unit from the engine (none after a crash: it is halted). */
static void peer_unit(void *ctx, const struct phyllo_unit *u)
{
	struct peer *p = ctx;

	if (p->o.role == ROLE_CLIENT)
		client_got(&p->cl, u->type, u->data, u->len);
	else if (p->o.role == ROLE_ECHO)
		echo_unit(p, u);
	else
		p->sunk++;
}

static const struct phyllo_engine_ops peer_ops = { .unit = peer_unit, .events = peer_events };

static void client_send(struct peer *p)
{
	uint8_t buf[PHYLLO_DATAGRAM_MAX], type;

	while (client_can_send(&p->cl) && phyllo_stack_room(&p->e.st) &&
	       phyllo_engine_room(&p->e, PHYLLO_WIRE_MAX)) {
		uint16_t n = client_next(&p->cl, &type, buf);
		int ret = phyllo_engine_send(&p->e, type, buf, n, !p->o.unreliable, p->now);

		if (ret == PHYLLO_E_AGAIN)
			break;
		if (ret < 0) {
			fprintf(stderr, "phyllo: cannot send a %u-byte %s payload: %s\n", n,
				payload_name(&p->o.payload), util_phyllo_strerror(ret));
			exit(2);
		}
		client_sent(&p->cl);
	}
}

static void stream_send(struct peer *p)
{
	uint8_t buf[PHYLLO_DATAGRAM_MAX], type;
	uint64_t now = util_now_us();

	stream_retired(&p->sm, p->e.st.arq.tx_retired_total, now);
	while (stream_due(&p->sm, now) && phyllo_stack_room(&p->e.st) &&
	       phyllo_engine_room(&p->e, PHYLLO_WIRE_MAX)) {
		uint16_t n = stream_next(&p->sm, &type, buf);

		if (phyllo_engine_send(&p->e, type, buf, n, true, p->now) != 0)
			break;
		stream_sent(&p->sm, n, now);
	}
}

static bool peer_done(const struct peer *p)
{
	switch (p->o.role) {
	case ROLE_CLIENT: return client_done(&p->cl) && phyllo_stack_idle(&p->e.st);
	case ROLE_STREAM: return stream_done(&p->sm);
	case ROLE_SINK: return p->o.count && p->sunk >= p->o.count;
	default:
		return p->o.count && p->echoed >= p->o.count && !p->pend_n &&
		       phyllo_stack_idle(&p->e.st);
	}
}

/* One turn of the loop; returns the poll timeout in ms. */
static int peer_turn(struct peer *p)
{
	uint32_t next;
	int n;

	/* the injector's releases reach the engine at this time too */
	p->e.now = p->now = util_now_ms();
	next = p->fault ? fault_release(p->fault, p->now) : 1000;
	if (p->o.role == ROLE_CLIENT)
		client_send(p);
	else if (p->o.role == ROLE_STREAM)
		stream_send(p);
	else if (p->o.role == ROLE_ECHO)
		echo_drain(p);
	n = phyllo_engine_poll(&p->e, p->now);
	if (n >= 0 && (uint32_t)n < next)
		next = (uint32_t)n;
	if (p->o.role == ROLE_STREAM && p->sm.sent < p->sm.count &&
	    phyllo_stack_room(&p->e.st) && phyllo_engine_room(&p->e, PHYLLO_WIRE_MAX)) {
		/*
		 * wake for the next paced send, not only for the stack; with the
		 * window or the output full, an ACK or POLLOUT wakes the loop
		 * (waiting 0 ms here spun the CPU at line rate)
		 */
		uint64_t now = util_now_us();
		uint32_t wait = p->sm.next_us > now ? (uint32_t)((p->sm.next_us - now) / 1000) : 0;

		if (wait < next)
			next = wait;
	}
	return (int)(next > 50 ? 50 : next);
}

/* The client's progress on a terminal, from the second second on. */
static void peer_show_progress(struct peer *p, bool last)
{
	static uint64_t start, next;
	uint64_t now = util_now_us();

	if (!p->progress)
		return;
	if (!start)
		start = next = now + 1000000;
	if (last ? p->progress_shown : now >= next) {
		client_progress(stderr, &p->cl);
		p->progress_shown = true;
		next = now + 200000;
	}
	if (last && p->progress_shown)
		fputc('\n', stderr);
}

static int peer_loop(struct peer *p)
{
	uint64_t deadline = util_now_us() + (uint64_t)p->o.timeout_s * 1000000u;
	uint64_t linger = 0;

	while (!peer_stop && !p->eof && !p->crashed) {
		struct pollfd pfd[2] = {
			{ .fd = p->io.rfd, .events = POLLIN },
			{ .fd = p->io.wfd, .events = 0 },
		};
		int timeout = peer_turn(p);

		if (p->crashed)
			break;	/* power cut: what is not written yet never will be */
		if (phyllo_engine_flush(&p->e)) {
			perror("phyllo: write");
			return -1;
		}
		if (peer_done(p)) {
			/* let the last acknowledgements go out before leaving */
			if (!linger)
				linger = util_now_us() + 30000;
			if (util_now_us() >= linger && !p->e.txlen)
				break;
		}
		if (p->o.timeout_s && util_now_us() > deadline) {
			p->timed_out = true;
			return -1;
		}
		peer_show_progress(p, false);
		pfd[1].events = p->e.txlen ? POLLOUT : 0;
		if (p->io.wfd == p->io.rfd && p->e.txlen)
			pfd[0].events |= POLLOUT;
		if (poll(pfd, p->io.wfd == p->io.rfd ? 1 : 2, timeout) < 0 && errno != EINTR)
			return -1;
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			/* EOF, or EIO: the other end hung up */
			if (phyllo_engine_read(&p->e, p->now) < 0)
				p->eof = true;
			/* a slow application: the stack waits with it */
			if (p->o.pause_ms)
				usleep((useconds_t)p->o.pause_ms * 1000);
		}
	}
	return 0;
}

/* Why a run timed out, from what the link saw: a hint at the usual
 * causes (nothing there, a wrong speed or preset, no firmware). */
static void peer_timeout_hint(const struct peer *p)
{
	const struct phyllo_stats *st = &p->e.st.stats;
	uint32_t errors = st->rx_overflow + st->rx_framing + st->rx_length + st->rx_crc +
			  st->rx_type + st->rx_flags;

	fprintf(stderr, "phyllo peer: timed out after %lu s", p->o.timeout_s);
	if (p->o.role == ROLE_CLIENT)
		fprintf(stderr, " with %llu of %llu echoes back", (unsigned long long)p->cl.received,
			(unsigned long long)p->cl.count);
	fputs(": ", stderr);
	if (!st->rx_bytes)
		fprintf(stderr, "nothing at all came from %s. Is the far end running phyllo "
			"firmware (or 'phyllo peer --echo'), powered, and on this port?\n",
			p->io.name);
	else if (!st->rx_units && !st->sessions && errors)
		fprintf(stderr, "%u bytes came from %s but no valid frame (%u receive errors). "
			"The far end probably uses another speed (here --baud %lu) or another "
			"preset (here --preset %s), or is not running phyllo firmware.\n",
			st->rx_bytes, p->io.name, errors, p->o.link.baud,
			util_preset_name(p->o.preset));
	else if (p->e.st.preset == PHYLLO_PRESET_STANDARD && !st->sessions)
		fprintf(stderr, "frames came from %s but no session opened. Does the far end "
			"use the standard preset (here --preset %s), and a handshake (see "
			"--no-handshake)?\n", p->io.name, util_preset_name(p->o.preset));
	else
		fprintf(stderr, "the link stalled after %u units in (%u retransmits, %u receive "
			"errors); the far end stopped answering, or the line is too lossy.\n",
			st->rx_units, st->tx_retransmits, errors);
}

/* The run ended early: a signal or a hang-up. Say so; the status. */
static int peer_ended_early(const struct peer *p)
{
	bool measures = p->o.role == ROLE_CLIENT || p->o.role == ROLE_STREAM;
	unsigned long long done = p->o.role == ROLE_CLIENT ? p->cl.received : p->sm.done;
	unsigned long long of = p->o.role == ROLE_CLIENT ? p->cl.count : p->sm.count;

	if (peer_stop) {
		if (!measures && !p->o.verbose)
			return 0;	/* a server asked to stop: a clean stop */
		fprintf(stderr, "phyllo peer: stopped by %s", strsignal(peer_stop));
		if (measures)
			fprintf(stderr, " after %llu of %llu messages", done, of);
		fputc('\n', stderr);
		return measures ? 128 + peer_stop : 0;
	}
	if (!measures || peer_done(p))
		return 0;
	fprintf(stderr, "phyllo peer: %s hung up (the far end closed it) after %llu of %llu "
		"messages\n", p->io.name, done, of);
	return 1;
}

/* Echo: units taken and not yet echoed and acknowledged (a crash loses
 * them). */
static unsigned int peer_unanswered(const struct peer *p)
{
	return p->pend_n + (p->e.st.preset == PHYLLO_PRESET_STANDARD ? p->e.st.arq.tx_count : 0);
}

/* The core's counters as a JSON object (no newline): they are the first
 * of libphyllo's counters, under its names. */
static void peer_stats_json(FILE *f, const struct phyllo_stats *st)
{
	uint32_t v[PHYLLO_STATS_FIELDS];
	unsigned int i;

	memcpy(v, st, sizeof(v));
	fputc('{', f);
	for (i = 0; i < PHYLLO_STATS_FIELDS; i++)
		fprintf(f, "%s\"%s\":%lu", i ? "," : "", phyllo_stat_name(i), (unsigned long)v[i]);
	fputc('}', f);
}

static void peer_summary(struct peer *p, FILE *f)
{
	fprintf(f, "{\"role\":\"%s\",\"preset\":\"%s\",\"link\":\"%s\",\"resets\":%llu",
		role_names[p->o.role], util_preset_name(p->o.preset), p->io.name,
		(unsigned long long)p->resets);
	if (p->o.role == ROLE_STREAM)
		stream_json(f, &p->sm);
	else if (p->o.role == ROLE_SINK)
		fprintf(f, ",\"received\":%llu", (unsigned long long)p->sunk);
	else if (p->o.role == ROLE_CLIENT) {
		client_json(f, &p->cl);
	} else {
		fprintf(f, ",\"echoed\":%llu,\"refused\":%llu,\"dropped\":%llu,"
			"\"unanswered\":%u,\"crashed\":%s", (unsigned long long)p->echoed,
			(unsigned long long)p->refused, (unsigned long long)p->echo_dropped,
			peer_unanswered(p), p->crashed ? "true" : "false");
	}
	fputs(",\"stats\":", f);
	peer_stats_json(f, &p->e.st.stats);
	if (p->fault) {
		fputs(",\"faults\":", f);
		fault_json(f, p->fault);
	}
	fputs("}\n", f);
}

#define PEER_USAGE_LINE "usage: phyllo peer (--echo | --client | --stream | --sink) [options]\n"

static void usage(FILE *f)
{
	fputs(PEER_USAGE_LINE
	      "Run the Phyllo stack in userspace: an echo server, a benchmark client, a\n"
	      "one-way stream or a sink.\n"
	      "\n"
	      "Link (default: stdin/stdout):\n"
	      "  -d, --device TTY        a serial device or pty slave (raw mode)\n"
	      "      --pty LINK          create a pty; symlink its slave to LINK\n"
	      "      --connect ADDR      unix:PATH or tcp:HOST:PORT (retried for 30 s)\n"
	      "  -b, --baud N            line speed for a tty (default 115200, the firmware's)\n"
	      "Stack:\n"
	      "  -p, --preset P          minimal | reduced | standard (default standard)\n"
	      "  -w, --window N          send window, 1..8 (default 4); --client: messages\n"
	      "                          in flight, 1..1000 (the stack's window is then\n"
	      "                          at most 8)\n"
	      "      --rto-min MS, --rto-max MS, --ack-delay MS\n"
	      "      --no-handshake      start open at seq 0, as the public peers do\n"
	      "  -u, --unreliable        send without acknowledgement (standard only)\n"
	      "Roles:\n"
	      "  -e, --echo              send every unit back unchanged\n"
	      "  -c, --client            send --count messages, check every echo\n"
	      "      --stream            send --count messages one way, time their ACKs\n"
	      "      --interval-ms MS    stream: one message every MS (default: window-full)\n"
	      "      --sink              receive and discard (count: exit after N)\n"
	      "      --pause-ms MS       sleep MS after each read, stack included (a slow app)\n"
	      "  -n, --count N           messages (client; echo: exit after N)\n"
	      "      --payload P         small | large | very-large | counter | hex:BYTES\n"
	      "      --exact             send the literal tuple (no index tag)\n"
	      "  -t, --timeout S         give up after S seconds (client default 120)\n"
	      "      --crash-after N     echo: stop dead after N echoes (a board reset)\n"
	      "Faults (seeded, per frame, percentages):\n"
	      "      --drop PCT --corrupt PCT --dup PCT --delay PCT --delay-ms MS\n"
	      "      --corrupt-bits N    corrupt 1..N bits (1..8) anywhere, delimiters\n"
	      "                          included (default: one bit, never a zero)\n"
	      "      --burst PCT         a run of 2..--burst-len frames dropped or corrupted\n"
	      "      --burst-len N       (default 8)\n"
	      "      --blackout PCT      everything dropped for --blackout-ms (default 100)\n"
	      "      --seed N            --fault-dir tx|rx|both (default both)\n"
	      "Output:\n"
	      "      --stats FILE        write the JSON summary there at exit\n"
	      "  -v, --verbose           summary on stderr too\n"
	      "The client prints one JSON line (and a progress bar on a terminal); it exits\n"
	      "1 on any loss or mismatch, on a time-out or a hang-up, 128+N on signal N.\n", f);
}

enum {
	OPT_PTY = 256, OPT_CONNECT, OPT_RTO_MIN, OPT_RTO_MAX, OPT_ACK_DELAY, OPT_NO_HS,
	OPT_PAYLOAD, OPT_EXACT, OPT_DROP, OPT_CORRUPT, OPT_DUP, OPT_DELAY, OPT_DELAY_MS,
	OPT_SEED, OPT_FAULT_DIR, OPT_STATS, OPT_STREAM, OPT_SINK, OPT_PAUSE, OPT_INTERVAL,
	OPT_CORRUPT_BITS, OPT_BURST, OPT_BURST_LEN, OPT_BLACKOUT, OPT_BLACKOUT_MS, OPT_CRASH,
};

static const struct option peer_longopts[] = {
	{ "device", required_argument, NULL, 'd' },
	{ "pty", required_argument, NULL, OPT_PTY },
	{ "connect", required_argument, NULL, OPT_CONNECT },
	{ "baud", required_argument, NULL, 'b' },
	{ "preset", required_argument, NULL, 'p' },
	{ "window", required_argument, NULL, 'w' },
	{ "rto-min", required_argument, NULL, OPT_RTO_MIN },
	{ "rto-max", required_argument, NULL, OPT_RTO_MAX },
	{ "ack-delay", required_argument, NULL, OPT_ACK_DELAY },
	{ "no-handshake", no_argument, NULL, OPT_NO_HS },
	{ "unreliable", no_argument, NULL, 'u' },
	{ "echo", no_argument, NULL, 'e' },
	{ "client", no_argument, NULL, 'c' },
	{ "stream", no_argument, NULL, OPT_STREAM },
	{ "sink", no_argument, NULL, OPT_SINK },
	{ "pause-ms", required_argument, NULL, OPT_PAUSE },
	{ "interval-ms", required_argument, NULL, OPT_INTERVAL },
	{ "count", required_argument, NULL, 'n' },
	{ "payload", required_argument, NULL, OPT_PAYLOAD },
	{ "exact", no_argument, NULL, OPT_EXACT },
	{ "timeout", required_argument, NULL, 't' },
	{ "drop", required_argument, NULL, OPT_DROP },
	{ "corrupt", required_argument, NULL, OPT_CORRUPT },
	{ "dup", required_argument, NULL, OPT_DUP },
	{ "delay", required_argument, NULL, OPT_DELAY },
	{ "delay-ms", required_argument, NULL, OPT_DELAY_MS },
	{ "corrupt-bits", required_argument, NULL, OPT_CORRUPT_BITS },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "burst-len", required_argument, NULL, OPT_BURST_LEN },
	{ "blackout", required_argument, NULL, OPT_BLACKOUT },
	{ "blackout-ms", required_argument, NULL, OPT_BLACKOUT_MS },
	{ "crash-after", required_argument, NULL, OPT_CRASH },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "fault-dir", required_argument, NULL, OPT_FAULT_DIR },
	{ "stats", required_argument, NULL, OPT_STATS },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void set_role(struct peer_opts *o, enum peer_role role)
{
	if (o->role != ROLE_NONE && o->role != role) {
		fprintf(stderr, "phyllo peer: choose exactly one of --echo, --client, --stream "
			"and --sink\n");
		exit(2);
	}
	o->role = role;
}

static void parse_fault_dir(struct peer_opts *o, const char *s)
{
	if (!strcmp(s, "tx"))
		o->fault.dirs = 1;
	else if (!strcmp(s, "rx"))
		o->fault.dirs = 2;
	else if (!strcmp(s, "both"))
		o->fault.dirs = 3;
	else {
		fprintf(stderr, "phyllo peer: --fault-dir: '%s' is not tx, rx or both\n", s);
		exit(2);
	}
}

/* The fault options added for the soak test (see fault.h). */
static bool parse_fault_opt(struct peer_opts *o, int c, const char *arg)
{
	struct fault_cfg *f = &o->fault;

	switch (c) {
	case OPT_CORRUPT_BITS:
		f->corrupt_bits = (unsigned int)util_parse_num("--corrupt-bits", arg, 1,
								FAULT_BITS_MAX);
		break;
	case OPT_BURST:
		f->burst_ppm = fault_parse_pct("--burst", arg);
		o->faulty = true;
		break;
	case OPT_BURST_LEN:
		f->burst_max = (unsigned int)util_parse_num("--burst-len", arg, 2, 1000);
		break;
	case OPT_BLACKOUT:
		f->blackout_ppm = fault_parse_pct("--blackout", arg);
		o->faulty = true;
		break;
	case OPT_BLACKOUT_MS:
		f->blackout_ms = (uint32_t)util_parse_num("--blackout-ms", arg, 1, 60000);
		break;
	default: return false;
	}
	return true;
}

/* Options that shape the stack and the faults. */
static bool parse_stack_opt(struct peer_opts *o, int c, const char *arg)
{
	if (parse_fault_opt(o, c, arg))
		return true;
	switch (c) {
	case 'p': o->preset = util_parse_preset(arg); break;
	case 'w': o->window = util_parse_num("--window", arg, 1, 1000); break;
	case OPT_RTO_MIN: o->arq.rto_min_ms = (uint16_t)util_parse_num("--rto-min", arg, 1, 60000); break;
	case OPT_RTO_MAX: o->arq.rto_max_ms = (uint16_t)util_parse_num("--rto-max", arg, 1, 60000); break;
	case OPT_ACK_DELAY: o->arq.ack_delay_ms = (uint16_t)util_parse_num("--ack-delay", arg, 0, 1000); break;
	case OPT_NO_HS: o->arq.handshake = false; break;
	case OPT_DROP: o->fault.drop_ppm = fault_parse_pct("--drop", arg); o->faulty = true; break;
	case OPT_CORRUPT: o->fault.corrupt_ppm = fault_parse_pct("--corrupt", arg); o->faulty = true; break;
	case OPT_DUP: o->fault.dup_ppm = fault_parse_pct("--dup", arg); o->faulty = true; break;
	case OPT_DELAY: o->fault.delay_ppm = fault_parse_pct("--delay", arg); o->faulty = true; break;
	case OPT_DELAY_MS: o->fault.delay_ms = (uint32_t)util_parse_num("--delay-ms", arg, 0, 60000); break;
	case OPT_SEED: o->fault.seed = (uint32_t)util_parse_num("--seed", arg, 0, 0xffffffffUL); break;
	case OPT_FAULT_DIR: parse_fault_dir(o, arg); break;
	default: return false;
	}
	return true;
}

static bool parse_role_opt(struct peer_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'd': o->link.device = arg; break;
	case OPT_PTY: o->link.pty_link = arg; break;
	case OPT_CONNECT: o->link.connect = arg; break;
	case 'b': o->link.baud = bytestream_parse_baud("phyllo peer", arg); break;
	case 'u': o->unreliable = true; break;
	case 'e': set_role(o, ROLE_ECHO); break;
	case 'c': set_role(o, ROLE_CLIENT); break;
	case OPT_STREAM: set_role(o, ROLE_STREAM); break;
	case OPT_SINK: set_role(o, ROLE_SINK); break;
	case OPT_PAUSE: o->pause_ms = util_parse_num("--pause-ms", arg, 0, 60000); break;
	case OPT_INTERVAL: o->interval_ms = util_parse_num("--interval-ms", arg, 0, 60000); break;
	case 'n': o->count = util_parse_count(arg); break;
	case OPT_PAYLOAD:
		if (payload_parse(arg, &o->payload)) {
			fprintf(stderr, "phyllo peer: --payload: '%s' is not small, large, "
				"very-large, counter or hex:BYTES\n", arg);
			exit(2);
		}
		break;
	case OPT_EXACT: o->payload.exact = true; break;
	case 't': o->timeout_s = util_parse_timeout(arg); break;
	case OPT_CRASH: o->crash_after = util_parse_num("--crash-after", arg, 1, 100000000); break;
	case OPT_STATS: o->stats_file = arg; break;
	case 'v': o->verbose = true; break;
	default: return false;
	}
	return true;
}

static void parse_args(struct peer_opts *o, int argc, char **argv)
{
	static const struct phyllo_arq_config def = PHYLLO_ARQ_CONFIG_DEFAULT;
	bool exact = false;
	int c;

	memset(o, 0, sizeof(*o));
	o->preset = PHYLLO_PRESET_STANDARD;
	o->arq = def;
	o->window = 4;
	o->fault.dirs = 3;
	o->fault.delay_ms = 30;
	o->fault.blackout_ms = 100;
	o->fault.burst_max = FAULT_BURST_DEFAULT;
	o->fault.seed = 1;
	o->link.connect_wait_s = 30;
	o->link.baud = PHYLLO_LIB_BAUD_DEFAULT;
	payload_parse("small", &o->payload);
	while ((c = getopt_long(argc, argv, "d:b:p:w:uecn:t:vh", peer_longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			exit(0);
		}
		if (c == OPT_EXACT)
			exact = true;
		if (!parse_stack_opt(o, c, optarg) && !parse_role_opt(o, c, optarg))
			util_usage_hint("phyllo peer", PEER_USAGE_LINE);
	}
	o->payload.exact = exact;
	if (optind < argc)
		util_usage_error("phyllo peer", PEER_USAGE_LINE, "'%s' is not an option or "
				 "argument of peer", argv[optind]);
	if (o->role == ROLE_NONE)
		util_usage_error("phyllo peer", PEER_USAGE_LINE, "choose exactly one of --echo, "
				 "--client, --stream and --sink");
	if (!!o->link.device + !!o->link.pty_link + !!o->link.connect > 1) {
		fprintf(stderr, "phyllo peer: use only one of --device, --pty and --connect\n");
		exit(2);
	}
	if (o->crash_after && o->role != ROLE_ECHO) {
		fprintf(stderr, "phyllo peer: --crash-after is for --echo only\n");
		exit(2);
	}
	/* The client keeps --window messages awaiting their echo (the soak
	 * test keeps 96); the stack's own window is the smaller of that and
	 * PHYLLO_ARQ_WINDOW_MAX. Every other role sends through the stack's
	 * window only, so a larger one is refused, not cut. */
	if (o->role != ROLE_CLIENT && o->window > PHYLLO_ARQ_WINDOW_MAX) {
		fprintf(stderr, "phyllo peer: --window: '%lu' is not a number from 1 to %u (the "
			"send window; only --client takes more, as messages in flight)\n",
			o->window, PHYLLO_ARQ_WINDOW_MAX);
		exit(2);
	}
	if ((o->role == ROLE_CLIENT || o->role == ROLE_STREAM) && !o->count)
		o->count = 1000;
	if ((o->role == ROLE_CLIENT || o->role == ROLE_STREAM) && !o->timeout_s)
		o->timeout_s = 120;
}

static int peer_setup(struct peer *p)
{
	int ret;

	if (p->o.faulty && !(p->fault = fault_new(&p->o.fault, fault_emit, p)))
		return -1;
	p->hook = (struct phyllo_engine_hook){ peer_fault_frame, p, p->o.fault.dirs & 2 };
	p->o.arq.window = (uint8_t)(p->o.window < PHYLLO_ARQ_WINDOW_MAX ? p->o.window
					 : PHYLLO_ARQ_WINDOW_MAX);
	p->o.payload.max = phyllo_stack_mtu(p->o.preset);
	ret = phyllo_engine_init(&p->e, p->o.preset, &p->o.arq, &peer_ops, p,
				 p->fault ? &p->hook : NULL, util_now_ms());
	if (ret) {
		fprintf(stderr, "phyllo peer: bad stack settings (%s): check --window and "
			"--rto-min <= --rto-max\n", util_phyllo_strerror(ret));
		return -1;
	}
	/* the settings are good: only now touch the link */
	if (bytestream_open(&p->o.link, &p->io))
		return -1;
	p->e.rfd = p->io.rfd;
	p->e.wfd = p->io.wfd;
	if (phyllo_capture_open_env(&p->e.cap, "phyllo peer", p->io.rfd, p->io.name, p->o.preset))
		return -1;
	if (p->o.link.pty_link)
		fprintf(stderr, "phyllo peer: pty %s linked at %s\n", p->io.name, p->o.link.pty_link);
	if (p->o.role == ROLE_CLIENT && client_init(&p->cl, &p->o.payload, p->o.count, p->o.window))
		return -1;
	if (p->o.role == ROLE_STREAM &&
	    stream_init(&p->sm, &p->o.payload, p->o.count, p->o.interval_ms,
			p->e.st.arq.tx_retired_total))
		return -1;
	return 0;
}

static void peer_report(struct peer *p)
{
	FILE *f;

	bool prints = p->o.role == ROLE_CLIENT || p->o.role == ROLE_STREAM;

	if (prints)
		peer_summary(p, p->io.wfd == STDOUT_FILENO ? stderr : stdout);
	if (p->o.verbose && !prints)
		peer_summary(p, stderr);
	if (p->o.stats_file) {
		f = fopen(p->o.stats_file, "w");
		if (!f) {
			fprintf(stderr, "phyllo peer: cannot write %s: %s\n", p->o.stats_file,
				strerror(errno));
			return;
		}
		peer_summary(p, f);
		fclose(f);
	}
}

int peer_main(int argc, char **argv)
{
	static struct peer p;
	struct sigaction sa = { .sa_handler = on_signal };
	int ret;

	parse_args(&p.o, argc, argv);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (peer_setup(&p)) {
		bytestream_close(&p.io);
		phyllo_engine_free(&p.e);
		return 1;
	}
	p.progress = p.o.role == ROLE_CLIENT && isatty(STDERR_FILENO);
	ret = peer_loop(&p);
	peer_show_progress(&p, true);
	if (p.timed_out)
		peer_timeout_hint(&p);
	else if (!ret && !p.crashed)
		ret = peer_ended_early(&p);
	if (p.crashed)
		fprintf(stderr, "phyllo peer: crashed on purpose after %llu echoes: %u units taken "
			"and not answered are lost\n", (unsigned long long)p.echoed,
			peer_unanswered(&p));
	peer_report(&p);
	phyllo_capture_close(p.e.cap);
	bytestream_close(&p.io);
	phyllo_engine_free(&p.e);
	if (ret)
		return ret > 0 ? ret : 1;
	if (p.o.role == ROLE_CLIENT && !client_ok(&p.cl))
		return 1;
	return 0;
}
