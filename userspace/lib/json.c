// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * json.c - see json.h. Parsing is Debian's jansson (strict RFC 8259: no
 * NaN, no leading '+' or zeros, no trailing commas, integers and reals
 * kept apart, integers outside -2^63 .. 2^64 - 1 refused); this file only
 * walks the tree it builds into MessagePack, and prints MessagePack back as
 * JSON.
 */
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"

#define JSON_DEPTH_MAX 32

static int jw_fail(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s", what);
	return -1;
}

static int jw_value(const json_t *v, struct phyllo_mp_writer *w, int depth, char *err,
		    size_t errlen);
static bool jw_u64_string(const json_t *v, struct phyllo_mp_writer *w);

static int jw_container(const json_t *v, struct phyllo_mp_writer *w, int depth, char *err,
			size_t errlen)
{
	const char *key;
	json_t *item;
	size_t i;

	if (json_is_array(v)) {
		phyllo_mp_write_array(w, (uint32_t)json_array_size(v));
		json_array_foreach(v, i, item)
			if (jw_value(item, w, depth + 1, err, errlen))
				return -1;
		return 0;
	}
	phyllo_mp_write_map(w, (uint32_t)json_object_size(v));
	json_object_foreach((json_t *)v, key, item) {
		phyllo_mp_write_str(w, (const uint8_t *)key, (uint32_t)strlen(key));
		if (jw_value(item, w, depth + 1, err, errlen))
			return -1;
	}
	return 0;
}

static int jw_value(const json_t *v, struct phyllo_mp_writer *w, int depth, char *err,
		    size_t errlen)
{
	double d;
	uint64_t bits;

	if (depth > JSON_DEPTH_MAX)
		return jw_fail(err, errlen, "nested deeper than 32 levels");
	switch (json_typeof(v)) {
	case JSON_NULL: phyllo_mp_write_nil(w); break;
	case JSON_TRUE: phyllo_mp_write_bool(w, true); break;
	case JSON_FALSE: phyllo_mp_write_bool(w, false); break;
	case JSON_INTEGER: phyllo_mp_write_int(w, (int64_t)json_integer_value(v)); break;
	case JSON_REAL:
		d = json_real_value(v);
		memcpy(&bits, &d, sizeof(bits));
		phyllo_mp_write_f64_bits(w, bits);
		break;
	case JSON_STRING:
		if (jw_u64_string(v, w))
			break;
		phyllo_mp_write_str(w, (const uint8_t *)json_string_value(v),
				    (uint32_t)json_string_length(v));
		break;
	default:
		return jw_container(v, w, depth, err, errlen);
	}
	return 0;
}

/*
 * jansson's integers are signed 64-bit; MessagePack's go to 2^64 - 1. An
 * integer token from 2^63 to 2^64 - 1 is therefore handed to jansson as a
 * string JW_U64 "digits" and written back as an unsigned integer (only
 * when such a token was there: jw_u64 says so). Returns the text to parse
 * (text itself, or a copy to free), NULL when out of memory.
 */
#define JW_U64 "\\u0000phyllo-u64:"
#define JW_U64_RAW "\0phyllo-u64:"
static bool jw_u64;

static bool jw_big_unsigned(const char *p, size_t n)
{
	/* 2^63 .. 2^64 - 1: 19 digits from 9223372036854775808, or 20 up to
	 * 18446744073709551615 */
	return (n == 19 && memcmp(p, "9223372036854775808", 19) >= 0) ||
	       (n == 20 && memcmp(p, "18446744073709551615", 20) <= 0);
}

static char *jw_prepare(const char *text)
{
	size_t len = strlen(text), i, o = 0, n;
	bool in_str = false;
	char *out = malloc(len * 2 + 32 * (len / 19 + 1) + 1);

	if (!out)
		return NULL;
	jw_u64 = false;
	for (i = 0; i < len; i += n) {
		n = 1;
		if (in_str) {
			if (text[i] == '\\' && text[i + 1])
				n = 2;
			else if (text[i] == '"')
				in_str = false;
		} else if (text[i] == '"') {
			in_str = true;
		} else if (text[i] >= '0' && text[i] <= '9' && (!i || !strchr("-.eE+0123456789",
								       text[i - 1]))) {
			n = strspn(text + i, "0123456789");
			if (!(text[i + n] && strchr(".eE", text[i + n])) &&
			    jw_big_unsigned(text + i, n)) {
				o += (size_t)sprintf(out + o, "\"" JW_U64 "%.*s\"", (int)n,
						     text + i);
				jw_u64 = true;
				continue;
			}
		}
		memcpy(out + o, text + i, n);
		o += n;
	}
	out[o] = 0;
	return out;
}

/* A string jw_prepare() made of a big unsigned integer: write it. */
static bool jw_u64_string(const json_t *v, struct phyllo_mp_writer *w)
{
	const char *s = json_string_value(v);
	size_t n = json_string_length(v), k = sizeof(JW_U64_RAW) - 1;

	if (!jw_u64 || n <= k || memcmp(s, JW_U64_RAW, k))
		return false;
	phyllo_mp_write_uint(w, strtoull(s + k, NULL, 10));
	return true;
}

