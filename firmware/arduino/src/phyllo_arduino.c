// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo_arduino.c - the library's defaults around phyllo_node_init().
 *
 * The sketch keeps the I/O (Serial, millis()); this file only picks the
 * preset and window, so the library shares every other line with the bare
 * firmware in firmware/.
 */
#include "Phyllo.h"

int phyllo_arduino_begin(struct phyllo_node *nd,
			 void (*write)(void *ctx, const uint8_t *buf, uint16_t n),
			 void *ctx, const struct phyllo_node_hooks *hooks,
			 uint32_t now_ms)
{
	struct phyllo_arq_config cfg = PHYLLO_ARQ_CONFIG_DEFAULT;
	struct phyllo_out out = { .write = write, .ctx = ctx };

	cfg.window = PHYLLO_ARQ_WINDOW_MAX < cfg.window ? PHYLLO_ARQ_WINDOW_MAX : cfg.window;
	/* The clock is the only noise a library can count on across boards. */
	return phyllo_node_init(nd, PHYLLO_PRESET_STANDARD, true, &cfg, &out, hooks,
				(uint8_t)now_ms, now_ms);
}
