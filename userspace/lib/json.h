/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * json.h - JSON text to and from MessagePack, for `phyllo pub` and
 * `phyllo sub`: null, booleans, integers, floats (float64), strings,
 * arrays and objects. bin shows as a hex string "0x...", ext is refused.
 */
#ifndef PHYLLO_JSON_H
#define PHYLLO_JSON_H

#include <stdio.h>
#include "phyllo_msgpack.h"

/* Parse one JSON value (and nothing after it but spaces). Returns 0, or -1
 * with a message in err (errlen bytes) naming the offset. */
int phyllo_json_parse(const char *text, struct phyllo_mp_writer *w, char *err, size_t errlen);
/* Print one MessagePack object as JSON. Returns 0 or -1 (malformed). */
int phyllo_json_print(struct phyllo_mp_reader *r, FILE *f);
/* n bytes as a JSON string, quotes included, whatever they hold: C0 and
 * C1 controls, DEL, U+2028 and U+2029 as \uXXXX, each byte that is not
 * part of valid UTF-8 as \ufffd; what is left is valid UTF-8 that no
 * terminal takes for a control. */
void phyllo_json_put_string(FILE *f, const uint8_t *s, size_t n);

#endif
