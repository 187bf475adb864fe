// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * fault.c - see fault.h.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "fault.h"
#include "phyllo_wire.h"

#define FAULT_HELD_MAX 64

/*
 * A delayed frame goes out after delay_ms, or as soon as this many later
 * frames in its direction have overtaken it, whichever comes first. The
 * reliable layer's 8-bit sequence numbers survive reordering only while
 * fewer than 256 units pass a late frame (docs/reliable.md); a serial line
 * never reorders at all. A plain 30 ms hold on a fast pty lets a whole lap
 * of sequence numbers by, and the late frame then reads as a new one.
 */
#define FAULT_OVERTAKE_MAX 4

struct held {
	uint32_t due;
	enum fault_dir dir;
	unsigned int overtaken;	/* later frames passed on ahead of it */
	uint16_t n;
	uint8_t b[PHYLLO_WIRE_MAX];
};

struct fault {
	struct fault_cfg cfg;
	fault_emit_fn emit;
	void *ctx;
	uint32_t rng;
	struct fault_counts counts[2];
	struct held held[FAULT_HELD_MAX];
	unsigned int nheld;
};

static uint32_t fault_rand(struct fault *f)
{
	f->rng ^= f->rng << 13;
	f->rng ^= f->rng >> 17;
	f->rng ^= f->rng << 5;
	return f->rng;
}

static int fault_hit(struct fault *f, uint32_t ppm)
{
	return ppm && fault_rand(f) % 1000000u < ppm;
}

struct fault *fault_new(const struct fault_cfg *cfg, fault_emit_fn emit, void *ctx)
{
	struct fault *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->cfg = *cfg;
	f->emit = emit;
	f->ctx = ctx;
	f->rng = cfg->seed ? cfg->seed : 1;
	return f;
}

void fault_free(struct fault *f)
{
	free(f);
}

/* Flip one bit of one chunk byte, choosing a bit that leaves it non-zero. */
static void fault_corrupt(struct fault *f, uint8_t *b, uint16_t n)
{
	uint16_t at = (uint16_t)(1 + fault_rand(f) % (n - 2));
	uint8_t bit = (uint8_t)(1u << (fault_rand(f) % 8));

	if ((b[at] ^ bit) == 0)
		bit = (uint8_t)(bit == 0x80 ? 0x01 : bit << 1);
	b[at] ^= bit;
}

static void fault_hold(struct fault *f, enum fault_dir dir, const uint8_t *b, uint16_t n,
		       uint32_t due)
{
	struct held *h;

	if (f->nheld == FAULT_HELD_MAX || n > PHYLLO_WIRE_MAX) {
		f->emit(f->ctx, dir, b, n);
		return;
	}
	h = &f->held[f->nheld++];
	h->due = due;
	h->dir = dir;
	h->overtaken = 0;
	h->n = n;
	memcpy(h->b, b, n);
}

/* Take held frame i out, keeping the others in the order they were held
 * (so frames due together go out oldest first), then pass it on. Passing
 * a frame on can make the peer send and so reenter fault_frame(): callers
 * rescan afterwards. */
static void fault_pass_held(struct fault *f, unsigned int i)
{
	struct held h = f->held[i];

	f->nheld--;
	memmove(&f->held[i], &f->held[i + 1], (f->nheld - i) * sizeof(f->held[0]));
	f->emit(f->ctx, h.dir, h.b, h.n);
}

/* A new frame went out in dir, ahead of every frame held there. */
static void fault_overtaken(struct fault *f, enum fault_dir dir)
{
	unsigned int i;

	for (i = 0; i < f->nheld; i++)
		if (f->held[i].dir == dir)
			f->held[i].overtaken++;
	i = 0;
	while (i < f->nheld) {
		if (f->held[i].dir == dir && f->held[i].overtaken >= FAULT_OVERTAKE_MAX) {
			fault_pass_held(f, i);
			i = 0;	/* rescan: the array changed */
			continue;
		}
		i++;
	}
}

void fault_frame(struct fault *f, enum fault_dir dir, const uint8_t *frame, uint16_t n,
		 uint32_t now_ms)
{
	struct fault_counts *c = &f->counts[dir];
	uint8_t b[PHYLLO_WIRE_MAX];
	bool sent = false;

	if (!(f->cfg.dirs & (1u << dir)) || n < 3 || n > sizeof(b)) {
		f->emit(f->ctx, dir, frame, n);
		return;
	}
	c->frames++;
	if (fault_hit(f, f->cfg.drop_ppm)) {
		c->dropped++;
		return;
	}
	memcpy(b, frame, n);
	if (fault_hit(f, f->cfg.corrupt_ppm)) {
		fault_corrupt(f, b, n);
		c->corrupted++;
	}
	if (fault_hit(f, f->cfg.delay_ppm)) {
		c->delayed++;
		fault_hold(f, dir, b, n, now_ms + f->cfg.delay_ms);
	} else {
		f->emit(f->ctx, dir, b, n);
		sent = true;
	}
	if (fault_hit(f, f->cfg.dup_ppm)) {
		/* "corrupted" counts corrupted frames delivered: a copy too */
		c->duplicated++;
		c->corrupted += memcmp(b, frame, n) != 0;
		f->emit(f->ctx, dir, b, n);
		sent = true;
	}
	if (sent)
		fault_overtaken(f, dir);
}

uint32_t fault_release(struct fault *f, uint32_t now_ms)
{
	uint32_t next = 1000;
	unsigned int i;

	i = 0;
	while (i < f->nheld) {
		if ((int32_t)(now_ms - f->held[i].due) >= 0) {
			fault_pass_held(f, i);
			i = 0;	/* rescan: the array changed */
			continue;
		}
		i++;
	}
	for (i = 0; i < f->nheld; i++)
		if (f->held[i].due - now_ms < next)
			next = f->held[i].due - now_ms;
	return next;
}

const struct fault_counts *fault_counts(const struct fault *f, enum fault_dir dir)
{
	return &f->counts[dir];
}

static void fault_counts_json(FILE *out, const struct fault_counts *c)
{
	fprintf(out, "{\"frames\":%llu,\"dropped\":%llu,\"corrupted\":%llu,"
		"\"duplicated\":%llu,\"delayed\":%llu}",
		(unsigned long long)c->frames, (unsigned long long)c->dropped,
		(unsigned long long)c->corrupted, (unsigned long long)c->duplicated,
		(unsigned long long)c->delayed);
}

void fault_json(FILE *out, const struct fault *f)
{
	fputs("{\"tx\":", out);
	fault_counts_json(out, &f->counts[FAULT_TX]);
	fputs(",\"rx\":", out);
	fault_counts_json(out, &f->counts[FAULT_RX]);
	fputc('}', out);
}

uint32_t fault_parse_pct(const char *opt, const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0.0 && v <= 100.0)) {
		fprintf(stderr, "phyllo: %s: '%s' is not a percentage from 0 to 100\n", opt, s);
		exit(2);
	}
	return (uint32_t)(v * 10000.0 + 0.5);
}
