#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR MIT
"""Write the seed corpus of tests/fuzz/ (corpus/fuzz_NAME/, committed).

Each seed is a small input in the target's own format (see the comment at
the top of each fuzz_NAME.c): valid frames, documents and scripts that
reach deep into the code at once, so a short fixed-seed run (make
fuzz-short) covers much. Deterministic: running it again rewrites the same
files. Usage: tests/fuzz/mkcorpus.py [OUTDIR] (default tests/fuzz/corpus).
"""
import os
import struct
import sys


def cobs(data):
    out, block = bytearray(), bytearray()
    for i, b in enumerate(data):
        if b:
            block.append(b)
        if b == 0 or (len(block) == 254 and i + 1 < len(data)):
            out.append(len(block) + 1)
            out += block
            block = bytearray()
    out.append(len(block) + 1)
    return bytes(out + block)


def crc32(data):  # Ray32sub8, reflected, as phyllo_wire.h
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0xB7800000 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def validated(type_, payload):
    inner = struct.pack(">I", crc32(bytes([type_]) + payload)) + bytes([type_]) + payload
    return bytes([len(inner), 0x22]) + inner


def frame(data):
    return b"\0" + cobs(data) + b"\0"


def seeds_cobs():
    body = bytes(range(1, 60)) + b"\0\0" + b"topic\0payload"
    yield "frames", b"\x12\x34\x05" + frame(body) + frame(b"") + frame(b"\0")
    yield "run254", b"\x00\x01\x00" + frame(bytes([7]) * 254)
    yield "noncanonical", b"\x00\x02\x00\x00\xff" + bytes([9]) * 254 + b"\x01\x00"
    yield "overlong", b"\x00\x03\x00" + b"\x00" + bytes([3]) * 300 + b"\x00"
    yield "cut", b"\x00\x04\x10" + b"\x00\x05ab\x00\x09abc\x00"


def seeds_datagram():
    v = validated(0x23, b"\x00\x00\x08\x60\x02\x00hi")
    yield "validated", b"\x00\x00\x00\x00\x00\x00\x60\x04" + v
    yield "fix-burst", b"\x03\x07\x01\x80\x00\x10\x60\x00" + v[2:]
    yield "datagram", b"\x00\x00\x00\x00\x00\x00\x21\x00" + bytes([5, 0x60]) + b"hello"
    yield "short", b"\x01\x00\x00\x00\x00\x00\x00\x00\x00\x22\x01"


def mp_str(s):
    return bytes([0xA0 | len(s)]) + s


def seeds_msgpack():
    yield "map", (b"\x83" + mp_str(b"id") + b"\xcd\x12\x34" + mp_str(b"ok") + b"\xc3" +
                  mp_str(b"v") + b"\x93\xff\xd0\x80\xcb" + bytes(8))
    yield "ints", (b"\x9a\x00\x7f\xcc\xff\xcd\xff\xff\xce\xff\xff\xff\xff\xcf" + bytes(8) +
                   b"\xe0\xd1\x80\x00\xd2\x80\x00\x00\x00\xd3" + b"\x80" + bytes(7))
    yield "bytes", b"\x92\xc4\x03abc\xd9\x20" + b"x" * 32
    yield "nested", b"\x91" * 20 + b"\xc0"
    yield "big", b"\xdc\x00\x03\xc2\xca\x3f\x80\x00\x00\xde\x00\x01\x01\x02"
    yield "bad", b"\xc1"


def seeds_pubsub():
    doc = b"\x11\x60" + b"\x92\x01" + mp_str(b"hi")
    yield "ping", b"\x04\x02ping" + b"\x60\x04ping" + doc
    yield "empty", b"\x00\x00" + b"\x40\x00"
    yield "long-topic", b"\x0f\x20" + b"abcdefghijklmno" + b"\x60\x0fabcdefghijklmno\x50\x00{}"
    yield "bad-topic", b"\x00\x00\x60\x10"


# fuzz_stack scripts: 6 header bytes, then operations (fuzz_stack.c).
ONE, TWO = 0x00, 0x10
NO_HS, RETRIES, HOLD_ROOM, WRAP = 0x08, 0x20, 0x40, 0x80
F_ACK, F_NAK, F_SYN, F_RST, F_NOS, F_EXT = 1, 2, 4, 8, 16, 32
FRAME, BURST, RAW, REPLAY, ADVANCE, POLL, SEND, HOLD = 0, 2, 3, 4, 5, 6, 7, 8


