/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo_config.h - build-time sizes for the Arduino library; edit them
 * here (or in the library's copy), the IDE has no other place for them.
 *
 * The Arduino IDE passes no -D flags to a library; the core's
 * phyllo_types.h includes the phyllo_config.h it finds on the include path
 * (the library's src/), before any default is set.
 * A reliable-window slot costs ~245 bytes: two fit an Uno beside the
 * HardwareSerial buffers; boards with more RAM may raise it (1..64).
 */
#ifndef PHYLLO_CONFIG_H
#define PHYLLO_CONFIG_H

#ifndef PHYLLO_ARQ_WINDOW_MAX
#if defined(__AVR_ATmega328P__) || defined(__AVR_ATmega168__)
#define PHYLLO_ARQ_WINDOW_MAX 2
#else
#define PHYLLO_ARQ_WINDOW_MAX 4
#endif
#endif

/* Subscriptions the Phyllo class keeps (Phyllo.h): 4 bytes each on the
 * AVR (1..32). */
#ifndef PHYLLO_SUBSCRIPTIONS_MAX
#define PHYLLO_SUBSCRIPTIONS_MAX 8
#endif

#endif /* PHYLLO_CONFIG_H */
