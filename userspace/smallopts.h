/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * smallopts.h - the options of the small clients of a link (`phyllo
 * list`, `stats`, `pub`, `sub`): one parser, each command allowing the
 * options it takes, and the usage lines of the link options they share.
 */
#ifndef PHYLLO_SMALLOPTS_H
#define PHYLLO_SMALLOPTS_H

#include <stdbool.h>
#include "dev.h"

/* Common option parsing for the small commands. */
struct small_opts {
	struct dev_spec link;
	bool json, reply, unreliable, timeout_set;
	unsigned long count, timeout_s, schema;
};


/*
 * The options of every small command; allow names the ones this command
 * takes (their short letters, T for --tty, P for --preset). Returns the
 * index of the first argument; argv may be replaced (negative numbers:
 * util_args_numbers()).
 */
int small_parse(struct small_opts *o, int *argc, char ***argv, const char *usage,
		const char *who, const char *allow);

/* The link options every libphyllo command takes, for its usage. */
#define LINK_USAGE \
	"  -d, --device DEV   a phyllo link (default " DEV_DEFAULT ")\n" \
	"      --tty TTY      a serial port instead: the protocol runs in phyllo\n" \
	"                     itself, no kernel module needed\n" \
	"  -b, --baud N       --tty: line speed (default 115200, the firmware's)\n" \
	"      --preset P     --tty: minimal | reduced | standard (default)\n"

#endif
