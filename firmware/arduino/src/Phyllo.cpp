// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Phyllo.cpp - the Phyllo class (see Phyllo.h): the port's bytes and
 * millis() into the node of phyllo_arduino.h, its unserved topics out to
 * the subscribers. Everything else is the C node and the protocol core.
 */
#include "Phyllo.h"

Phyllo::Phyllo(Stream &io)
	: _io(&io), _open(nullptr), _blink(nullptr), _nsubs(0), _err(0)
{
}

void Phyllo::writeOut(void *ctx, const uint8_t *buf, uint16_t n)
{
	static_cast<Phyllo *>(ctx)->_io->write(buf, n);
}

void Phyllo::ledHook(void *ctx, bool on)
{
	Phyllo *self = static_cast<Phyllo *>(ctx);

	if (self->_blink)
		self->_blink(on);
}

/*
 * A document on a topic the node does not serve: every subscriber whose
 * prefix matches gets it, each with a reader of its own at the start of
 * the body. The topic is copied out to be a C string.
 */
void Phyllo::messageHook(void *ctx, struct phyllo_node *nd,
			 const struct phyllo_pubsub *m, uint32_t now_ms)
{
	Phyllo *self = static_cast<Phyllo *>(ctx);
	char topic[PHYLLO_TOPIC_MAX + 1];
	struct phyllo_doc d;
	bool taken = false;

	(void)now_ms;
	if (phyllo_doc_parse(m->payload, m->len, &d) < 0) {
		nd->unserved++;
		return;
	}
	memcpy(topic, m->topic, m->topic_len);
	topic[m->topic_len] = '\0';
	for (uint8_t i = 0; i < self->_nsubs; i++) {
		const Subscription &s = self->_subs[i];

		if (!phyllo_pubsub_topic_match(m, (const uint8_t *)s.prefix,
					       (uint8_t)strlen(s.prefix)))
			continue;
		PhylloReader doc(d.body, d.len, d.format, d.schema);

		s.callback(topic, doc);
		taken = true;
	}
	if (!taken)
		nd->unserved++;
}

void Phyllo::begin(unsigned long baud)
{
	const struct phyllo_node_hooks hooks = { ledHook, messageHook, this };

	if (_open)
		_open(*_io, baud);
	phyllo_arduino_begin_baud(&_node, baud, writeOut, this, &hooks, millis());
}

/*
 * Takes the bytes that are there now, not those that arrive meanwhile, so
 * a fast sender cannot keep loop() from running; then the timers (the
 * acknowledgements owed for what was just read go out here). The clock is
 * read again before each feed, as the firmware's main loop reads it after
 * each unit it answers: a feed may answer a unit, and the reply's write
 * blocks for as long as the line takes it (milliseconds for a large one),
 * so one time for a whole poll stamped later units and their replies too
 * early (the reliable layer's deadlines early, spurious resends).
 */
void Phyllo::poll()
{
	int avail = _io->available();
	uint8_t buf[16];

	while (avail > 0) {
		uint16_t n = 0, off = 0;

		while (avail > 0 && n < sizeof(buf)) {
			int c = _io->read();

			avail = c < 0 ? 0 : avail - 1;
			if (c >= 0)
				buf[n++] = (uint8_t)c;
		}
		while (off < n) {
			uint16_t used = phyllo_node_feed(&_node, buf + off, n - off, millis());

			if (used == 0)
				break;	/* never: the stack takes a byte per call at least */
			off += used;
		}
	}
	phyllo_node_poll(&_node, millis());
}

bool Phyllo::subscribe(const char *prefix, PhylloCallback callback)
{
	if (_nsubs >= PHYLLO_SUBSCRIPTIONS_MAX || !callback ||
	    strlen(prefix) > PHYLLO_TOPIC_MAX)
		return false;
	_subs[_nsubs].prefix = prefix;
	_subs[_nsubs].callback = callback;
	_nsubs++;
	return true;
}

bool Phyllo::unsubscribe(const char *prefix)
{
	uint8_t kept = 0;

	for (uint8_t i = 0; i < _nsubs; i++) {
		if (strcmp(_subs[i].prefix, prefix) != 0)
			_subs[kept++] = _subs[i];
	}
	if (kept == _nsubs)
		return false;
	_nsubs = kept;
	return true;
}

bool Phyllo::connected() const
{
	return _node.stack.arq.state == PHYLLO_ARQ_OPEN;
}

bool Phyllo::result(int err)
{
	_err = err < 0 ? err : 0;
	return _err == 0;
}

bool Phyllo::publishBegin(uint8_t *buf, uint16_t cap, const char *topic,
			  uint8_t schema, PhylloWriter &doc)
{
	return result(phyllo_node_publish_begin(buf, cap, topic, schema, &doc._w));
}

bool Phyllo::publishEnd(const uint8_t *buf, const PhylloWriter &doc)
{
	return result(phyllo_node_publish_end(&_node, buf, &doc._w, millis()));
}

bool Phyllo::publish(const char *topic, const PhylloWriter &doc, uint8_t schema)
{
	if (!doc.ok())
		return result(PHYLLO_E_TOOBIG);
	return publish(topic, doc.data(), doc.length(), schema);
}

bool Phyllo::publish(const char *topic, const uint8_t *body, size_t len, uint8_t schema)
{
	if (len > PHYLLO_NODE_REPLY_MAX)
		return result(PHYLLO_E_TOOBIG);
	return result(phyllo_node_publish(&_node, topic, schema, body, (uint16_t)len,
					  millis()));
}
