/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * test_rng.h - xorshift32, the tests' fixed-seed generator: one seed gives
 * the same inputs on every runner (host, AVR, KUnit), so a failure found on
 * one reproduces on the others.
 */
#ifndef PHYLLO_TEST_RNG_H
#define PHYLLO_TEST_RNG_H

#include "phyllo_types.h"

static inline uint32_t test_rng_next(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

#endif /* PHYLLO_TEST_RNG_H */
