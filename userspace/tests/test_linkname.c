// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * test_linkname.c - the names of named links (linkname.c), under ASan and
 * UBSan: the kernel's rule as a table of names taken and refused, each
 * refusal naming the rule; and the way from a name to its /dev/phylloN
 * through a sysfs tree made here (a down link, an unnamed one, a name
 * that is a prefix of another).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ptest.h"
#include "linkname.h"

struct name_case {
	const char *name;
	const char *why;	/* NULL: taken; else a part of the reason */
};

static const struct name_case name_cases[] = {
	{ "a", NULL },
	{ "0", NULL },
	{ "uno-85736323838351F0D1E1", NULL },
	{ "A.b_c:d@e+f-g", NULL },
	{ "1234567890123456789012345678901", NULL },	/* 31 bytes */
	{ "by", NULL },
	{ "byte", NULL },
	{ "", "1 to 31 bytes" },
	{ "12345678901234567890123456789012", "1 to 31 bytes" },
	{ "-a", "starts with a letter or a digit" },
	{ ".a", "starts with a letter or a digit" },
	{ "@a", "starts with a letter or a digit" },
	{ "a b", "byte 2 (0x20)" },
	{ "a/b", "byte 2 (0x2f)" },
	{ "ab\xc3\xa9", "byte 3 (0xc3)" },
	{ "a\n", "byte 2 (0x0a)" },
	{ "by-tty", "udev's" },
	{ "by-id", "udev's" },
};

static void linkname_check_takes_the_kernels_names(void)
{
	char why[96];

	for (size_t i = 0; i < sizeof(name_cases) / sizeof(name_cases[0]); i++) {
		const struct name_case *c = &name_cases[i];
		int ret;

		why[0] = 0;
		ret = linkname_check(c->name, why, sizeof(why));
		if ((ret == 0) != !c->why || (c->why && !strstr(why, c->why)))
			PTEST_LOG("name '%s': %d '%s', expected %s\n", c->name, ret, why,
				  c->why ? c->why : "taken");
		PTEST_EXPECT_EQ(ret, c->why ? -1 : 0);
		if (c->why)
			PTEST_EXPECT(strstr(why, c->why) != NULL);
	}
}

static void put(const char *dir, const char *dev, const char *file, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, dev);
	mkdir(path, 0755);
	if (!file)
		return;
	snprintf(path, sizeof(path), "%s/%s/%s", dir, dev, file);
	f = fopen(path, "w");
	PTEST_EXPECT(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void linkname_unit_finds_a_name_in_sysfs(void)
{
	char dir[] = "/tmp/phyllo-linkname-XXXXXX", name[40], cmd[80];

	PTEST_EXPECT(mkdtemp(dir) != NULL);
	put(dir, "phyllo0", "name", "\n");		/* unnamed */
	put(dir, "phyllo1", "name", "board-10\n");
	put(dir, "phyllo3", "name", "board-1\n");	/* down: no tty, still named */
	put(dir, "phyllo4", NULL, NULL);		/* a module without names */
	put(dir, "other", "name", "board-2\n");
	PTEST_EXPECT_EQ(linkname_unit(dir, "board-1"), 3);
	PTEST_EXPECT_EQ(linkname_unit(dir, "board-10"), 1);
	PTEST_EXPECT_EQ(linkname_unit(dir, "board-2"), -1);
	PTEST_EXPECT_EQ(linkname_unit(dir, "board"), -1);
	PTEST_EXPECT_EQ(linkname_unit("/nonexistent", "board-1"), -1);
	linkname_of(dir, "phyllo3", name, sizeof(name));
	PTEST_EXPECT(!strcmp(name, "board-1"));
	linkname_of(dir, "phyllo0", name, sizeof(name));
	PTEST_EXPECT(!strcmp(name, ""));
	linkname_of(dir, "phyllo4", name, sizeof(name));
	PTEST_EXPECT(!strcmp(name, ""));
	snprintf(cmd, sizeof(cmd), "rm -r %s", dir);
	PTEST_EXPECT_EQ(system(cmd), 0);
}

/* Paths and what is no name stay as they are. */
static void linkname_resolve_leaves_paths_alone(void)
{
	char buf[64];

	PTEST_EXPECT(!strcmp(linkname_resolve("/dev/phyllo0", buf, sizeof(buf)), "/dev/phyllo0"));
	PTEST_EXPECT(!strcmp(linkname_resolve("./x", buf, sizeof(buf)), "./x"));
	PTEST_EXPECT(!strcmp(linkname_resolve("by-tty", buf, sizeof(buf)), "by-tty"));
	PTEST_EXPECT(!strcmp(linkname_resolve("no-such-link-here", buf, sizeof(buf)),
			     "no-such-link-here"));
}

static const struct ptest_case linkname_cases[] = {
	PTEST_CASE(linkname_check_takes_the_kernels_names),
	PTEST_CASE(linkname_unit_finds_a_name_in_sysfs),
	PTEST_CASE(linkname_resolve_leaves_paths_alone),
};

PTEST_MAIN(phyllo_suite_linkname, "phyllo_linkname", linkname_cases)
