/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo_msgpack.h - a small MessagePack (spec v5) writer and reader with
 * no heap, no recursion and no floating point: f32/f64 values travel as
 * their IEEE bit patterns, so the AVR never links a soft-FP library.
 *
 * Writer: errors are sticky; check phyllo_mp_writer.err once at the end.
 * Reader: phyllo_mp_read() returns one token; containers are read as a
 * header with a count, their items follow. Extension types are refused.
 */
#ifndef PHYLLO_MSGPACK_H
#define PHYLLO_MSGPACK_H

#include "phyllo_types.h"

enum phyllo_mp_kind {
	PHYLLO_MP_NIL = 0,
	PHYLLO_MP_BOOL,
	PHYLLO_MP_UINT,    /* value in u */
	PHYLLO_MP_INT,     /* negative value in i */
	PHYLLO_MP_F32,     /* bit pattern in u */
	PHYLLO_MP_F64,     /* bit pattern in u */
	PHYLLO_MP_STR,     /* len bytes at data */
	PHYLLO_MP_BIN,
	PHYLLO_MP_ARRAY,   /* len items follow */
	PHYLLO_MP_MAP,     /* len key/value pairs follow */
};

struct phyllo_mp_obj {
	uint8_t kind;      /* enum phyllo_mp_kind */
	bool b;
	uint32_t len;
	uint64_t u;
	int64_t i;
	const uint8_t *data;
};

struct phyllo_mp_writer {
	uint8_t *buf;
	uint16_t cap;
	uint16_t len;
	int err;           /* 0 or PHYLLO_E_NOSPACE, sticky */
};

struct phyllo_mp_reader {
	const uint8_t *buf;
	uint16_t len;
	uint16_t pos;
};

void phyllo_mp_writer_init(struct phyllo_mp_writer *w, uint8_t *buf, uint16_t cap);
void phyllo_mp_write_nil(struct phyllo_mp_writer *w);
void phyllo_mp_write_bool(struct phyllo_mp_writer *w, bool v);
void phyllo_mp_write_uint(struct phyllo_mp_writer *w, uint64_t v);
/* 32-bit forms of the above: the same bytes, without 64-bit arithmetic
 * (which an 8-bit MCU does in slow library loops).
 */
void phyllo_mp_write_u32(struct phyllo_mp_writer *w, uint32_t v);
void phyllo_mp_write_i32(struct phyllo_mp_writer *w, int32_t v);
void phyllo_mp_write_int(struct phyllo_mp_writer *w, int64_t v);
void phyllo_mp_write_f32_bits(struct phyllo_mp_writer *w, uint32_t bits);
void phyllo_mp_write_f64_bits(struct phyllo_mp_writer *w, uint64_t bits);
void phyllo_mp_write_str(struct phyllo_mp_writer *w, const uint8_t *s, uint32_t n);
void phyllo_mp_write_bin(struct phyllo_mp_writer *w, const uint8_t *s, uint32_t n);
void phyllo_mp_write_array(struct phyllo_mp_writer *w, uint32_t n);
void phyllo_mp_write_map(struct phyllo_mp_writer *w, uint32_t n);

void phyllo_mp_reader_init(struct phyllo_mp_reader *r, const uint8_t *buf, uint16_t len);
/* Returns 0 and fills *o, or PHYLLO_E_MSGPACK (truncated, ext or 0xc1). */
int phyllo_mp_read(struct phyllo_mp_reader *r, struct phyllo_mp_obj *o);
/* Skip one whole object, nested containers included. */
int phyllo_mp_skip(struct phyllo_mp_reader *r);
/* 0 when buf holds exactly one well-formed object, else PHYLLO_E_MSGPACK. */
int phyllo_mp_check(const uint8_t *buf, uint16_t len);

#endif /* PHYLLO_MSGPACK_H */
