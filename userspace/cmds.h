/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * cmds.h - the subcommands of `phyllo` that work on a link (/dev/phylloN,
 * or a tty through libphyllo).
 */
#ifndef PHYLLO_CMDS_H
#define PHYLLO_CMDS_H

#include <stdint.h>
#include <stdio.h>

int attach_main(int argc, char **argv);
int detach_main(int argc, char **argv);
int list_main(int argc, char **argv);
int stats_main(int argc, char **argv);
int pub_main(int argc, char **argv);
int sub_main(int argc, char **argv);
int echo_main(int argc, char **argv);
int drain_main(int argc, char **argv);

/* The link counters v[0..n) (phyllo_stats64()) as one JSON object (no
 * newline), named as phyllo_stat_name() says. */
void stats_json(FILE *f, const uint64_t *v, unsigned int n);

#endif
