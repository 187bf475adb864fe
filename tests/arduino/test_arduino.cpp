// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * test_arduino.cpp - host tests of the Arduino library's C++ layer
 * (firmware/arduino/src, built from its own files under ASan and UBSan,
 * with the stand-in Arduino.h beside this file):
 *  - PhylloWriter: the bytes of every write() overload;
 *  - PhylloReader: each read helper, sticky errors, truncating copies,
 *    counts checked against the bytes left;
 *  - float64 documents read as float32: rounded as the host's own
 *    conversion does, for random and hand-picked bit patterns;
 *  - two Phyllo links joined by in-memory serial lines: the session opens,
 *    subscribe() by prefix, publish() of each value type, a reply from a
 *    callback, the blink hook, the limits (topic length, table size), the
 *    clock read per unit within one poll.
 */
#include <deque>
#include <math.h>
#include "Phyllo.h"
extern "C" {
#include "ptest.h"
}

static unsigned long clock_ms = 1000;

unsigned long millis(void)
{
	return clock_ms;
}

/* ---- PhylloWriter --------------------------------------------------- */

#define EXPECT_BYTES(w, ...) do { \
	static const uint8_t want[] = { __VA_ARGS__ }; \
	PTEST_EXPECT_EQ((w).length(), sizeof(want)); \
	if ((w).length() == sizeof(want)) \
		PTEST_EXPECT_MEM((w).data(), want, sizeof(want)); \
} while (0)

static void writer_encodes_each_type(void)
{
	uint8_t buf[64];
	PhylloWriter w(buf, sizeof(buf));

	w.write(true);
	w.write((signed char)-5);
	w.write((unsigned char)200);
	w.write((short)-300);
	w.write(70000L);
	w.write(-70000L);
	w.write(3000000000UL);
	w.write(5000000000LL);
	w.write(1.5f);
	w.write(2.25);	/* a float64 here; the AVR's double goes out as float32 */
	w.write("hi");
	PTEST_EXPECT(w.ok());
	EXPECT_BYTES(w, 0xc3, 0xfb, 0xcc, 0xc8, 0xd1, 0xfe, 0xd4,
		     0xce, 0x00, 0x01, 0x11, 0x70, 0xd2, 0xff, 0xfe, 0xee, 0x90,
		     0xce, 0xb2, 0xd0, 0x5e, 0x00,
		     0xcf, 0x00, 0x00, 0x00, 0x01, 0x2a, 0x05, 0xf2, 0x00,
		     0xca, 0x3f, 0xc0, 0x00, 0x00,
		     0xcb, 0x40, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		     0xa2, 'h', 'i');
}

static void writer_containers_and_overflow(void)
{
	uint8_t buf[8];
	static const uint8_t bin[3] = { 1, 2, 3 };
	PhylloWriter w(buf, sizeof(buf));

	w.writeMap(1);
	w.write("k");
	w.writeArray(2);
	w.writeNil();
	w.writeBinary(bin, sizeof(bin));
	PTEST_EXPECT(!w.ok());	/* 9 bytes into 8 */

	PhylloWriter v(buf, sizeof(buf));

	v.writeMap(1);
	v.write("k");
	v.writeArray(2);
	v.writeNil();
	v.writeBinary(bin, 1);
	PTEST_EXPECT(v.ok());
	EXPECT_BYTES(v, 0x81, 0xa1, 'k', 0x92, 0xc0, 0xc4, 0x01, 0x01);
}

/* ---- PhylloReader --------------------------------------------------- */

