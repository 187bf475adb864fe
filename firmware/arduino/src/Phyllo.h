/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Phyllo.h - a Phyllo link on a serial port, in the Arduino style:
 *
 *   Phyllo link(Serial);
 *
 *   void onServo(const char *topic, PhylloReader &doc) { angle = doc.readInt(); }
 *   void setup() { link.begin(115200); link.subscribe("servo", onServo); }
 *   void loop()  { link.poll(); ... link.publish("temp", 21.5); }
 *
 * Contract:
 *  - one Phyllo object per port, usually a global; it holds the whole
 *    protocol stack (about 1 KB on an Uno), nothing is allocated;
 *  - begin(baud) opens the port (when it has a begin(), as Serial, Serial1
 *    and SoftwareSerial do) and starts the session; the host's tool or
 *    library connects whenever it likes;
 *  - poll() in every loop(), with no long delay() between calls: it takes
 *    the bytes that arrived, calls the subscribers and runs the timers;
 *  - subscribe(prefix, callback): the callback gets every document whose
 *    topic starts with prefix, with a PhylloReader positioned on its body;
 *    it runs inside poll() and may publish (one reply always has room);
 *  - publish(topic, value) sends a MessagePack document reliably; false
 *    when it could not (lastError(): PHYLLO_E_AGAIN while the send window
 *    is full - poll() and try again - or PHYLLO_E_TOOBIG, PHYLLO_E_TOPIC);
 *  - topics are 1..15 bytes; "echo", "ping", "blink" and "stats" are
 *    answered by the library itself (onBlink() for the blink topic).
 * The C API underneath (phyllo_arduino.h) is available to C sketches too.
 */
#ifndef PHYLLO_H
#define PHYLLO_H

#include "phyllo_arduino.h"
#include "phyllo_config.h"

#ifdef __cplusplus
#include <Arduino.h>
#include <limits.h>

#if PHYLLO_SUBSCRIPTIONS_MAX < 1 || PHYLLO_SUBSCRIPTIONS_MAX > 32
#error "PHYLLO_SUBSCRIPTIONS_MAX must be 1..32"
#endif

/*
 * Reads one received MessagePack document, value after value. Errors are
 * sticky: after a wrong type, a value out of range or the end of the body,
 * every read returns 0 (false, "") and ok() is false.
 * readFloat() takes integers too; readInt() does not take floats.
 * readString() and readBinary() copy what fits into the caller's buffer
 * (strings NUL-terminated), skip the rest and return the full length.
 * readArray() and readMap() return the count of items (pairs) that follow.
 */
class PhylloReader {
public:
	PhylloReader(const uint8_t *body, uint16_t len,
		     uint8_t format = PHYLLO_FORMAT_MSGPACK,
		     uint8_t schema = PHYLLO_SCHEMA_NONE);

	/* PHYLLO_MP_NIL, _BOOL, _UINT, _INT, _F32, _F64, _STR, _BIN, _ARRAY or
	 * _MAP for the next value, or -1 at the end or after an error. */
	int nextType() const;
	bool readBool();
	long readInt();
	unsigned long readUnsigned();
	float readFloat();
	size_t readString(char *buf, size_t size);
	size_t readBinary(uint8_t *buf, size_t size);
	uint16_t readArray();
	uint16_t readMap();
	bool readNil();
	/* Skip one value, a whole array or map included. */
	bool skip();

	bool ok() const { return !_err; }
	bool atEnd() const { return _r.pos >= _r.len; }
	uint8_t format() const { return _format; }
	uint8_t schema() const { return _schema; }
	const uint8_t *data() const { return _r.buf; }
	uint16_t length() const { return _r.len; }

private:
	bool next(struct phyllo_mp_obj &o, uint8_t kind);
	bool number(struct phyllo_mp_obj &o);
	size_t bytes(uint8_t kind, uint8_t *buf, size_t size, bool text);

	struct phyllo_mp_reader _r;
	uint8_t _format;
	uint8_t _schema;
	bool _err;
};

/*
 * Builds a MessagePack document into the caller's buffer, for publish().
 * write() takes bool, every integer type, float, double (a float32 on the
 * AVR, whose double is a float) and C strings; anything else (a pointer,
 * a String, an enum) is refused at compile time rather than silently
 * turned into a bool or an int. Errors are sticky: ok() is false once a
 * value did not fit.
 */
class PhylloWriter {
public:
	PhylloWriter(uint8_t *buf, size_t size);

