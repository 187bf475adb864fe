// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo_crc.c - Ray32sub8 CRC-32, reflected.
 *
 * Byte-wise reflected update: crc = (crc >> 8) ^ T[(crc ^ byte) & 0xff].
 * With the polynomial's bits all in 23..31, T[i] = (LO[i & 15] ^ HI[i >> 4])
 * << 16: only the top two bytes of the CRC take table bits. The two 16-bit
 * nibble tables are stored as four byte tables (64 bytes), so an 8-bit MCU
 * indexes them without scaling and the update is byte moves and four
 * lookups. The tests check every entry against the bitwise reference.
 */
#include "phyllo_crc.h"

/*
 * One 64-byte table: LO[i] low bytes, LO[i] high bytes, HI[i] low bytes,
 * HI[i] high bytes. With one pointer per nibble, the second byte is at a
 * fixed displacement (+16), which an AVR loads in one instruction.
 */
static const uint8_t crc_tab[64] = {
	0x00, 0x6f, 0xde, 0xb1, 0xbc, 0xd3, 0x62, 0x0d,	/* LO low */
	0x78, 0x17, 0xa6, 0xc9, 0xc4, 0xab, 0x1a, 0x75,
	0x00, 0x01, 0x02, 0x03, 0x05, 0x04, 0x07, 0x06,	/* LO high */
	0x0b, 0x0a, 0x09, 0x08, 0x0e, 0x0f, 0x0c, 0x0d,
	0x00, 0xf0, 0xe0, 0x10, 0xc0, 0x30, 0x20, 0xd0,	/* HI low */
	0x80, 0x70, 0x60, 0x90, 0x40, 0xb0, 0xa0, 0x50,
	0x00, 0x16, 0x2d, 0x3b, 0x5b, 0x4d, 0x76, 0x60,	/* HI high */
	0xb7, 0xa1, 0x9a, 0x8c, 0xec, 0xfa, 0xc1, 0xd7,
};

const uint16_t phyllo_crc_table_bytes = sizeof(crc_tab);

uint32_t phyllo_crc_update(uint32_t crc, const uint8_t *p, uint16_t n)
{
	uint8_t c0 = (uint8_t)crc, c1 = (uint8_t)(crc >> 8);
	uint8_t c2 = (uint8_t)(crc >> 16), c3 = (uint8_t)(crc >> 24);
	const uint8_t *end = p + n;

	while (p != end) {
		uint8_t idx = c0 ^ *p++;
		const uint8_t *tl = crc_tab + (idx & 15);
		const uint8_t *th = crc_tab + 32 + (idx >> 4);

		/* (crc >> 8) ^ (T[idx] << 16), byte by byte */
		c0 = c1;
		c1 = c2;
		c2 = c3 ^ tl[0] ^ th[0];
		c3 = tl[16] ^ th[16];
	}
	return (uint32_t)c3 << 24 | (uint32_t)c2 << 16 | (uint32_t)c1 << 8 | c0;
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