int phyllo_json_parse(const char *text, struct phyllo_mp_writer *w, char *err, size_t errlen)
{
	json_error_t je;
	char *prepared = jw_prepare(text);
	json_t *root;
	int ret;

	if (!prepared)
		return jw_fail(err, errlen, "out of memory");
	root = json_loads(prepared, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL,
			  &je);
	free(prepared);
	if (!root) {
		snprintf(err, errlen, "%s at offset %d%s", je.text, je.position,
			 strstr(je.text, "too big integer") ?
			 " (integers must be from -2^63 to 2^64 - 1)" : "");
		return -1;
	}
	ret = jw_value(root, w, 0, err, errlen);
	json_decref(root);
	if (ret)
		return -1;
	if (w->err) {
		snprintf(err, errlen, "document longer than the %u bytes a unit can carry", w->cap);
		return -1;
	}
	return 0;
}

/* The UTF-8 sequence at s (n bytes left): its length and code point, or
 * 0 when it is not valid (truncated, overlong, a surrogate, over
 * U+10FFFF). */
static size_t utf8_seq(const uint8_t *s, size_t n, uint32_t *cp)
{
	size_t len, i;
	uint32_t min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, min = 0x80, *cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, min = 0x800, *cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, min = 0x10000, *cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return len;
}

void phyllo_json_put_string(FILE *f, const uint8_t *s, size_t n)
{
	size_t i = 0, len;
	uint32_t cp;

	fputc('"', f);
	while (i < n) {
		len = utf8_seq(s + i, n - i, &cp);
		if (!len) {
			fputs("\\ufffd", f);
			i++;
			continue;
		}
		if (cp == '"' || cp == '\\')
			fprintf(f, "\\%c", (int)cp);
		else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029)
			fprintf(f, "\\u%04x", (unsigned int)cp);
		else
			fwrite(s + i, 1, len, f);
		i += len;
	}
	fputc('"', f);
}

/*
 * A real in the fewest digits that read back as the same value (as a
 * float for MessagePack's float 32), always
 * with a '.' or an exponent so that it reads back as a real, not an
 * integer. JSON has no NaN or infinity: those print as null.
 */
static void json_put_real(FILE *f, double d, bool f32)
{
	char buf[40];
	int prec;

	if (!isfinite(d)) {
		fputs("null", f);
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		double back = strtod(buf, NULL);

		if (f32 ? (float)back == (float)d : back == d)
			break;
	}
	if (!strpbrk(buf, ".eEn"))
		strcat(buf, ".0");
	fputs(buf, f);
}

static int json_print(struct phyllo_mp_reader *r, FILE *f, int depth);

static int json_print_container(struct phyllo_mp_reader *r, FILE *f, int depth,
				const struct phyllo_mp_obj *o)
{
	bool map = o->kind == PHYLLO_MP_MAP;
	uint32_t i;

	fputc(map ? '{' : '[', f);
	for (i = 0; i < o->len; i++) {
		if (i)
			fputc(',', f);
		if (json_print(r, f, depth + 1))
			return -1;
		if (map) {
			fputc(':', f);
			if (json_print(r, f, depth + 1))
				return -1;
		}
	}
	fputc(map ? '}' : ']', f);
	return 0;
}

static int json_print(struct phyllo_mp_reader *r, FILE *f, int depth)
{
	struct phyllo_mp_obj o;
	double d;
	float fl;
	uint32_t bits32, i;

	if (depth > JSON_DEPTH_MAX || phyllo_mp_read(r, &o))
		return -1;
	switch (o.kind) {
	case PHYLLO_MP_NIL: fputs("null", f); break;
	case PHYLLO_MP_BOOL: fputs(o.b ? "true" : "false", f); break;
	case PHYLLO_MP_UINT: fprintf(f, "%llu", (unsigned long long)o.u); break;
	case PHYLLO_MP_INT: fprintf(f, "%lld", (long long)o.i); break;
	case PHYLLO_MP_F32:
		bits32 = (uint32_t)o.u;
		memcpy(&fl, &bits32, sizeof(fl));
		json_put_real(f, (double)fl, true);
		break;
	case PHYLLO_MP_F64:
		memcpy(&d, &o.u, sizeof(d));
		json_put_real(f, d, false);
		break;
	case PHYLLO_MP_STR: phyllo_json_put_string(f, o.data, o.len); break;
	case PHYLLO_MP_BIN:
		fputs("\"0x", f);
		for (i = 0; i < o.len; i++)
			fprintf(f, "%02x", o.data[i]);
		fputc('"', f);
		break;
	default:
		return json_print_container(r, f, depth, &o);
	}
	return 0;
}

int phyllo_json_print(struct phyllo_mp_reader *r, FILE *f)
{
	return json_print(r, f, 0);
}
