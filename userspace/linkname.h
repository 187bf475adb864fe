/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * linkname.h - the names of named links (phyllo(4), "Named links"): the
 * rule the kernel applies, checked here first so that a bad name gets a
 * message that says which rule it breaks; and the way from a name to its
 * /dev/phylloN through sysfs (/sys/class/phyllo/phylloN/name), for
 * systems where no udev makes /dev/phyllo/NAME.
 */
#ifndef PHYLLO_LINKNAME_H
#define PHYLLO_LINKNAME_H

#include <stddef.h>

/* Where the kernel's links are; tests point it elsewhere. */
#define LINKNAME_SYSFS "/sys/class/phyllo"

/* 0: name is 1..31 bytes of [A-Za-z0-9._:@+-], starting with a letter or
 * a digit, not with "by-". -1: why not, into why. */
int linkname_check(const char *name, char *why, size_t len);
/* The name of link dev (phylloN) from sysfs into buf: "" when it has
 * none or the kernel knows no names. */
void linkname_of(const char *sysfs, const char *dev, char *buf, size_t len);
/* N of the link named name, or -1. */
int linkname_unit(const char *sysfs, const char *name);
/* A -d argument to a device path: a bare name (no '/') of a named link
 * is /dev/phyllo/NAME if udev made it, else its /dev/phylloN; anything
 * else is returned as it is. buf holds the result when it is not dev. */
const char *linkname_resolve(const char *dev, char *buf, size_t len);
/* The tty NAME (ttyACM0, pts3) of /dev/phylloN, phylloN, /dev/phyllo/NAME
 * or NAME, from sysfs: 0, or -1 when no such link is up. */
int linkname_tty(const char *dev, char *name, size_t len);

/* "@serial" for --name: the USB serial number of the board behind tty
 * (a path): udev's ID_SERIAL_SHORT from its database, else the USB
 * device's serial in sysfs, with every byte a name cannot hold as '_',
 * as udev writes it. 0 and buf filled, or -1: none (not USB, no serial,
 * or one longer than a name). */
#define LINKNAME_SERIAL "@serial"
int linkname_serial(const char *tty, char *buf, size_t len);

#endif
