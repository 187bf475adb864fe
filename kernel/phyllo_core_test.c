// SPDX-License-Identifier: GPL-2.0-only
/*
 * phyllo_core_test.c - the protocol core's portable suites (core/tests/,
 * fed by tests/vectors/phyllo_vectors.h) run as KUnit suites.
 *
 * Each ptest suite becomes a KUnit suite phyllo_core_<name> with one
 * parameterised case whose parameters are the ptest cases, so KUnit lists
 * and counts every core case by its own name. The suites are compiled
 * unchanged against tests/kernel/shim/ptest.h.
 */
#include <kunit/test.h>

#include "ptest.h"
#include "suites.h"

struct kunit *ptest_kunit;

/* The core suites KUnit has started, for the registry check. */
static const struct ptest_suite *phyllo_core_started[16];
static unsigned int phyllo_core_n_started;

static const void *phyllo_ptest_next(const struct ptest_suite *s,
				     const void *prev, char *desc)
{
	const struct ptest_case *c = prev ? (const struct ptest_case *)prev + 1
					  : s->cases;

	if (!prev && phyllo_core_n_started < ARRAY_SIZE(phyllo_core_started))
		phyllo_core_started[phyllo_core_n_started++] = s;

	if (c >= s->cases + s->n)
		return NULL;
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
	return c;
}

static void phyllo_ptest_run(struct kunit *test)
{
	const struct ptest_case *c = test->param_value;

	ptest_kunit = test;
	c->fn();
	ptest_kunit = NULL;
}

#define PHYLLO_CORE_SUITE(sname)						\
static const void *sname##_params(const void *prev, char *desc)		\
{									\
	return phyllo_ptest_next(&phyllo_suite_##sname, prev, desc);	\
}									\
static struct kunit_case sname##_cases[] = {				\
	{ .run_case = phyllo_ptest_run, .name = #sname,			\
	  .generate_params = sname##_params },				\
	{}								\
};									\
static struct kunit_suite phyllo_core_##sname##_suite = {		\
	.name = "phyllo_core_" #sname,					\
	.test_cases = sname##_cases,					\
}

PHYLLO_CORE_SUITE(cobs);
PHYLLO_CORE_SUITE(crc);
PHYLLO_CORE_SUITE(layers);
PHYLLO_CORE_SUITE(msgpack);
PHYLLO_CORE_SUITE(stack);
PHYLLO_CORE_SUITE(arq);
PHYLLO_CORE_SUITE(arq_ack);
PHYLLO_CORE_SUITE(session);

/*
 * Every suite the core lists (suites.h) must have run by now: the registry
 * suite is registered last, so a core suite left out of
 * kunit_test_suites() below is caught here, not silently skipped.
 */
static void core_suites_all_ran(struct kunit *test)
{
	static const struct ptest_suite *const listed[] = { PHYLLO_CORE_SUITES };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(listed); i++) {
		for (j = 0; j < phyllo_core_n_started; j++)
			if (phyllo_core_started[j] == listed[i])
				break;
		KUNIT_EXPECT_LT_MSG(test, j, phyllo_core_n_started,
				    "core suite %s did not run: not registered with KUnit",
				    listed[i]->name);
	}
}

static struct kunit_case registry_cases[] = {
	KUNIT_CASE(core_suites_all_ran),
	{}
};

static struct kunit_suite phyllo_core_registry_suite = {
	.name = "phyllo_core_registry",
	.test_cases = registry_cases,
};

/* KUnit runs them in this order: the registry check last. */
kunit_test_suites(&phyllo_core_cobs_suite, &phyllo_core_crc_suite,
		  &phyllo_core_layers_suite, &phyllo_core_msgpack_suite,
		  &phyllo_core_stack_suite, &phyllo_core_arq_suite,
		  &phyllo_core_arq_ack_suite, &phyllo_core_session_suite,
		  &phyllo_core_registry_suite);
