// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * phyllo_stack.c - the conventional presets: chunks in, units out, and
 * units in, frames out. Every receive-path drop is counted here, in one
 * place (stack_count_drop), from the error the layer returned.
 */
#include "phyllo_stack.h"

/* Longest header stack: datagram + validated + reliable. */
#define STACK_HDR_MAX (PHYLLO_DATAGRAM_HDR + PHYLLO_VALIDATED_HDR + PHYLLO_RELIABLE_HDR)

/* The counter a dropped frame's error goes to. */
static uint32_t *stack_drop_counter(struct phyllo_stats *st, int err)
{
	switch (err) {
	case PHYLLO_E_OVERFLOW:
	case PHYLLO_E_NOSPACE:
		return &st->rx_overflow;
	case PHYLLO_E_FRAMING:
		return &st->rx_framing;
	case PHYLLO_E_CRC:
		return &st->rx_crc;
	case PHYLLO_E_TYPE:
		return &st->rx_type;
	case PHYLLO_E_FLAGS:
		return &st->rx_flags;
	case PHYLLO_E_SEQ:
		return &st->rx_seq;
	case PHYLLO_E_DUP:
		return &st->rx_dup;
	case PHYLLO_E_NOSESSION:
		return &st->rx_nosession;
	case PHYLLO_E_HOLD:
		return &st->rx_hold;
	default:		/* PHYLLO_E_LENGTH and anything unforeseen */
		return &st->rx_length;
	}
}

static void stack_count_drop(struct phyllo_stats *st, int err)
{
	(*stack_drop_counter(st, err))++;
}

/* Write one frame: delimiter, COBS(head ++ body), delimiter. */
static void stack_write_frame(struct phyllo_stack *s, const uint8_t *head, uint16_t nh,
			      const uint8_t *body, uint16_t nb)
{
	static const uint8_t delim = PHYLLO_DELIMITER;

	uint16_t bytes;

	s->out.write(s->out.ctx, &delim, 1);
	bytes = 2 + phyllo_cobs_write(&s->out, head, nh, body, nb);
	s->out.write(s->out.ctx, &delim, 1);
	s->stats.tx_bytes += bytes;
	s->stats.tx_frames++;
	PHYLLO_TRACE(s->trace_ctx, PHYLLO_TP_TX_FRAME, bytes, head[0]);
}

/*
 * Wrap type + pre[0..npre) + body in the preset's datagram (and validated
 * datagram) headers and write the frame. pre is the reliable header, if any.
 */
static int stack_emit(struct phyllo_stack *s, uint8_t type, const uint8_t *pre, uint8_t npre,
		      const uint8_t *body, uint16_t nb)
{
	uint8_t hdr[STACK_HDR_MAX];
	uint8_t n = PHYLLO_DATAGRAM_HDR;
	int ret;

	if (s->preset == PHYLLO_PRESET_MINIMAL) {
		ret = phyllo_datagram_header(hdr, type, nb);
	} else {
		uint16_t inner = PHYLLO_VALIDATED_HDR + npre + nb;

		/* pre first: the validated header checksums it in place */
		if (npre)
			memcpy(hdr + n + PHYLLO_VALIDATED_HDR, pre, npre);
		ret = phyllo_datagram_header(hdr, PHYLLO_TYPE_VALIDATED, inner);
		if (ret >= 0)
			ret = phyllo_validated_header(hdr + n, type, npre, body, nb);
		n += PHYLLO_VALIDATED_HDR;
	}
	if (ret < 0)
		return ret;
	stack_write_frame(s, hdr, n + npre, body, nb);
	return 0;
}

/* The reliable layer's sink: its units travel in validated datagrams. */
static void stack_arq_send(void *ctx, const uint8_t *hdr, uint8_t nhdr,
			   const uint8_t *body, uint16_t nbody)
{
	stack_emit(ctx, PHYLLO_TYPE_RELIABLE, hdr, nhdr, body, nbody);
}

int phyllo_stack_init(struct phyllo_stack *s, uint8_t preset,
		      const struct phyllo_arq_config *arq_cfg,
		      const struct phyllo_out *out, uint32_t nonce, uint32_t now_ms)
{
	static const struct phyllo_arq_config def = PHYLLO_ARQ_CONFIG_DEFAULT;
	struct phyllo_arq_link link = { .send = stack_arq_send, .ctx = s };
	int ret = 0;

	if (preset > PHYLLO_PRESET_STANDARD || !out || !out->write)
		return PHYLLO_E_INVAL;
	memset(s, 0, sizeof(*s));
	s->preset = preset;
	s->out = *out;
	phyllo_cobs_rx_init(&s->rx);
	/* Nothing is written here: the first poll sends the SYN, so a glue
	 * can set its trace context (and anything else) first.
	 */
	(void)now_ms;
	if (preset == PHYLLO_PRESET_STANDARD)
		ret = phyllo_arq_init(&s->arq, arq_cfg ? arq_cfg : &def, &link, &s->stats, nonce);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_stack_init);

uint16_t phyllo_stack_mtu(uint8_t preset)
{
	switch (preset) {
	case PHYLLO_PRESET_MINIMAL: return PHYLLO_DATAGRAM_MAX;
	case PHYLLO_PRESET_REDUCED: return PHYLLO_VALIDATED_MAX;
	default:                    return PHYLLO_RELIABLE_MAX;
	}
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_stack_mtu);

/* Climb the preset's layers for one decoded frame. Returns 1 with *u set
 * when the frame carries an application unit, 0 when a layer consumed it,
 * or a negative enum phyllo_err.
 */
