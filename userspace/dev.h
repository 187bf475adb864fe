/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * dev.h - opening /dev/phylloN and its ioctls, with errors that say what
 * to do (module not loaded, no such link, permission denied).
 */
#ifndef PHYLLO_DEV_H
#define PHYLLO_DEV_H

#define DEV_DEFAULT "/dev/phyllo0"

/* Open a link device; on failure print why and what to do, return -1. */
int dev_open(const char *path, int flags);
/* ioctl that prints "phyllo: WHAT: reason" on failure; returns 0 or -1. */
int dev_ioctl(int fd, unsigned long req, void *arg, const char *what);
/* Path of /dev/phylloN for unit n. */
void dev_path(char *buf, unsigned long len, unsigned int n);

#endif
