/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo_datagram.h - datagram (type 0x21) and validated datagram (0x22).
 *
 * Parsing never copies: the unit points into the caller's frame. Building
 * writes only the header into a caller buffer, so the payload can stay where
 * it is and be streamed out behind the header (see phyllo_cobs_write()).
 */
#ifndef PHYLLO_DATAGRAM_H
#define PHYLLO_DATAGRAM_H

#include "phyllo_types.h"
#include "phyllo_wire.h"

/* One unit of any layer: a type byte and a payload. */
struct phyllo_unit {
	uint8_t type;
	uint16_t len;
	const uint8_t *data;
};

/* Datagram: PHYLLO_E_LENGTH unless n == 2 + length byte. */
int phyllo_datagram_parse(const uint8_t *frame, uint16_t n, struct phyllo_unit *u);
/* Writes the 2-byte header for a payload of len bytes with the given type.
 * Returns PHYLLO_DATAGRAM_HDR or PHYLLO_E_TOOBIG.
 */
int phyllo_datagram_header(uint8_t hdr[PHYLLO_DATAGRAM_HDR], uint8_t type, uint16_t len);

/* Validated datagram: PHYLLO_E_LENGTH if shorter than the header,
 * PHYLLO_E_CRC on a checksum mismatch.
 */
int phyllo_validated_parse(const uint8_t *p, uint16_t n, struct phyllo_unit *u);
/*
 * Writes the 5-byte header (CRC, type) at hdr[0..5) for type + pre + body,
 * where pre is an upper layer's header of npre bytes the caller has already
 * put right behind it, at hdr[5..5 + npre): the CRC covers all of it, and a
 * contiguous header is checksummed in one pass. Returns PHYLLO_VALIDATED_HDR
 * or PHYLLO_E_TOOBIG.
 */
int phyllo_validated_header(uint8_t *hdr, uint8_t type, uint8_t npre,
			    const uint8_t *body, uint16_t nb);

#endif /* PHYLLO_DATAGRAM_H */
