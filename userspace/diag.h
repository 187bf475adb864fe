/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * diag.h - why a command waited in vain, from what its link saw meanwhile:
 * nothing at all, bytes that never made a valid frame (another speed),
 * valid frames of another preset, a session that kept resetting, no
 * session, or a link that is up and a far end that did not answer. Each
 * cause comes with what to try. A kernel link's counters are looked at as
 * deltas from diag_begin(), so its history does not count; a tty handle's
 * are all its own.
 */
#ifndef PHYLLO_DIAG_H
#define PHYLLO_DIAG_H

#include <stdbool.h>
#include <stdint.h>
#include "dev.h"

#define DIAG_STATS_MAX 64

struct diag {
	uint32_t v0[DIAG_STATS_MAX];
	uint32_t resets0;
};

/* What a waiting command was waiting for, for the last case. */
enum diag_wait { DIAG_ACK, DIAG_REPLY, DIAG_MESSAGE, DIAG_SESSION, DIAG_ECHO };

/* Take the counters' starting point (right after opening). */
void diag_begin(struct diag *d, struct phyllo *h);
/* Frames of another preset came since diag_begin() (rx_type, rx_flags). */
bool diag_other_preset(const struct diag *d, struct phyllo *h);
/* After "WHO: <what> within N s", print ": " and the likely cause and
 * what to try, ending the line. topic: the one waited on, or NULL. */
void diag_explain(const struct diag *d, struct phyllo *h, const struct dev_spec *spec,
		  enum diag_wait wait, const char *topic);

#endif
