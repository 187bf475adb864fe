/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Arduino.h - the few Arduino core declarations the Phyllo library uses,
 * for its host tests (test_arduino.cpp): Print, Stream and millis(), with
 * the signatures of the AVR core. The tests define millis() and the
 * streams.
 */
#ifndef PHYLLO_TEST_ARDUINO_H
#define PHYLLO_TEST_ARDUINO_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

unsigned long millis(void);

class Print {
public:
	virtual ~Print() {}
	virtual size_t write(uint8_t b) = 0;
	virtual size_t write(const uint8_t *buf, size_t n)
	{
		size_t done = 0;

		while (n-- && write(*buf++))
			done++;
		return done;
	}
};

class Stream : public Print {
public:
	virtual int available() = 0;
	virtual int read() = 0;
	virtual int peek() = 0;
};

#endif /* PHYLLO_TEST_ARDUINO_H */
