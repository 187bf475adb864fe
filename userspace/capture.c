// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * capture.c - `phyllo capture` (the pcapng files: lib/lib_capture.h):
 *   --device /dev/phylloN   the module's trace events of that link, read
 *                           from a tracefs instance of our own (so another
 *                           user of the global trace buffer is not
 *                           disturbed), one packet per event;
 *   -- COMMAND              a userspace stack (`phyllo peer`) run with
 *                           PHYLLO_CAPTURE set: it writes its own frames.
 * Both stop when COMMAND ends, after -t seconds, or at SIGINT/SIGTERM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "capture.h"
#include "util.h"

static volatile sig_atomic_t capture_stop;

static void capture_on_signal(int sig)
{
	capture_stop = sig;
}

struct capture_opts {
	const char *file, *device;
	unsigned long timeout_s;
	char **cmd;
};

/* The tracefs instance of one capture run. */
struct capture_trace {
	char dir[PATH_MAX];
	int pipe;
	int64_t mono_to_real_us;	/* trace_clock mono -> real time */
	char line[4096];
	size_t len;
};

/* The installed dissector beside this binary (BIN/../share/phyllo/
 * wireshark/phyllo.lua: make install's PREFIX, the package's /usr), else
 * where make install puts it. */
static void capture_dissector(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	exe[n > 0 ? n : 0] = 0;
	slash = strrchr(exe, '/');
	if (slash && slash > exe) {
		*slash = 0;
		slash = strrchr(exe, '/');
	}
	if (slash) {
		*slash = 0;
		snprintf(buf, len, "%s/share/phyllo/wireshark/phyllo.lua", exe);
		if (!access(buf, R_OK))
			return;
	}
	snprintf(buf, len, "PREFIX/share/phyllo/wireshark/phyllo.lua, from make install or "
		 "the phyllo package");
}

static void capture_usage(FILE *f)
{
	char lua[PATH_MAX + 64];

	capture_dissector(lua, sizeof(lua));
	fputs("usage: phyllo capture [-w FILE] [-t S] --device /dev/phylloN [-- COMMAND [ARG...]]\n"
	      "       phyllo capture [-w FILE] [-t S] -- COMMAND [ARG...]\n", f);
	fprintf(f, "Record a link as pcapng for Wireshark; the dissector is\n%s\n"
		"(tshark -X lua_script:phyllo.lua -r FILE, or copy it to\n"
		"~/.local/lib/wireshark/plugins/).\n", lua);
	fputs("\n"
	      "  -w, --write FILE    the pcapng file (default phyllo.pcapng)\n"
	      "  -d, --device DEV    /dev/phylloN: its trace events, through tracefs (root)\n"
	      "  -t, --timeout S     stop after S seconds (default: when COMMAND ends, or\n"
	      "                      at Ctrl-C)\n"
	      "  -- COMMAND          run COMMAND meanwhile; without --device it is a\n"
	      "                      userspace stack (phyllo peer ...) run with\n"
	      "                      " PHYLLO_CAPTURE_ENV "=FILE: it writes its own frames, both\n"
	      "                      directions, as the stack sees them (one stack per\n"
	      "                      file: a second one would replace it)\n", f);
}

static void capture_parse(struct capture_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "write", required_argument, NULL, 'w' },
		{ "device", required_argument, NULL, 'd' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->file = "phyllo.pcapng";
	while ((c = getopt_long(argc, argv, "+w:d:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'w': o->file = optarg; break;
		case 'd': o->device = optarg; break;
		case 't': o->timeout_s = util_parse_timeout(optarg); break;
		case 'h': capture_usage(stdout); exit(0);
		default: capture_usage(stderr); exit(2);
		}
	}
	o->cmd = optind < argc ? argv + optind : NULL;
	if (!o->device && !o->cmd) {
		fputs("phyllo capture: say what to capture: --device /dev/phylloN, or -- COMMAND "
		      "(a userspace stack)\n", stderr);
		capture_usage(stderr);
		exit(2);
	}
}

/* The N of /dev/phylloN (through symlinks such as /dev/phyllo/by-tty/X);
 * anything but a character device named phylloN is refused. */
static int capture_unit(const char *dev)
{
	char real[PATH_MAX];
	struct stat st;
	const char *base;
	char *end;
	long n;

	if (!realpath(dev, real) || stat(real, &st)) {
		fprintf(stderr, "phyllo capture: %s: %s\n", dev, strerror(errno));
		return -1;
	}
	base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
	if (!S_ISCHR(st.st_mode) || strncmp(base, "phyllo", 6) ||
	    (n = strtol(base + 6, &end, 10)) < 0 || *end || end == base + 6) {
		fprintf(stderr, "phyllo capture: %s is not a /dev/phylloN character device\n",
			dev);
		return -1;
	}
	return (int)n;
}

/* Write s to the file name of the instance; -1 after saying why. */
static int trace_set(const struct capture_trace *t, const char *name, const char *s)
{
	char path[PATH_MAX + 64];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", t->dir, name);
	fd = open(path, O_WRONLY | O_TRUNC);
	ok = fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	if (fd >= 0)
		close(fd);
	if (!ok)
		fprintf(stderr, "phyllo capture: cannot write '%s' to %s: %s\n", s, path,
			strerror(errno));
	return ok ? 0 : -1;
}

/* tracefs, mounted if it is not (a bare initramfs, a container). */
static const char *trace_root(void)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[128];
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/instances", roots[i]);
		if (!access(path, F_OK))
			return roots[i];
	}
	if (!mount("nodev", roots[0], "tracefs", 0, NULL))
		return roots[0];
	return NULL;
}

