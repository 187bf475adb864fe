// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Echo500k - the library's Echo example at 500,000 baud, for
 * tests/firmware/run.sh: the burst that showed a clock read once per poll
 * (very large echoes, a pure ACK before each request, 5,000 of them) on
 * the Arduino build. 500 kbaud, not the firmware's 1 Mbaud: at 1 Mbaud
 * the Arduino core's HardwareSerial (a 64-byte receive ring, bytes taken
 * in while the library parses) drops bytes of every 255-byte frame, with
 * or without the clock fix, and no very large echo comes back at all.
 */
#include <Phyllo.h>

Phyllo link(Serial);

void setup()
{
	link.begin(500000);
}

void loop()
{
	link.poll();
}