static int stack_climb(struct phyllo_stack *s, const uint8_t *frame, uint16_t len,
		       uint32_t now_ms, struct phyllo_unit *u)
{
	struct phyllo_unit v;
	int ret = phyllo_datagram_parse(frame, len, u);

	if (ret < 0 || s->preset == PHYLLO_PRESET_MINIMAL)
		return ret < 0 ? ret : 1;
	if (u->type != PHYLLO_TYPE_VALIDATED)
		return PHYLLO_E_TYPE;
	ret = phyllo_validated_parse(u->data, u->len, &v);
	if (ret < 0)
		return ret;
	if (s->preset == PHYLLO_PRESET_REDUCED) {
		*u = v;
		return 1;
	}
	if (v.type != PHYLLO_TYPE_RELIABLE)
		return PHYLLO_E_TYPE;
	return phyllo_arq_receive(&s->arq, v.data, v.len, now_ms, u);
}

/* One decoded frame (ret 1) or the decoder's error for a chunk (ret < 0):
 * climb and count it. Returns 1 with *u set for the application, else 0.
 */
static int stack_deliver(struct phyllo_stack *s, int ret, const uint8_t *frame, uint16_t len,
			 uint32_t now_ms, struct phyllo_unit *u)
{
	s->stats.rx_frames++;
	if (ret > 0)
		ret = stack_climb(s, frame, len, now_ms, u);
	/* Layer-internal types never reach the application. */
	if (ret == 1 && u->type <= PHYLLO_TYPE_INTERNAL_MAX)
		ret = 0;
	PHYLLO_TRACE(s->trace_ctx, PHYLLO_TP_RX_FRAME, len, ret < 0 ? ret : 0);
	if (ret < 0) {
		stack_count_drop(&s->stats, ret);
		return 0;
	}
	if (ret == 1)
		s->stats.rx_units++;
	return ret;
}

uint16_t phyllo_stack_receive(struct phyllo_stack *s, const uint8_t *buf, uint16_t n,
			      uint32_t now_ms, struct phyllo_unit *unit, bool *got)
{
	uint16_t i = 0, used;
	int ret;

	*got = false;
	while (i < n) {
		ret = phyllo_cobs_rx_feed(&s->rx, buf + i, n - i, &used);
		i += used;
		if (ret && stack_deliver(s, ret, s->rx.buf, s->rx.len, now_ms, unit)) {
			*got = true;
			break;
		}
	}
	s->stats.rx_bytes += i;
	return i;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_stack_receive);

uint16_t phyllo_stack_receive_partial(struct phyllo_stack *s, const uint8_t *buf, uint16_t n)
{
	uint16_t k = phyllo_cobs_rx_take(&s->rx, buf, n);

	s->stats.rx_bytes += k;
	return k;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_stack_receive_partial);

int phyllo_stack_receive_set_aside(struct phyllo_stack *s, uint8_t *dst, uint16_t cap)
{
	int len = phyllo_cobs_rx_take_frame(&s->rx, dst, cap);

	if (len >= 0)
		s->stats.rx_bytes++;	/* the delimiter */
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_stack_receive_set_aside);

int phyllo_stack_receive_frame(struct phyllo_stack *s, const uint8_t *frame, uint16_t len,
			       uint32_t now_ms, struct phyllo_unit *unit)
{
	return stack_deliver(s, 1, frame, len, now_ms, unit);
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_stack_receive_frame);

int phyllo_stack_send(struct phyllo_stack *s, uint8_t type, const uint8_t *data,
		      uint16_t len, bool reliable, uint32_t now_ms)
{
	int ret;

	if (type <= PHYLLO_TYPE_INTERNAL_MAX || (len && !data))
		return PHYLLO_E_INVAL;
	if (len > phyllo_stack_mtu(s->preset))
		return PHYLLO_E_TOOBIG;
	if (s->preset != PHYLLO_PRESET_STANDARD)
		ret = stack_emit(s, type, NULL, 0, data, len);
	else if (reliable)
		ret = phyllo_arq_send(&s->arq, type, data, len, now_ms);
	else
		ret = phyllo_arq_send_unreliable(&s->arq, type, data, len);
	if (ret == 0)
		s->stats.tx_units++;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_stack_send);

uint8_t phyllo_stack_room(const struct phyllo_stack *s)
{
	return s->preset == PHYLLO_PRESET_STANDARD ? phyllo_arq_room(&s->arq) : 255;
}

bool phyllo_stack_idle(const struct phyllo_stack *s)
{
	return s->preset != PHYLLO_PRESET_STANDARD || s->arq.tx_count == 0;
}

uint16_t phyllo_stack_poll(struct phyllo_stack *s, uint32_t now_ms)
{
	return s->preset == PHYLLO_PRESET_STANDARD ? phyllo_arq_poll(&s->arq, now_ms) : 1000;
}
EXPORT_SYMBOL_IF_KUNIT(phyllo_stack_poll);

uint8_t phyllo_stack_take_events(struct phyllo_stack *s)
{
	return s->preset == PHYLLO_PRESET_STANDARD ? phyllo_arq_take_events(&s->arq) : 0;
}

int phyllo_stack_refuse(struct phyllo_stack *s)
{
	int ret = PHYLLO_E_INVAL;

	if (s->preset == PHYLLO_PRESET_STANDARD)
		ret = phyllo_arq_refuse(&s->arq);
	if (ret == 0)
		s->stats.rx_units--;	/* not delivered after all */
	return ret;
}
