// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_capture.c - pcapng files of a link's frames; see lib_capture.h for
 * the contract and userspace/capture.c for `phyllo capture`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "lib_capture.h"

#ifdef PHYLLO_VERSION
#define CAP_APP "phyllo " PHYLLO_VERSION
#else
#define CAP_APP "phyllo"
#endif

struct cap_chunk {
	uint8_t buf[PHYLLO_CAPTURE_SNAP];
	size_t len;
};

struct phyllo_capture {
	FILE *f;
	char *path;
	bool failed;
	struct cap_chunk dir[2];	/* PHYLLO_CAPTURE_IN - 1, PHYLLO_CAPTURE_OUT - 1 */
};

/* pcapng is written little-endian, as its byte-order magic says. */
static size_t put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	return 2;
}

static size_t put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
	return 4;
}

/* An option: code, length, value, zero padding to 32 bits. */
static size_t put_opt(uint8_t *p, uint16_t code, const void *v, size_t n)
{
	size_t pad = (4 - n % 4) % 4;

	put16(p, code);
	put16(p + 2, (uint16_t)n);
	memcpy(p + 4, v, n);
	memset(p + 4 + n, 0, pad);
	return 4 + n + pad;
}

static size_t put_str(uint8_t *p, uint16_t code, const char *s)
{
	size_t n = strlen(s);

	return put_opt(p, code, s, n > 1000 ? 1000 : n);
}

/* Close block b of type at length n (options ended): fill in both
 * length words and write it. */
static void cap_block(struct phyllo_capture *c, uint8_t *b, uint32_t type, size_t n)
{
	n += put32(b + n, 0);	/* opt_endofopt */
	put32(b, type);
	put32(b + 4, (uint32_t)(n + 4));
	put32(b + n, (uint32_t)(n + 4));
	if (fwrite(b, 1, n + 4, c->f) != n + 4 || fflush(c->f))
		c->failed = true;
}

static void cap_headers(struct phyllo_capture *c, uint16_t linktype, const char *if_name,
			const char *if_desc)
{
	uint8_t b[2200];
	const uint8_t tsresol = 6;	/* microseconds */
	size_t n = 8;

	n += put32(b + n, 0x1A2B3C4D);	/* byte-order magic */
	n += put16(b + n, 1);		/* version 1.0 */
	n += put16(b + n, 0);
	n += put32(b + n, 0xffffffff);	/* section length: not given */
	n += put32(b + n, 0xffffffff);
	n += put_str(b + n, 4, CAP_APP);	/* shb_userappl */
	cap_block(c, b, 0x0A0D0D0A, n);
	n = 8;
	n += put16(b + n, linktype);
	n += put16(b + n, 0);
	n += put32(b + n, PHYLLO_CAPTURE_SNAP);
	n += put_str(b + n, 2, if_name);	/* if_name */
	n += put_str(b + n, 3, if_desc);	/* if_description */
	n += put_opt(b + n, 9, &tsresol, 1);	/* if_tsresol */
	cap_block(c, b, 1, n);
}

struct phyllo_capture *phyllo_capture_open(const char *path, uint16_t linktype,
					   const char *if_name, const char *if_desc)
{
	struct phyllo_capture *c = calloc(1, sizeof(*c));
	int err, fd;

	if (!c)
		return NULL;
	/* never through a symlink planted where the capture goes, and
	 * readable by its owner alone: it holds every byte of the link */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	c->f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (fd >= 0 && !c->f)
		close(fd);
	c->path = strdup(path);
	if (!c->f || !c->path) {
		err = errno;
		if (c->f)
			fclose(c->f);
		free(c->path);
		free(c);
		errno = err;
		return NULL;
	}
	cap_headers(c, linktype, if_name, if_desc);
	return c;
}

static const char *cap_preset_name(uint8_t preset)
{
	static const char *const names[] = { "minimal", "reduced", "standard" };

	return preset < 3 ? names[preset] : "unknown";
}

/* What stands in the way of creating path: its folder's absence or
 * nature, or errno itself. */