static int64_t mono_to_real_us(void)
{
	struct timespec r, m;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return ((int64_t)r.tv_sec - m.tv_sec) * 1000000 + (r.tv_nsec - m.tv_nsec) / 1000;
}

/* A tracefs instance of our own with the phyllo events of one unit. */
static int trace_start(struct capture_trace *t, int unit)
{
	const char *root = trace_root();
	char filter[64], path[PATH_MAX + 16];

	if (!root) {
		fputs("phyllo capture: no tracefs (/sys/kernel/tracing): a kernel with "
		      "CONFIG_TRACING, and root, are needed\n", stderr);
		return -1;
	}
	snprintf(t->dir, sizeof(t->dir), "%s/instances/phyllo-capture-%d", root, (int)getpid());
	if (mkdir(t->dir, 0700)) {
		fprintf(stderr, "phyllo capture: cannot make the trace instance %s: %s\n", t->dir,
			strerror(errno));
		t->dir[0] = 0;	/* nothing to remove */
		return -1;
	}
	snprintf(filter, sizeof(filter), "unit == %d", unit);
	if (trace_set(t, "trace_clock", "mono") || trace_set(t, "buffer_size_kb", "4096") ||
	    trace_set(t, "events/phyllo/filter", filter) ||
	    trace_set(t, "events/phyllo/enable", "1"))
		return -1;
	t->mono_to_real_us = mono_to_real_us();
	snprintf(path, sizeof(path), "%s/trace_pipe", t->dir);
	t->pipe = open(path, O_RDONLY | O_NONBLOCK);
	if (t->pipe < 0) {
		fprintf(stderr, "phyllo capture: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void trace_stop(struct capture_trace *t)
{
	if (!t->dir[0])
		return;
	if (t->pipe > 0)
		close(t->pipe);
	trace_set(t, "events/phyllo/enable", "0");
	if (rmdir(t->dir))
		fprintf(stderr, "phyllo capture: cannot remove %s: %s\n", t->dir, strerror(errno));
	t->dir[0] = 0;
}

/* Which way an event's frame went. */
static enum phyllo_capture_dir event_dir(const char *name)
{
	if (!strncmp(name, "phyllo_rx_", 10) || !strcmp(name, "phyllo_queue_drop"))
		return PHYLLO_CAPTURE_IN;
	if (!strncmp(name, "phyllo_tx_", 10) || !strcmp(name, "phyllo_retransmit"))
		return PHYLLO_CAPTURE_OUT;
	return PHYLLO_CAPTURE_NONE;
}

/* One trace_pipe line: "TASK-PID [CPU] FLAGS SECS.USECS: NAME: FIELDS". */
static void trace_line(struct phyllo_capture *c, const struct capture_trace *t, char *line)
{
	char *name = strstr(line, ": phyllo_"), *colon, *ts;
	char rec[1024];
	double secs;
	int n;

	if (!name)
		return;
	*name = 0;
	name += 2;
	colon = strchr(name, ':');
	ts = strrchr(line, ' ');
	if (!colon || !ts)
		return;
	*colon = 0;
	secs = strtod(ts + 1, NULL);
	n = snprintf(rec, sizeof(rec), "%s %s", name, colon[1] == ' ' ? colon + 2 : colon + 1);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(rec))
		n = sizeof(rec) - 1;
	phyllo_capture_packet(c, event_dir(name), (uint64_t)((int64_t)(secs * 1e6) + t->mono_to_real_us),
		       (const uint8_t *)rec, (size_t)n, (size_t)n);
}

/* Read what trace_pipe has now; returns the events written. */
static unsigned long trace_drain(struct phyllo_capture *c, struct capture_trace *t)
{
	unsigned long events = 0;
	ssize_t r;
	char *nl;

	while ((r = read(t->pipe, t->line + t->len, sizeof(t->line) - 1 - t->len)) > 0) {
		t->len += (size_t)r;
		t->line[t->len] = 0;
		while ((nl = strchr(t->line, '\n'))) {
			*nl = 0;
			trace_line(c, t, t->line);
			events++;
			t->len -= (size_t)(nl + 1 - t->line);
			memmove(t->line, nl + 1, t->len + 1);
		}
		if (t->len == sizeof(t->line) - 1)
			t->len = 0;	/* a line that long is not ours */
	}
	return events;
}

/* The file can be made where it is named (before COMMAND runs, so that a
 * bad path is said as the capture file's, not blamed on COMMAND's link);
 * left absent, so that a command that wrote none is told apart. 0, or -1
 * after saying why. */
static int capture_can_create(const char *file)
{
	int fd;

	unlink(file);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		phyllo_capture_explain("phyllo capture", "-w ", file, errno);
		return -1;
	}
	close(fd);
	unlink(file);
	return 0;
}

static pid_t capture_spawn(char **cmd, const char *file, bool env)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (env)
			setenv(PHYLLO_CAPTURE_ENV, file, 1);
		execvp(cmd[0], cmd);
		fprintf(stderr, "phyllo capture: cannot run %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		perror("phyllo capture: fork");
	return pid;
}

/* Wait for the child, the timeout or a signal, draining the trace; the
 * exit status. */
static int capture_wait(struct phyllo_capture *c, struct capture_trace *t, pid_t child,
			unsigned long timeout_s, unsigned long *events)
{
	uint64_t end = timeout_s ? util_now_us() + (uint64_t)timeout_s * 1000000u : 0;
	int status = 0, ret = 0;

	while (!capture_stop && (!end || util_now_us() < end)) {
		struct pollfd pfd = { .fd = t ? t->pipe : -1, .events = POLLIN };

		poll(&pfd, 1, 100);
		if (t)
			*events += trace_drain(c, t);
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
			child = 0;
			break;
		}
	}
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, &status, 0);
	}
	if (t)
		*events += trace_drain(c, t);
	return ret;
}

