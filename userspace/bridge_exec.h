/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * bridge_exec.h - `phyllo bridge ...`: runs phyllo-bridge(1), the separate
 * binary that links libmosquitto, so that the tool itself does not.
 */
#ifndef PHYLLO_BRIDGE_EXEC_H
#define PHYLLO_BRIDGE_EXEC_H

int bridge_main(int argc, char **argv);

#endif
