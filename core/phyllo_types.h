/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo_types.h - the one platform switch of the protocol core.
 *
 * Every core file includes this header first and nothing else from the
 * platform. In the kernel it maps to <linux/types.h> and <linux/string.h>;
 * everywhere else (host, AVR) to the freestanding C headers; on the AVR it
 * also names flash-resident tables. It holds the documented error codes
 * every core function returns.
 */
#ifndef PHYLLO_TYPES_H
#define PHYLLO_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/export.h>
#include <kunit/visibility.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
/*
 * Build-time limits (PHYLLO_ARQ_WINDOW_MAX, ...) come from -D flags, or from
 * a phyllo_config.h on the include path: the Arduino IDE passes no flags,
 * so a sketch's library copy carries that file instead.
 */
#if defined(__has_include)
#if __has_include("phyllo_config.h")
#include "phyllo_config.h"
#endif
#endif
#endif

/*
 * Constant tables an 8-bit MCU should keep in flash rather than in its
 * scarce RAM: declare them PHYLLO_ROM and read them with phyllo_rom_byte()
 * and phyllo_rom_word().
 *
 * PHYLLO_FAST_AVR: the AVR's hand-written fast paths (the CRC-32 loop)
 * replace the portable C, which stays as their reference in the tests.
 * -DPHYLLO_PORTABLE_ONLY builds the portable code alone.
 */
#ifdef __AVR__
#include <avr/pgmspace.h>
#define PHYLLO_ROM PROGMEM
#define PHYLLO_ROM_IS_FLASH 1
#define phyllo_rom_byte(p) pgm_read_byte(p)
#define phyllo_rom_word(p) pgm_read_word(p)
#ifndef PHYLLO_PORTABLE_ONLY
#define PHYLLO_FAST_AVR 1
#endif
#else
#define PHYLLO_ROM
#define PHYLLO_ROM_IS_FLASH 0
#define phyllo_rom_byte(p) (*(p))
#define phyllo_rom_word(p) (*(p))
#endif
#ifndef PHYLLO_FAST_AVR
#define PHYLLO_FAST_AVR 0
#endif

/*
 * Core functions return int: >= 0 is a count or a value, < 0 one of these.
 * Each glue maps them to its own error reporting in exactly one place.
 */
enum phyllo_err {
	PHYLLO_OK = 0,
	PHYLLO_E_INVAL = -1,     /* bad argument from the caller */
	PHYLLO_E_TOOBIG = -2,    /* payload larger than the preset allows */
	PHYLLO_E_AGAIN = -3,     /* send window full: poll and retry */
	PHYLLO_E_OVERFLOW = -4,  /* chunk longer than the receive buffer */
	PHYLLO_E_FRAMING = -5,   /* COBS code byte past the end, or a zero */
	PHYLLO_E_LENGTH = -6,    /* truncated unit or header length mismatch */
	PHYLLO_E_CRC = -7,       /* validated datagram checksum mismatch */
	PHYLLO_E_TYPE = -8,      /* type byte this preset does not carry */
	PHYLLO_E_FLAGS = -9,     /* reliable-buffer flag we do not implement */
	PHYLLO_E_SEQ = -10,      /* reliable unit out of order (dropped) */
	PHYLLO_E_DUP = -11,      /* reliable unit already delivered */
	PHYLLO_E_ACK = -12,      /* acknowledgment outside the window */
	PHYLLO_E_NOSESSION = -13,/* reliable unit before the handshake */
	PHYLLO_E_HOLD = -14,     /* receiver full: unit left unacknowledged */
	PHYLLO_E_TOPIC = -15,    /* pub-sub topic length byte over 15 */
	PHYLLO_E_MSGPACK = -16,  /* malformed or unsupported MessagePack */
	PHYLLO_E_NOSPACE = -17,  /* caller's output buffer too small */
	PHYLLO_E_EMPTY = -18,    /* empty chunk or unit where one is needed */
};

#define PHYLLO_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * EXPORT_SYMBOL_IF_KUNIT(sym), right after a function (or object) the
 * kernel's KUnit suites call from their own module: the kernel's macro
 * (<kunit/visibility.h>, above); everywhere else it declares nothing and
 * costs nothing.
 */
#ifndef EXPORT_SYMBOL_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(sym) _Static_assert(1, #sym)
#endif

/* Wrapping millisecond clock: true when a is at or after b. */
static inline bool phyllo_time_reached(uint32_t now, uint32_t deadline)
{
	return (int32_t)(now - deadline) >= 0;
}

#endif /* PHYLLO_TYPES_H */
