// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Blink - the built-in LED follows the boolean documents published on
 * topic "blink"; every second the sketch publishes its uptime (seconds, a
 * MessagePack uint) on topic "uptime".
 */
#include <Phyllo.h>

static struct phyllo_node node;
static uint32_t next_publish;

static void serial_write(void *ctx, const uint8_t *buf, uint16_t n)
{
	(void)ctx;
	Serial.write(buf, n);
}

static void led(void *ctx, bool on)
{
	(void)ctx;
	digitalWrite(LED_BUILTIN, on ? HIGH : LOW);
}

static void publish_uptime(uint32_t now)
{
	uint8_t body[8];
	struct phyllo_mp_writer w;

	phyllo_mp_writer_init(&w, body, sizeof(body));
	phyllo_mp_write_uint(&w, now / 1000);
	if (!w.err)
		phyllo_node_publish(&node, "uptime", PHYLLO_SCHEMA_NONE, body, w.len, now);
}

void setup()
{
	static const struct phyllo_node_hooks hooks = { led, NULL, NULL };

	pinMode(LED_BUILTIN, OUTPUT);
	Serial.begin(115200);
	phyllo_arduino_begin(&node, serial_write, NULL, &hooks, millis());
	next_publish = millis() + 1000;
}

void loop()
{
	uint32_t now = millis();

	while (Serial.available() > 0) {
		uint8_t b = (uint8_t)Serial.read();

		phyllo_node_feed(&node, &b, 1, now);
	}
	if ((int32_t)(now - next_publish) >= 0) {
		publish_uptime(now);
		next_publish += 1000;
	}
	phyllo_node_poll(&node, now);
}
