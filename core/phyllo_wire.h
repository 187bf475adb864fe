/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * phyllo_wire.h - every byte on the wire, written down once.
 *
 * These are the values both peers must share (see docs/protocol.md and the
 * upstream specification). Multi-byte integers are big-endian and are packed
 * with explicit shifts, never by copying a struct.
 *
 * Chunked stream:        00 <chunk: non-zero bytes, <= 255> 00
 * Frame:                 COBS(frame bytes, <= 254)
 * Datagram:              | length | type | payload (length bytes) |
 * Validated datagram:    | crc32 (4, big-endian) | type | payload |
 *                        (datagram type 0x22; CRC over type + payload)
 * Reliable buffer:       | seq | ack | flags | type | [extlen ext..] | payload |
 *                        (validated type 0x23)
 * Document:              | format | schema | body |
 * Pub-sub message:       | type | topic length (low 4 bits) | topic | payload |
 */
#ifndef PHYLLO_WIRE_H
#define PHYLLO_WIRE_H

/* Type codes shared by every demultiplexing header. */
#define PHYLLO_TYPE_CONTROL            0x00
#define PHYLLO_TYPE_INTERNAL_MAX       0x0f
#define PHYLLO_TYPE_BUFFER             0x10
#define PHYLLO_TYPE_STREAM             0x11
#define PHYLLO_TYPE_CHUNK              0x12
#define PHYLLO_TYPE_FRAME              0x20
#define PHYLLO_TYPE_DATAGRAM           0x21
#define PHYLLO_TYPE_VALIDATED          0x22
#define PHYLLO_TYPE_RELIABLE           0x23
#define PHYLLO_TYPE_PORTED             0x24
#define PHYLLO_TYPE_DOCUMENT           0x40
#define PHYLLO_TYPE_PUBSUB             0x60
#define PHYLLO_TYPE_RPC                0x61
#define PHYLLO_TYPE_REST               0x62

/* Medium sub-stack. */
#define PHYLLO_DELIMITER               0x00
#define PHYLLO_CHUNK_MAX               255  /* longest chunk on the wire */
#define PHYLLO_FRAME_MAX               254  /* decoded frame bytes */
/* Worst case on the wire for one frame: two delimiters + encoded chunk. */
#define PHYLLO_WIRE_MAX                (PHYLLO_CHUNK_MAX + 2)

/* Logical sub-stack header sizes and payload limits. */
#define PHYLLO_DATAGRAM_HDR            2
#define PHYLLO_DATAGRAM_MAX            (PHYLLO_FRAME_MAX - PHYLLO_DATAGRAM_HDR)  /* 252 */
#define PHYLLO_VALIDATED_HDR           5
#define PHYLLO_VALIDATED_MAX           (PHYLLO_DATAGRAM_MAX - PHYLLO_VALIDATED_HDR) /* 247 */
#define PHYLLO_RELIABLE_HDR            4
#define PHYLLO_RELIABLE_MAX            (PHYLLO_VALIDATED_MAX - PHYLLO_RELIABLE_HDR) /* 243 */

/* Ray32sub8 (Koopman 0x000001ED), reflected. */
#define PHYLLO_CRC_POLY_REFLECTED      ((uint32_t)0xB7800000UL)
#define PHYLLO_CRC_INIT                ((uint32_t)0xFFFFFFFFUL)
#define PHYLLO_CRC_XOROUT              ((uint32_t)0xFFFFFFFFUL)

/* Reliable-buffer flags, bit 0 = LSB. */
#define PHYLLO_FLAG_FIN                0x01
#define PHYLLO_FLAG_SYN                0x02
#define PHYLLO_FLAG_NOS                0x04
#define PHYLLO_FLAG_ACK                0x08
#define PHYLLO_FLAG_NAK                0x10
#define PHYLLO_FLAG_SAK                0x20
#define PHYLLO_FLAG_RST                0x40
#define PHYLLO_FLAG_EXT                0x80
/* Flags this project gives a meaning to; any other is PHYLLO_E_FLAGS. */
#define PHYLLO_FLAGS_KNOWN (PHYLLO_FLAG_SYN | PHYLLO_FLAG_NOS | PHYLLO_FLAG_ACK | \
			    PHYLLO_FLAG_NAK | PHYLLO_FLAG_RST | PHYLLO_FLAG_EXT)

/* Document formats and the schemas the examples use. */
#define PHYLLO_DOC_HDR                 2
#define PHYLLO_FORMAT_UNKNOWN          0x10
#define PHYLLO_FORMAT_MSGPACK          0x11
#define PHYLLO_FORMAT_CBOR             0x12
#define PHYLLO_FORMAT_JSON             0x50
#define PHYLLO_SCHEMA_NONE             0x00
#define PHYLLO_SCHEMA_STRING8          0x11
#define PHYLLO_SCHEMA_APP              0x50
#define PHYLLO_SCHEMA_ECHO_TUPLE       0x60

/* Pub-sub message. */
#define PHYLLO_PUBSUB_HDR              2
#define PHYLLO_TOPIC_MAX               15
#define PHYLLO_TOPIC_LEN_MASK          0x0f

#endif /* PHYLLO_WIRE_H */
