// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo_datagram.c - datagram and validated datagram headers.
 * See phyllo_datagram.h for the contract and phyllo_wire.h for the bytes.
 */
#include "phyllo_datagram.h"
#include "phyllo_crc.h"

int phyllo_datagram_parse(const uint8_t *frame, uint16_t n, struct phyllo_unit *u)
{
	if (n < PHYLLO_DATAGRAM_HDR || n != (uint16_t)(PHYLLO_DATAGRAM_HDR + frame[0]))
		return PHYLLO_E_LENGTH;
	u->len = frame[0];
	u->type = frame[1];
	u->data = frame + PHYLLO_DATAGRAM_HDR;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_datagram_parse);

int phyllo_datagram_header(uint8_t hdr[PHYLLO_DATAGRAM_HDR], uint8_t type, uint16_t len)
{
	if (len > PHYLLO_DATAGRAM_MAX)
		return PHYLLO_E_TOOBIG;
	hdr[0] = (uint8_t)len;
	hdr[1] = type;
	return PHYLLO_DATAGRAM_HDR;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_datagram_header);

static uint32_t crc_read(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int phyllo_validated_parse(const uint8_t *p, uint16_t n, struct phyllo_unit *u)
{
	if (n < PHYLLO_VALIDATED_HDR)
		return PHYLLO_E_LENGTH;
	if (phyllo_crc32(p + 4, n - 4) != crc_read(p))
		return PHYLLO_E_CRC;
	u->type = p[4];
	u->len = n - PHYLLO_VALIDATED_HDR;
	u->data = p + PHYLLO_VALIDATED_HDR;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_validated_parse);

int phyllo_validated_header(uint8_t *hdr, uint8_t type, uint8_t npre,
			    const uint8_t *body, uint16_t nb)
{
	uint32_t crc;

	if (npre + nb > PHYLLO_VALIDATED_MAX)
		return PHYLLO_E_TOOBIG;
	hdr[4] = type;
	crc = phyllo_crc_update(PHYLLO_CRC_INIT, hdr + 4, 1 + npre);
	crc = phyllo_crc_update(crc, body, nb) ^ PHYLLO_CRC_XOROUT;
	hdr[0] = (uint8_t)(crc >> 24);
	hdr[1] = (uint8_t)(crc >> 16);
	hdr[2] = (uint8_t)(crc >> 8);
	hdr[3] = (uint8_t)crc;
	return PHYLLO_VALIDATED_HDR;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_validated_header);
