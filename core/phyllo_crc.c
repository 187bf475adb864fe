// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo_crc.c - Ray32sub8 CRC-32, reflected.
 *
 * Byte-wise reflected update: crc = (crc >> 8) ^ T[(crc ^ byte) & 0xff].
 * The polynomial's bits are all in 23..31, so every T[i] has its low 16
 * bits clear: the table is 256 16-bit values (T[i] >> 16), and only the
 * CRC's top two bytes take table bits. On the AVR the table lives in flash
 * (PHYLLO_ROM): 512 bytes of flash, no RAM. The tests check every entry
 * against the bitwise reference.
 *
 * Two implementations of the same update: phyllo_crc_update_portable(), in
 * C, everywhere; and, where phyllo_types.h sets PHYLLO_FAST_AVR, an AVR
 * assembly loop that phyllo_crc_update() uses instead (12 cycles a byte,
 * the C 25). The tests run both on the same vectors, so on the AVR the
 * portable code is the fast path's reference.
 */
#include "phyllo_crc.h"

#define CRC_T16(E) \
	E(0x0000) E(0x016f) E(0x02de) E(0x03b1) E(0x05bc) E(0x04d3) E(0x0762) E(0x060d) \
	E(0x0b78) E(0x0a17) E(0x09a6) E(0x08c9) E(0x0ec4) E(0x0fab) E(0x0c1a) E(0x0d75) \
	E(0x16f0) E(0x179f) E(0x142e) E(0x1541) E(0x134c) E(0x1223) E(0x1192) E(0x10fd) \
	E(0x1d88) E(0x1ce7) E(0x1f56) E(0x1e39) E(0x1834) E(0x195b) E(0x1aea) E(0x1b85) \
	E(0x2de0) E(0x2c8f) E(0x2f3e) E(0x2e51) E(0x285c) E(0x2933) E(0x2a82) E(0x2bed) \
	E(0x2698) E(0x27f7) E(0x2446) E(0x2529) E(0x2324) E(0x224b) E(0x21fa) E(0x2095) \
	E(0x3b10) E(0x3a7f) E(0x39ce) E(0x38a1) E(0x3eac) E(0x3fc3) E(0x3c72) E(0x3d1d) \
	E(0x3068) E(0x3107) E(0x32b6) E(0x33d9) E(0x35d4) E(0x34bb) E(0x370a) E(0x3665) \
	E(0x5bc0) E(0x5aaf) E(0x591e) E(0x5871) E(0x5e7c) E(0x5f13) E(0x5ca2) E(0x5dcd) \
	E(0x50b8) E(0x51d7) E(0x5266) E(0x5309) E(0x5504) E(0x546b) E(0x57da) E(0x56b5) \
	E(0x4d30) E(0x4c5f) E(0x4fee) E(0x4e81) E(0x488c) E(0x49e3) E(0x4a52) E(0x4b3d) \
	E(0x4648) E(0x4727) E(0x4496) E(0x45f9) E(0x43f4) E(0x429b) E(0x412a) E(0x4045) \
	E(0x7620) E(0x774f) E(0x74fe) E(0x7591) E(0x739c) E(0x72f3) E(0x7142) E(0x702d) \
	E(0x7d58) E(0x7c37) E(0x7f86) E(0x7ee9) E(0x78e4) E(0x798b) E(0x7a3a) E(0x7b55) \
	E(0x60d0) E(0x61bf) E(0x620e) E(0x6361) E(0x656c) E(0x6403) E(0x67b2) E(0x66dd) \
	E(0x6ba8) E(0x6ac7) E(0x6976) E(0x6819) E(0x6e14) E(0x6f7b) E(0x6cca) E(0x6da5) \
	E(0xb780) E(0xb6ef) E(0xb55e) E(0xb431) E(0xb23c) E(0xb353) E(0xb0e2) E(0xb18d) \
	E(0xbcf8) E(0xbd97) E(0xbe26) E(0xbf49) E(0xb944) E(0xb82b) E(0xbb9a) E(0xbaf5) \
	E(0xa170) E(0xa01f) E(0xa3ae) E(0xa2c1) E(0xa4cc) E(0xa5a3) E(0xa612) E(0xa77d) \
	E(0xaa08) E(0xab67) E(0xa8d6) E(0xa9b9) E(0xafb4) E(0xaedb) E(0xad6a) E(0xac05) \
	E(0x9a60) E(0x9b0f) E(0x98be) E(0x99d1) E(0x9fdc) E(0x9eb3) E(0x9d02) E(0x9c6d) \
	E(0x9118) E(0x9077) E(0x93c6) E(0x92a9) E(0x94a4) E(0x95cb) E(0x967a) E(0x9715) \
	E(0x8c90) E(0x8dff) E(0x8e4e) E(0x8f21) E(0x892c) E(0x8843) E(0x8bf2) E(0x8a9d) \
	E(0x87e8) E(0x8687) E(0x8536) E(0x8459) E(0x8254) E(0x833b) E(0x808a) E(0x81e5) \
	E(0xec40) E(0xed2f) E(0xee9e) E(0xeff1) E(0xe9fc) E(0xe893) E(0xeb22) E(0xea4d) \
	E(0xe738) E(0xe657) E(0xe5e6) E(0xe489) E(0xe284) E(0xe3eb) E(0xe05a) E(0xe135) \
	E(0xfab0) E(0xfbdf) E(0xf86e) E(0xf901) E(0xff0c) E(0xfe63) E(0xfdd2) E(0xfcbd) \
	E(0xf1c8) E(0xf0a7) E(0xf316) E(0xf279) E(0xf474) E(0xf51b) E(0xf6aa) E(0xf7c5) \
	E(0xc1a0) E(0xc0cf) E(0xc37e) E(0xc211) E(0xc41c) E(0xc573) E(0xc6c2) E(0xc7ad) \
	E(0xcad8) E(0xcbb7) E(0xc806) E(0xc969) E(0xcf64) E(0xce0b) E(0xcdba) E(0xccd5) \
	E(0xd750) E(0xd63f) E(0xd58e) E(0xd4e1) E(0xd2ec) E(0xd383) E(0xd032) E(0xd15d) \
	E(0xdc28) E(0xdd47) E(0xdef6) E(0xdf99) E(0xd994) E(0xd8fb) E(0xdb4a) E(0xda25)

