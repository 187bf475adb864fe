// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bridge_exec.c - `phyllo bridge ARGS` execs phyllo-bridge ARGS: first the
 * one beside this binary (an installed pair, or build/host/), then the
 * one on PATH. argv[0] becomes "phyllo-bridge"; the arguments pass
 * unchanged. Says so, exit 127, when there is none (it is built and
 * installed apart: make phyllo-bridge, make install-bridge).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "bridge_exec.h"

int bridge_main(int argc, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	(void)argc;
	argv[0] = "phyllo-bridge";
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/phyllo-bridge", self);
			if (!access(path, X_OK))
				execv(path, argv);
		}
	}
	execvp("phyllo-bridge", argv);
	fprintf(stderr, "phyllo bridge: cannot run phyllo-bridge: %s (it is built apart: "
		"make phyllo-bridge, make install-bridge)\n", strerror(errno));
	return 127;
}
