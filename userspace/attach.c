// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * attach.c - `phyllo attach TTY`: lock the tty (lib_port.c), raw mode and
 * speed, the phyllo line discipline, optional link settings; then hold
 * the tty open (the discipline stays attached while it is open), in the
 * background unless --foreground, until a signal (then back to N_TTY) or
 * the tty hangs up (an unplugged adapter: the link is gone, and so is
 * this process, so that a service manager can start it again when the
 * board is back). Like ldattach, with phyllo's settings, a lock and clear
 * errors; it logs on stderr (the journal under systemd).
 * With --name NAME the link is named (PHYLLO_IOC_TTY_ATTACH): when the tty
 * hangs up it goes down, not away, and the next attach under NAME, on
 * whatever tty, brings the same /dev/phylloN up again; this process ends
 * as before, its service manager starts the next one.
 * `phyllo detach` (detach.c) stops it through the lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cmds.h"
#include "dev.h"
#include "hold.h"
#include "bytestream.h"
#include "linkname.h"
#include "phyllo-internal.h"

#include <linux/tty.h>
#include "util.h"
#include "phyllo.h"

struct attach_opts {
	const char *tty;
	const char *name;	/* --name: NULL for an unnamed link */
	unsigned long baud, window, ldisc;
	int preset;	/* -1: leave as is */
	bool foreground;
};

#define ATTACH_USAGE_LINE "usage: phyllo attach TTY [-n NAME] [-b N] [-p P] [-w N] [--ldisc N] [-f]\n"

static void attach_usage(FILE *f)
{
	fputs(ATTACH_USAGE_LINE
	      "Attach the phyllo line discipline to a serial port; prints /dev/phylloN\n"
	      "(and /dev/phyllo/NAME with --name).\n"
	      "  -n, --name NAME     a named link: it outlives the tty (down, not gone, when\n"
	      "                      unplugged) and comes back when NAME is attached again,\n"
	      "                      on any tty; 1-31 of A-Z a-z 0-9 . _ : @ + -; @serial:\n"
	      "                      the board's USB serial number (unnamed if it has none)\n"
	      "  -b, --baud N        line speed (default 115200)\n"
	      "  -p, --preset P      minimal | reduced | standard (default: the module's)\n"
	      "  -w, --window N      send window 1..8 (standard preset)\n"
	      "      --ldisc N       line discipline number (default 29, N_DEVELOPMENT)\n"
	      "  -f, --foreground    stay in the foreground, logging on stderr (systemd)\n"
	      "The discipline stays attached while this command runs (in the background\n"
	      "by default): 'phyllo detach TTY' or SIGTERM detaches; it ends by itself\n"
	      "when the tty hangs up (unplugged). The tty is locked (flock and a UUCP\n"
	      "lock file). Needs CAP_NET_ADMIN (root).\n", f);
}


/* --name @serial: the board's serial number, or no name (said why). */
static const char *attach_serial(const char *tty)
{
	static char name[PHYLLO_NAME_MAX];

	if (!linkname_serial(tty, name, sizeof(name)))
		return name;
	fprintf(stderr, "phyllo attach: %s: no USB serial number that makes a name (not a "
		"USB board, none, or longer than %d bytes): the link is unnamed\n", tty,
		PHYLLO_NAME_MAX - 1);
	return NULL;
}

