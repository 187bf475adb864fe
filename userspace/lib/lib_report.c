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
 * /run/phyllo for root, else $XDG_RUNTIME_DIR/phyllo, and only if it
 * exists: the library makes no directory (a user opts in with mkdir), and
 * without one nothing is written and nothing else changes.
 * NAME is the kernel's name of the tty (ttyACM0, pts3), as for lock files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "lib.h"

#define LIB_REPORT_EVERY_MS 1000

static const char *report_dir(char *buf, size_t len)
{
	const char *env = getenv("PHYLLO_RUN_DIR"), *xdg = getenv("XDG_RUNTIME_DIR");

	if (env && *env)
		return env;
	if (geteuid() == 0)
		return "/run/phyllo";
	if (xdg && *xdg) {
		snprintf(buf, len, "%s/phyllo", xdg);
		return buf;
	}
	return NULL;
}

int phyllo_lib_report_path(const char *tty, char *buf, size_t len)
{
	char real[PATH_MAX], name[64], dirbuf[PATH_MAX];
	const char *dir = report_dir(dirbuf, sizeof(dirbuf)), *p;
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
	const char *dir = report_dir(dirbuf, sizeof(dirbuf));
	const char *tty = ttyname(h->io_fd);

	h->report_path[0] = 0;
	if (!dir || !tty || phyllo_lib_report_path(tty, path, sizeof(path)) ||
	    strlen(path) >= sizeof(h->report_path))
		return;
	if (access(dir, W_OK))
		return;
	memcpy(h->report_path, path, strlen(path) + 1);	/* fits: checked above */
	h->report_ms = phyllo_lib_now_ms() - LIB_REPORT_EVERY_MS;	/* due at once */
}

static void report_write(struct phyllo *h, FILE *f)
{
	static const char *const states[] = { "connecting", "up", "hung-up" };
	uint32_t v[PHYLLO_STATS_FIELDS + LIB_GLUE_STATS];
	struct phyllo_status s;
	struct timespec ts;
	int i, n = phyllo_stats(h, v, sizeof(v) / sizeof(v[0]));

	phyllo_status(h, &s);
	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(f, "{\"pid\":%d,\"tty\":\"%s\",\"preset\":%u,\"state\":\"%s\",\"session\":%u,"
		"\"time_ms\":%lld,\"stats\":{", (int)getpid(), ttyname(h->io_fd) ?: "?", s.preset,
		s.state < 3 ? states[s.state] : "?", s.session,
		(long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
	for (i = 0; i < n; i++)
		fprintf(f, "%s\"%s\":%u", i ? "," : "", phyllo_stat_name((unsigned int)i), v[i]);
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
