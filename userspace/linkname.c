// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * linkname.c - see linkname.h.
 */
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "linkname.h"
#include "phyllo.h"

static int name_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("._:@+-", c));
}

static int name_alnum(char c)
{
	return name_char_ok(c) && !strchr("._:@+-", c);
}

int linkname_check(const char *name, char *why, size_t len)
{
	size_t n = strlen(name), i;

	if (!n || n >= PHYLLO_NAME_MAX) {
		snprintf(why, len, "a name is 1 to %d bytes long", PHYLLO_NAME_MAX - 1);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!name_char_ok(name[i])) {
			snprintf(why, len, "byte %zu (0x%02x) is not one of A-Z a-z 0-9 . _ : @ + -",
				 i + 1, (unsigned char)name[i]);
			return -1;
		}
	if (!name_alnum(name[0])) {
		snprintf(why, len, "a name starts with a letter or a digit");
		return -1;
	}
	if (!strncmp(name, "by-", 3)) {
		snprintf(why, len, "names starting with \"by-\" are udev's (/dev/phyllo/by-tty)");
		return -1;
	}
	return 0;
}

void linkname_of(const char *sysfs, const char *dev, char *buf, size_t len)
{
	char path[300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/name", sysfs, dev);
	buf[0] = 0;
	f = fopen(path, "re");
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

int linkname_unit(const char *sysfs, const char *name)
{
	char got[PHYLLO_NAME_MAX + 2];
	struct dirent *de;
	unsigned int n;
	int found = -1;
	DIR *d = opendir(sysfs);

	while (d && found < 0 && (de = readdir(d))) {
		if (sscanf(de->d_name, "phyllo%u", &n) != 1)
			continue;
		linkname_of(sysfs, de->d_name, got, sizeof(got));
		if (!strcmp(got, name))
			found = (int)n;
	}
	if (d)
		closedir(d);
	return found;
}

const char *linkname_resolve(const char *dev, char *buf, size_t len)
{
	char why[80];
	int unit;

	if (strchr(dev, '/') || linkname_check(dev, why, sizeof(why)))
		return dev;
	snprintf(buf, len, "/dev/phyllo/%s", dev);
	if (!access(buf, F_OK))
		return buf;
	unit = linkname_unit(LINKNAME_SYSFS, dev);
	if (unit < 0)
		return dev;
	snprintf(buf, len, "/dev/phyllo%d", unit);
	return buf;
}

/* udev's record of the character device rdev: "E:ID_SERIAL_SHORT=..." */
static int serial_udev(dev_t rdev, char *buf, size_t len)
{
	char path[64], line[256];
	FILE *f;
	int ret = -1;

	snprintf(path, sizeof(path), "/run/udev/data/c%u:%u", major(rdev), minor(rdev));
	f = fopen(path, "re");
	while (f && ret && fgets(line, sizeof(line), f))
		if (!strncmp(line, "E:ID_SERIAL_SHORT=", 18)) {
			line[strcspn(line, "\n")] = 0;
			ret = line[18] && snprintf(buf, len, "%s", line + 18) < (int)len ? 0 : -1;
		}
	if (f)
		fclose(f);
	return ret;
}

/* The "serial" of the USB device above /sys/class/tty/NAME/device. */
static int serial_sysfs(const char *name, char *buf, size_t len)
{
	char path[PATH_MAX + 16], real[PATH_MAX], *slash;
	FILE *f = NULL;
	int ret = -1;

	snprintf(path, sizeof(path), "/sys/class/tty/%s/device", name);
	if (!realpath(path, real))
		return -1;
	while (!f && (slash = strrchr(real, '/')) && slash != real) {
		if (snprintf(path, sizeof(path), "%s/idVendor", real) < (int)sizeof(path) &&
		    !access(path, F_OK)) {
			if (snprintf(path, sizeof(path), "%s/serial", real) < (int)sizeof(path))
				f = fopen(path, "re");
			break;
		}
		*slash = 0;
	}
	if (f && fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = 0;
		ret = buf[0] ? 0 : -1;
	}
	if (f)
		fclose(f);
	return ret;
}

int linkname_serial(const char *tty, char *buf, size_t len)
{
	char real[PATH_MAX], serial[128], why[96];
	const char *base;
	struct stat st;
	size_t i;

	if (!realpath(tty, real) || stat(real, &st) || !S_ISCHR(st.st_mode))
		return -1;
	base = strrchr(real, '/') + 1;
	if (serial_udev(st.st_rdev, serial, sizeof(serial)) &&
	    serial_sysfs(base, serial, sizeof(serial)))
		return -1;
	for (i = 0; serial[i]; i++)
		if (!name_char_ok(serial[i]))
			serial[i] = '_';
	if (linkname_check(serial, why, sizeof(why)) || strlen(serial) >= len)
		return -1;
	memcpy(buf, serial, strlen(serial) + 1);
	return 0;
}

int linkname_tty(const char *dev, char *name, size_t len)
{
	char path[300], buf[300], real[PATH_MAX];
	const char *base;
	FILE *f;
	int ret = -1;

	dev = linkname_resolve(dev, buf, sizeof(buf));
	if (realpath(dev, real))
		dev = real;
	base = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	if (snprintf(path, sizeof(path), "%s/%s/tty", LINKNAME_SYSFS, base) >= (int)sizeof(path))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(name, (int)len, f)) {
		name[strcspn(name, "\n")] = 0;
		ret = 0;
	}
	fclose(f);
	return ret;
}
