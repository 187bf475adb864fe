/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * fuzz_util.h - what every libFuzzer target of tests/fuzz/ shares.
 *
 *  - FUZZ_CHECK(cond, fmt, ...): an invariant; when it does not hold, say
 *    which one and with what values on stderr, then abort() so libFuzzer
 *    saves the input as a crash.
 *  - struct fuzz_in: the fuzzer's bytes read as a script; once they run
 *    out every read returns 0, so any prefix of an input is a valid input.
 *  - fuzz_crc32(): the validated datagram's CRC (Ray32sub8, phyllo_wire.h)
 *    bit by bit, written here from the parameters and not taken from the
 *    core, so the core's table-driven CRC is checked against something
 *    independent.
 *  - FUZZ_TAIL(arr, n): the last n bytes of a static array, so
 *    AddressSanitizer's redzone after the array catches a read or write one
 *    byte past n, without a malloc per check (which costs more than the
 *    code under test).
 */
#ifndef PHYLLO_FUZZ_UTIL_H
#define PHYLLO_FUZZ_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include "phyllo_types.h"
#include "phyllo_wire.h"

#define FUZZ_CHECK(cond, ...)                                                   \
	do {                                                                    \
		if (!(cond)) {                                                  \
			fprintf(stderr, "%s:%d: invariant broken: %s\n  ",      \
				__FILE__, __LINE__, #cond);                     \
			fprintf(stderr, __VA_ARGS__);                           \
			fprintf(stderr, "\n");                                  \
			abort();                                                \
		}                                                               \
	} while (0)

struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

static inline uint8_t fuzz_u8(struct fuzz_in *in)
{
	uint8_t b;

	if (!in->n)
		return 0;
	b = *in->p++;
	in->n--;
	return b;
}

static inline uint16_t fuzz_u16(struct fuzz_in *in)
{
	uint16_t hi = fuzz_u8(in);

	return (uint16_t)(hi << 8 | fuzz_u8(in));
}

static inline uint32_t fuzz_u32(struct fuzz_in *in)
{
	uint32_t hi = fuzz_u16(in);

	return hi << 16 | fuzz_u16(in);
}

/* Up to max bytes into out (the rest zero); returns how many were real. */
static inline size_t fuzz_bytes(struct fuzz_in *in, uint8_t *out, size_t max)
{
	size_t k = in->n < max ? in->n : max;

	memcpy(out, in->p, k);
	memset(out + k, 0, max - k);
	in->p += k;
	in->n -= k;
	return k;
}

static inline uint32_t fuzz_crc32(const uint8_t *p, size_t n)
{
	uint32_t crc = PHYLLO_CRC_INIT;
	size_t i;
	int bit;

	for (i = 0; i < n; i++) {
		crc ^= p[i];
		for (bit = 0; bit < 8; bit++)
			crc = crc & 1 ? crc >> 1 ^ PHYLLO_CRC_POLY_REFLECTED : crc >> 1;
	}
	return crc ^ PHYLLO_CRC_XOROUT;
}

#define FUZZ_TAIL(arr, n) ((arr) + sizeof(arr) - (n))

/* A copy of p[0..n) at the very end of arr (n <= sizeof(arr)). */
#define FUZZ_TAIL_COPY(arr, p, n) ((uint8_t *)memcpy(FUZZ_TAIL(arr, n), (p), (n)))

#endif /* PHYLLO_FUZZ_UTIL_H */
