// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo.c - the `phyllo` command: dispatch to a subcommand.
 */
#include <stdio.h>
#include <string.h>
#include "peer.h"

static void usage(FILE *f)
{
	fputs("usage: phyllo COMMAND [options]\n"
	      "Commands:\n"
	      "  peer     run the protocol stack in userspace (echo server or client)\n"
	      "Run 'phyllo COMMAND --help' for a command's options.\n", f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "peer"))
		return peer_main(argc - 1, argv + 1);
	fprintf(stderr, "phyllo: '%s' is not a command\n", argv[1]);
	usage(stderr);
	return 2;
}
