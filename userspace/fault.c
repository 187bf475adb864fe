// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * fault.c - see fault.h. Each frame gets its fate (blackout, burst, drop),
 * then its damage, then goes out now, later, or twice; everything passed
 * on goes through fault_pass(), which counts it and chunks it as the
 * receiver will.
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

/* One event in this many aims at the framing (hostile corruption). */
#define FAULT_AIM_ONE_IN 4

enum fault_class { DMG_NONE, DMG_INNER, DMG_SPLIT, DMG_MERGE };

/* What corruption did to one frame (a copy passed on carries it). */
struct damage {
	uint8_t class;		/* enum fault_class */
	uint8_t bits;		/* bits flipped */
	uint8_t zeros;		/* chunk bytes made 0x00 */
	uint8_t delims;		/* zero bytes (delimiters) made non-zero */
};

enum fate { FATE_PASS, FATE_DROP, FATE_CORRUPT };

struct held {
	uint32_t due;
	enum fault_dir dir;
	unsigned int overtaken;	/* later frames passed on ahead of it */
	struct damage dmg;
	uint16_t n;
	uint8_t b[PHYLLO_WIRE_MAX];
};

struct burst {
	unsigned int left;	/* frames still to hit */
	bool drop;		/* drop them, or corrupt them */
};

/* The receiver's view of what was passed on: the chunk under way. */
struct chunker {
	uint32_t run;		/* non-zero bytes since the last zero */
	bool bad;		/* some of them came from a damaged copy */
};

struct fault {
	struct fault_cfg cfg;
	fault_emit_fn emit;
	void *ctx;
	uint32_t rng;
	struct fault_counts counts[2];
	struct burst burst[2];
	struct chunker chunker[2];
	bool blackout;
	uint32_t blackout_end;
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
	if (f->cfg.corrupt_bits > FAULT_BITS_MAX)
		f->cfg.corrupt_bits = FAULT_BITS_MAX;
	if (f->cfg.burst_max < 2)
		f->cfg.burst_max = FAULT_BURST_DEFAULT;
	f->emit = emit;
	f->ctx = ctx;
	f->rng = cfg->seed ? cfg->seed : 1;
	return f;
}

void fault_free(struct fault *f)
{
	free(f);
}

static void fault_count_damage(struct fault_counts *c, const struct damage *d)
{
	if (d->class == DMG_NONE)
		return;
	c->corrupted++;
	c->bits += d->bits;
	c->zeros_made += d->zeros;
	c->delims_hit += d->delims;
	if (d->class == DMG_MERGE)
		c->merge++;
	else if (d->class == DMG_SPLIT)
		c->split++;
	else
		c->inner++;
}

/* Chunk the bytes as the receiver will: a zero ends a non-empty chunk,
 * which is bad if any of its bytes came from a damaged copy. */
static void fault_chunk(struct fault *f, enum fault_dir dir, const uint8_t *b, uint16_t n,
			bool damaged)
{
	struct chunker *k = &f->chunker[dir];
	struct fault_counts *c = &f->counts[dir];
	uint16_t i;

	for (i = 0; i < n; i++) {
		if (b[i]) {
			k->run++;
			k->bad |= damaged;
			continue;
		}
		if (k->run) {
			c->chunks++;
			c->bad_chunks += k->bad;
		}
		k->run = 0;
		k->bad = false;
	}
}

/* Everything passed on comes through here. Passing a frame on can make the
 * peer send and so reenter fault_frame(): count first. */
static void fault_pass(struct fault *f, enum fault_dir dir, const uint8_t *b, uint16_t n,
		       const struct damage *d)
{
	fault_count_damage(&f->counts[dir], d);
	fault_chunk(f, dir, b, n, d->class != DMG_NONE);
	f->emit(f->ctx, dir, b, n);
}

/* Gentle: flip one bit of one chunk byte, choosing a bit that leaves it
 * non-zero. */
static void fault_corrupt_one(struct fault *f, uint8_t *b, uint16_t n, struct damage *d)
{
	uint16_t at = (uint16_t)(1 + fault_rand(f) % (n - 2));
	uint8_t bit = (uint8_t)(1u << (fault_rand(f) % 8));

	if ((b[at] ^ bit) == 0)
		bit = (uint8_t)(bit == 0x80 ? 0x01 : bit << 1);
	b[at] ^= bit;
	*d = (struct damage){ .class = DMG_INNER, .bits = 1 };
}

/* Aim at the framing: one bit of a delimiter, or every set bit of one
 * chunk byte (it becomes 0x00). Returns the bits chosen. */
static unsigned int fault_aim(struct fault *f, const uint8_t *b, uint16_t n, uint8_t *flip)
{
	uint16_t at;

	if (fault_rand(f) & 1) {
		at = (fault_rand(f) & 1) ? (uint16_t)(n - 1) : 0;
		flip[at] = (uint8_t)(1u << (fault_rand(f) % 8));
		return 1;
	}
	at = (uint16_t)(1 + fault_rand(f) % (n - 2));
	flip[at] = b[at];
	return (unsigned int)__builtin_popcount(b[at]);
}

/* Apply the chosen flips and say what they did. */
static void fault_apply(uint8_t *b, uint16_t n, const uint8_t *flip, struct damage *d)
{
	uint16_t i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < n; i++) {
		uint8_t was = b[i];

		if (!flip[i])
			continue;
		b[i] ^= flip[i];
		d->bits = (uint8_t)(d->bits + __builtin_popcount(flip[i]));
		d->zeros += was && !b[i];
		d->delims += !was && b[i];
	}
	d->class = d->delims ? DMG_MERGE : d->zeros ? DMG_SPLIT : DMG_INNER;
}

