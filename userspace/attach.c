// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * attach.c - `phyllo attach TTY`: raw mode and speed, the phyllo line
 * discipline, optional link settings; then hold the tty open (the
 * discipline stays attached while it is open), in the background unless
 * --foreground. Like ldattach, with phyllo's settings and clear errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "cmds.h"
#include "dev.h"
#include "link.h"
#include "util.h"
#include "phyllo.h"

struct attach_opts {
	const char *tty;
	unsigned long baud, window, ldisc;
	int preset;	/* -1: leave as is */
	bool foreground;
};

static void attach_usage(FILE *f)
{
	fputs("usage: phyllo attach TTY [options]\n"
	      "Attach the phyllo line discipline to a serial port; prints /dev/phylloN.\n"
	      "  -b, --baud N        line speed (default 115200)\n"
	      "  -p, --preset P      minimal | reduced | standard (default: the module's)\n"
	      "  -w, --window N      send window 1..8 (standard preset)\n"
	      "      --ldisc N       line discipline number (default: the module's, 29)\n"
	      "  -f, --foreground    stay in the foreground; detach on SIGINT/SIGTERM\n"
	      "The discipline stays attached while this command runs (in the background\n"
	      "by default): kill it to detach. Needs CAP_NET_ADMIN (root).\n", f);
}

static unsigned long module_ldisc(void)
{
	FILE *f = fopen("/sys/module/phyllo/parameters/ldisc", "r");
	unsigned long n = PHYLLO_LDISC_DEFAULT;

	if (f) {
		if (fscanf(f, "%lu", &n) != 1)
			n = PHYLLO_LDISC_DEFAULT;
		fclose(f);
	}
	return n;
}

static void attach_parse(struct attach_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "baud", required_argument, NULL, 'b' },
		{ "preset", required_argument, NULL, 'p' },
		{ "window", required_argument, NULL, 'w' },
		{ "ldisc", required_argument, NULL, 'l' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->baud = 115200;
	o->preset = -1;
	o->ldisc = module_ldisc();
	while ((c = getopt_long(argc, argv, "b:p:w:fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': o->baud = link_parse_baud("phyllo attach", optarg); break;
		case 'p': o->preset = util_parse_preset(optarg); break;
		case 'w': o->window = util_parse_num("--window", optarg, 1, 8); break;
		case 'l': o->ldisc = util_parse_num("--ldisc", optarg, 1, 255); break;
		case 'f': o->foreground = true; break;
		case 'h': attach_usage(stdout); exit(0);
		default: attach_usage(stderr); exit(2);
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "phyllo attach: name one serial port, e.g. /dev/ttyACM0\n");
		attach_usage(stderr);
		exit(2);
	}
	o->tty = argv[optind];
}

/* Set the discipline; say what to do when it fails. */
static int attach_ldisc(int fd, const struct attach_opts *o)
{
	int ld = (int)o->ldisc;

	if (ioctl(fd, TIOCSETD, &ld) == 0)
		return 0;
	if (errno == EPERM || errno == EACCES)
		fprintf(stderr, "phyllo attach: permission denied: attaching a line discipline "
			"needs CAP_NET_ADMIN; run as root\n");
	else if (errno == EINVAL && access("/sys/module/phyllo", F_OK) != 0)
		fprintf(stderr, "phyllo attach: line discipline %lu is not registered: the "
			"phyllo module is not loaded; run 'modprobe phyllo' first\n", o->ldisc);
	else
		fprintf(stderr, "phyllo attach: cannot attach line discipline %lu to %s: %s\n",
			o->ldisc, o->tty, strerror(errno));
	return -1;
}

/* Apply --preset/--window through the new link device. */
static int attach_configure(unsigned int unit, const struct attach_opts *o)
{
	struct phyllo_link_config cfg;
	char path[32];
	int fd, ret = 0;

	if (o->preset < 0 && !o->window)
		return 0;
	dev_path(path, sizeof(path), unit);
	fd = dev_open(path, O_RDWR);
	if (fd < 0)
		return -1;
	if (dev_ioctl(fd, PHYLLO_IOC_GET_CONFIG, &cfg, "get link settings"))
		ret = -1;
	if (!ret && o->preset >= 0)
		cfg.preset = (__u32)o->preset;
	if (!ret && o->window)
		cfg.window = (__u32)o->window;
	if (!ret && dev_ioctl(fd, PHYLLO_IOC_SET_CONFIG, &cfg, "set link settings"))
		ret = -1;
	close(fd);
	return ret;
}

static volatile sig_atomic_t attach_stop;

static void attach_signal(int sig)
{
	(void)sig;
	attach_stop = 1;
}

/* Hold the tty until told to stop; then back to the normal discipline. */
static int attach_hold(int fd)
{
	struct sigaction sa = { .sa_handler = attach_signal };
	int n_tty = 0;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	while (!attach_stop)
		pause();
	ioctl(fd, TIOCSETD, &n_tty);
	close(fd);
	return 0;
}

static void fd_null_stdio(void)
{
	int null = open("/dev/null", O_RDWR);

	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
}

int attach_main(int argc, char **argv)
{
	struct attach_opts o;
	__u32 unit;
	int fd;

	attach_parse(&o, argc, argv);
	fd = link_open_tty("phyllo attach", o.tty, O_RDWR);
	if (fd < 0)
		return 1;
	if (link_tty_raw(fd, o.baud)) {
		fprintf(stderr, "phyllo attach: %s: cannot set raw mode at %lu baud: %s\n",
			o.tty, o.baud, strerror(errno));
		return 1;
	}
	if (attach_ldisc(fd, &o) || dev_ioctl(fd, PHYLLO_IOC_TTY_UNIT, &unit, o.tty) ||
	    attach_configure(unit, &o))
		return 1;
	printf("/dev/phyllo%u\n", unit);
	fflush(stdout);
	if (!o.foreground) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("phyllo attach: fork");
			return 1;
		}
		if (pid > 0)
			return 0;
		setsid();
		/* let $(phyllo attach ...) in a script see end of output */
		fd_null_stdio();
	}
	return attach_hold(fd);
}