static void reader_reads_each_type(void)
{
	uint8_t buf[96], bin[4];
	static const uint8_t raw[3] = { 7, 8, 9 };
	char s[16];
	PhylloWriter w(buf, sizeof(buf));

	w.writeArray(9);
	w.write(true);
	w.write(-5);
	w.write(200u);
	w.write("hello");
	w.writeBinary(raw, sizeof(raw));
	w.write(1.5f);
	w.write(-2.25);
	w.writeNil();
	w.writeMap(1);
	w.write("a");
	w.write(1);
	PTEST_EXPECT(w.ok());

	PhylloReader r(w.data(), (uint16_t)w.length());

	PTEST_EXPECT_EQ(r.nextType(), PHYLLO_MP_ARRAY);
	PTEST_EXPECT_EQ(r.readArray(), 9);
	PTEST_EXPECT_EQ(r.nextType(), PHYLLO_MP_BOOL);
	PTEST_EXPECT(r.readBool());
	PTEST_EXPECT_EQ(r.readInt(), -5);
	PTEST_EXPECT_EQ(r.readUnsigned(), 200);
	PTEST_EXPECT_EQ(r.readString(s, sizeof(s)), 5);
	PTEST_EXPECT(strcmp(s, "hello") == 0);
	PTEST_EXPECT_EQ(r.readBinary(bin, sizeof(bin)), 3);
	PTEST_EXPECT_MEM(bin, raw, sizeof(raw));
	PTEST_EXPECT(r.readFloat() == 1.5f);
	PTEST_EXPECT(r.readFloat() == -2.25f);
	PTEST_EXPECT(r.readNil());
	PTEST_EXPECT_EQ(r.readMap(), 1);
	PTEST_EXPECT_EQ(r.readString(s, sizeof(s)), 1);
	PTEST_EXPECT(r.readFloat() == 1.0f);	/* an integer read as a float */
	PTEST_EXPECT(r.ok());
	PTEST_EXPECT(r.atEnd());
	PTEST_EXPECT_EQ(r.nextType(), -1);
}

static void reader_errors_are_sticky(void)
{
	static const uint8_t doc[] = { 0xa1, 'x', 0x05, 0xc3 };	/* "x", 5, true */
	PhylloReader r(doc, sizeof(doc));

	PTEST_EXPECT_EQ(r.readInt(), 0);	/* a string is no integer */
	PTEST_EXPECT(!r.ok());
	PTEST_EXPECT_EQ(r.readInt(), 0);	/* nor is anything after it */
	PTEST_EXPECT(!r.readBool());
	PTEST_EXPECT_EQ(r.nextType(), -1);

	static const uint8_t f[] = { 0xca, 0x3f, 0xc0, 0x00, 0x00 };
	PhylloReader g(f, sizeof(f));

	PTEST_EXPECT_EQ(g.readInt(), 0);	/* floats are not truncated */
	PTEST_EXPECT(!g.ok());

	PhylloReader e(doc, 0);

	PTEST_EXPECT(!e.readBool());	/* the end of the body */
	PTEST_EXPECT(!e.ok());

	PhylloReader j(doc, sizeof(doc), 0x50 /* JSON */);

	PTEST_EXPECT(!j.ok());		/* only MessagePack is read */
	PTEST_EXPECT_EQ(j.format(), 0x50);
	PTEST_EXPECT_EQ(j.length(), sizeof(doc));
}

static void reader_integer_ranges(void)
{
	static const uint8_t big[] = { 0xcf, 0x80, 0, 0, 0, 0, 0, 0, 0 };	/* 2^63 */
	static const uint8_t neg[] = { 0xff };					/* -1 */
	PhylloReader a(big, sizeof(big)), b(big, sizeof(big)), c(neg, sizeof(neg));

	PTEST_EXPECT_EQ(a.readInt(), 0);
	PTEST_EXPECT(!a.ok());
	(void)b.readUnsigned();
	PTEST_EXPECT_EQ(b.ok(), ULONG_MAX >= 0x8000000000000000ULL);
	PTEST_EXPECT_EQ(c.readUnsigned(), 0);
	PTEST_EXPECT(!c.ok());
}

static void reader_string_copies_what_fits(void)
{
	static const uint8_t doc[] = { 0xa5, 'h', 'e', 'l', 'l', 'o', 0xa2, 'o', 'k', 0xc4, 3, 1, 2, 3, 0x07 };
	PhylloReader r(doc, sizeof(doc));
	char s[3] = { 'x', 'x', 'x' };
	uint8_t b[2];

	PTEST_EXPECT_EQ(r.readString(s, sizeof(s)), 5);
	PTEST_EXPECT(strcmp(s, "he") == 0);
	PTEST_EXPECT_EQ(r.readString(s, 0), 2);	/* no room at all: skipped */
	PTEST_EXPECT_EQ(r.readBinary(b, sizeof(b)), 3);
	PTEST_EXPECT(b[0] == 1 && b[1] == 2);
	PTEST_EXPECT_EQ(r.readInt(), 7);	/* what follows is still read */
	PTEST_EXPECT(r.ok());
}

