/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * fw_config.h - build-time choices of the bare firmware, with checked limits.
 *
 * Every value can be overridden with -D on the compiler command line (the
 * firmware.mk builds do so per target). Sizes are fixed here so that the
 * whole RAM budget is static and avr-size tells the truth: there is no heap.
 */
#ifndef PHYLLO_FW_CONFIG_H
#define PHYLLO_FW_CONFIG_H

#include "phyllo_stack.h"

/* Preset of the stack, as enum phyllo_preset (the preprocessor cannot see
 * enum names): 0 minimal, 1 reduced, 2 standard. */
#ifndef PHYLLO_FW_PRESET
#define PHYLLO_FW_PRESET 2
#endif
#if PHYLLO_FW_PRESET < 0 || PHYLLO_FW_PRESET > 2
#error "PHYLLO_FW_PRESET must be 0 (minimal), 1 (reduced) or 2 (standard)"
#endif

/* Application: 1 = pub-sub endpoints (echo, ping, blink, stats),
 * 0 = raw echo of every unit, no application layer. */
#ifndef PHYLLO_FW_APP_PUBSUB
#define PHYLLO_FW_APP_PUBSUB 1
#endif
#if PHYLLO_FW_APP_PUBSUB != 0 && PHYLLO_FW_APP_PUBSUB != 1
#error "PHYLLO_FW_APP_PUBSUB must be 0 or 1"
#endif

/* Line rate, 8N1. 16 MHz divides 1,000,000 exactly; 115200 is 2.1% fast
 * (UBRR 16 with U2X), as on every Arduino. */
#ifndef PHYLLO_FW_BAUD
#define PHYLLO_FW_BAUD 115200UL
#endif
#if PHYLLO_FW_BAUD < 2400 || PHYLLO_FW_BAUD > 2000000
#error "PHYLLO_FW_BAUD must be 2400..2000000"
#endif

/* UART rings, bytes; powers of two so the index wraps with a mask. The
 * receive ring absorbs the line while a frame is being processed or sent;
 * the transmit ring lets the CPU go back to work while a reply drains. */
#ifndef PHYLLO_FW_RX_RING
#define PHYLLO_FW_RX_RING 128
#endif
#ifndef PHYLLO_FW_TX_RING
#define PHYLLO_FW_TX_RING 64
#endif
#if PHYLLO_FW_RX_RING < 16 || PHYLLO_FW_RX_RING > 256 || \
	(PHYLLO_FW_RX_RING & (PHYLLO_FW_RX_RING - 1))
#error "PHYLLO_FW_RX_RING must be a power of two, 16..256"
#endif
#if PHYLLO_FW_TX_RING < 16 || PHYLLO_FW_TX_RING > 256 || \
	(PHYLLO_FW_TX_RING & (PHYLLO_FW_TX_RING - 1))
#error "PHYLLO_FW_TX_RING must be a power of two, 16..256"
#endif

/* Reliable window in use (the storage is PHYLLO_ARQ_WINDOW_MAX units). */
#ifndef PHYLLO_FW_WINDOW
#define PHYLLO_FW_WINDOW PHYLLO_ARQ_WINDOW_MAX
#endif
#if PHYLLO_FW_WINDOW < 1 || PHYLLO_FW_WINDOW > PHYLLO_ARQ_WINDOW_MAX
#error "PHYLLO_FW_WINDOW must be 1..PHYLLO_ARQ_WINDOW_MAX"
#endif

#endif /* PHYLLO_FW_CONFIG_H */