#define CRC_WORD(v) v,
static const uint16_t crc_t16[256] PHYLLO_ROM = { CRC_T16(CRC_WORD) };

const uint16_t phyllo_crc_table_bytes = sizeof(crc_t16);
const uint16_t phyllo_crc_table_ram_bytes = PHYLLO_ROM_IS_FLASH ? 0 : sizeof(crc_t16);

/*
 * One byte into the CRC held as bytes (c0 lowest): idx = c0 ^ x, then
 * crc = (crc >> 8) ^ (T[idx] << 16). Written in place: c3 takes the table's
 * low byte, and c0, free once idx is known, becomes the new top byte; the
 * caller renames the bytes rather than moving them.
 */
#define CRC_STEP(c0, c3, x) do {					\
		uint16_t t_ = phyllo_rom_word(&crc_t16[(uint8_t)((c0) ^ (x))]); \
									\
		(c3) ^= (uint8_t)t_;					\
		(c0) = (uint8_t)(t_ >> 8);				\
	} while (0)

uint32_t phyllo_crc_update_portable(uint32_t crc, const uint8_t *p, uint16_t n)
{
	uint8_t c0 = (uint8_t)crc, c1 = (uint8_t)(crc >> 8);
	uint8_t c2 = (uint8_t)(crc >> 16), c3 = (uint8_t)(crc >> 24);
	const uint8_t *end4;
	uint8_t k;

	if (!n)
		return crc;	/* p may be NULL: not even NULL + 0 (UB) */
	end4 = p + (n & ~3u);

	/* Four bytes a turn, so the byte renaming costs no moves; the four
	 * loads first, as consecutive post-increments (an 8-bit MCU has no
	 * cheap p[1] through every pointer register).
	 */
	while (p != end4) {
		uint8_t x0 = *p++, x1 = *p++, x2 = *p++, x3 = *p++;

		CRC_STEP(c0, c3, x0);	/* now (c1, c2, c3, c0) */
		CRC_STEP(c1, c0, x1);	/* (c2, c3, c0, c1) */
		CRC_STEP(c2, c1, x2);	/* (c3, c0, c1, c2) */
		CRC_STEP(c3, c2, x3);	/* (c0, c1, c2, c3) again */
	}
	for (k = (uint8_t)(n & 3); k; k--) {
		uint8_t top;

		CRC_STEP(c0, c3, *p++);
		top = c0;
		c0 = c1;
		c1 = c2;
		c2 = c3;
		c3 = top;
	}
	return (uint32_t)c3 << 24 | (uint32_t)c2 << 16 | (uint32_t)c1 << 8 | c0;
}

