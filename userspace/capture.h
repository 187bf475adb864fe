/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * capture.h - `phyllo capture`: a link recorded as pcapng (the files and
 * their contract: lib/lib_capture.h, shared with libphyllo's tty
 * transport and `phyllo peer`).
 */
#ifndef PHYLLO_CAPTURE_H
#define PHYLLO_CAPTURE_H

#include "phyllo-internal.h"

int capture_main(int argc, char **argv);

#endif
