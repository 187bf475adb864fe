/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo_arduino.h - the Arduino library's C API: one phyllo node (protocol
 * stack plus the echo, ping, blink and stats endpoints) over any byte
 * stream. Phyllo.h wraps it in the Phyllo class; C and C++ sketches that
 * want the node itself use it directly.
 *
 * Contract:
 *  - the sketch owns a static struct phyllo_node and a write function that
 *    takes every byte it is given (Serial.write blocks until it has);
 *  - phyllo_arduino_begin() once, with millis();
 *  - in loop(): every received byte to phyllo_node_feed(), then
 *    phyllo_node_poll() with millis();
 *  - phyllo_node_publish() sends a MessagePack document on a topic; build
 *    the body with the phyllo_mp_write_*() functions of phyllo_msgpack.h.
 * Nothing is allocated; the node's RAM is the struct (about 1 KB on an Uno).
 */
#ifndef PHYLLO_ARDUINO_H
#define PHYLLO_ARDUINO_H

#ifdef __cplusplus
extern "C" {
#endif

#include "phyllo_node.h"
#include "phyllo_msgpack.h"

/* Standard preset (CRC-32 and Go-Back-N), pub-sub endpoints, the largest
 * window this build stores. hooks may be NULL. Returns 0 or a negative
 * enum phyllo_err. */
int phyllo_arduino_begin(struct phyllo_node *nd,
			 void (*write)(void *ctx, const uint8_t *buf, uint16_t n),
			 void *ctx, const struct phyllo_node_hooks *hooks,
			 uint32_t now_ms);

/* The same for a line of baud bits per second (0: unknown), which sets the
 * shortest retransmission timeout to what a largest frame takes on it. */
int phyllo_arduino_begin_baud(struct phyllo_node *nd, uint32_t baud,
			      void (*write)(void *ctx, const uint8_t *buf, uint16_t n),
			      void *ctx, const struct phyllo_node_hooks *hooks,
			      uint32_t now_ms);

#ifdef __cplusplus
}
#endif

#endif /* PHYLLO_ARDUINO_H */