/* Hostile: 1..corrupt_bits distinct bits anywhere in the frame. */
static void fault_corrupt_bits(struct fault *f, uint8_t *b, uint16_t n, struct damage *d)
{
	uint8_t flip[PHYLLO_WIRE_MAX];
	unsigned int k = 1 + fault_rand(f) % f->cfg.corrupt_bits, used = 0;

	memset(flip, 0, n);
	if (fault_rand(f) % FAULT_AIM_ONE_IN == 0)
		used = fault_aim(f, b, n, flip);
	while (used < k) {
		uint32_t bit = fault_rand(f) % (n * 8u);
		uint8_t m = (uint8_t)(1u << (bit & 7));

		if (flip[bit >> 3] & m)
			continue;
		flip[bit >> 3] |= m;
		used++;
	}
	fault_apply(b, n, flip, d);
}

static void fault_hold(struct fault *f, enum fault_dir dir, const uint8_t *b, uint16_t n,
		       const struct damage *d, uint32_t due)
{
	struct held *h;

	if (f->nheld == FAULT_HELD_MAX) {
		fault_pass(f, dir, b, n, d);
		return;
	}
	h = &f->held[f->nheld++];
	h->due = due;
	h->dir = dir;
	h->overtaken = 0;
	h->dmg = *d;
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
	fault_pass(f, h.dir, h.b, h.n, &h.dmg);
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

/* A blackout under way, or starting with this frame, drops it. */
static enum fate fault_blackout(struct fault *f, struct fault_counts *c, uint32_t now)
{
	if (f->blackout && (int32_t)(now - f->blackout_end) >= 0)
		f->blackout = false;
	if (!f->blackout && fault_hit(f, f->cfg.blackout_ppm)) {
		f->blackout = true;
		f->blackout_end = now + f->cfg.blackout_ms;
		c->blackouts++;
	}
	if (!f->blackout)
		return FATE_PASS;
	c->blackout_dropped++;
	return FATE_DROP;
}

/* A burst under way, or starting with this frame, drops or corrupts it. */
static enum fate fault_burst(struct fault *f, enum fault_dir dir, struct fault_counts *c)
{
	struct burst *b = &f->burst[dir];

	if (!b->left && fault_hit(f, f->cfg.burst_ppm)) {
		b->left = 2 + fault_rand(f) % (f->cfg.burst_max - 1);
		b->drop = fault_rand(f) & 1;
		c->bursts++;
	}
	if (!b->left)
		return FATE_PASS;
	b->left--;
	c->burst_frames++;
	return b->drop ? FATE_DROP : FATE_CORRUPT;
}

static enum fate fault_fate(struct fault *f, enum fault_dir dir, uint32_t now)
{
	struct fault_counts *c = &f->counts[dir];
	enum fate fate = fault_blackout(f, c, now);

	if (fate == FATE_PASS)
		fate = fault_burst(f, dir, c);
	if (fate == FATE_PASS && fault_hit(f, f->cfg.drop_ppm))
		fate = FATE_DROP;
	if (fate == FATE_PASS && fault_hit(f, f->cfg.corrupt_ppm))
		fate = FATE_CORRUPT;
	return fate;
}

void fault_frame(struct fault *f, enum fault_dir dir, const uint8_t *frame, uint16_t n,
		 uint32_t now_ms)
{
	struct fault_counts *c = &f->counts[dir];
	struct damage d = { 0 };
	uint8_t b[PHYLLO_WIRE_MAX];
	enum fate fate;
	bool sent = false;

	if (!(f->cfg.dirs & (1u << dir)) || n < 3 || n > sizeof(b)) {
		fault_pass(f, dir, frame, n, &d);
		return;
	}
	c->frames++;
	fate = fault_fate(f, dir, now_ms);
	if (fate == FATE_DROP) {
		c->dropped++;
		return;
	}
	memcpy(b, frame, n);
	if (fate == FATE_CORRUPT && f->cfg.corrupt_bits)
		fault_corrupt_bits(f, b, n, &d);
	else if (fate == FATE_CORRUPT)
		fault_corrupt_one(f, b, n, &d);
	if (fault_hit(f, f->cfg.delay_ppm)) {
		c->delayed++;
		fault_hold(f, dir, b, n, &d, now_ms + f->cfg.delay_ms);
	} else {
		fault_pass(f, dir, b, n, &d);
		sent = true;
	}
	if (fault_hit(f, f->cfg.dup_ppm)) {
		c->duplicated++;
		fault_pass(f, dir, b, n, &d);
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

/* The counters' names, in struct order (the first three as they always
 * were: scripts read them by position). */
#define FAULT_COUNTS_LIST(X) \
	X(frames) X(dropped) X(corrupted) X(duplicated) X(delayed) X(inner) \
	X(split) X(merge) X(bits) X(zeros_made) X(delims_hit) X(bursts) \
	X(burst_frames) X(blackouts) X(blackout_dropped) X(chunks) X(bad_chunks)
#define FAULT_NAME(n) #n,
#define FAULT_ONE(n) + 1
static const char *const fault_names[] = { FAULT_COUNTS_LIST(FAULT_NAME) };
_Static_assert(sizeof(struct fault_counts) == sizeof(uint64_t) * (0 FAULT_COUNTS_LIST(FAULT_ONE)),
	       "every fault counter needs a name");

static void fault_counts_json(FILE *out, const struct fault_counts *c)
{
	uint64_t v[sizeof(*c) / sizeof(uint64_t)];
	unsigned int i;

	memcpy(v, c, sizeof(v));
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		fprintf(out, "%s\"%s\":%llu", i ? "," : "{", fault_names[i],
			(unsigned long long)v[i]);
	fputc('}', out);
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
