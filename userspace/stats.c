// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * stats.c - `phyllo stats`: a link's counters, the kernel's on -d DEV; with
 * --tty those a program holding the port reports (lib_report.c), or this
 * command's own session.
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cmds.h"
#include "diag.h"
#include "smallopts.h"
#include "util.h"
#include "phyllo-internal.h"

void stats_json(FILE *f, const uint64_t *v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		fprintf(f, "%s\"%s\":%llu", i ? "," : "{", phyllo_stat_name(i),
			(unsigned long long)v[i]);
	fputc('}', f);
}

/* Counters v[0..n) as a table, named. */
static void stats_table(const uint64_t *v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		printf("%-16s %10llu\n", phyllo_stat_name(i), (unsigned long long)v[i]);
}

/*
 * The counters a running --tty program reports for the port it holds
 * (lib_report.c): printed, 0; 1 when there is no live report (nobody
 * holds the port, or its program is gone).
 */
static int stats_live(const struct small_opts *o)
{
	char path[PATH_MAX], cmd[120];
	json_t *root, *st, *v;
	struct timespec ts;
	unsigned int i;
	long long pid;
	int n = 0;

	if (phyllo_lib_report_path(o->link.tty, path, sizeof(path)))
		return 1;
	root = json_load_file(path, 0, NULL);
	st = root ? json_object_get(root, "stats") : NULL;
	pid = root ? json_integer_value(json_object_get(root, "pid")) : 0;
	if (!st || pid <= 0 || pid == getpid() || (kill((pid_t)pid, 0) && errno == ESRCH)) {
		json_decref(root);
		return 1;
	}
	if (o->json) {
		json_dumpf(st, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
		putchar('\n');
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		if (dev_tty_holder(o->link.tty, cmd, sizeof(cmd)) != (pid_t)pid)
			snprintf(cmd, sizeof(cmd), "?");
		printf("# %s: the live session of process %lld (%s), which holds the port; "
		       "%.1f s ago\n", o->link.tty, pid, cmd,
		       ((double)ts.tv_sec * 1000 + ts.tv_nsec / 1e6 -
			(double)json_integer_value(json_object_get(root, "time_ms"))) / 1000);
		for (i = 0; phyllo_stat_name(i); i++)
			if ((v = json_object_get(st, phyllo_stat_name(i))) && ++n)
				printf("%-16s %10lld\n", phyllo_stat_name(i),
				       (long long)json_integer_value(v));
	}
	json_decref(root);
	return 0;
}

/* The port is held and its holder reports nothing: say why, the
 * folder first (what a user can change). */
static void stats_no_report(const char *tty)
{
	char cmd[120], why[PATH_MAX + 96];
	pid_t pid = dev_tty_holder(tty, cmd, sizeof(cmd));

	if (pid)
		fprintf(stderr, "phyllo stats: process %d reports no live counters of %s for "
			"stats --tty to read: %s\n", (int)pid, tty,
			phyllo_lib_report_why(why, sizeof(why)));
}

int stats_main(int argc, char **argv)
{
	static const char usage[] = "usage: phyllo stats [-d DEV | --tty TTY] [-b N] [--preset P] "
		"[-t SECONDS] [-j]\n"
		"Print the link's counters: on -d DEV the kernel's, since the link was\n"
		"attached. With --tty, while another program holds the port, the counters\n"
		"it reports of its session; else this command's own: it opens a new session\n"
		"(up to -t seconds, default 5) and shows what that session counted; the\n"
		"board's own counters: phyllo pub --tty TTY --reply stats null.\n"
		"  -t, --timeout S    --tty: seconds to wait for the session (default 5)\n"
		"  -j, --json         one JSON object\n" LINK_USAGE;
	uint64_t v[64];
	struct small_opts o;
	struct phyllo *h;
	struct diag d;
	int n, ret = 0;

	if (small_parse(&o, &argc, &argv, usage, "phyllo stats", "dTbPtj") != argc)
		util_usage_error("phyllo stats", usage, "'%s' is not an option or argument of "
				 "stats", argv[optind]);
	/* a program holds the port: its counters, as it reports them */
	if (o.link.tty && !stats_live(&o))
		return 0;
	h = dev_open_link(&o.link, "phyllo stats");
	if (!h) {
		if (o.link.tty)
			stats_no_report(o.link.tty);
		return 1;
	}
	diag_begin(&d, h);
	if (o.link.tty && phyllo_wait_up(h, (int)o.timeout_s * 1000)) {
		fprintf(stderr, "phyllo stats: no session with the far end of %s within %lu s",
			o.link.tty, o.timeout_s);
		diag_explain(&d, h, &o.link, DIAG_SESSION, NULL);
		fprintf(stderr, "phyllo stats: the counters so far below\n");
		ret = 1;
	}
	n = phyllo_stats64(h, v, 64);
	if (n < 0) {
		fprintf(stderr, "phyllo stats: %s: %s\n", dev_name(&o.link), phyllo_strerror(n));
		phyllo_close(h);
		return 1;
	}
	if (o.json) {
		stats_json(stdout, v, (unsigned int)n);
		putchar('\n');
	} else {
		if (o.link.tty)
			printf("# %s: this command's own session (opened just now), not the "
			       "board's counters\n", o.link.tty);
		stats_table(v, (unsigned int)n);
	}
	phyllo_close(h);
	return ret;
}
