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

#endif
