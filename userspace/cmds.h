/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * cmds.h - the subcommands of `phyllo` that work on /dev/phylloN.
 */
#ifndef PHYLLO_CMDS_H
#define PHYLLO_CMDS_H

#include <stdio.h>

int attach_main(int argc, char **argv);
int list_main(int argc, char **argv);
int stats_main(int argc, char **argv);
int pub_main(int argc, char **argv);
int sub_main(int argc, char **argv);
int echo_main(int argc, char **argv);
int drain_main(int argc, char **argv);

struct phyllo_link_stats;
/* The link counters as one JSON object (no newline). */
void stats_json(FILE *f, const struct phyllo_link_stats *st);

#endif