static int capture_device(const struct capture_opts *o)
{
	struct capture_trace t = { .pipe = -1 };
	struct phyllo_capture *c = NULL;
	unsigned long events = 0;
	char name[32], desc[160];
	pid_t child = 0;
	int unit = capture_unit(o->device), ret = 1;

	if (unit < 0)
		return 1;
	snprintf(name, sizeof(name), "phyllo%d", unit);
	snprintf(desc, sizeof(desc), "phyllo trace events of /dev/phyllo%d (phyllo.ko, "
		 "tracefs): one event per packet, as text", unit);
	if (trace_start(&t, unit))
		goto out;
	c = phyllo_capture_open(o->file, PHYLLO_CAPTURE_LINKTYPE_EVENTS, name, desc);
	if (!c) {
		phyllo_capture_explain("phyllo capture", "-w ", o->file, errno);
		goto out;
	}
	if (o->cmd && (child = capture_spawn(o->cmd, o->file, false)) < 0)
		goto out;
	ret = capture_wait(c, &t, child, o->timeout_s, &events);
	fprintf(stderr, "phyllo capture: %lu events of phyllo%d in %s\n", events, unit, o->file);
out:
	trace_stop(&t);
	if (phyllo_capture_close(c))
		ret = 1;
	return ret;
}

int capture_main(int argc, char **argv)
{
	struct capture_opts o = { 0 };
	struct sigaction sa = { .sa_handler = capture_on_signal };
	pid_t child;
	int ret;

	capture_parse(&o, argc, argv);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (o.device)
		return capture_device(&o);
	if (capture_can_create(o.file))
		return 1;
	child = capture_spawn(o.cmd, o.file, true);
	if (child < 0)
		return 1;
	ret = capture_wait(NULL, NULL, child, o.timeout_s, NULL);
	if (access(o.file, F_OK) && ret)
		fprintf(stderr, "phyllo capture: %s failed (status %d) and wrote no %s\n",
			o.cmd[0], ret, o.file);
	else if (access(o.file, F_OK))
		fprintf(stderr, "phyllo capture: %s wrote no %s: only a userspace stack does "
			"(phyllo peer, a --tty command, a libphyllo program on a tty)\n", o.cmd[0],
			o.file);
	return access(o.file, F_OK) && !ret ? 1 : ret;
}
