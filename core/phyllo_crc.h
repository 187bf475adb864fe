/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo_crc.h - Ray32sub8 CRC-32 of the validated datagram.
 *
 * Width 32, Koopman polynomial 0x000001ED (reflected 0xB7800000), reflected
 * in and out, init and xor-out 0xFFFFFFFF. Check: "123456789" -> 0xB303B455.
 * This is not the IEEE CRC-32.
 *
 * The reflected polynomial only has bits 23..31 set, so every entry of the
 * byte table has its low 16 bits clear: 256 16-bit values, 512 bytes, kept
 * in flash on the AVR (no RAM).
 *
 * Incremental use: crc = PHYLLO_CRC_INIT; crc = phyllo_crc_update(crc, ...)
 * as often as needed; result = crc ^ PHYLLO_CRC_XOROUT.
 */
#ifndef PHYLLO_CRC_H
#define PHYLLO_CRC_H

#include "phyllo_types.h"
#include "phyllo_wire.h"

/* Table-driven update (512 bytes of table, in flash on the AVR): the AVR
 * fast path where PHYLLO_FAST_AVR is set, else the portable one.
 */
uint32_t phyllo_crc_update(uint32_t crc, const uint8_t *p, uint16_t n);
/* The portable C table-driven update: the fast path's reference. */
uint32_t phyllo_crc_update_portable(uint32_t crc, const uint8_t *p, uint16_t n);
/* Bit-at-a-time reference; slow, table-free, used to check the fast one. */
uint32_t phyllo_crc_update_bitwise(uint32_t crc, const uint8_t *p, uint16_t n);
/* Whole-buffer convenience: init, update, xor-out. */
uint32_t phyllo_crc32(const uint8_t *p, uint16_t n);

/* Bytes the fast version's tables occupy, and how many of them are RAM
 * (none where PHYLLO_ROM is flash), for the benchmarks.
 */
extern const uint16_t phyllo_crc_table_bytes;
extern const uint16_t phyllo_crc_table_ram_bytes;

#endif /* PHYLLO_CRC_H */
