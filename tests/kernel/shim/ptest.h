/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ptest.h (KUnit shim) - runs the portable core suites (core/tests/) as
 * KUnit cases, unchanged. It stands in for tests/ptest.h only when the
 * suites are compiled into the kernel (see Kbuild): each expectation
 * becomes a KUnit expectation on the running case, printf a KUnit log line.
 * kernel/phyllo_core_test.c maps each ptest suite to a KUnit suite.
 */
#ifndef PTEST_H
#define PTEST_H

#include <kunit/test.h>
#include <linux/string.h>
#include <linux/types.h>

struct ptest_case {
	const char *name;
	void (*fn)(void);
};

struct ptest_suite {
	const char *name;
	const struct ptest_case *cases;
	unsigned int n;
};

/* The KUnit case running a ptest case (cases run one at a time). */
extern struct kunit *ptest_kunit;

#define PTEST_STR(s) (s)
#define PTEST_S "%s"
#define PTEST_LOG(fmt, ...) kunit_info(ptest_kunit, fmt, ##__VA_ARGS__)
#define PTEST_NAME(fn) #fn

#define PTEST_EXPECT(cond) KUNIT_EXPECT_TRUE(ptest_kunit, cond)
#define PTEST_EXPECT_EQ(a, b) KUNIT_EXPECT_EQ(ptest_kunit, (long)(a), (long)(b))
#define PTEST_EXPECT_MEM(a, b, n) \
	KUNIT_EXPECT_EQ_MSG(ptest_kunit, memcmp((a), (b), (n)), 0, \
			    "memcmp(%s, %s, %ld)", #a, #b, (long)(n))
#define printf(...) kunit_info(ptest_kunit, __VA_ARGS__)

#define PTEST_CASE(fn) { PTEST_NAME(fn), fn }
#define PTEST_SUITE(var, sname, arr) \
	const struct ptest_suite var = { sname, arr, ARRAY_SIZE(arr) }

#ifndef PTEST_SCALE
#define PTEST_SCALE 1
#endif

#endif /* PTEST_H */
