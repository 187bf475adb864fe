// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo_crc.c - Ray32sub8 CRC-32, reflected.
 *
 * Byte-wise reflected update: crc = (crc >> 8) ^ T[(crc ^ byte) & 0xff].
 * With the polynomial's bits all in 23..31, T[i] = (LO[i & 15] ^ HI[i >> 4])
 * << 16, so the update is byte moves plus two 16-bit lookups: cheap on an
 * 8-bit MCU. The tables are checked against the bitwise reference by the
 * tests, which regenerate them.
 */
#include "phyllo_crc.h"

static const uint16_t crc_lo[16] = {
	0x0000, 0x016f, 0x02de, 0x03b1, 0x05bc, 0x04d3, 0x0762, 0x060d,
	0x0b78, 0x0a17, 0x09a6, 0x08c9, 0x0ec4, 0x0fab, 0x0c1a, 0x0d75,
};

static const uint16_t crc_hi[16] = {
	0x0000, 0x16f0, 0x2de0, 0x3b10, 0x5bc0, 0x4d30, 0x7620, 0x60d0,
	0xb780, 0xa170, 0x9a60, 0x8c90, 0xec40, 0xfab0, 0xc1a0, 0xd750,
};

const uint16_t phyllo_crc_table_bytes = sizeof(crc_lo) + sizeof(crc_hi);

uint32_t phyllo_crc_update(uint32_t crc, const uint8_t *p, uint16_t n)
{
	while (n--) {
		uint8_t idx = (uint8_t)crc ^ *p++;
		uint16_t t = crc_lo[idx & 15] ^ crc_hi[idx >> 4];

		crc = (crc >> 8) ^ ((uint32_t)t << 16);
	}
	return crc;
}

uint32_t phyllo_crc_update_bitwise(uint32_t crc, const uint8_t *p, uint16_t n)
{
	uint8_t bit;

	while (n--) {
		crc ^= *p++;
		for (bit = 0; bit < 8; bit++)
			crc = (crc & 1) ? (crc >> 1) ^ PHYLLO_CRC_POLY_REFLECTED : crc >> 1;
	}
	return crc;
}

uint32_t phyllo_crc32(const uint8_t *p, uint16_t n)
{
	return phyllo_crc_update(PHYLLO_CRC_INIT, p, n) ^ PHYLLO_CRC_XOROUT;
}
