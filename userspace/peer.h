/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * peer.h - `phyllo peer`: the protocol stack in userspace, as echo server
 * or benchmark client, over a tty, pty, socket or stdin/stdout.
 */
#ifndef PHYLLO_PEER_H
#define PHYLLO_PEER_H

int peer_main(int argc, char **argv);

#endif
