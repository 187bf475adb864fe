// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * fuzz_stack_out.c - frames into and out of the stacks under test.
 *
 * Frames in are built with the core's own encoders (as stack_emit does),
 * so they pass the CRC and reach the reliable layer in every state.
 * Frames out are checked at the end of each call: the bytes a node wrote
 * must be whole frames (00 COBS 00, nothing cut), each decoding to a
 * datagram, a validated datagram with the right CRC (fuzz_crc32, not the
 * core's) and a reliable buffer with only the flags we send; SYNs carry
 * our window and nonce, RSTs both nonces; an ACK names what was taken;
 * data carries our application's units whole, with
 * seq and unit number moving together within a session.
 */
#include "fuzz_stack.h"
#include "phyllo_cobs.h"

bool fz_trace;

static uint8_t fz_fill_byte(const struct fz_tag *t, uint16_t i)
{
	return (uint8_t)(t->k * 31u + i * 7u + t->kind + t->epoch * 13u);
}

void fz_tag_fill(uint8_t *p, uint16_t len, const struct fz_tag *t)
{
	uint16_t i;

	p[0] = t->kind;
	p[1] = t->reliable;
	p[2] = (uint8_t)(t->epoch >> 8);
	p[3] = (uint8_t)t->epoch;
	p[4] = (uint8_t)(t->k >> 24);
	p[5] = (uint8_t)(t->k >> 16);
	p[6] = (uint8_t)(t->k >> 8);
	p[7] = (uint8_t)t->k;
	for (i = FZ_TAG_LEN; i < len; i++)
		p[i] = fz_fill_byte(t, i);
}

/* True when p[0..len) is a whole tagged unit. */
bool fz_tag_read(const uint8_t *p, uint16_t len, struct fz_tag *t)
{
	uint16_t i;

	if (len < FZ_TAG_LEN || p[1] > 1)
		return false;
	t->kind = p[0];
	t->reliable = p[1];
	t->epoch = (uint16_t)(p[2] << 8 | p[3]);
	t->k = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];
	for (i = FZ_TAG_LEN; i < len; i++)
		if (p[i] != fz_fill_byte(t, i))
			return false;
	return true;
}

struct fz_buf {
	uint8_t *p;
	uint16_t len;
};

static void fz_buf_write(void *ctx, const uint8_t *buf, uint16_t n)
{
	struct fz_buf *b = ctx;

	memcpy(b->p + b->len, buf, n);
	b->len += n;
}

uint16_t fz_frame_build(uint8_t *out, const struct fz_frame *f)
{
	uint8_t hdr[PHYLLO_DATAGRAM_HDR + PHYLLO_VALIDATED_HDR + PHYLLO_RELIABLE_HDR + 1 + 8];
	uint8_t *pre = hdr + PHYLLO_DATAGRAM_HDR + PHYLLO_VALIDATED_HDR, npre = 4, i;
	struct fz_buf b = { out, 0 };
	const struct phyllo_out sink = { fz_buf_write, &b };
	uint16_t nb = f->nb;

	pre[0] = f->seq;
	pre[1] = f->ack;
	pre[2] = f->flags;
	pre[3] = f->type;
	if (f->flags & PHYLLO_FLAG_EXT) {
		pre[npre++] = f->ext_decl;
		for (i = 0; i < f->next && i < 8; i++)
			pre[npre++] = (uint8_t)(0xe0 + i);
	}
	if (npre + nb > PHYLLO_VALIDATED_MAX)
		nb = PHYLLO_VALIDATED_MAX - npre;
	FUZZ_CHECK(phyllo_validated_header(hdr + 2, PHYLLO_TYPE_RELIABLE, npre, f->body, nb) ==
				   PHYLLO_VALIDATED_HDR &&
			   phyllo_datagram_header(hdr, PHYLLO_TYPE_VALIDATED,
						  PHYLLO_VALIDATED_HDR + npre + nb) == 2,
		   "building a frame of %u + %u bytes", npre, nb);
	out[b.len++] = PHYLLO_DELIMITER;
	phyllo_cobs_write(&sink, hdr, (uint16_t)(7 + npre), f->body, nb);
	out[b.len++] = PHYLLO_DELIMITER;
	return b.len;
}

void fz_sink(void *ctx, const uint8_t *buf, uint16_t n)
{
	struct fz_node *nd = ctx;

	FUZZ_CHECK(nd->call_len + n <= nd->call_max,
		   "node %c wrote more than %u bytes in one %s (tx_sent %u, frames so far %u)",
		   nd->name, nd->call_max, nd->call_what, nd->st.arq.tx_sent,
		   nd->st.stats.tx_frames);
	memcpy(nd->call + nd->call_len, buf, n);
	nd->call_len += n;
}