static void cap_why(const char *path, int err, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	struct stat st;

	buf[0] = 0;
	if (!slash || (size_t)(slash - path) >= sizeof(dir))
		return;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = 0;
	if (!dir[0])
		return;
	if (stat(dir, &st))
		snprintf(buf, len, " (there is no folder %s)", dir);
	else if (!S_ISDIR(st.st_mode))
		snprintf(buf, len, " (%s is not a folder)", dir);
	else if (err == EACCES || err == EROFS)
		snprintf(buf, len, " (this user may not write in %s)", dir);
}

void phyllo_capture_explain(const char *who, const char *what, const char *path, int err)
{
	char why[PATH_MAX + 32];

	cap_why(path, err, why, sizeof(why));
	fprintf(stderr, "%s: %s%s: cannot create the capture file: %s%s\n", who, what, path,
		strerror(err), why);
}

int phyllo_capture_open_env(struct phyllo_capture **c, const char *who, int fd,
			    const char *name, uint8_t preset)
{
	const char *path = secure_getenv(PHYLLO_CAPTURE_ENV);
	char desc[256], fdpath[64], link[256];
	ssize_t n;
	int err;

	*c = NULL;
	if (!path || !*path)
		return 0;
	if (!name) {
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
		n = readlink(fdpath, link, sizeof(link) - 1);
		link[n > 0 ? n : 0] = 0;
		name = link;
	}
	snprintf(desc, sizeof(desc), "phyllo frames, preset %s, from %s (userspace stack): "
		 "one COBS chunk per packet, delimiters removed", cap_preset_name(preset), who);
	*c = phyllo_capture_open(path, PHYLLO_CAPTURE_LINKTYPE_FRAMES, name, desc);
	if (*c)
		return 0;
	err = errno;
	phyllo_capture_explain(who, PHYLLO_CAPTURE_ENV "=", path, err);
	fprintf(stderr, "%s: nothing was sent: name a file in a folder that exists and "
		"can be written, or unset %s\n", who, PHYLLO_CAPTURE_ENV);
	return -ECANCELED;
}

static uint64_t cap_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void phyllo_capture_packet(struct phyllo_capture *c, enum phyllo_capture_dir dir,
			   uint64_t ts_us, const uint8_t *data, size_t n, size_t orig_len)
{
	uint8_t b[PHYLLO_CAPTURE_SNAP + 64];
	size_t k = 8, pad;

	if (n > PHYLLO_CAPTURE_SNAP)
		n = PHYLLO_CAPTURE_SNAP;
	pad = (4 - n % 4) % 4;
	k += put32(b + k, 0);				/* interface 0 */
	k += put32(b + k, (uint32_t)(ts_us >> 32));
	k += put32(b + k, (uint32_t)ts_us);
	k += put32(b + k, (uint32_t)n);
	k += put32(b + k, (uint32_t)orig_len);
	memcpy(b + k, data, n);
	memset(b + k + n, 0, pad);
	k += n + pad;
	if (dir != PHYLLO_CAPTURE_NONE) {
		uint8_t flags[4];

		put32(flags, dir);			/* epb_flags: direction */
		k += put_opt(b + k, 2, flags, 4);
	}
	cap_block(c, b, 6, k);
}

void phyllo_capture_bytes(struct phyllo_capture *c, enum phyllo_capture_dir dir,
			  const uint8_t *b, size_t n)
{
	struct cap_chunk *ch;
	size_t i;

	if (!c || (dir != PHYLLO_CAPTURE_IN && dir != PHYLLO_CAPTURE_OUT))
		return;
	ch = &c->dir[dir - 1];
	for (i = 0; i < n; i++) {
		if (b[i]) {
			if (ch->len < PHYLLO_CAPTURE_SNAP)
				ch->buf[ch->len] = b[i];
			ch->len++;
		} else if (ch->len) {
			phyllo_capture_packet(c, dir, cap_now_us(), ch->buf, ch->len, ch->len);
			ch->len = 0;
		}
	}
}

int phyllo_capture_close(struct phyllo_capture *c)
{
	int ret;

	if (!c)
		return 0;
	ret = fclose(c->f) || c->failed;
	if (ret)
		fprintf(stderr, "phyllo: writing the capture %s failed\n", c->path);
	free(c->path);
	free(c);
	return ret;
}
