// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * dev.c - see dev.h. Every explanation of a failed open is here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "dev.h"

/* Why path (a /dev/phylloN) could not be opened: errno says. */
static void dev_explain(const char *path)
{
	if (errno == ENOENT && access("/sys/module/phyllo", F_OK) != 0)
		fprintf(stderr, "phyllo: %s: no such device, and the phyllo module is not "
			"loaded: run 'modprobe phyllo' (or insmod phyllo.ko) first\n", path);
	else if (errno == ENOENT || errno == ENXIO || errno == ENODEV)
		fprintf(stderr, "phyllo: %s: no such link: attach a serial port first with "
			"'phyllo attach TTY' (or 'ldattach 29 TTY'); 'phyllo list' shows the "
			"links there are\n", path);
	else if (errno == EACCES || errno == EPERM)
		fprintf(stderr, "phyllo: %s: permission denied: run as root, or give your "
			"group access with a udev rule (see PERMISSIONS in phyllo(1))\n", path);
	else if (errno == ENOTTY)
		fprintf(stderr, "phyllo: %s: not a phyllo device (wrong file?); for a serial "
			"port without the module use --tty %s\n", path, path);
	else
		fprintf(stderr, "phyllo: %s: %s\n", path, strerror(errno));
}

int dev_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	dev_explain(path);
	return -1;
}

const char *dev_name(const struct dev_spec *spec)
{
	return spec->tty ? spec->tty : spec->dev ? spec->dev : DEV_DEFAULT;
}

struct phyllo *dev_open_link(const struct dev_spec *spec, const char *who)
{
	struct phyllo_options o;
	struct phyllo *h;
	const char *path = dev_name(spec);
	int ret;

	phyllo_options_init(&o);
	o.transport = spec->tty ? PHYLLO_TRANSPORT_TTY : PHYLLO_TRANSPORT_KERNEL;
	o.baud = spec->baud;
	o.preset = spec->preset;
	o.flags = spec->nonblock ? PHYLLO_OPEN_NONBLOCK : 0;
	ret = phyllo_open(&h, path, &o);
	if (!ret)
		return h;
	errno = -ret;
	if (!spec->tty) {
		dev_explain(path);
	} else if (errno == ENOTTY) {
		fprintf(stderr, "%s: %s is not a serial port: refusing to use it (nothing was "
			"written); give a tty such as /dev/ttyACM0, /dev/ttyUSB0 or a pty\n",
			who, path);
	} else if (errno == EBUSY) {
		fprintf(stderr, "%s: %s is in use by another program (another phyllo, or "
			"ldattach?)\n", who, path);
	} else {
		fprintf(stderr, "%s: cannot open %s: %s%s\n", who, path, strerror(errno),
			errno == EACCES ? " (add yourself to the 'dialout' group, or run as root)"
					: "");
	}
	return NULL;
}

int dev_ioctl(int fd, unsigned long req, void *arg, const char *what)
{
	if (ioctl(fd, req, arg) == 0)
		return 0;
	if (errno == ENOTTY)
		fprintf(stderr, "phyllo: %s: not a phyllo device (wrong file?)\n", what);
	else
		fprintf(stderr, "phyllo: %s: %s\n", what, strerror(errno));
	return -1;
}

void dev_path(char *buf, unsigned long len, unsigned int n)
{
	snprintf(buf, len, "/dev/phyllo%u", n);
}