static void reader_counts_checked_and_skip(void)
{
	static const uint8_t lying[] = { 0xdc, 0x00, 0x64, 0x01, 0x02 };	/* 100 items? */
	static const uint8_t lying_map[] = { 0x83, 0x01, 0x02, 0x03, 0x04 };	/* 3 pairs? */
	static const uint8_t nested[] = { 0x92, 0x81, 0xa1, 'a', 0x93, 1, 2, 3, 0xc2, 0x2a };
	PhylloReader a(lying, sizeof(lying)), m(lying_map, sizeof(lying_map));
	PhylloReader n(nested, sizeof(nested));

	PTEST_EXPECT_EQ(a.readArray(), 0);
	PTEST_EXPECT(!a.ok());
	PTEST_EXPECT_EQ(m.readMap(), 0);
	PTEST_EXPECT(!m.ok());
	PTEST_EXPECT_EQ(n.readArray(), 2);
	PTEST_EXPECT(n.skip());			/* the whole map, its array inside */
	PTEST_EXPECT(!n.readBool());
	PTEST_EXPECT_EQ(n.readInt(), 42);
	PTEST_EXPECT(n.ok() && n.atEnd());
}

/* ---- float64 read as float32 ---------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* One float64 pattern through a document and readFloat(), against the
 * host's (float) conversion (round to nearest, ties to even). */
static bool f64_reads_as_host(uint64_t bits)
{
	uint8_t buf[9];
	struct phyllo_mp_writer w;
	double d;
	float want, got;
	uint32_t wb, gb;

	phyllo_mp_writer_init(&w, buf, sizeof(buf));
	phyllo_mp_write_f64_bits(&w, bits);
	PhylloReader r(buf, w.len);

	got = r.readFloat();
	memcpy(&d, &bits, sizeof(d));
	want = (float)d;
	memcpy(&wb, &want, sizeof(wb));
	memcpy(&gb, &got, sizeof(gb));
	if (isnan(want))
		return isnan(got) && (wb >> 31) == (gb >> 31);
	return r.ok() && wb == gb;
}

static void f64_rounds_like_the_host(void)
{
	static const uint64_t picked[] = {
		0x0000000000000000ULL, 0x8000000000000000ULL,	/* +-0 */
		0x3ff0000010000000ULL,	/* 1 + 2^-24: a tie, to even (1) */
		0x3ff0000030000000ULL,	/* 1 + 3 * 2^-24: a tie, to even (up) */
		0x3ff0000010000001ULL,	/* just above the tie */
		0x47efffffe0000000ULL,	/* FLT_MAX + half an ulp: infinity */
		0x47efffffdfffffffULL,	/* just below: FLT_MAX */
		0x3810000000000000ULL,	/* FLT_MIN */
		0x380fffffffffffffULL,	/* just below FLT_MIN: rounds to it */
		0x36a0000000000000ULL,	/* 2^-149, the least subnormal */
		0x3690000000000000ULL,	/* 2^-150: a tie, to even (0) */
		0x3690000000000001ULL,	/* just above: the least subnormal */
		0x3698000000000000ULL,	/* 1.5 * 2^-150 */
		0x0000000000000001ULL,	/* a float64 subnormal */
		0x7ff0000000000000ULL, 0xfff0000000000000ULL,	/* +-infinity */
		0x7ff8000000000000ULL, 0x7ff0000000000001ULL,	/* NaNs */
		0xfff4000000000000ULL,
	};
	unsigned int i, bad = 0;

	for (i = 0; i < PHYLLO_ARRAY_SIZE(picked); i++) {
		if (!f64_reads_as_host(picked[i])) {
			ptest_fail(__FILE__, __LINE__, "picked[i] reads as the host's float", (long)i, 0);
			break;
		}
	}
	/* Exponents around the float32 range (subnormals to overflow), and
	 * mantissas with many trailing zeros so ties come up. */
	for (i = 0; i < 200000 && bad < 5; i++) {
		uint64_t r = rng(), m = rng() & 0xfffffffffffffULL;
		uint64_t e = 1023 - 160 + (r % 300);

		if (r & 0x100000000ULL)
			m &= ~0ULL << ((r >> 40) % 53);
		if (!f64_reads_as_host((r & 0x8000000000000000ULL) | e << 52 | m)) {
			ptest_fail(__FILE__, __LINE__, "random f64 reads as the host's float", (long)i, 0);
			bad++;
		}
	}
	for (i = 0; i < 50000 && bad < 5; i++) {
		if (!f64_reads_as_host(rng())) {
			ptest_fail(__FILE__, __LINE__, "any f64 reads as the host's float", (long)i, 0);
			bad++;
		}
	}
}

