// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_report.c - a tty-transport handle's counters while it runs, for the
 * other programs that cannot open the port it holds (`phyllo stats --tty`
 * reads them): once a second at most, from the handle's own service calls,
 * a small JSON file named after the tty,
 *     DIR/tty-NAME.json    {"pid":..,"tty":..,"preset":..,"state":..,
 *                           "session":..,"time_ms":..,"stats":{name: value}}
 * written to a temporary name and renamed, so a reader never sees half of
 * one; removed when the handle closes. DIR is $PHYLLO_RUN_DIR, else
 * /run/phyllo for root (made at boot, and at install, by the tmpfiles.d
 * entry of make install and the phyllo package), else
 * $XDG_RUNTIME_DIR/phyllo, which the library makes (0700: the user's own
 * per-boot folder holds it); so a first `sub --tty` and `stats --tty`
 * work with no folder made by hand. The library makes no folder outside
 * the user's own: where the one it would use is missing nothing is
 * written and nothing else changes; phyllo_lib_report_why() says why.
 * NAME is the kernel's name of the tty (ttyACM0, pts3), as for lock files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "lib.h"

#define LIB_REPORT_EVERY_MS 1000

/* The run folder, and whether it is ours to make (in the user's own
 * $XDG_RUNTIME_DIR; not one the user named, nor the system's /run). */
static const char *report_dir(char *buf, size_t len, bool *made_here)
{
	const char *env = secure_getenv("PHYLLO_RUN_DIR"), *xdg = secure_getenv("XDG_RUNTIME_DIR");

	*made_here = false;
	if (env && *env)
		return env;
	if (geteuid() == 0)
		return "/run/phyllo";
	if (xdg && *xdg) {
		*made_here = true;
		snprintf(buf, len, "%s/phyllo", xdg);
		return buf;
	}
	return NULL;
}

const char *phyllo_lib_report_why(char *buf, size_t len)
{
	char dirbuf[PATH_MAX];
	bool made_here;
	const char *dir = report_dir(dirbuf, sizeof(dirbuf), &made_here);

	if (!dir)
		snprintf(buf, len, "neither PHYLLO_RUN_DIR nor XDG_RUNTIME_DIR is set (a login "
			 "session sets XDG_RUNTIME_DIR)");
	else if (access(dir, F_OK))
		snprintf(buf, len, "%s does not exist%s", dir, made_here ?
			 " and could not be made" : !strcmp(dir, "/run/phyllo") ?
			 " (make install and the phyllo package make it from tmpfiles.d, at "
			 "boot: systemd-tmpfiles --create phyllo.conf, or mkdir /run/phyllo, "
			 "makes it now)" : " (PHYLLO_RUN_DIR names it: mkdir it)");
	else if (access(dir, W_OK))
		snprintf(buf, len, "%s may not be written by this user", dir);
	else
		snprintf(buf, len, "its program writes none there: not a libphyllo program, "
			 "or one from before live reports");
	return buf;
}

int phyllo_lib_report_path(const char *tty, char *buf, size_t len)
{
	char real[PATH_MAX], name[64], dirbuf[PATH_MAX];
	bool made_here;
	const char *dir = report_dir(dirbuf, sizeof(dirbuf), &made_here), *p;
	size_t n = 0;

	if (!dir || !realpath(tty, real) || strncmp(real, "/dev/", 5))
		return -ENOENT;
	for (p = real + 5; *p && n + 1 < sizeof(name); p++)
		if (*p != '/')
			name[n++] = *p;
	name[n] = 0;
	if ((size_t)snprintf(buf, len, "%s/tty-%s.json", dir, name) >= len)
		return -ENAMETOOLONG;
	return 0;
}

void phyllo_lib_report_open(struct phyllo *h)
{
	char dirbuf[PATH_MAX], path[PATH_MAX];
	bool made_here;
	const char *dir = report_dir(dirbuf, sizeof(dirbuf), &made_here);
	const char *tty = ttyname(h->io_fd);

	h->report_path[0] = 0;
	if (!dir || !tty || phyllo_lib_report_path(tty, path, sizeof(path)) ||
	    strlen(path) >= sizeof(h->report_path))
		return;
	if (made_here && mkdir(dir, 0700) && errno != EEXIST)
		return;
	if (access(dir, W_OK))
		return;
	memcpy(h->report_path, path, strlen(path) + 1);	/* fits: checked above */
	h->report_ms = phyllo_lib_now_ms() - LIB_REPORT_EVERY_MS;	/* due at once */
}

static void report_write(struct phyllo *h, FILE *f)
{
	static const char *const states[] = { "connecting", "up", "hung-up" };
	uint64_t v[PHYLLO_STATS_FIELDS + LIB_GLUE_STATS];
	struct phyllo_status s;
	struct timespec ts;
	int i, n = phyllo_stats64(h, v, sizeof(v) / sizeof(v[0]));

	phyllo_status(h, &s);
	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(f, "{\"pid\":%d,\"tty\":\"%s\",\"preset\":%u,\"state\":\"%s\",\"session\":%u,"
		"\"time_ms\":%lld,\"stats\":{", (int)getpid(), ttyname(h->io_fd) ?: "?", s.preset,
		s.state < 3 ? states[s.state] : "?", s.session,
		(long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
	for (i = 0; i < n; i++)
		fprintf(f, "%s\"%s\":%llu", i ? "," : "", phyllo_stat_name((unsigned int)i),
			(unsigned long long)v[i]);
	fputs("}}\n", f);
}

void phyllo_lib_report(struct phyllo *h)
{
	int64_t now = phyllo_lib_now_ms();
	char tmp[sizeof(h->report_path) + 8];
	FILE *f;

	if (!h->report_path[0] || now - h->report_ms < LIB_REPORT_EVERY_MS)
		return;
	h->report_ms = now;
	snprintf(tmp, sizeof(tmp), "%s.tmp", h->report_path);
	f = fopen(tmp, "we");
	if (!f)
		return;
	report_write(h, f);
	if (fclose(f) || rename(tmp, h->report_path))
		unlink(tmp);
}

void phyllo_lib_report_close(struct phyllo *h)
{
	if (h->report_path[0])
		unlink(h->report_path);
	h->report_path[0] = 0;
}
