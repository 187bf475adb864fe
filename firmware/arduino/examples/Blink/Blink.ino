// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Blink - the built-in LED follows the boolean documents published on
 * topic "blink"; every second the sketch publishes its uptime (seconds, a
 * MessagePack uint) on topic "uptime".
 * From a PC: phyllo pub --tty /dev/ttyACM0 blink true
 *            phyllo sub --tty /dev/ttyACM0 uptime
 */
#include <Phyllo.h>

Phyllo link(Serial);
unsigned long nextPublish;

void led(bool on)
{
	digitalWrite(LED_BUILTIN, on ? HIGH : LOW);
}

void setup()
{
	pinMode(LED_BUILTIN, OUTPUT);
	link.begin(115200);
	link.onBlink(led);
	nextPublish = millis() + 1000;
}

void loop()
{
	link.poll();
	if ((long)(millis() - nextPublish) >= 0) {
		link.publish("uptime", millis() / 1000);
		nextPublish += 1000;
	}
}