#if PHYLLO_FAST_AVR
/*
 * The same table split in two 256-byte pages, low bytes then high bytes,
 * page-aligned in flash: the index is the pointer's low byte and the
 * high-byte page is the next one, so a table read is one lpm with no
 * address arithmetic. The alignment costs at most 255 bytes of flash.
 */
#define CRC_LO(v) (uint8_t)(v),
#define CRC_HI(v) (uint8_t)((v) >> 8),
static const uint8_t crc_avr_tab[512] PHYLLO_ROM __attribute__((aligned(256))) = {
	CRC_T16(CRC_LO) CRC_T16(CRC_HI)
};

/* One byte, the CRC's bytes renamed as CRC_STEP does: a = low, d = top;
 * Z's high byte points at the low page on entry and on exit.
 */
#define CRC_AVR_STEP(a, d)						\
	"ld   r30, X+\n\t"						\
	"eor  r30, %[" a "]\n\t"					\
	"lpm  %[t], Z\n\t"						\
	"eor  %[" d "], %[t]\n\t"					\
	"inc  r31\n\t"							\
	"lpm  %[" a "], Z\n\t"						\
	"dec  r31\n\t"

uint32_t phyllo_crc_update(uint32_t crc, const uint8_t *p, uint16_t n)
{
	uint8_t c0 = (uint8_t)crc, c1 = (uint8_t)(crc >> 8);
	uint8_t c2 = (uint8_t)(crc >> 16), c3 = (uint8_t)(crc >> 24);
	uint8_t quads = (uint8_t)(n >> 2), hi = (uint8_t)(n >> 10), k = (uint8_t)(n & 3), t;

	if (!n)
		return crc;
	/* Four bytes a turn (256 turns per outer count), then the 0-3 left,
	 * those with the byte moves the renaming saves above.
	 */
	__asm__ __volatile__(
		"ldi  r31, hi8(%[tab])\n\t"
		"tst  %[q]\n\t"
		"brne 1f\n\t"
		"tst  %[h]\n\t"
		"breq 3f\n\t"
		"dec  %[h]\n"		/* q == 0: the first pass is a whole 256 */
		"1:\n\t"
		CRC_AVR_STEP("c0", "c3")
		CRC_AVR_STEP("c1", "c0")
		CRC_AVR_STEP("c2", "c1")
		CRC_AVR_STEP("c3", "c2")
		"dec  %[q]\n\t"
		"brne 1b\n\t"
		"subi %[h], 1\n\t"
		"brcc 1b\n"
		"3:\n\t"
		"tst  %[k]\n\t"
		"breq 5f\n"
		"4:\n\t"
		"ld   r30, X+\n\t"
		"eor  r30, %[c0]\n\t"
		"mov  %[c0], %[c1]\n\t"
		"mov  %[c1], %[c2]\n\t"
		"lpm  %[c2], Z\n\t"
		"eor  %[c2], %[c3]\n\t"
		"inc  r31\n\t"
		"lpm  %[c3], Z\n\t"
		"dec  r31\n\t"
		"dec  %[k]\n\t"
		"brne 4b\n"
		"5:\n\t"
		: [c0] "+r" (c0), [c1] "+r" (c1), [c2] "+r" (c2), [c3] "+r" (c3),
		  [q] "+r" (quads), [h] "+d" (hi), [k] "+r" (k), [t] "=&r" (t), "+x" (p)
		: [tab] "i" (crc_avr_tab)
		: "r30", "r31", "memory");
	return (uint32_t)c3 << 24 | (uint32_t)c2 << 16 | (uint32_t)c1 << 8 | c0;
}
#else
uint32_t phyllo_crc_update(uint32_t crc, const uint8_t *p, uint16_t n)
{
	return phyllo_crc_update_portable(crc, p, n);
}
#endif

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
