// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * PhylloMsgpack.cpp - PhylloReader and PhylloWriter (see Phyllo.h) over
 * the core's MessagePack reader and writer, which know no floating point:
 * the conversions between IEEE bit patterns and float live here.
 */
#include "Phyllo.h"

/*
 * A float64 bit pattern (hi, lo words) to the nearest float32, ties to
 * even, in 32-bit integer steps: the AVR has no 64-bit double to convert
 * through. Keep 24 significand bits and 7 guard bits, OR the 22 bits below
 * them into a sticky flag, shift further for a result below the float32
 * normal range, round; a carry out of the significand moves into the
 * exponent field by the addition, up to infinity.
 */
static uint32_t f64_to_f32_bits(uint32_t hi, uint32_t lo)
{
	uint32_t sign = hi & 0x80000000UL;
	int16_t exp = (int16_t)((hi >> 20) & 0x7ff);
	int16_t e = exp - 1023 + 127;
	uint32_t w, q, rem;
	bool sticky;

	if (exp == 0x7ff)	/* infinity, or NaN (made quiet) */
		return sign | 0x7f800000UL | (((hi & 0xfffffUL) | lo) ? 0x400000UL : 0);
	if (exp == 0 || e < -24)	/* zero, or below half the least subnormal */
		return sign;
	if (e >= 0xff)
		return sign | 0x7f800000UL;
	w = (0x800000UL | ((hi & 0xfffffUL) << 3) | (lo >> 29)) << 7 | ((lo >> 22) & 0x7f);
	sticky = (lo & 0x3fffffUL) != 0;
	if (e < 1) {
		uint8_t shift = (uint8_t)(1 - e);

		sticky = sticky || (w & ((1UL << shift) - 1)) != 0;
		w >>= shift;
		e = 1;
	}
	q = w >> 7;
	rem = w & 0x7f;
	if (rem > 0x40 || (rem == 0x40 && (sticky || (q & 1))))
		q++;
	return sign | (((uint32_t)(e - 1) << 23) + q);
}

