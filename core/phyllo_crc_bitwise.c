// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo_crc_bitwise.c - CRC-32 one bit at a time: the reference the
 * table (every entry) and both table-driven updates of phyllo_crc.c are
 * tested against. Only tests and benches call it; not in phyllo.ko.
 */
#include "phyllo_crc.h"

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