void fz_call_begin(struct fz_node *nd, const char *what, uint16_t max)
{
	const struct phyllo_arq *a = &nd->st.arq;

	nd->call_len = 0;
	nd->call_max = max;
	nd->call_what = what;
	nd->nonce_before = a->local_nonce;
	nd->sessions_before = nd->st.stats.sessions;
	nd->retired_before = a->tx_retired_total;
	nd->open_before = a->state == PHYLLO_ARQ_OPEN;
	/* Sessions open only in receive, which writes nothing: a call that
	 * writes data belongs to one session. */
	if (nd->st.stats.sessions != nd->tx_sessions) {
		nd->tx_sessions = nd->st.stats.sessions;
		nd->tx_off_known = false;
	}
}

/* PHYLLO_EV_* of the call against what changed during it. */
static void fz_check_events(struct fz_node *nd)
{
	const struct phyllo_arq *a = &nd->st.arq;
	uint8_t ev = phyllo_stack_take_events(&nd->st);
	bool opened = nd->st.stats.sessions != nd->sessions_before;
	bool ended = nd->open_before && (opened || a->state != PHYLLO_ARQ_OPEN);
	bool retired = a->tx_retired_total != nd->retired_before;

	FUZZ_CHECK(!(ev & PHYLLO_EV_OPEN) == !opened, "node %c: EV_OPEN %u, sessions %u -> %u",
		   nd->name, ev & PHYLLO_EV_OPEN, nd->sessions_before, nd->st.stats.sessions);
	FUZZ_CHECK((!ended || (ev & PHYLLO_EV_RESET)) &&
			   (!(ev & PHYLLO_EV_RESET) || nd->open_before || opened),
		   "node %c: EV_RESET %u, open before %u, after %u, sessions %u -> %u", nd->name,
		   ev & PHYLLO_EV_RESET, nd->open_before, a->state == PHYLLO_ARQ_OPEN,
		   nd->sessions_before, nd->st.stats.sessions);
	FUZZ_CHECK(!(ev & PHYLLO_EV_ROOM) == !retired, "node %c: EV_ROOM %u, retired %u -> %u",
		   nd->name, ev & PHYLLO_EV_ROOM, nd->retired_before, a->tx_retired_total);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A SYN or SYN|ACK of ours: our window, a nonce we had during the call. */
static void fz_check_syn(struct fz_node *nd, const uint8_t *r, const uint8_t *body, uint16_t nb)
{
	bool ack = r[2] & PHYLLO_FLAG_ACK;
	uint32_t nonce = nb >= 5 ? be32(body + 1) : 0;

	FUZZ_CHECK(r[3] == PHYLLO_TYPE_CONTROL && nb == (ack ? 9 : 5) && body[0] == nd->win &&
			   nonce - nd->nonce_before <= nd->st.arq.local_nonce - nd->nonce_before &&
			   r[0] == (uint8_t)nonce,
		   "node %c sent a bad SYN: flags %#x, %u bytes, window %u, nonce %#x", nd->name,
		   r[2], nb, nb ? body[0] : 0, nonce);
}

/* RST: NOS (ACK in a session), type 0x00, the nonce we are giving up and the peer's. */
static void fz_check_rst(struct fz_node *nd, const uint8_t *r, const uint8_t *body, uint16_t nb)
{
	const struct phyllo_arq *a = &nd->st.arq;

	FUZZ_CHECK((r[2] & ~PHYLLO_FLAG_ACK) == (PHYLLO_FLAG_NOS | PHYLLO_FLAG_RST) &&
			   r[3] == PHYLLO_TYPE_CONTROL &&
			   nb == 8 && be32(body) - nd->nonce_before < a->local_nonce - nd->nonce_before &&
			   be32(body + 4) == a->peer_nonce,
		   "node %c sent a bad RST: flags %#x, type %#x, %u bytes", nd->name, r[2], r[3],
		   nb);
}

/* A unit of our application, whole; data seq follows the unit number. */
static void fz_check_data(struct fz_node *nd, const uint8_t *r, const uint8_t *body, uint16_t nb)
{
	bool nos = r[2] & PHYLLO_FLAG_NOS;
	struct fz_tag t;
	uint8_t off;

	FUZZ_CHECK(r[3] > PHYLLO_TYPE_INTERNAL_MAX && fz_tag_read(body, nb, &t) &&
			   t.kind == nd->name && t.reliable == !nos && t.k < nd->app_next[!nos],
		   "node %c sent a unit that is not one of its application's (type %#x, %u bytes)",
		   nd->name, r[3], nb);
	if (nos)
		return;
	off = (uint8_t)(t.k - r[0]);
	FUZZ_CHECK(!nd->tx_off_known || off == nd->tx_off,
		   "node %c sent unit %u as seq %u; in this session it is seq %u", nd->name, t.k,
		   r[0], (uint8_t)(t.k - nd->tx_off));
	nd->tx_off_known = true;
	nd->tx_off = off;
}

/* One decoded frame of the node's output. */
static void fz_check_frame(struct fz_node *nd, const uint8_t *enc, uint16_t n)
{
	uint8_t f[PHYLLO_FRAME_MAX];
	struct phyllo_unit d, v;
	int len = phyllo_cobs_decode(enc, n, f, sizeof(f));
	uint8_t flags;

	FUZZ_CHECK(len >= 0 && !phyllo_datagram_parse(f, (uint16_t)len, &d) &&
			   d.type == PHYLLO_TYPE_VALIDATED && d.len >= PHYLLO_VALIDATED_HDR &&
			   be32(d.data) == fuzz_crc32(d.data + 4, d.len - 4) &&
			   !phyllo_validated_parse(d.data, d.len, &v) &&
			   v.type == PHYLLO_TYPE_RELIABLE && v.len >= PHYLLO_RELIABLE_HDR,
		   "node %c wrote a frame that does not decode (%u bytes, cobs %d)", nd->name, n,
		   len);
	flags = v.data[2];
	if (fz_trace)
		fprintf(stderr, "  %c> seq %3u ack %3u flags %#04x type %#04x len %u\n", nd->name,
			v.data[0], v.data[1], flags, v.data[3], v.len - 4);
	FUZZ_CHECK(!(flags & (uint8_t)~PHYLLO_FLAGS_KNOWN) && !(flags & PHYLLO_FLAG_EXT),
		   "node %c sent flags %#x", nd->name, flags);
	/* An ACK covers exactly what was taken: never a unit refused or not
	 * yet accepted (no call that writes also receives). */
	FUZZ_CHECK(!(flags & PHYLLO_FLAG_ACK) || (flags & PHYLLO_FLAG_SYN) ||
			   v.data[1] == nd->st.arq.rx_next,
		   "node %c acknowledged up to %u, but expects %u next", nd->name, v.data[1],
		   nd->st.arq.rx_next);
	if (flags & PHYLLO_FLAG_SYN)
		fz_check_syn(nd, v.data, v.data + 4, v.len - 4);
	else if (flags & PHYLLO_FLAG_RST)
		fz_check_rst(nd, v.data, v.data + 4, v.len - 4);
	else if (!(flags & PHYLLO_FLAG_NOS) || v.data[3] > PHYLLO_TYPE_INTERNAL_MAX)
		fz_check_data(nd, v.data, v.data + 4, v.len - 4);
	else
		FUZZ_CHECK(v.len == PHYLLO_RELIABLE_HDR && v.data[3] == PHYLLO_TYPE_CONTROL,
			   "node %c sent a control frame with %u bytes", nd->name, v.len);
}

static void fz_wire_put(struct fz_wire *w, const uint8_t *p, uint16_t n)
{
	if (n > FZ_WIRE_CAP - w->len)
		n = (uint16_t)(FZ_WIRE_CAP - w->len);	/* a full line drops */
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

void fz_call_end(struct fz_node *nd)
{
	uint16_t i = 0;

	while (i < nd->call_len) {
		const uint8_t *z;
		uint16_t n;

		FUZZ_CHECK(nd->call[i] == PHYLLO_DELIMITER && i + 1 < nd->call_len,
			   "node %c output does not start a frame at %u of %u", nd->name, i,
			   nd->call_len);
		z = memchr(nd->call + i + 1, PHYLLO_DELIMITER, nd->call_len - i - 1);
		FUZZ_CHECK(z, "node %c left a partial frame (%u bytes from %u)", nd->name,
			   nd->call_len - i, i);
		n = (uint16_t)(z - nd->call - i - 1);
		FUZZ_CHECK(n > 0 && n <= PHYLLO_CHUNK_MAX, "node %c wrote a %u-byte chunk",
			   nd->name, n);
		fz_check_frame(nd, nd->call + i + 1, n);
		i += n + 2;
	}
	fz_check_events(nd);
	if (nd->to)
		fz_wire_put(nd->to, nd->call, nd->call_len);
	nd->out_total += nd->call_len;
	nd->call_len = 0;
}

void fz_check_node(const struct fz_node *nd, uint64_t elapsed_ms)
{
	const struct phyllo_arq *a = &nd->st.arq;
	uint64_t expiries = elapsed_ms / a->cfg.rto_min_ms + 1;
	uint64_t budget = FZ_OUT_PER_IN_BYTE * nd->in_total + FZ_OUT_PER_SEND(nd->win) * nd->sends +
			  FZ_OUT_PER_EXPIRY(nd->win) * expiries + FZ_OUT_SLACK(nd->win);

	FUZZ_CHECK(a->tx_sent <= a->tx_count && a->tx_count <= nd->win &&
			   a->tx_queued_total - a->tx_retired_total == a->tx_count,
		   "node %c window: sent %u, queued %u, configured %u", nd->name, a->tx_sent,
		   a->tx_count, nd->win);
	FUZZ_CHECK(a->state == PHYLLO_ARQ_OPEN ? a->tx_sent <= nd->limit : a->tx_sent == 0,
		   "node %c has %u units in flight; the peer said %u (state %u)", nd->name,
		   a->tx_sent, nd->limit, a->state);
	FUZZ_CHECK(nd->out_total <= budget,
		   "node %c wrote %llu bytes; bound %llu (%llu in, %llu sends, %llu expiries)",
		   nd->name, (unsigned long long)nd->out_total, (unsigned long long)budget,
		   (unsigned long long)nd->in_total, (unsigned long long)nd->sends,
		   (unsigned long long)expiries);
}
