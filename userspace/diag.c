// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * diag.c - see diag.h. The causes are tried in the order a user meets
 * them on a new board: no far end, a wrong speed, a wrong preset, a board
 * that keeps restarting, no session; only then a far end that is there
 * and did not answer.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "diag.h"
#include "phyllo-internal.h"
#include "util.h"
#include "phyllo_stats.h"

#define DIAG_AT(f) (offsetof(struct phyllo_stats, f) / sizeof(uint32_t))

void diag_begin(struct diag *d, struct phyllo *h)
{
	struct phyllo_status s;

	memset(d, 0, sizeof(*d));
	/* a tty handle's counters are all its own, from its open on (what
	 * came while it opened counts); a kernel link's go back further */
	if (phyllo_transport(h) == PHYLLO_TRANSPORT_TTY)
		return;
	phyllo_stats(h, d->v0, DIAG_STATS_MAX);
	if (!phyllo_status(h, &s))
		d->resets0 = s.resets;
}

bool diag_other_preset(const struct diag *d, struct phyllo *h)
{
	uint32_t v[DIAG_STATS_MAX] = { 0 };

	phyllo_stats(h, v, DIAG_STATS_MAX);
	return v[DIAG_AT(rx_type)] != d->v0[DIAG_AT(rx_type)] ||
	       v[DIAG_AT(rx_flags)] != d->v0[DIAG_AT(rx_flags)];
}

/* The speed and preset in use, as the command line says them. */
static void diag_link(const struct dev_spec *spec, char *buf, size_t len)
{
	if (spec->tty)
		snprintf(buf, len, "here -b %lu --preset %s", spec->baud ? spec->baud
			 : PHYLLO_LIB_BAUD_DEFAULT, util_preset_name((uint8_t)spec->preset));
	else
		snprintf(buf, len, "as 'phyllo attach' set it up; 'phyllo list' shows the preset");
}

static void diag_answer(enum diag_wait wait, const char *topic, const char *name,
			uint32_t session)
{
	char up[48];

	/* the session number means something on the standard preset only */
	snprintf(up, sizeof(up), session ? "the link is up (session %u)" : "the link is up",
		 session);
	switch (wait) {
	case DIAG_REPLY:
		fprintf(stderr, "%s, but nothing came back on topic '%s': the far end does "
			"not answer that topic (the firmware answers ping, stats and echo)\n", up,
			topic ? topic : "");
		break;
	case DIAG_MESSAGE:
		fprintf(stderr, "%s; nothing was published on '%s' meanwhile (without -t, sub "
			"waits for ever)\n", up, topic ? topic : "");
		break;
	case DIAG_ECHO:
		fprintf(stderr, "%s, but echoes stopped coming back: is the far end an echo "
			"server (the firmware, 'phyllo peer --echo')?\n", up);
		break;
	default:
		fprintf(stderr, "%s, but %s does not acknowledge: the far end stopped "
			"answering, or the line is too lossy\n", up, name);
		break;
	}
}

/* Before the board is blamed: another program with the port open and no
 * lock (cat, a terminal program) takes whatever bytes it reads first, so
 * frames arrive cut or not at all. Said, and true, when one is found. */
static bool diag_other_reader(const struct dev_spec *spec)
{
	char cmd[120];
	pid_t pid = spec->tty ? dev_tty_other(spec->tty, cmd, sizeof(cmd)) : 0;

	if (!pid)
		return false;
	fprintf(stderr, "process %d (%s) has %s open too, without a lock: it reads what the "
		"board sends, so this side gets a part of it or none. Stop it, then try again "
		"(to share a board: SHARING A BOARD in phyllo(1))\n", (int)pid, cmd, spec->tty);
	return true;
}

void diag_explain(const struct diag *d, struct phyllo *h, const struct dev_spec *spec,
		  enum diag_wait wait, const char *topic)
{
	uint32_t v[DIAG_STATS_MAX] = { 0 }, dv[DIAG_STATS_MAX], bad, resets;
	struct phyllo_status s;
	const char *name = dev_name(spec);
	char link[96];
	unsigned int i;

	phyllo_stats(h, v, DIAG_STATS_MAX);
	memset(&s, 0, sizeof(s));
	phyllo_status(h, &s);
	for (i = 0; i < DIAG_STATS_MAX; i++)
		dv[i] = v[i] - d->v0[i];
	diag_link(spec, link, sizeof(link));
	bad = dv[DIAG_AT(rx_overflow)] + dv[DIAG_AT(rx_framing)] + dv[DIAG_AT(rx_length)] +
	      dv[DIAG_AT(rx_crc)];
	resets = s.resets - d->resets0;
	fputs(": ", stderr);
	if (diag_other_reader(spec))
		return;
	if (!dv[DIAG_AT(rx_bytes)])
		fprintf(stderr, "nothing at all came from %s. Is the board powered, flashed "
			"with phyllo firmware (make flash) and on this port (%s; the firmware "
			"runs at %lu)?\n", name, link, PHYLLO_LIB_BAUD_DEFAULT);
	else if (!dv[DIAG_AT(rx_units)] && !dv[DIAG_AT(sessions)] && bad)
		fprintf(stderr, "%u bytes came from %s, but no valid frame (%u framing, CRC "
			"or length errors): the far end most likely runs at another speed "
			"(%s; the firmware's is %lu), or is not phyllo firmware\n",
			dv[DIAG_AT(rx_bytes)], name, bad, link, PHYLLO_LIB_BAUD_DEFAULT);
	else if (dv[DIAG_AT(rx_type)] || dv[DIAG_AT(rx_flags)])
		fprintf(stderr, "valid frames came from %s, but of another preset (%u of an "
			"unexpected type): the far end uses another preset than this side (%s); "
			"the firmware's is standard\n", name,
			dv[DIAG_AT(rx_type)] + dv[DIAG_AT(rx_flags)], link);
	else if (resets >= 2 || dv[DIAG_AT(peer_resets)] >= 2)
		fprintf(stderr, "the session keeps resetting (%u resets, %u peer restarts): the "
			"far end restarts again and again (its power, a watchdog, or a reset on "
			"every open: see BOARDS THAT RESET in phyllo(1))\n", resets,
			dv[DIAG_AT(peer_resets)]);
	else if (s.state != PHYLLO_STATE_UP)
		fprintf(stderr, "%u bytes came from %s, but no session opened: the far end "
			"does not answer the handshake (another preset than %s, or a peer "
			"started with --no-handshake?)\n", dv[DIAG_AT(rx_bytes)], name, link);
	else
		diag_answer(wait, topic, name, s.preset == PHYLLO_LIB_STANDARD ? s.session : 0);
}
