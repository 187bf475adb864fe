// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * smallopts.c - see smallopts.h.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "smallopts.h"
#include "bytestream.h"
#include "util.h"

enum { OPT_TTY = 256, OPT_PRESET };

int small_parse(struct small_opts *o, int *argc, char ***argv, const char *usage,
		const char *who, const char *allow)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "tty", required_argument, NULL, OPT_TTY },
		{ "baud", required_argument, NULL, 'b' },
		{ "preset", required_argument, NULL, OPT_PRESET },
		{ "json", no_argument, NULL, 'j' },
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "schema", required_argument, NULL, 's' },
		{ "reply", no_argument, NULL, 'r' },
		{ "unreliable", no_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char shorts[] = "d:b:jn:t:s:ruh";
	bool dev_set = false;
	int c, idx;

	memset(o, 0, sizeof(*o));
	o->link.dev = DEV_DEFAULT;
	o->link.preset = PHYLLO_LIB_STANDARD;
	o->timeout_s = 5;
	*argv = util_args_numbers(argc, *argv, shorts, longopts);
	while ((c = getopt_long(*argc, *argv, shorts, longopts, &idx)) != -1) {
		int letter = c == OPT_TTY ? 'T' : c == OPT_PRESET ? 'P' : c;

		if (c != '?' && c != 'h' && !strchr(allow, letter))
			util_usage_error(who, usage, "%s is not an option of this command",
					 (*argv)[optind - 1]);
		switch (c) {
		case 'd': o->link.dev = optarg; dev_set = true; break;
		case OPT_TTY: o->link.tty = optarg; break;
		case 'b': o->link.baud = bytestream_parse_baud(who, optarg); break;
		case OPT_PRESET: o->link.preset = util_parse_preset(optarg); break;
		case 'j': o->json = true; break;
		case 'n': o->count = util_parse_count(optarg); break;
		case 't':
			o->timeout_s = util_parse_timeout(optarg);
			o->timeout_set = true;
			break;
		case 's': o->schema = util_parse_num("--schema", optarg, 0, 255); break;
		case 'r': o->reply = true; break;
		case 'u': o->unreliable = true; break;
		case 'h': fputs(usage, stdout); exit(0);
		default: util_usage_hint(who, usage);
		}
	}
	if (o->link.tty && dev_set)
		util_usage_error(who, usage, "give either -d DEV or --tty TTY, not both");
	return optind;
}