static void attach_parse(struct attach_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "baud", required_argument, NULL, 'b' },
		{ "preset", required_argument, NULL, 'p' },
		{ "window", required_argument, NULL, 'w' },
		{ "ldisc", required_argument, NULL, 'l' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "name", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char why[96];
	int c;

	memset(o, 0, sizeof(*o));
	o->baud = 115200;
	o->preset = -1;
	o->ldisc = N_DEVELOPMENT;
	while ((c = getopt_long(argc, argv, "b:p:w:n:fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': o->baud = bytestream_parse_baud("phyllo attach", optarg); break;
		case 'p': o->preset = util_parse_preset(optarg); break;
		case 'w': o->window = util_parse_num("--window", optarg, 1, 8); break;
		case 'l': o->ldisc = util_parse_num("--ldisc", optarg, 1, 255); break;
		case 'f': o->foreground = true; break;
		case 'n': o->name = optarg; break;
		case 'h': attach_usage(stdout); exit(0);
		default: util_usage_hint("phyllo attach", ATTACH_USAGE_LINE);
		}
	}
	if (optind == argc)
		util_usage_error("phyllo attach", ATTACH_USAGE_LINE, "name one serial port, "
				 "e.g. /dev/ttyACM0");
	if (optind < argc - 1)
		util_usage_error("phyllo attach", ATTACH_USAGE_LINE, "name one serial port; "
				 "'%s' is one too many", argv[optind + 1]);
	o->tty = argv[optind];
	if (o->name && !o->name[0])
		o->name = NULL;		/* --name= (an empty setting): unnamed */
	else if (o->name && !strcmp(o->name, LINKNAME_SERIAL))
		o->name = attach_serial(o->tty);
	else if (o->name && linkname_check(o->name, why, sizeof(why)))
		util_usage_error("phyllo attach", ATTACH_USAGE_LINE, "--name '%s': %s", o->name,
				 why);
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
			"phyllo module is not loaded; run 'modprobe phyllo' first, or, where "
			"modules cannot load, skip attach: pub, sub, echo and stats take "
			"--tty %s and run the protocol themselves\n", o->ldisc, o->tty);
	else
		fprintf(stderr, "phyllo attach: cannot attach line discipline %lu to %s: %s\n",
			o->ldisc, o->tty, strerror(errno));
	return -1;
}

/*
 * --name: the tty's link takes the name, or the tty moves to the down
 * link of that name (then TTY_UNIT tells its N). Say why when not.
 */
