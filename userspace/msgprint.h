/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * msgprint.h - what `phyllo pub --reply` and `phyllo sub` say: a received
 * unit as "TOPIC VALUE" or JSON (the board's counters, a reply on
 * "stats", by name), and a failed receive, with the named link's downs
 * and ups and the session resets they ride over.
 */
#ifndef PHYLLO_MSGPRINT_H
#define PHYLLO_MSGPRINT_H

#include <stdbool.h>
#include "diag.h"
#include "smallopts.h"

/* Print a received unit: "TOPIC VALUE", or a JSON object with json. */
void print_message(const struct phyllo_message *m, bool json);
/* A failed receive, said once: 1 to stop, 0 to go on (a session reset, a
 * named link down or up again). */
int recv_error(const struct small_opts *o, int err, const char *who, const struct diag *d,
	       struct phyllo *h, enum diag_wait wait, const char *topic);
/* dev_link_event() with the events recv_error() has seen. */
int msg_link_event(struct phyllo *h, const char *who, const char *name, int err);

#endif
