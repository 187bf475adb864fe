// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Echo - a Phyllo peer on the serial port at 115200 baud: documents on
 * topic "echo" come back unchanged; "ping", "blink" and "stats" answer too.
 * Try it from a PC: phyllo peer --client --device /dev/ttyACM0 --window 2
 */
#include <Phyllo.h>

static struct phyllo_node node;

static void serial_write(void *ctx, const uint8_t *buf, uint16_t n)
{
	(void)ctx;
	Serial.write(buf, n);
}

void setup()
{
	Serial.begin(115200);
	phyllo_arduino_begin(&node, serial_write, NULL, NULL, millis());
}

void loop()
{
	while (Serial.available() > 0) {
		uint8_t b = (uint8_t)Serial.read();

		phyllo_node_feed(&node, &b, 1, millis());
	}
	phyllo_node_poll(&node, millis());
}
