// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * pub.c - `phyllo pub`: a JSON value as a MessagePack document on a topic
 * (pub-sub type 0x40, format 0x11), through libphyllo on /dev/phylloN or
 * on a tty with the protocol in the tool; optionally waits for a reply.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "msgprint.h"
#include "util.h"
#include "phyllo_stack.h"

/* The largest string a document of one string can carry on topic in mtu
 * bytes: MessagePack's str header grows with the length (1, 2, 3 bytes). */
static long pub_string_max(int mtu, size_t topic_len)
{
	long body = (long)mtu - 4 - (long)topic_len, k;

	for (k = body - 1; k > 0; k--)
		if (k + (k < 32 ? 1 : k < 256 ? 2 : 3) <= body)
			return k;
	return 0;
}

/* The document must fit the link: one message for every size, exit 2. */
static void pub_check_size(int n, const char *topic, int mtu, const char *preset)
{
	size_t tl = strlen(topic);
	long room = (long)mtu - 4 - (long)tl;

	if (n <= room)
		return;
	fprintf(stderr, "phyllo pub: the document is %d bytes, more than the %ld a unit of "
		"the %s preset carries on topic '%s' (%d less 4 bytes of headers and %zu of "
		"topic; a string of at most %ld characters fits)\n", n, room < 0 ? 0 : room,
		preset, topic, mtu, tl, pub_string_max(mtu, tl));
	exit(2);
}

/*
 * Publish and wait for the acknowledgement: 0, or 1 after saying why. A
 * named link that is down is waited for (the send waits in libphyllo);
 * a send refused because the session ended meanwhile is sent again.
 */
static int pub_send(struct phyllo *h, const struct small_opts *o, const char *topic,
		    const uint8_t *doc, int n, const struct diag *d)
{
	struct phyllo_status s;
	int ret, tries = 0;

	if (!phyllo_status(h, &s) && s.state == PHYLLO_STATE_DOWN)
		msg_link_event(h, "phyllo pub", dev_name(&o->link), -ENOLINK);
	do
		ret = phyllo_publish_doc(h, topic, PHYLLO_FORMAT_MSGPACK, (uint8_t)o->schema, doc,
					 (size_t)n, o->unreliable ? PHYLLO_MSG_UNRELIABLE : 0);
	while (ret == -ECONNRESET && tries++ < 2 &&
	       !msg_link_event(h, "phyllo pub", dev_name(&o->link), ret));
	if (!ret)
		ret = phyllo_flush(h, (int)o->timeout_s * 1000);
	if (ret == -ETIMEDOUT) {
		fprintf(stderr, "phyllo pub: %s: no acknowledgement within %lu s",
			dev_name(&o->link), o->timeout_s);
		diag_explain(d, h, &o->link, DIAG_ACK, topic);
		return 1;
	}
	if (ret == -ECONNRESET) {
		/* phyllo_flush(): sent, then its session ended unacknowledged */
		fprintf(stderr, "phyllo pub: %s: the session was reset before the far end "
			"acknowledged the unit (it restarted, or its link went down): it may "
			"be lost, and is not sent again\n", dev_name(&o->link));
		return 1;
	}
	if (ret) {
		recv_error(o, ret, "phyllo pub", d, h, DIAG_ACK, topic);
		return 1;
	}
	/* nothing acknowledges minimal and reduced: what did come says more */
	phyllo_dispatch(h);
	if (o->link.tty && o->link.preset != PHYLLO_LIB_STANDARD && diag_other_preset(d, h)) {
		fprintf(stderr, "phyllo pub: %s: sent unacknowledged (--preset %s), and the far "
			"end was probably not listening", dev_name(&o->link),
			util_preset_name((uint8_t)o->link.preset));
		diag_explain(d, h, &o->link, DIAG_ACK, topic);
		return 1;
	}
	return 0;
}

int pub_main(int argc, char **argv)
{
	static const char usage[] = "usage: phyllo pub [-d DEV | --tty TTY] [-b N] [--preset P] "
		"[-s N] [-r] [-u] [-t SECONDS] [-j] TOPIC JSON\n"
		"Publish a JSON value as a MessagePack document on TOPIC (0-15 bytes).\n"
		"Negative numbers need no --: phyllo pub servo -5.\n"
		"  -s, --schema N     the document's schema byte (default 0)\n"
		"  -r, --reply        then wait for one message on TOPIC and print it (a\n"
		"                     reply on stats: the board's counters, by name)\n"
		"  -u, --unreliable   no acknowledgement, no retransmission\n"
		"  -t, --timeout S    seconds to wait for the acknowledgement or reply\n"
		"                     (default 5)\n"
		"  -j, --json         --reply: the reply as one JSON object\n"
		LINK_USAGE;
	struct small_opts o;
	struct phyllo_message m;
	struct phyllo *h;
	struct diag d;
	uint8_t doc[4096];
	char err[160];
	int n, ret, i = small_parse(&o, &argc, &argv, usage, "phyllo pub", "dTbPsrutj");
	const char *topic, *json;

	if (argc - i < 2)
		util_usage_error("phyllo pub", usage, argc == i ? "missing the TOPIC and the JSON "
				 "value" : "missing the JSON value to publish on '%s'", argv[i]);
	if (argc - i > 2)
		util_usage_error("phyllo pub", usage, "one TOPIC and one JSON value; '%s' is one "
				 "too many (quote a value with spaces: '[1, 2]')", argv[i + 2]);
	topic = argv[i];
	json = argv[i + 1];
	if (strlen(topic) > PHYLLO_TOPIC_MAX)
		util_usage_error("phyllo pub", usage, "topic '%s' is longer than %u bytes",
				 topic, PHYLLO_TOPIC_MAX);
	n = phyllo_json_to_msgpack(json, doc, sizeof(doc), err, sizeof(err));
	if (n == -EMSGSIZE)
		n = (int)sizeof(doc);	/* too big for any link: said below */
	else if (n < 0)
		util_usage_error("phyllo pub", usage, "'%s' is not a JSON value: %s", json, err);
	/* before anything is opened: the preset's MTU, or the largest there is */
	pub_check_size(n, topic, o.link.tty ? phyllo_stack_mtu((uint8_t)o.link.preset)
					     : PHYLLO_DATAGRAM_MAX,
		       o.link.tty ? util_preset_name((uint8_t)o.link.preset) : "minimal");
	h = dev_open_link(&o.link, "phyllo pub");
	if (!h)
		return 1;
	if (!o.link.tty) {
		struct phyllo_status s;

		if (!phyllo_status(h, &s) && s.mtu)
			pub_check_size(n, topic, (int)s.mtu, util_preset_name((uint8_t)s.preset));
	}
	diag_begin(&d, h);
	if (!o.reply) {
		ret = pub_send(h, &o, topic, doc, n, &d);
		phyllo_close(h);
		return ret;
	}
	ret = phyllo_request(h, topic, doc, (size_t)n, &m, (int)o.timeout_s * 1000);
	if (!ret)
		print_message(&m, o.json);
	else
		recv_error(&o, ret, "phyllo pub", &d, h, DIAG_REPLY, topic);
	phyllo_close(h);
	return ret ? 1 : 0;
}
