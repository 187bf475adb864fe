// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo.c - the `phyllo` command: dispatch to a subcommand.
 */
#include <stdio.h>
#include <string.h>
#include "cmds.h"
#include "peer.h"
#include "capture.h"
#include "bridge_exec.h"

static const struct {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "attach", attach_main, "attach the line discipline to a serial port" },
	{ "detach", detach_main, "detach a link (stop its attach process)" },
	{ "list", list_main, "show the attached links" },
	{ "pub", pub_main, "publish a JSON value on a topic" },
	{ "sub", sub_main, "print the messages on a topic" },
	{ "echo", echo_main, "echo benchmark through /dev/phylloN" },
	{ "stats", stats_main, "print a link's counters" },
	{ "drain", drain_main, "read and discard in bursts (a slow application)" },
	{ "peer", peer_main, "run the protocol stack in userspace (echo server or client)" },
	{ "capture", capture_main, "record a link's frames as pcapng (Wireshark)" },
	{ "bridge", bridge_main, "a link's topics on an MQTT broker (runs phyllo-bridge)" },
};

static void usage(FILE *f)
{
	size_t i;

	fputs("usage: phyllo COMMAND [options]\n       phyllo --version\nCommands:\n", f);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fputs("Run 'phyllo COMMAND --help' for a command's options; man phyllo(1).\n", f);
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
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("phyllo %s\n", PHYLLO_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].main(argc - 1, argv + 1);
	fprintf(stderr, "phyllo: '%s' is not a command\n", argv[1]);
	usage(stderr);
	return 2;
}