def hdr(c0, c1=4, nonce=0x01020304):
    return bytes([c0, c1]) + struct.pack(">I", nonce)


def data(delta=0, ack=0, flags=0):
    return bytes([flags, ack, delta & 0xFF])


def syn(sel=0, sel2=0, ack=0, flags=F_SYN, more=b""):
    return bytes([flags, ack, sel, sel2]) + more


def op_frame(f, cut=0):
    return bytes([FRAME]) + f + bytes([cut])


def op_send(reliable=True, size=10, type_=0x50):
    return bytes([SEND, (size << 1) | int(reliable), type_])


def seeds_stack():
    # no handshake: the peer streams units, L acknowledges
    s = hdr(NO_HS | 3)
    for i in range(6):
        s += op_frame(data(), cut=i * 7) + bytes([ADVANCE, 5])
    yield "nohs-stream", s + op_frame(data(delta=3)) + op_frame(data(delta=0xFF))
    # handshake: L's SYN answered, L sends, the peer acknowledges piecemeal
    s = hdr(7) + op_frame(syn(flags=F_SYN | F_ACK))
    s += op_send() * 8 + bytes([ADVANCE, 20])
    for k in range(1, 9):
        s += op_frame(bytes([F_NOS | F_ACK | F_NAK, 1, 0, 0, 0]))
        s += op_frame(bytes([F_NOS | F_ACK, k, 0, 0, 0]))
    yield "hs-send-ack", s + bytes([ADVANCE, 0x90, POLL])
    # the amplification case: nine NOS|ACK|NAK frames in one buffer
    s = hdr(NO_HS | 7) + op_send() * 8
    s += bytes([BURST, 9 - 2]) + bytes([F_NOS | F_ACK | F_NAK, 0, 0, 0, 0]) * 9
    yield "nak-burst", s + bytes([ADVANCE, 50, POLL])
    # the peer restarts (new nonce), sends RST, repeats an old SYN
    s = hdr(5) + op_frame(syn(sel=0x08)) + op_send() * 3 + op_frame(data())
    s += op_frame(syn(sel=0x09, more=bytes([1, 7]))) + op_frame(syn(sel=0x0c))
    s += op_frame(bytes([F_RST | F_NOS, 0, 0]) + bytes([0, 0]))
    yield "restart-rst", s + bytes([ADVANCE, 0x85, POLL, REPLAY, 1, REPLAY, 3])
    # back-pressure: hold, refuse, release
    s = hdr(NO_HS | 1 | HOLD_ROOM) + op_frame(data())
    s += bytes([HOLD, 4]) + op_frame(data()) + bytes([HOLD, 3]) + op_frame(data(delta=1))
    yield "hold-refuse", s + bytes([HOLD, 1, ADVANCE, 30]) + op_frame(data())
    # link loss: timeouts until RST, with a clock that wraps
    s = hdr(NO_HS | 2 | RETRIES | WRAP) + op_send() * 3
    yield "link-loss", s + bytes([ADVANCE, 0xFF]) * 8
    # two stacks: both send, the line delivers, drops and flips bits
    s = hdr(TWO | 3, 1) + bytes([4, 0, 4, 0x81])
    s += bytes([3, 0, 2, 0]) * 3
    for i in range(6):
        s += bytes([0, 0x10 | (i & 1), 0x60, 1, 0x21, 0x70])
        s += bytes([2, 1, 3, 1, 7, (i * 37) & 0xFF, 4, 10])
    yield "two-stacks", s + bytes([2, 0, 3, 0, 4, 0x90, 2, 0, 3, 0])
    s = hdr(TWO | NO_HS | 7 | RETRIES, 7)
    s += bytes([0, 0x20, 0x61]) * 8 + bytes([2, 0, 4, 200, 3, 0, 4, 200])
    yield "two-nohs", s + bytes([1, 0x21, 0x62]) * 4 + bytes([3, 2, 7, 1, 2, 0])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
    for name, gen in (("cobs", seeds_cobs), ("datagram", seeds_datagram),
                      ("msgpack", seeds_msgpack), ("pubsub", seeds_pubsub),
                      ("stack", seeds_stack)):
        d = os.path.join(out, "fuzz_" + name)
        os.makedirs(d, exist_ok=True)
        for seed, blob in gen():
            with open(os.path.join(d, seed), "wb") as f:
                f.write(blob)


if __name__ == "__main__":
    main()
