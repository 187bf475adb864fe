// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * PubSub - subscribe to topics, read their MessagePack documents, publish
 * readings. On the serial port at 115200 baud:
 *  - "servo" (an integer, 0..180) sets the pulse width on pin 9: 1 to 2 ms
 *    every 20 ms, the signal a hobby servo follows (with the IDE's Servo
 *    library, servo.write(angle) does the same);
 *  - "config/..." topics (one callback for the prefix): "config/period" is
 *    the time between readings in ms, "config/name" a string sent along;
 *  - every period, "temp" carries the reading of a TMP36 sensor on A0 in
 *    degrees Celsius (a float), and "status" a map of the settings.
 * From a PC:
 *   phyllo pub --tty /dev/ttyACM0 servo 90
 *   phyllo pub --tty /dev/ttyACM0 config/period 500
 *   phyllo sub --tty /dev/ttyACM0 temp
 */
#include <Phyllo.h>

const int SERVO_PIN = 9;

Phyllo link(Serial);
unsigned int servoPulseUs = 1500;
unsigned long servoLastMs;
unsigned long periodMs = 2000;
unsigned long lastReadingMs;
char name[16] = "phyllo";

void onServo(const char *topic, PhylloReader &doc)
{
	long angle = doc.readInt();

	(void)topic;
	if (doc.ok() && angle >= 0 && angle <= 180)
		servoPulseUs = 1000 + (unsigned int)angle * 1000 / 180;
}

void onConfig(const char *topic, PhylloReader &doc)
{
	if (strcmp(topic, "config/period") == 0) {
		long ms = doc.readInt();

		if (doc.ok() && ms >= 100)
			periodMs = ms;
	} else if (strcmp(topic, "config/name") == 0) {
		char buf[sizeof(name)];

		if (doc.readString(buf, sizeof(buf)) < sizeof(buf) && doc.ok())
			strcpy(name, buf);
	}
}

/* One servo pulse every 20 ms, without blocking loop() for longer than
 * the pulse itself. */
void servoUpdate(unsigned long now)
{
	if (now - servoLastMs < 20)
		return;
	servoLastMs = now;
	digitalWrite(SERVO_PIN, HIGH);
	delayMicroseconds(servoPulseUs);
	digitalWrite(SERVO_PIN, LOW);
}

void publishReadings()
{
	float celsius = analogRead(A0) * (5000.0 / 1024) / 10 - 50;
	uint8_t body[48];
	PhylloWriter status(body, sizeof(body));

	link.publish("temp", celsius);

	status.writeMap(3);
	status.write("name");
	status.write(name);
	status.write("period");
	status.write(periodMs);
	status.write("servo_us");
	status.write(servoPulseUs);
	link.publish("status", status);
}

void setup()
{
	pinMode(SERVO_PIN, OUTPUT);
	link.begin(115200);
	link.subscribe("servo", onServo);
	link.subscribe("config/", onConfig);
}

void loop()
{
	unsigned long now = millis();

	link.poll();
	servoUpdate(now);
	if (now - lastReadingMs >= periodMs) {
		lastReadingMs = now;
		publishReadings();
	}
}
