// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * list.c - `phyllo list`: the links in /sys/class/phyllo, their state and
 * the attach process that holds each tty (found through its lock).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "cmds.h"
#include "linkname.h"
#include "smallopts.h"
#include "util.h"
#include "phyllo-internal.h"
#include "phyllo.h"

static const char *state_name(__u32 state)
{
	static const char *const names[] = { "connecting", "up", "hung-up", "down" };

	return state < 4 ? names[state] : "?";
}

static int ioctl_state(int fd, struct phyllo_link_state *st)
{
	return ioctl(fd, PHYLLO_IOC_GET_STATE, st);
}

/* A named link's time down, for a table: "down 42s", "down 3m07s". */
static const char *list_down_for(char *buf, size_t len, __u32 ms)
{
	__u32 s = ms / 1000;

	if (s < 60)
		snprintf(buf, len, "down %us", s);
	else if (s < 3600)
		snprintf(buf, len, "down %um%02us", s / 60, s % 60);
	else
		snprintf(buf, len, "down %uh%02um", s / 3600, s / 60 % 60);
	return buf;
}

/* One line of `phyllo list` for /sys/class/phyllo/DEV. A down link has
 * no tty (sysfs says "" or nothing). */
static void list_one(const char *dev, bool json, bool first)
{
	struct phyllo_link_state st;
	char path[300], tty[64] = "?", pidtext[16], name[PHYLLO_NAME_MAX + 2], state[24];
	FILE *f;
	pid_t pid = 0;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/phyllo/%s/tty", dev);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(tty, sizeof(tty), f))
			tty[0] = 0;
		tty[strcspn(tty, "\n")] = 0;
		fclose(f);
	}
	linkname_of(LINKNAME_SYSFS, dev, name, sizeof(name));
	snprintf(path, sizeof(path), "/dev/%s", dev);
	memset(&st, 0, sizeof(st));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl_state(fd, &st))
		st.state = 99;
	if (fd >= 0)
		close(fd);
	if (st.state == PHYLLO_LINK_DOWN || !tty[0])
		strcpy(tty, "-");
	else
		pid = phyllo_port_lock_owner(tty);
	snprintf(pidtext, sizeof(pidtext), pid ? "%d" : "-", (int)pid);
	snprintf(state, sizeof(state), "%s", state_name(st.state));
	if (json) {
		printf("%s{\"device\":\"%s\",\"tty\":\"%s\",\"state\":\"%s\",\"session\":%u,"
		       "\"preset\":\"%s\",\"mtu\":%u,\"attach_pid\":%s,\"name\":", first ? "" : ",",
		       path, tty, state, st.session, util_preset_name((uint8_t)st.preset), st.mtu,
		       pid ? pidtext : "null");
		phyllo_json_put_string(stdout, (const uint8_t *)name, strlen(name));
		printf(",\"downs\":%u,\"down_ms\":%u}", st.downs,
		       st.state == PHYLLO_LINK_DOWN ? st.down_ms : 0);
		return;
	}
	if (st.state == PHYLLO_LINK_DOWN)
		list_down_for(state, sizeof(state), st.down_ms);
	/* the pid last, as scripts that grep for it expect */
	printf("%-14s %-12s %-11s %7u %-9s %4u %-16s %7s\n", path, tty, state, st.session,
	       util_preset_name((uint8_t)st.preset), st.mtu, name[0] ? name : "-", pidtext);
}

int list_main(int argc, char **argv)
{
	static const char usage[] = "usage: phyllo list [-j]\n"
		"Show the links: device, tty, state, session, preset, MTU, the\n"
		"pid of the 'phyllo attach' holding the tty ('-': none, e.g. ldattach) and\n"
		"the name of a named link; one whose board went away shows 'down' and for\n"
		"how long.\n"
		"  -j, --json         one JSON array\n";
	struct small_opts o;
	struct dirent *de;
	DIR *d;
	bool first = true;

	if (small_parse(&o, &argc, &argv, usage, "phyllo list", "j") != argc)
		util_usage_error("phyllo list", usage, "'%s' is not an option or argument of "
				 "list", argv[optind]);
	d = opendir("/sys/class/phyllo");
	if (!d) {
		fprintf(stderr, "phyllo list: the phyllo module is not loaded, so there are no "
			"links to list: run 'modprobe phyllo' first (a --tty command needs no "
			"module and makes no link)\n");
		return 1;
	}
	if (o.json)
		printf("[");
	else
		printf("%-14s %-12s %-11s %7s %-9s %4s %-16s %7s\n", "DEVICE", "TTY", "STATE",
		       "SESSION", "PRESET", "MTU", "NAME", "PID");
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "phyllo", 6))
			continue;
		list_one(de->d_name, o.json, first);
		first = false;
	}
	closedir(d);
	if (o.json)
		printf("]\n");
	return 0;
}