/* ---- two links on in-memory serial lines ----------------------------- */

/* One end of a serial line, with begin() as a HardwareSerial has. */
class Line : public Stream {
public:
	Line(std::deque<uint8_t> &in, std::deque<uint8_t> &out) : _in(in), _out(out) {}
	void begin(unsigned long b) { baud = b; }
	size_t write(uint8_t b) override
	{
		_out.push_back(b);
		/* a HardwareSerial's write blocks while the line takes it */
		_us += us_per_byte;
		clock_ms += _us / 1000;
		_us %= 1000;
		return 1;
	}
	int available() override { return (int)_in.size(); }
	int read() override
	{
		int c;

		if (_in.empty())
			return -1;
		c = _in.front();
		_in.pop_front();
		return c;
	}
	int peek() override { return _in.empty() ? -1 : _in.front(); }

	unsigned long baud = 0;
	unsigned int us_per_byte = 0;	/* the time each byte written takes */

private:
	std::deque<uint8_t> &_in, &_out;
	unsigned long _us = 0;
};

/* A Stream without begin(). */
class Bare : public Line {
public:
	using Line::Line;
	void begin(unsigned long) = delete;
};

struct Got {
	unsigned int calls;
	char topic[PHYLLO_TOPIC_MAX + 1];
	long i;
	float f;
	char s[16];
	bool ok;
};

static Got got, got_config, got_other;
static int blinks = -1;
static Phyllo *replier;

static void on_servo(const char *topic, PhylloReader &doc)
{
	got.calls++;
	strcpy(got.topic, topic);
	got.i = doc.readInt();
	got.ok = doc.ok() && doc.atEnd();
	if (replier)
		replier->publish("servo/ack", got.i);
}

static void on_config(const char *topic, PhylloReader &doc)
{
	got_config.calls++;
	strcpy(got_config.topic, topic);
	if (doc.nextType() == PHYLLO_MP_STR)
		doc.readString(got_config.s, sizeof(got_config.s));
	else
		got_config.f = doc.readFloat();
	got_config.ok = doc.ok();
}

static void on_other(const char *topic, PhylloReader &doc)
{
	got_other.calls++;
	strcpy(got_other.topic, topic);
	got_other.i = doc.readMap();
	got_other.ok = doc.ok();
	if (got_other.i == 2) {
		doc.readString(got_other.s, sizeof(got_other.s));
		got_other.f = doc.readFloat();
		doc.skip();
		got_other.ok = doc.ok() && doc.readBool() && doc.atEnd();
	}
}

static void on_blink(bool on)
{
	blinks = on;
}

struct Pair {
	std::deque<uint8_t> ab, ba;
	Line la{ba, ab}, lb{ab, ba};
	Phyllo a{la}, b{lb};
};

static void run(Pair &p, unsigned int ms)
{
	while (ms--) {
		clock_ms++;
		p.a.poll();
		p.b.poll();
		p.a.poll();
	}
}

static bool open_pair(Pair &p)
{
	unsigned int i;

	p.a.begin(115200);
	clock_ms += 7;	/* another boot nonce (from the clock on a host) */
	p.b.begin(115200);
	for (i = 0; i < 3000 && !(p.a.connected() && p.b.connected()); i++)
		run(p, 1);
	return p.a.connected() && p.b.connected();
}

static void link_session_opens_and_port_begins(void)
{
	Pair p;

	PTEST_EXPECT(!p.a.connected());
	PTEST_EXPECT(open_pair(p));
	PTEST_EXPECT_EQ(p.la.baud, 115200);
	PTEST_EXPECT_EQ(p.lb.baud, 115200);

	std::deque<uint8_t> x, y;
	Bare bare(x, y);
	Phyllo c(bare);

	c.begin(9600);		/* a plain Stream: nothing to open */
	PTEST_EXPECT_EQ(bare.baud, 0);
}

