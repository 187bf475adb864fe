// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo_arduino.c - the library's defaults around phyllo_node_init().
 *
 * The sketch keeps the I/O (Serial, millis()); this file only picks the
 * preset and window, so the library shares every other line with the bare
 * firmware in firmware/.
 */
#include "phyllo_arduino.h"

/*
 * The session nonce must differ from the last boot's, or the host takes a
 * restarted board for a repeated handshake. On the AVR: a boot counter in
 * the last four bytes of EEPROM (keep sketches' EEPROM data clear of them).
 */
#ifdef __AVR__
#include <avr/eeprom.h>

static uint32_t boot_nonce(uint32_t now_ms)
{
	uint32_t *const addr = (uint32_t *)(E2END - 3);
	uint32_t n = eeprom_read_dword(addr) + 1;

	(void)now_ms;
	eeprom_update_dword(addr, n);
	return n;
}
#else
static uint32_t boot_nonce(uint32_t now_ms)
{
	return now_ms * 2654435761UL;	/* no EEPROM known: the clock, spread */
}
#endif

int phyllo_arduino_begin_baud(struct phyllo_node *nd, uint32_t baud,
			      void (*write)(void *ctx, const uint8_t *buf, uint16_t n),
			      void *ctx, const struct phyllo_node_hooks *hooks,
			      uint32_t now_ms)
{
	struct phyllo_arq_config cfg = PHYLLO_ARQ_CONFIG_DEFAULT;
	struct phyllo_out out = { .write = write, .ctx = ctx };

	if (baud)
		cfg.line_ms = PHYLLO_LINE_MS(baud);
	return phyllo_node_init(nd, PHYLLO_PRESET_STANDARD, true, &cfg, &out, hooks,
				boot_nonce(now_ms), now_ms);
}

int phyllo_arduino_begin(struct phyllo_node *nd,
			 void (*write)(void *ctx, const uint8_t *buf, uint16_t n),
			 void *ctx, const struct phyllo_node_hooks *hooks,
			 uint32_t now_ms)
{
	return phyllo_arduino_begin_baud(nd, 0, write, ctx, hooks, now_ms);
}
