// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * dev.c - see dev.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "dev.h"

int dev_open(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd >= 0)
		return fd;
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
	else
		fprintf(stderr, "phyllo: %s: %s\n", path, strerror(errno));
	return -1;
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