static void link_subscribe_by_prefix(void)
{
	Pair p;

	got = got_config = got_other = Got();
	PTEST_EXPECT(open_pair(p));
	PTEST_EXPECT(p.b.subscribe("servo", on_servo));
	PTEST_EXPECT(p.b.subscribe("config/", on_config));

	PTEST_EXPECT(p.a.publish("servo", 90));
	run(p, 50);
	PTEST_EXPECT_EQ(got.calls, 1);
	PTEST_EXPECT(strcmp(got.topic, "servo") == 0);
	PTEST_EXPECT_EQ(got.i, 90);
	PTEST_EXPECT(got.ok);

	PTEST_EXPECT(p.a.publish("config/period", 21.5));
	run(p, 50);
	PTEST_EXPECT_EQ(got_config.calls, 1);
	PTEST_EXPECT(strcmp(got_config.topic, "config/period") == 0);
	PTEST_EXPECT(got_config.f == 21.5f);
	PTEST_EXPECT(p.a.publish("config/name", "bench"));
	run(p, 50);
	PTEST_EXPECT_EQ(got_config.calls, 2);
	PTEST_EXPECT(strcmp(got_config.s, "bench") == 0);
	PTEST_EXPECT(got_config.ok);

	/* No subscriber: counted by the node, no callback. */
	uint16_t unserved = p.b.node().unserved;

	PTEST_EXPECT(p.a.publish("conf", 1));
	run(p, 50);
	PTEST_EXPECT_EQ(p.b.node().unserved, unserved + 1);
	PTEST_EXPECT_EQ(got_config.calls, 2);

	/* "" takes every topic; a matching one reaches both subscribers. */
	PTEST_EXPECT(p.b.subscribe("", on_other));
	PTEST_EXPECT(p.a.publish("servo", -3L));
	run(p, 50);
	PTEST_EXPECT_EQ(got.calls, 2);
	PTEST_EXPECT_EQ(got.i, -3);
	PTEST_EXPECT_EQ(got_other.calls, 1);

	PTEST_EXPECT(p.b.unsubscribe("servo"));
	PTEST_EXPECT(!p.b.unsubscribe("servo"));
	PTEST_EXPECT(p.a.publish("servo", 1));
	run(p, 50);
	PTEST_EXPECT_EQ(got.calls, 2);
	PTEST_EXPECT_EQ(got_other.calls, 2);
}

static void link_publish_documents_and_reply(void)
{
	Pair p;
	uint8_t buf[32];
	PhylloWriter doc(buf, sizeof(buf));
	static const uint8_t raw[] = { 0x2a };

	got = got_other = Got();
	PTEST_EXPECT(open_pair(p));
	PTEST_EXPECT(p.b.subscribe("servo", on_servo));
	PTEST_EXPECT(p.a.subscribe("servo/ack", on_other));
	replier = &p.b;
	PTEST_EXPECT(p.a.publish("servo", 45));
	run(p, 50);
	replier = NULL;
	PTEST_EXPECT_EQ(got.calls, 1);
	PTEST_EXPECT_EQ(got_other.calls, 1);	/* the reply sent from the callback */
	PTEST_EXPECT(strcmp(got_other.topic, "servo/ack") == 0);

	got_other = Got();
	PTEST_EXPECT(p.b.subscribe("status", on_other));
	doc.writeMap(2);
	doc.write("temp");
	doc.write(21.5f);
	doc.write("on");
	doc.write(true);
	PTEST_EXPECT(p.a.publish("status", doc));
	run(p, 50);
	PTEST_EXPECT_EQ(got_other.calls, 1);
	PTEST_EXPECT_EQ(got_other.i, 2);
	PTEST_EXPECT(strcmp(got_other.s, "temp") == 0);
	PTEST_EXPECT(got_other.f == 21.5f);
	PTEST_EXPECT(got_other.ok);

	PTEST_EXPECT(p.a.publish("servo", raw, sizeof(raw)));
	run(p, 50);
	PTEST_EXPECT_EQ(got.calls, 2);
	PTEST_EXPECT_EQ(got.i, 42);
}

static void link_blink_and_builtin_topics(void)
{
	Pair p;
	uint16_t pings;

	PTEST_EXPECT(open_pair(p));
	p.b.onBlink(on_blink);
	blinks = -1;
	PTEST_EXPECT(p.a.publish("blink", true));
	run(p, 50);
	PTEST_EXPECT_EQ(blinks, 1);
	PTEST_EXPECT(p.a.publish("blink", false));
	run(p, 50);
	PTEST_EXPECT_EQ(blinks, 0);

	/* ping is answered by b's node; a's node counts the answer as a
	 * ping of its own and answers it, and so on: stop after one. */
	pings = p.b.node().pings;
	PTEST_EXPECT(p.a.publish("ping", 0));
	run(p, 5);
	PTEST_EXPECT(p.b.node().pings > pings);
}

