// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Echo - a Phyllo peer on the serial port at 115200 baud: documents on
 * topic "echo" come back unchanged; "ping", "blink" and "stats" answer too
 * (the library serves them: a sketch has nothing else to do).
 * Try it from a PC: phyllo peer --client --device /dev/ttyACM0 --window 2
 */
#include <Phyllo.h>

Phyllo link(Serial);

void setup()
{
	link.begin(115200);
}

void loop()
{
	link.poll();
}