static int attach_name(int fd, const struct attach_opts *o)
{
	struct phyllo_attach a;
	char dev[32], holder[64];
	int unit;

	if (!o->name)
		return 0;
	memset(&a, 0, sizeof(a));
	memcpy(a.name, o->name, strlen(o->name));
	if (ioctl(fd, PHYLLO_IOC_TTY_ATTACH, &a) == 0)
		return 0;
	if (errno == EBUSY) {
		unit = linkname_unit(LINKNAME_SYSFS, o->name);
		snprintf(dev, sizeof(dev), "phyllo%d", unit);
		fprintf(stderr, "phyllo attach: a link named '%s' is up on another tty", o->name);
		if (unit >= 0 && !linkname_tty(dev, holder, sizeof(holder)) && holder[0])
			fprintf(stderr, " (%s, /dev/phyllo%d)", holder, unit);
		fprintf(stderr, ": two boards cannot share a name; detach it first, or give "
			"this one another name ('phyllo list' shows them)\n");
	} else if (errno == ENOTTY) {
		fprintf(stderr, "phyllo attach: the loaded phyllo module knows no named links "
			"(an older one): load the newer module, or attach without --name\n");
	} else {
		fprintf(stderr, "phyllo attach: %s: cannot name the link '%s': %s\n", o->tty,
			o->name, strerror(errno));
	}
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
	/* SET_CONFIG sets the words its mask names (GET_CONFIG gave 0) */
	if (!ret && o->preset >= 0) {
		cfg.preset = (__u32)o->preset;
		cfg.mask |= PHYLLO_SET_PRESET;
	}
	if (!ret && o->window) {
		cfg.window = (__u32)o->window;
		cfg.mask |= PHYLLO_SET_WINDOW;
	}
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

/* Hold the tty until told to stop (then back to the normal discipline)
 * or until it hangs up. */
static int attach_hold(int fd, const struct attach_opts *o, __u32 unit)
{
	const char *tty = o->tty;
	struct sigaction sa = { .sa_handler = attach_signal };
	int n_tty = 0;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	enum hold_end end = hold_tty(fd, &attach_stop);

	if (end == HOLD_HUNGUP && o->name) {
		fprintf(stderr, "phyllo attach: %s hung up (unplugged?): /dev/phyllo%u (%s) is "
			"down until '%s' is attached again\n", tty, unit, o->name, o->name);
	} else if (end == HOLD_HUNGUP) {
		fprintf(stderr, "phyllo attach: %s hung up (unplugged?): /dev/phyllo%u is gone\n",
			tty, unit);
	} else {
		ioctl(fd, TIOCSETD, &n_tty);
		fprintf(stderr, "phyllo attach: detached /dev/phyllo%u from %s%s\n", unit, tty,
			o->name ? " (the named link is down, its open files kept)" : "");
	}
	phyllo_port_unlock();
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

/*
 * Open, lock and attach the tty, then hold it. ready >= 0 (not
 * --foreground): this is the child that keeps the tty, so the lock file
 * it writes names the process that holds it; once attached it leaves the
 * session, lets go of stdio and writes one byte to ready, for which the
 * parent waits.
 */
static int attach_run(const struct attach_opts *o, int ready)
{
	int fd, n_tty = 0;
	__u32 unit;
	int ret;

	fd = bytestream_open_tty("phyllo attach", o->tty, O_RDWR);
	if (fd < 0 || bytestream_lock_tty(fd, o->tty, "phyllo attach"))
		return 1;
	ret = phyllo_port_raw(fd, o->baud);
	if (ret < 0) {
		fprintf(stderr, "phyllo attach: %s: cannot set raw mode at %lu baud: %s\n",
			o->tty, o->baud, strerror(-ret));
		goto fail;
	}
	if (attach_ldisc(fd, o))
		goto fail;
	if (attach_name(fd, o)) {
		ioctl(fd, TIOCSETD, &n_tty);
		goto fail;
	}
	if (dev_ioctl(fd, PHYLLO_IOC_TTY_UNIT, &unit, o->tty) || attach_configure(unit, o))
		goto fail;
	/*
	 * Exclusive: while attached, other opens of the tty fail with EBUSY
	 * (but with CAP_SYS_ADMIN), so no program of a user in dialout can
	 * write raw bytes into the link or change its line settings.
	 */
	if (ioctl(fd, TIOCEXCL))
		fprintf(stderr, "phyllo attach: %s: TIOCEXCL: %s (other programs may "
			"still open it)\n", o->tty, strerror(errno));
	printf("/dev/phyllo%u\n", unit);
	if (o->name)
		printf("/dev/phyllo/%s\n", o->name);
	fflush(stdout);
	if (o->foreground)
		fprintf(stderr, "phyllo attach: %s is /dev/phyllo%u%s%s (pid %d)\n", o->tty, unit,
			o->name ? ", named " : "", o->name ? o->name : "", (int)getpid());
	if (ready >= 0) {
		setsid();
		/* let $(phyllo attach ...) in a script see end of output */
		fd_null_stdio();
		if (write(ready, "", 1) != 1)
			return 1;
		close(ready);
	}
	return attach_hold(fd, o, unit);
fail:
	phyllo_port_unlock();
	return 1;
}

int attach_main(int argc, char **argv)
{
	struct attach_opts o;
	int ready[2], status;
	pid_t pid;
	char c;

	attach_parse(&o, argc, argv);
	if (o.foreground)
		return attach_run(&o, -1);
	if (pipe2(ready, O_CLOEXEC)) {
		perror("phyllo attach: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("phyllo attach: fork");
		return 1;
	}
	if (pid == 0) {
		close(ready[0]);
		exit(attach_run(&o, ready[1]));
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) == 1)
		return 0;
	/* the child said why on our stderr */
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) ? WEXITSTATUS(status) : 1;
}