static void link_limits(void)
{
	Pair p;
	unsigned int i;
	uint8_t big[PHYLLO_NODE_REPLY_MAX + 1] = { 0 };

	PTEST_EXPECT(open_pair(p));
	PTEST_EXPECT(!p.a.publish("sixteen-letters!", 1));
	PTEST_EXPECT_EQ(p.a.lastError(), PHYLLO_E_TOPIC);
	PTEST_EXPECT(!p.a.publish("t", big, sizeof(big)));
	PTEST_EXPECT_EQ(p.a.lastError(), PHYLLO_E_TOOBIG);
	PTEST_EXPECT(p.a.publish("fifteen-letters", 1));
	PTEST_EXPECT_EQ(p.a.lastError(), 0);
	PTEST_EXPECT(!p.a.subscribe("sixteen-letters!", on_other));
	for (i = 0; i < PHYLLO_SUBSCRIPTIONS_MAX; i++)
		PTEST_EXPECT(p.a.subscribe("x", on_other));
	PTEST_EXPECT(!p.a.subscribe("y", on_other));

	/* The window fills while the peer is not polled: AGAIN, then room
	 * again once it is. */
	for (i = 0; i < 64 && p.a.publish("t", i); i++)
		;
	PTEST_EXPECT_EQ(p.a.lastError(), PHYLLO_E_AGAIN);
	PTEST_EXPECT(i >= 1 && i < 64);
	run(p, 200);
	PTEST_EXPECT(p.a.publish("t", 1));
}

/*
 * Two requests wait in the board's input and one poll answers both, each
 * reply's write taking 1 ms a byte: the second request must be taken in
 * at the time after the first reply went out, not at the poll's start
 * (one millis() for a whole poll stamped it, and its reply, early: the
 * reliable layer's deadlines drifted early, as the firmware's did until
 * dd3b60c).
 */
static void link_poll_reads_the_clock_per_unit(void)
{
	Pair p;
	unsigned long t0;
	uint16_t later;

	PTEST_EXPECT(open_pair(p));
	run(p, 100);		/* nothing owed either way */
	PTEST_EXPECT(p.a.publish("echo", 1));
	PTEST_EXPECT(p.a.publish("echo", 2));
	PTEST_EXPECT(p.ab.size() > 20);
	p.lb.us_per_byte = 1000;
	t0 = clock_ms;
	p.b.poll();
	p.lb.us_per_byte = 0;
	PTEST_EXPECT(clock_ms - t0 >= 20);	/* two replies written */
	later = (uint16_t)(p.b.node().stack.arq.rx_time - (uint16_t)t0);
	PTEST_EXPECT(later >= 10);		/* after the first reply, at least */
	PTEST_EXPECT(later < clock_ms - t0);	/* before the second */
	run(p, 200);
	PTEST_EXPECT_EQ(p.b.node().stack.stats.tx_retransmits, 0);
}

static const struct ptest_case cases[] = {
	PTEST_CASE(writer_encodes_each_type),
	PTEST_CASE(writer_containers_and_overflow),
	PTEST_CASE(reader_reads_each_type),
	PTEST_CASE(reader_errors_are_sticky),
	PTEST_CASE(reader_integer_ranges),
	PTEST_CASE(reader_string_copies_what_fits),
	PTEST_CASE(reader_counts_checked_and_skip),
	PTEST_CASE(f64_rounds_like_the_host),
	PTEST_CASE(link_session_opens_and_port_begins),
	PTEST_CASE(link_subscribe_by_prefix),
	PTEST_CASE(link_publish_documents_and_reply),
	PTEST_CASE(link_blink_and_builtin_topics),
	PTEST_CASE(link_limits),
	PTEST_CASE(link_poll_reads_the_clock_per_unit),
};

static PTEST_SUITE(suite, "phyllo_arduino", cases);

int main(void)
{
	static const struct ptest_suite *const suites[] = { &suite };

	return ptest_run(suites, 1) ? 1 : 0;
}