static float float_from_bits(uint32_t bits)
{
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

PhylloReader::PhylloReader(const uint8_t *body, uint16_t len, uint8_t format,
			   uint8_t schema)
	: _format(format), _schema(schema), _err(format != PHYLLO_FORMAT_MSGPACK)
{
	phyllo_mp_reader_init(&_r, body, len);
}

int PhylloReader::nextType() const
{
	struct phyllo_mp_reader peek = _r;
	struct phyllo_mp_obj o;

	if (_err || phyllo_mp_read(&peek, &o) < 0)
		return -1;
	return o.kind;
}

/* One value of the given kind (ANY_KIND: any), or the error. */
static const uint8_t ANY_KIND = 0xff;

bool PhylloReader::next(struct phyllo_mp_obj &o, uint8_t kind)
{
	if (_err || phyllo_mp_read(&_r, &o) < 0 || (kind != ANY_KIND && o.kind != kind))
		_err = true;
	return !_err;
}

/* One integer or float. */
bool PhylloReader::number(struct phyllo_mp_obj &o)
{
	if (next(o, ANY_KIND) && (o.kind < PHYLLO_MP_UINT || o.kind > PHYLLO_MP_F64))
		_err = true;
	return !_err;
}

bool PhylloReader::readBool()
{
	struct phyllo_mp_obj o;

	return next(o, PHYLLO_MP_BOOL) && o.b;
}

bool PhylloReader::readNil()
{
	struct phyllo_mp_obj o;

	return next(o, PHYLLO_MP_NIL);
}

long PhylloReader::readInt()
{
	struct phyllo_mp_obj o;

	if (!number(o))
		return 0;
	if (o.kind == PHYLLO_MP_UINT && o.u <= (uint64_t)LONG_MAX)
		return (long)o.u;
	if (o.kind == PHYLLO_MP_INT && o.i >= (int64_t)LONG_MIN)
		return (long)o.i;
	_err = true;
	return 0;
}

unsigned long PhylloReader::readUnsigned()
{
	struct phyllo_mp_obj o;

	if (!number(o))
		return 0;
	if (o.kind == PHYLLO_MP_UINT && o.u <= (uint64_t)ULONG_MAX)
		return (unsigned long)o.u;
	_err = true;
	return 0;
}

float PhylloReader::readFloat()
{
	struct phyllo_mp_obj o;

	if (!number(o))
		return 0;
	switch (o.kind) {
	case PHYLLO_MP_F32:
		return float_from_bits((uint32_t)o.u);
	case PHYLLO_MP_F64:
		return float_from_bits(f64_to_f32_bits((uint32_t)(o.u >> 32), (uint32_t)o.u));
	case PHYLLO_MP_UINT:
		return (float)o.u;
	default:
		return (float)o.i;
	}
}

size_t PhylloReader::bytes(uint8_t kind, uint8_t *buf, size_t size, bool text)
{
	size_t room = text && size ? size - 1 : size;	/* keep one for the NUL */
	struct phyllo_mp_obj o;
	size_t n;

	if (text && size)
		buf[0] = 0;
	if (!next(o, kind))
		return 0;
	n = o.len < room ? o.len : room;
	if (n)
		memcpy(buf, o.data, n);
	if (text && size)
		buf[n] = 0;
	return o.len;
}

size_t PhylloReader::readString(char *buf, size_t size)
{
	return bytes(PHYLLO_MP_STR, (uint8_t *)buf, size, true);
}

size_t PhylloReader::readBinary(uint8_t *buf, size_t size)
{
	return bytes(PHYLLO_MP_BIN, buf, size, false);
}

/* A count larger than the bytes left cannot be real (each item takes one
 * at least): refused, so a loop over it stays short. */
uint16_t PhylloReader::readArray()
{
	struct phyllo_mp_obj o;

	if (next(o, PHYLLO_MP_ARRAY) && o.len > (uint32_t)(_r.len - _r.pos))
		_err = true;
	return _err ? 0 : (uint16_t)o.len;
}

uint16_t PhylloReader::readMap()
{
	struct phyllo_mp_obj o;

	if (next(o, PHYLLO_MP_MAP) && o.len > (uint32_t)(_r.len - _r.pos) / 2)
		_err = true;
	return _err ? 0 : (uint16_t)o.len;
}

bool PhylloReader::skip()
{
	if (_err || phyllo_mp_skip(&_r) < 0)
		_err = true;
	return !_err;
}

PhylloWriter::PhylloWriter(uint8_t *buf, size_t size)
{
	phyllo_mp_writer_init(&_w, buf, size > 0xffff ? 0xffff : (uint16_t)size);
}

void PhylloWriter::write(long v)
{
#if LONG_MAX == 0x7fffffffL
	phyllo_mp_write_i32(&_w, v);
#else
	phyllo_mp_write_int(&_w, v);
#endif
}

void PhylloWriter::write(unsigned long v)
{
#if ULONG_MAX == 0xffffffffUL
	phyllo_mp_write_u32(&_w, v);
#else
	phyllo_mp_write_uint(&_w, v);
#endif
}

void PhylloWriter::write(float v)
{
	uint32_t bits;

	memcpy(&bits, &v, sizeof(bits));
	phyllo_mp_write_f32_bits(&_w, bits);
}

/* The AVR's double is a float: it goes out as a float32, as it is. */
void PhylloWriter::write(double v)
{
#if __SIZEOF_DOUBLE__ == 4
	write((float)v);
#else
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	phyllo_mp_write_f64_bits(&_w, bits);
#endif
}

void PhylloWriter::writeString(const char *s, size_t n)
{
	phyllo_mp_write_str(&_w, (const uint8_t *)s, n);
}

void PhylloWriter::writeBinary(const uint8_t *p, size_t n)
{
	phyllo_mp_write_bin(&_w, p, n);
}
