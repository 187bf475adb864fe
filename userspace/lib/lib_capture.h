/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * lib_capture.h - a link's frames, both directions, as pcapng, for
 * Wireshark and tshark (the dissector is tools/wireshark/phyllo.lua).
 * Used by libphyllo's engine (lib_engine.c, under the tty transport and
 * `phyllo peer`) and `phyllo capture`; not part of the library's API (not
 * exported; the tool reaches it through phyllo-internal.h).
 *
 * Contract:
 *  1. One file: a section header, one interface (an IDB naming the link
 *     and, in its description, the preset), then one enhanced packet block
 *     per frame, timestamped in microseconds of the real-time clock, with
 *     epb_flags saying inbound (1) or outbound (2). Every block is flushed
 *     as it is written (a capture read while it grows, or cut short by a
 *     crash, holds every frame up to then).
 *  2. Frames (PHYLLO_CAPTURE_LINKTYPE_FRAMES): a packet is one non-empty
 *     chunk exactly as on the wire (COBS-encoded, the 0x00 delimiters
 *     removed), so that framing damage stays visible.
 *     phyllo_capture_bytes() takes the raw byte stream of one direction
 *     and cuts it at every 0x00, as the core's receiver does: one packet
 *     per chunk the core counts in rx_frames (inbound) or tx_frames
 *     (outbound). A chunk longer than PHYLLO_CAPTURE_SNAP keeps its first
 *     PHYLLO_CAPTURE_SNAP bytes and its length.
 *  3. Trace events (PHYLLO_CAPTURE_LINKTYPE_EVENTS, `phyllo capture
 *     --device`): a packet is one event of the module's phyllo trace
 *     system as text, "NAME FIELDS" ("phyllo_rx_frame phyllo0 len=12
 *     crc"); the kernel's events carry lengths and verdicts, not bytes.
 *  4. The private-use link types LINKTYPE_USER10 and USER11 (157, 158):
 *     no link type is registered for Phyllo, and USER0, the one ad-hoc
 *     set-ups usually take first, is left to them.
 *  5. A write error is reported once, at phyllo_capture_close().
 */
#ifndef PHYLLO_LIB_CAPTURE_H
#define PHYLLO_LIB_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#define PHYLLO_CAPTURE_LINKTYPE_FRAMES 157	/* LINKTYPE_USER10 */
#define PHYLLO_CAPTURE_LINKTYPE_EVENTS 158	/* LINKTYPE_USER11 */
#define PHYLLO_CAPTURE_SNAP 1024
/* The environment variable that makes a userspace stack capture itself. */
#define PHYLLO_CAPTURE_ENV "PHYLLO_CAPTURE"

enum phyllo_capture_dir {
	PHYLLO_CAPTURE_NONE = 0,
	PHYLLO_CAPTURE_IN = 1,
	PHYLLO_CAPTURE_OUT = 2,
};

struct phyllo_capture;

/* A new file at path (replaced if it exists) with one interface of the
 * link type; NULL with errno on failure. */
struct phyllo_capture *phyllo_capture_open(const char *path, uint16_t linktype,
					   const char *if_name, const char *if_desc);
/* The file $PHYLLO_CAPTURE names, for the frames of a userspace stack on
 * fd (the interface is named name, or fd's path when name is NULL; who
 * and the preset go in its description). *c is NULL when the variable is
 * not set. Returns 0, or -ECANCELED after saying on stderr (as "who:
 * ...") why the file cannot be made: the failure is the capture file's,
 * not the link's, and the caller must not blame its port for it. */
int phyllo_capture_open_env(struct phyllo_capture **c, const char *who, int fd,
			    const char *name, uint8_t preset);
/* Say on stderr, as "who: WHATPATH: cannot create the capture file:
 * strerror(err)", and why when the folder is the cause (there is none, it
 * is no folder, it may not be written). what is how the user named the
 * file ("PHYLLO_CAPTURE=", "-w ") and may be "". */
void phyllo_capture_explain(const char *who, const char *what, const char *path, int err);
/* Raw bytes of one direction (c may be NULL: nothing is done). */
void phyllo_capture_bytes(struct phyllo_capture *c, enum phyllo_capture_dir dir,
			  const uint8_t *b, size_t n);
/* One packet as it is, at ts_us (microseconds since the epoch). */
void phyllo_capture_packet(struct phyllo_capture *c, enum phyllo_capture_dir dir,
			   uint64_t ts_us, const uint8_t *b, size_t n, size_t orig_len);
/* Flush and close (c may be NULL); non-zero, and said on stderr, if
 * anything failed. */
int phyllo_capture_close(struct phyllo_capture *c);

#endif