	void write(bool v) { phyllo_mp_write_bool(&_w, v); }
	void write(char v) { write((int)v); }
	void write(signed char v) { write((int)v); }
	void write(unsigned char v) { write((unsigned int)v); }
	void write(short v) { write((int)v); }
	void write(unsigned short v) { write((unsigned int)v); }
	void write(int v) { phyllo_mp_write_i32(&_w, v); }
	void write(unsigned int v) { phyllo_mp_write_u32(&_w, v); }
	void write(long v);
	void write(unsigned long v);
	void write(long long v) { phyllo_mp_write_int(&_w, v); }
	void write(unsigned long long v) { phyllo_mp_write_uint(&_w, v); }
	void write(float v);
	void write(double v);
	void write(const char *s) { writeString(s, strlen(s)); }
	void write(char *s) { write((const char *)s); }
	template <class T> void write(T) = delete;

	void writeString(const char *s, size_t n);
	void writeBinary(const uint8_t *p, size_t n);
	void writeNil() { phyllo_mp_write_nil(&_w); }
	void writeArray(uint16_t n) { phyllo_mp_write_array(&_w, n); }
	void writeMap(uint16_t n) { phyllo_mp_write_map(&_w, n); }

	bool ok() const { return !_w.err; }
	const uint8_t *data() const { return _w.buf; }
	size_t length() const { return _w.len; }

private:
	friend class Phyllo;
	PhylloWriter() {}

	struct phyllo_mp_writer _w;
};

typedef void (*PhylloCallback)(const char *topic, PhylloReader &doc);

class Phyllo {
public:
	/* Any Stream; begin() then only starts the session. */
	explicit Phyllo(Stream &io);
	/* A port with begin(baud) (HardwareSerial, the Micro's USB Serial_,
	 * SoftwareSerial): begin() opens it too. */
	template <class Port, class = decltype(static_cast<Stream *>(static_cast<Port *>(nullptr)),
					       static_cast<Port *>(nullptr)->begin(0UL))>
	explicit Phyllo(Port &port) : Phyllo(static_cast<Stream &>(port))
	{
		_open = &openPort<Port>;
	}
	Phyllo(const Phyllo &) = delete;
	Phyllo &operator=(const Phyllo &) = delete;

	/* baud also sets the shortest retransmission timeout: the time a
	 * largest frame takes on the line. */
	void begin(unsigned long baud);
	void poll();

	/* False when the table (PHYLLO_SUBSCRIPTIONS_MAX) is full or the prefix
	 * is longer than a topic. The prefix is kept, not copied: pass a string
	 * that lives as long as the subscription (a literal). "" takes all. */
	bool subscribe(const char *prefix, PhylloCallback callback);
	/* Removes every subscription with this prefix; false if there was none. */
	bool unsubscribe(const char *prefix);
	/* Called with the boolean documents published on "blink". */
	void onBlink(void (*callback)(bool on)) { _blink = callback; }

	template <class T>
	bool publish(const char *topic, T value, uint8_t schema = PHYLLO_SCHEMA_NONE)
	{
		uint8_t buf[PHYLLO_NODE_REPLY_MAX];
		PhylloWriter doc;

		if (!publishBegin(buf, sizeof(buf), topic, schema, doc))
			return false;
		doc.write(value);
		return publishEnd(buf, doc);
	}
	bool publish(const char *topic, const PhylloWriter &doc,
		     uint8_t schema = PHYLLO_SCHEMA_NONE);
	/* A body already in MessagePack. */
	bool publish(const char *topic, const uint8_t *body, size_t len,
		     uint8_t schema = PHYLLO_SCHEMA_NONE);
	bool publish(const char *topic, uint8_t *body, size_t len,
		     uint8_t schema = PHYLLO_SCHEMA_NONE)
	{
		return publish(topic, (const uint8_t *)body, len, schema);
	}

	/* 0 or the negative enum phyllo_err of the last failed publish(). */
	int lastError() const { return _err; }
	/* True while a session with the host is open. */
	bool connected() const;
	const struct phyllo_stats &stats() const { return _node.stack.stats; }
	/* The C API's node, for phyllo_node_*() calls. */
	struct phyllo_node &node() { return _node; }

private:
	struct Subscription {
		const char *prefix;
		PhylloCallback callback;
	};

	template <class Port>
	static void openPort(Stream &io, unsigned long baud)
	{
		static_cast<Port &>(io).begin(baud);
	}
	static void writeOut(void *ctx, const uint8_t *buf, uint16_t n);
	static void ledHook(void *ctx, bool on);
	static void messageHook(void *ctx, struct phyllo_node *nd,
				const struct phyllo_pubsub *m, uint32_t now_ms);
	bool publishBegin(uint8_t *buf, uint16_t cap, const char *topic,
			  uint8_t schema, PhylloWriter &doc);
	bool publishEnd(const uint8_t *buf, const PhylloWriter &doc);
	bool result(int err);

	struct phyllo_node _node;
	Stream *_io;
	void (*_open)(Stream &io, unsigned long baud);
	void (*_blink)(bool on);
	Subscription _subs[PHYLLO_SUBSCRIPTIONS_MAX];
	uint8_t _nsubs;
	int _err;
};

#endif /* __cplusplus */

#endif /* PHYLLO_H */
