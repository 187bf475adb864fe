// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * fuzz_datagram.c - libFuzzer target for the datagram (0x21) and the
 * validated datagram (0x22) of core/phyllo_datagram.h.
 *
 * Input: a mode byte, a burst position, a 4-byte burst pattern, a type and
 * a pre-header length, then the bytes. Checked:
 *  - phyllo_datagram_parse() accepts exactly n == 2 + length byte, points
 *    inside the frame, and its header rebuilds with
 *    phyllo_datagram_header() (which refuses a length over 252);
 *  - phyllo_validated_parse() accepts exactly what the bit-at-a-time CRC
 *    here (fuzz_crc32) accepts; with the mode's "fix" bit the CRC is made
 *    right first, and then any burst of up to 32 bits inside the checksummed
 *    bytes, or any change of the CRC field, must be refused (Ray32sub8 has
 *    an x^0 term: every burst that short is detected);
 *  - phyllo_validated_header() + phyllo_datagram_header() around any
 *    pre-header and body parse back to the same type and bytes, with the
 *    reference CRC, and refuse more than PHYLLO_VALIDATED_MAX bytes.
 * Every buffer sits at the end of a static array (FUZZ_TAIL), so a read or
 * write past it is an ASan report.
 */
#include "fuzz_util.h"
#include "phyllo_datagram.h"

#define DG_FUZZ_MAX 1024
#define DG_MODE_FIX_CRC 0x01
#define DG_MODE_BURST 0x02

static uint8_t frame_buf[DG_FUZZ_MAX], built_buf[PHYLLO_FRAME_MAX + 8];

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void check_datagram(const uint8_t *f, uint16_t n)
{
	struct phyllo_unit u;
	uint8_t hdr[PHYLLO_DATAGRAM_HDR];
	bool ok = n >= PHYLLO_DATAGRAM_HDR && n == PHYLLO_DATAGRAM_HDR + f[0];
	int ret = phyllo_datagram_parse(f, n, &u);

	FUZZ_CHECK(ok ? ret == 0 : ret == PHYLLO_E_LENGTH, "datagram of %u bytes: %d", n, ret);
	if (!ok)
		return;
	FUZZ_CHECK(u.len == f[0] && u.type == f[1] && u.data == f + PHYLLO_DATAGRAM_HDR,
		   "datagram unit len %u type %#x", u.len, u.type);
	ret = phyllo_datagram_header(hdr, u.type, u.len);
	FUZZ_CHECK(u.len > PHYLLO_DATAGRAM_MAX ? ret == PHYLLO_E_TOOBIG :
						 ret == PHYLLO_DATAGRAM_HDR && !memcmp(hdr, f, 2),
		   "header for len %u: %d", u.len, ret);
}

/* Parse p[0..n) and compare with the reference; returns whether it passed. */
static bool check_validated(const uint8_t *p, uint16_t n)
{
	struct phyllo_unit u;
	bool ok = n >= PHYLLO_VALIDATED_HDR && be32(p) == fuzz_crc32(p + 4, n - 4);
	int ret = phyllo_validated_parse(p, n, &u);

	FUZZ_CHECK(ok ? ret == 0 : ret == (n < PHYLLO_VALIDATED_HDR ? PHYLLO_E_LENGTH : PHYLLO_E_CRC),
		   "validated datagram of %u bytes: %d, reference %s", n, ret, ok ? "ok" : "bad");
	FUZZ_CHECK(!ok || (u.type == p[4] && u.len == n - PHYLLO_VALIDATED_HDR &&
			   u.data == p + PHYLLO_VALIDATED_HDR),
		   "validated unit type %#x len %u", u.type, u.len);
	return ok;
}

/* XOR a burst of at most 32 bits at pos: inside the CRC field only, or
 * inside the checksummed bytes only. It must be refused. */
static void check_burst(uint8_t *p, uint16_t n, uint8_t pos, const uint8_t pat[4])
{
	uint16_t at = pos % n, end = at < 4 ? 4 : n, i;
	bool any = false;

	for (i = 0; i < 4 && at + i < end; i++) {
		p[at + i] ^= pat[i];
		any |= pat[i] != 0;
	}
	if (!any) {
		p[at] ^= 1;
		pat = (const uint8_t[4]){ 1, 0, 0, 0 };
	}
	FUZZ_CHECK(!check_validated(p, n), "a burst at %u of %u bytes went through", at, n);
	for (i = 0; i < 4 && at + i < end; i++)
		p[at + i] ^= pat[i];
}

/* Build datagram(validated(type, pre ++ body)) and parse it back. */
static void check_build(uint8_t type, const uint8_t *pre, uint8_t npre, const uint8_t *body,
			uint16_t nb)
{
	uint16_t inner = PHYLLO_VALIDATED_HDR + npre + nb, total = PHYLLO_DATAGRAM_HDR + inner;
	uint8_t *f = FUZZ_TAIL(built_buf, total > sizeof(built_buf) ? sizeof(built_buf) : total);
	int r1, r2;
	struct phyllo_unit d, v;

	if (total <= sizeof(built_buf))
		memcpy(f + PHYLLO_DATAGRAM_HDR + PHYLLO_VALIDATED_HDR, pre, npre);
	r1 = phyllo_datagram_header(f, PHYLLO_TYPE_VALIDATED, inner);
	r2 = phyllo_validated_header(f + PHYLLO_DATAGRAM_HDR, type, npre, body, nb);
	if (npre + nb > PHYLLO_VALIDATED_MAX) {
		FUZZ_CHECK(r1 == PHYLLO_E_TOOBIG && r2 == PHYLLO_E_TOOBIG,
			   "%u + %u bytes built: %d %d", npre, nb, r1, r2);
		return;
	}
	FUZZ_CHECK(r1 == PHYLLO_DATAGRAM_HDR && r2 == PHYLLO_VALIDATED_HDR, "build: %d %d", r1, r2);
	memcpy(f + total - nb, body, nb);
	FUZZ_CHECK(be32(f + 2) == fuzz_crc32(f + 6, total - 6), "built CRC differs from reference");
	FUZZ_CHECK(!phyllo_datagram_parse(f, total, &d) && d.type == PHYLLO_TYPE_VALIDATED &&
			   !phyllo_validated_parse(d.data, d.len, &v) && v.type == type &&
			   v.len == npre + nb && !memcmp(v.data, pre, npre) &&
			   !memcmp(v.data + npre, body, nb),
		   "built frame (%u + %u bytes) does not parse back", npre, nb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	uint8_t mode = fuzz_u8(&in), pos = fuzz_u8(&in), pat[4], type, npre;
	uint16_t n;
	uint8_t *f;

	fuzz_bytes(&in, pat, sizeof(pat));
	type = fuzz_u8(&in);
	npre = fuzz_u8(&in) % 16;
	n = (uint16_t)(in.n < DG_FUZZ_MAX ? in.n : DG_FUZZ_MAX);
	f = FUZZ_TAIL_COPY(frame_buf, in.p, n);
	check_datagram(f, n);
	if (n >= PHYLLO_DATAGRAM_HDR && n == PHYLLO_DATAGRAM_HDR + f[0])
		check_validated(f + 2, n - 2);
	if ((mode & DG_MODE_FIX_CRC) && n >= PHYLLO_VALIDATED_HDR)
		put_be32(f, fuzz_crc32(f + 4, n - 4));
	if (check_validated(f, n) && (mode & DG_MODE_BURST))
		check_burst(f, n, pos, pat);
	if (npre > n)
		npre = (uint8_t)n;
	check_build(type, f, npre, f + npre, n - npre);
	return 0;
}
