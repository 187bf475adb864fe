/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo_arduino_config.h - build-time sizes for the Arduino library.
 *
 * The Arduino IDE passes no -D flags to a library, so `make arduino-zip`
 * makes the packaged phyllo_arq.h include this file before its defaults.
 * A reliable-window slot costs ~245 bytes: two fit an Uno beside the
 * HardwareSerial buffers; boards with more RAM may raise it (1..64).
 */
#ifndef PHYLLO_ARDUINO_CONFIG_H
#define PHYLLO_ARDUINO_CONFIG_H

#ifndef PHYLLO_ARQ_WINDOW_MAX
#if defined(__AVR_ATmega328P__) || defined(__AVR_ATmega168__)
#define PHYLLO_ARQ_WINDOW_MAX 2
#else
#define PHYLLO_ARQ_WINDOW_MAX 4
#endif
#endif

#endif /* PHYLLO_ARDUINO_CONFIG_H */
