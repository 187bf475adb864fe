// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * detach.c - `phyllo detach TTY|/dev/phylloN|NAME`: stop the `phyllo
 * attach` that holds the link's tty, found through the tty's lock (and
 * only if it is a phyllo that has the tty open: a lock file is anyone's
 * to write), or else put the tty back to N_TTY.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "cmds.h"
#include "linkname.h"
#include "phyllo-internal.h"
#include "bytestream.h"
#include "util.h"
#include "phyllo.h"

/* Stop the attach process pid, which tty name's lock names; true once it
 * is gone (5 s at most). Only a phyllo that has the tty open: a lock file
 * is anyone's to write. The signal goes through a pidfd taken before the
 * last check, so that a pid reused meanwhile is never the one signalled. */
static bool detach_stop(pid_t pid, const char *name)
{
	char path[64], comm[32] = "";
	int i, pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
	}
	if (pidfd < 0 || strncmp(comm, "phyllo", 6) || phyllo_port_lock_owner(name) != pid ||
	    syscall(SYS_pidfd_send_signal, pidfd, SIGTERM, NULL, 0)) {
		if (pidfd >= 0)
			close(pidfd);
		return false;
	}
	close(pidfd);
	for (i = 0; i < 50; i++) {
		if (kill(pid, 0) && errno == ESRCH)
			return true;
		usleep(100000);
	}
	return false;
}

/* No attach process of ours: put the tty back to N_TTY ourselves. */
static int detach_ldisc(const char *tty)
{
	int n_tty = 0, fd = bytestream_open_tty("phyllo detach", tty, O_RDWR | O_NONBLOCK);
	__u32 unit;

	if (fd < 0)
		return 1;
	if (ioctl(fd, PHYLLO_IOC_TTY_UNIT, &unit)) {
		fprintf(stderr, "phyllo detach: %s carries no phyllo link\n", tty);
		close(fd);
		return 1;
	}
	if (ioctl(fd, TIOCSETD, &n_tty)) {
		fprintf(stderr, "phyllo detach: %s: cannot reset the line discipline: %s\n", tty,
			strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	printf("detached /dev/phyllo%u from %s (no attach process held it: the line "
	       "discipline was reset)\n", unit, tty);
	return 0;
}

int detach_main(int argc, char **argv)
{
	static const char usage[] = "usage: phyllo detach TTY|/dev/phylloN|NAME\n"
		"Detach a link: stop the 'phyllo attach' that holds it (found through the\n"
		"tty's lock), or else put the tty back to the normal line discipline.\n";
	char name[64], tty[80];
	bool is_dev;
	pid_t pid;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc == 1)
		util_usage_error("phyllo detach", usage, "name the TTY or /dev/phylloN to detach");
	if (argv[1][0] == '-')
		util_usage_error("phyllo detach", usage, "%s is not an option of detach", argv[1]);
	if (argc > 2)
		util_usage_error("phyllo detach", usage, "name one link; '%s' is one too many",
				 argv[2]);
	is_dev = !strncmp(argv[1], "/dev/phyllo", 11) || !strncmp(argv[1], "phyllo", 6) ||
		 linkname_resolve(argv[1], tty, sizeof(tty)) != argv[1];
	if (is_dev && access("/sys/module/phyllo", F_OK)) {
		fprintf(stderr, "phyllo detach: the phyllo module is not loaded: no link to "
			"detach\n");
		return 1;
	}
	if (is_dev ? linkname_tty(argv[1], name, sizeof(name))
		   : phyllo_port_name(argv[1], name, sizeof(name))) {
		fprintf(stderr, "phyllo detach: %s: no such link ('phyllo list' shows them)\n",
			argv[1]);
		return 1;
	}
	pid = phyllo_port_lock_owner(name);
	if (pid && detach_stop(pid, name)) {
		printf("detached %s: stopped phyllo attach (pid %d)\n", argv[1], (int)pid);
		return 0;
	}
	if (pid)
		fprintf(stderr, "phyllo detach: %s is held by process %d, which is not a phyllo "
			"attach (or did not stop)\n", argv[1], (int)pid);
	if (!strncmp(name, "pts", 3))
		snprintf(tty, sizeof(tty), "/dev/pts/%s", name + 3);
	else
		snprintf(tty, sizeof(tty), "/dev/%s", name);
	return detach_ldisc(is_dev ? tty : argv[1]);
}
