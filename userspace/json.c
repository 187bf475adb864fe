// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * json.c - see json.h. A recursive-descent parser with a depth limit; this
 * is userspace, so recursion and doubles are fine here (not in the core).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"

#define JSON_DEPTH_MAX 32

struct jp {
	const char *s, *p;
	struct phyllo_mp_writer *w;
	char *err;
	size_t errlen;
	int depth;
};

static int jp_fail(struct jp *j, const char *what)
{
	snprintf(j->err, j->errlen, "%s at offset %ld", what, (long)(j->p - j->s));
	return -1;
}

static void jp_space(struct jp *j)
{
	while (isspace((unsigned char)*j->p))
		j->p++;
}

static int jp_value(struct jp *j);

/* A JSON string into buf (UTF-8, escapes resolved); returns its length. */
static long jp_string_raw(struct jp *j, char *buf, size_t cap)
{
	size_t n = 0;

	j->p++;	/* opening quote */
	while (*j->p && *j->p != '"') {
		char c = *j->p++;

		if (c == '\\') {
			char e = *j->p++;
			static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
			const char *k = e ? strchr(from, e) : NULL;

			if (e == 'u') {
				unsigned int cp;

				if (sscanf(j->p, "%4x", &cp) != 1 || cp > 0x7f)
					return jp_fail(j, "only \\u0000-\\u007f escapes are supported");
				j->p += 4;
				c = (char)cp;
			} else if (!k) {
				return jp_fail(j, "bad escape");
			} else {
				c = to[k - from];
			}
		}
		if (n == cap)
			return jp_fail(j, "string too long");
		buf[n++] = c;
	}
	if (*j->p != '"')
		return jp_fail(j, "unterminated string");
	j->p++;
	return (long)n;
}

static int jp_string(struct jp *j)
{
	char buf[256];
	long n = jp_string_raw(j, buf, sizeof(buf));

	if (n < 0)
		return -1;
	phyllo_mp_write_str(j->w, (const uint8_t *)buf, (uint32_t)n);
	return 0;
}

static int jp_number(struct jp *j)
{
	const char *start = j->p;
	char *end;
	long long v;
	double d;

	v = strtoll(start, &end, 10);
	if (end != start && !strchr(".eE", *end)) {
		j->p = end;
		phyllo_mp_write_int(j->w, v);
		return 0;
	}
	d = strtod(start, &end);
	if (end == start)
		return jp_fail(j, "expected a value");
	{
		uint64_t bits;

		memcpy(&bits, &d, sizeof(bits));
		phyllo_mp_write_f64_bits(j->w, bits);
	}
	j->p = end;
	return 0;
}

/* Items of an array or members of an object, counted first. */
static int jp_container(struct jp *j, char close)
{
	struct jp probe = *j;
	uint32_t n = 0;

	/* first pass: count the items at this level without writing */
	{
		struct phyllo_mp_writer sink;
		uint8_t scratch[1];

		phyllo_mp_writer_init(&sink, scratch, 0);
		probe.w = &sink;
		probe.p++;
		jp_space(&probe);
		while (*probe.p && *probe.p != close) {
			if (close == '}') {
				if (*probe.p != '"' || jp_string(&probe))
					return jp_fail(&probe, "expected a string key");
				jp_space(&probe);
				if (*probe.p++ != ':')
					return jp_fail(&probe, "expected ':'");
			}
			if (jp_value(&probe))
				return -1;
			n++;
			jp_space(&probe);
			if (*probe.p == ',')
				probe.p++;
			else if (*probe.p != close)
				return jp_fail(&probe, close == ']' ? "expected ',' or ']'" : "expected ',' or '}'");
			jp_space(&probe);
		}
		if (*probe.p != close)
			return jp_fail(&probe, "unterminated container");
	}
	if (close == ']')
		phyllo_mp_write_array(j->w, n);
	else
		phyllo_mp_write_map(j->w, n);
	/* second pass: write them (already known to parse) */
	j->p++;
	while (n--) {
		jp_space(j);
		if (close == '}') {
			jp_string(j);
			jp_space(j);
			j->p++;
		}
		jp_value(j);
		jp_space(j);
		if (*j->p == ',')
			j->p++;
	}
	jp_space(j);
	j->p++;
	return 0;
}

static int jp_value(struct jp *j)
{
	int ret;

	jp_space(j);
	if (++j->depth > JSON_DEPTH_MAX)
		return jp_fail(j, "nested too deeply");
	if (*j->p == '"')
		ret = jp_string(j);
	else if (*j->p == '[')
		ret = jp_container(j, ']');
	else if (*j->p == '{')
		ret = jp_container(j, '}');
	else if (!strncmp(j->p, "null", 4))
		ret = (phyllo_mp_write_nil(j->w), j->p += 4, 0);
	else if (!strncmp(j->p, "true", 4))
		ret = (phyllo_mp_write_bool(j->w, true), j->p += 4, 0);
	else if (!strncmp(j->p, "false", 5))
		ret = (phyllo_mp_write_bool(j->w, false), j->p += 5, 0);
	else
		ret = jp_number(j);
	j->depth--;
	return ret;
}

int json_to_msgpack(const char *text, struct phyllo_mp_writer *w, char *err, size_t errlen)
{
	struct jp j = { .s = text, .p = text, .w = w, .err = err, .errlen = errlen };

	if (jp_value(&j))
		return -1;
	jp_space(&j);
	if (*j.p)
		return jp_fail(&j, "unexpected text after the value");
	if (w->err) {
		snprintf(err, errlen, "document longer than the %u bytes a unit can carry", w->cap);
		return -1;
	}
	return 0;
}

static void json_put_string(FILE *f, const uint8_t *s, uint32_t n)
{
	uint32_t i;

	fputc('"', f);
	for (i = 0; i < n; i++) {
		uint8_t c = s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
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
		fprintf(f, "%.9g", (double)fl);
		break;
	case PHYLLO_MP_F64:
		memcpy(&d, &o.u, sizeof(d));
		fprintf(f, "%.17g", d);
		break;
	case PHYLLO_MP_STR: json_put_string(f, o.data, o.len); break;
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

int json_from_msgpack(struct phyllo_mp_reader *r, FILE *f)
{
	return json_print(r, f, 0);
}
