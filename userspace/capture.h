/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * capture.h - a link's frames, both directions, as pcapng, for Wireshark
 * and tshark (the dissector is tools/wireshark/phyllo.lua).
 *
 * Contract:
 *  1. One file: a section header, one interface (an IDB naming the link
 *     and, in its description, the preset), then one enhanced packet block
 *     per frame, timestamped in microseconds of the real-time clock, with
 *     epb_flags saying inbound (1) or outbound (2).
 *  2. Frames (CAPTURE_LINKTYPE_FRAMES): a packet is one non-empty chunk
 *     exactly as on the wire (COBS-encoded, the 0x00 delimiters removed),
 *     so that framing damage stays visible. capture_bytes() takes the raw
 *     byte stream of one direction and cuts it at every 0x00, as the
 *     core's receiver does: one packet per chunk the core counts in
 *     rx_frames (inbound) or tx_frames (outbound). A chunk longer than
 *     CAPTURE_SNAP keeps its first CAPTURE_SNAP bytes and its length.
 *  3. Trace events (CAPTURE_LINKTYPE_EVENTS, `phyllo capture --device`):
 *     a packet is one event of the module's phyllo trace system as text,
 *     "NAME FIELDS" (e.g. "phyllo_rx_frame phyllo0 len=12 crc"); the
 *     kernel's events carry lengths and verdicts, not the frame's bytes.
 *  4. The private-use link types LINKTYPE_USER10 and USER11 (157, 158):
 *     no link type is registered for Phyllo, and USER0, the one ad-hoc
 *     set-ups usually take first, is left to them.
 *  5. A write error is reported once, at capture_close() (non-zero).
 */
#ifndef PHYLLO_CAPTURE_H
#define PHYLLO_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#define CAPTURE_LINKTYPE_FRAMES 157	/* LINKTYPE_USER10 */
#define CAPTURE_LINKTYPE_EVENTS 158	/* LINKTYPE_USER11 */
#define CAPTURE_SNAP 1024
/* The environment variable that makes a userspace stack capture itself. */
#define CAPTURE_ENV "PHYLLO_CAPTURE"

enum capture_dir { CAPTURE_NONE = 0, CAPTURE_IN = 1, CAPTURE_OUT = 2 };

struct capture;

/* A new file at path (replaced if it exists) with one interface of the
 * link type; NULL with errno on failure. */
struct capture *capture_open(const char *path, uint16_t linktype, const char *if_name,
			     const char *if_desc);
/* The file $PHYLLO_CAPTURE names, for the frames of a userspace stack
 * (who and preset go in the description); NULL when it is not set. A
 * file that cannot be made is an error: printed, exit status 1. */
struct capture *capture_open_env(const char *who, const char *if_name, const char *preset);
/* Raw bytes of one direction (c may be NULL: nothing is done). */
void capture_bytes(struct capture *c, enum capture_dir dir, const uint8_t *b, size_t n);
/* One packet as it is, at ts_us (microseconds since the epoch). */
void capture_packet(struct capture *c, enum capture_dir dir, uint64_t ts_us,
		    const uint8_t *b, size_t n, size_t orig_len);
/* Flush and close (c may be NULL); non-zero, and said on stderr, if
 * anything failed. */
int capture_close(struct capture *c);

int capture_main(int argc, char **argv);

#endif
