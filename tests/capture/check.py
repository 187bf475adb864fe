#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR MIT
"""check.py - tshark with tools/wireshark/phyllo.lua against known frames
and against the counters of a captured `phyllo peer` session.

  check.py vectors LUA DIR        write DIR/vectors.pcapng (frames built
                                  here from docs/protocol.md's examples, one
                                  interface per preset), dissect it, check
                                  each frame's fields
  check.py session LUA PCAP STATS [--closing]
                                  the capture of one peer against the stats
                                  JSON that peer wrote: packets, receive
                                  errors by class, CRC, NAKs, ACKs,
                                  retransmissions
  check.py kernel LUA PCAP BEFORE AFTER
                                  trace events of /dev/phylloN (phyllo
                                  capture --device) against the change of
                                  its counters (phyllo stats --json)
  check.py fields LUA JSON...     every field the dissector declares was
                                  shown in at least one of the dissections

Prints "ok ..." / "FAIL ..." lines; the status is 1 if anything failed.
The frame builders below are anchored to docs/protocol.md's check values
before they are used (a wrong builder cannot pass as a wrong dissector).
"""
import json
import re
import struct
import subprocess
import sys

failed = 0


def ok(cond, what, detail=""):
    global failed
    if cond:
        print("ok   " + what)
    else:
        failed += 1
        print("FAIL " + what + (": " + detail if detail else ""))


# ---- frames, per docs/protocol.md ----
def crc32(data):
    c = 0xFFFFFFFF
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ 0xB7800000 if c & 1 else c >> 1
    return c ^ 0xFFFFFFFF


def cobs(data):
    out, block = bytearray(), bytearray()
    for b in data:
        if b == 0:
            out += bytes([len(block) + 1]) + block
            block = bytearray()
        else:
            block.append(b)
            if len(block) == 254:
                out += b"\xff" + block
                block = bytearray()
    return bytes(out + bytes([len(block) + 1]) + block)


def dgram(ty, payload):
    return bytes([len(payload), ty]) + payload


def validated(ty, payload):
    return struct.pack(">I", crc32(bytes([ty]) + payload)) + bytes([ty]) + payload


def reliable(seq, ack, flags, ty, payload=b"", ext=None):
    head = bytes([seq, ack, flags, ty])
    if ext is not None:
        head += bytes([len(ext)]) + ext
    return head + payload


def std(unit):   # a reliable unit inside the standard preset's layers
    return cobs(dgram(0x22, validated(0x23, unit)))


def red(ty, payload):
    return cobs(dgram(0x22, validated(ty, payload)))


def pubsub(topic, ty, payload):
    return bytes([ty, len(topic)]) + topic + payload


def anchors():
    ok(crc32(b"123456789") == 0xB303B455, "builder: CRC-32 of '123456789' is 0xB303B455")
    ok(crc32(bytes.fromhex("100102030400")) == 0xD2AA86D0,
       "builder: CRC-32 of 10 01 02 03 04 00 is 0xD2AA86D0")
    ok(cobs(bytes.fromhex("11220033")) == bytes.fromhex("0311220233"),
       "builder: COBS of 11 22 00 33 is 03 11 22 02 33")
    ok(dgram(0x10, bytes.fromhex("0102030400")) == bytes.fromhex("05100102030400"),
       "builder: datagram example")
    ok(validated(0x10, bytes.fromhex("0102030400")) == bytes.fromhex("d2aa86d0100102030400"),
       "builder: validated datagram example")
    ok(pubsub(b"01", 0x10, bytes.fromhex("0102030400")) == bytes.fromhex("100230310102030400"),
       "builder: pub-sub example")


# ---- pcapng ----
def block(ty, body):
    body += b"\0" * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack("<II", ty, n) + body + struct.pack("<I", n)


def opt(code, val):
    return struct.pack("<HH", code, len(val)) + val + b"\0" * (-len(val) % 4)


def write_pcapng(path, presets, packets):
    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1) + struct.pack("<I", 0))
    for p in presets:
        out += block(1, struct.pack("<HHI", 157, 0, 1024) + opt(2, b"vectors") +
                     opt(3, ("phyllo frames, preset %s, test vectors" % p).encode()) +
                     opt(9, b"\x06") + struct.pack("<I", 0))
    for i, (iface, direction, chunk, _) in enumerate(packets):
        ts = 1700000000000000 + i * 1000
        body = struct.pack("<IIIII", iface, ts >> 32, ts & 0xffffffff, min(len(chunk), 1024),
                           len(chunk)) + chunk[:1024]
        body += b"\0" * (-len(body) % 4)
        out += block(6, body + opt(2, struct.pack("<I", direction)) + struct.pack("<I", 0))
    with open(path, "wb") as f:
        f.write(out)


# ---- tshark ----
def dissect(lua, pcap):
    r = subprocess.run(["tshark", "-X", "lua_script:" + lua, "-r", pcap, "-T", "json",
                        "--no-duplicate-keys"],
                       capture_output=True, text=True)
    if r.returncode != 0 or "Lua: Error" in r.stderr:
        print("FAIL tshark on %s: %s" % (pcap, r.stderr.strip()[:2000]))
        sys.exit(1)
    return json.loads(r.stdout)


def collect(node, out):
    """Every phyllo field of one packet: name -> list of values, in order."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k.startswith("phyllo") and not k.endswith("_tree") and not isinstance(v, dict):
                for x in (v if isinstance(v, list) else [v]):
                    out.setdefault(k, []).append(x)
            collect(v, out)
    elif isinstance(node, list):
        for v in node:
            collect(v, out)
    return out


def packets_fields(doc):
    return [collect(p["_source"]["layers"], {}) for p in doc]


# ---- vectors ----
LARGE = (b"\xdc\x00\x1f" + b"\xa5hello" + b"\xc3\xc0" + b"\xcb" + struct.pack(">d", 0.125) +
         b"\xc4\x05\x00\x01\x02\x03\x04" + bytes(range(26)))   # fixarray of 31
LARGE_TEXT = '["hello",true,nil,0.125,bin 00 01 02 03 04,' + ",".join(map(str, range(26))) + "]"
ODD = (b"\x85" + b"\xa1a\xff" + b"\xa1b\xcf\xff\xff\xff\xff\xff\xff\xff\xff" +
       b"\xa1c\xd3\x80\x00\x00\x00\x00\x00\x00\x00" + b"\xa1d\xca" + struct.pack(">f", -1.5) +
       b"\xa1e\xd9\x03xyz")
ODD_TEXT = '{"a":-1,"b":18446744073709551615,"c":-9223372036854775808,"d":-1.5,"e":"xyz"}'
NONCE_A, NONCE_B = 0x11223344, 0x55667788
SYN = reliable(0x44, 0, 0x02, 0, b"\x04" + struct.pack(">I", NONCE_A))
SYNACK = reliable(0x88, 0x44, 0x0a, 0, b"\x04" + struct.pack(">II", NONCE_B, NONCE_A))
RST = reliable(0, 0, 0x44, 0, struct.pack(">II", NONCE_A, NONCE_B))
DOC = pubsub(b"t", 0x40, bytes.fromhex("1111a461626364"))
ECHO = pubsub(b"echo", 0x40, b"\x11\x60" + LARGE)
M, R, S, LM, LR = 0, 1, 2, 3, 4   # LM, LR: as libphyllo writes them
IN, OUT = 1, 2
VECTORS = [
    # (interface, direction, chunk, {field: expected first value})
    (M, OUT, cobs(dgram(0x10, bytes.fromhex("0102030400"))),
     {"phyllo.dgram.len": "5", "phyllo.dgram.type": "0x10", "phyllo.payload": "01:02:03:04:00",
      "phyllo.direction": "2", "phyllo.chunk_len": "8", "phyllo.frame_len": "7",
      "phyllo.frame": "05:10:01:02:03:04:00", "phyllo.error": None}),
    (R, IN, red(0x10, bytes.fromhex("0102030400")),
     {"phyllo.crc": "0xd2aa86d0", "phyllo.crc.computed": "0xd2aa86d0", "phyllo.crc.status": "1",
      "phyllo.vdgram.type": "0x10", "phyllo.direction": "1", "phyllo.error": None}),
    (R, IN, red(0x31, b"23456789"),
     {"phyllo.crc": "0xb303b455", "phyllo.crc.status": "1", "phyllo.unit.type": "0x31"}),
    (R, IN, cobs(dgram(0x22, bytes.fromhex("d2aa86d0100102030401"))),
     {"phyllo.crc.status": "0", "phyllo.error": "crc", "phyllo.crc": "0xd2aa86d0",
      "phyllo.crc.computed": "0x%08x" % crc32(bytes.fromhex("100102030401"))}),
    (R, IN, red(0x60, pubsub(b"01", 0x10, bytes.fromhex("0102030400"))),
     {"phyllo.pubsub.type": "0x10", "phyllo.pubsub.topic_len": "2", "phyllo.pubsub.topic": "01",
      "phyllo.pubsub.reserved": "0x00", "phyllo.payload": "01:02:03:04:00"}),
    (R, OUT, red(0x60, DOC),
     {"phyllo.doc.format": "0x11", "phyllo.doc.schema": "0x11", "phyllo.msgpack": '"abcd"',
      "phyllo.pubsub.topic": "t"}),
    (S, OUT, std(bytes.fromhex("0afa0810112233")),
     {"phyllo.rel.seq": "10", "phyllo.rel.ack": "250", "phyllo.rel.flags": "0x08",
      "phyllo.rel.flags.ack": "1", "phyllo.rel.flags.nos": "0", "phyllo.rel.type": "0x10",
      "phyllo.payload": "11:22:33", "phyllo.rel.kind": "data", "phyllo.rel.retransmission": None}),
    (S, OUT, std(reliable(11, 0, 0x08, 0x60, ECHO)),
     {"phyllo.msgpack": LARGE_TEXT, "phyllo.pubsub.topic": "echo", "phyllo.doc.schema": "0x60",
      "phyllo.msgpack.item": '"hello"'}),
    (S, OUT, std(reliable(12, 0, 0x08, 0x60, pubsub(b"x", 0x40, b"\x11\x50" + ODD))),
     {"phyllo.msgpack": ODD_TEXT, "phyllo.msgpack.item": '"a":-1'}),
    (S, IN, std(reliable(0, 7, 0x8c, 0x10, b"\x01", ext=b"\xab\xcd")),
     {"phyllo.rel.flags.ext": "1", "phyllo.rel.ext": "ab:cd", "phyllo.payload": "01",
      "phyllo.rel.kind": "unreliable data"}),
    (S, IN, std(reliable(0, 0, 0x09, 0x10, b"\x01")),
     {"phyllo.error": "flags", "phyllo.rel.flags.fin": "1"}),
    (S, IN, std(reliable(0, 0, 0x28, 0x10, b"\x01")),
     {"phyllo.error": "flags", "phyllo.rel.flags.sak": "1"}),
    (S, IN, red(0x10, b"\x01\x02\x03\x04"), {"phyllo.error": "type"}),
    (R, IN, cobs(dgram(0x10, b"\x01")), {"phyllo.error": "type"}),
    (M, IN, cobs(bytes.fromhex("06100102")), {"phyllo.error": "length"}),
    (M, IN, bytes.fromhex("051122"), {"phyllo.error": "framing", "phyllo.frame": None}),
    (M, IN, b"\x01" * 300, {"phyllo.error": "overflow", "phyllo.chunk_len": "300"}),
    (S, IN, cobs(dgram(0x22, validated(0x23, b"\x00\x00\x08"))), {"phyllo.error": "length"}),
    (R, IN, cobs(dgram(0x22, b"\x01\x02\x03\x04")), {"phyllo.error": "length"}),
    (S, IN, std(reliable(0, 5, 0x1c, 0)),
     {"phyllo.rel.kind": "NAK", "phyllo.rel.flags.nak": "1", "phyllo.rel.ack": "5"}),
    (S, OUT, std(reliable(0, 5, 0x0c, 0)), {"phyllo.rel.kind": "pure ACK"}),
    (S, OUT, std(SYN),
     {"phyllo.rel.kind": "SYN", "phyllo.syn.window": "4", "phyllo.syn.nonce": "0x11223344",
      "phyllo.rel.flags.syn": "1"}),
    (S, IN, std(SYNACK),
     {"phyllo.rel.kind": "SYN|ACK", "phyllo.syn.nonce": "0x55667788",
      "phyllo.syn.peer_nonce": "0x11223344", "phyllo.rel.session": "1"}),
    (S, OUT, std(reliable(0, 0, 0x08, 0x10, b"a")),
     {"phyllo.rel.retransmission": None, "phyllo.rel.session": "1"}),
    (S, OUT, std(reliable(1, 0, 0x08, 0x10, b"b")), {"phyllo.rel.retransmission": None}),
    (S, OUT, std(reliable(0, 0, 0x08, 0x10, b"a")),
     {"phyllo.rel.retransmission": "1", "phyllo.rel.retransmission_of": "24"}),
    (S, IN, std(reliable(0, 2, 0x08, 0x10, b"c")), {"phyllo.rel.retransmission": None}),
    (S, IN, std(RST), {"phyllo.rel.kind": "RST", "phyllo.rel.flags.rst": "1",
                       "phyllo.syn.peer_nonce": "0x55667788"}),
    (S, OUT, std(SYNACK), {"phyllo.rel.session": "2"}),
    (S, OUT, std(reliable(0, 0, 0x08, 0x10, b"a")), {"phyllo.rel.retransmission": None}),
    # a standard peer's SYN on a minimal or reduced link: the core delivers
    # it (phyllo peer), libphyllo counts it as rx_type
    (M, IN, std(SYN), {"phyllo.error": None, "phyllo.unit.type": "0x22"}),
    (LM, IN, std(SYN), {"phyllo.error": "type"}),
    (LM, IN, cobs(dgram(0x23, b"\x00\x00\x08\x10")), {"phyllo.error": "type"}),
    (LM, IN, cobs(dgram(0x60, DOC)), {"phyllo.error": None, "phyllo.msgpack": '"abcd"'}),
    (R, IN, std(SYN), {"phyllo.error": None, "phyllo.unit.type": "0x23"}),
    (LR, IN, std(SYN), {"phyllo.error": "type"}),
    (LR, IN, red(0x60, DOC), {"phyllo.error": None, "phyllo.pubsub.topic": "t"}),
]


# phyllo.ko's trace events as `phyllo capture --device` writes them: the
# text of each event's TP_printk (kernel/phyllo_events.h).
EVENTS = [
    (IN, "phyllo_rx_frame phyllo0 len=33 crc",
     {"phyllo_event.name": "phyllo_rx_frame", "phyllo_event.unit": "phyllo0",
      "phyllo_event.verdict": "crc", "phyllo_event.field": "len=33",
      "phyllo_event.text": "phyllo_rx_frame phyllo0 len=33 crc"}),
    (OUT, "phyllo_tx_frame phyllo0 bytes=36 type=0x22",
     {"phyllo_event.field": "bytes=36", "phyllo_event.verdict": None}),
    (OUT, "phyllo_tx_control phyllo0 NAK ack=5", {"phyllo_event.nak": "1"}),
    (IN, "phyllo_rx_ack phyllo0 ACK ack=6 retired=1", {"phyllo_event.nak": "0"}),
    (OUT, "phyllo_retransmit phyllo0 units=4 on=nak", {"phyllo_event.retransmitted": "4"}),
    (0, "phyllo_session phyllo0 open session=1 lost=0", {"phyllo_event.verdict": "open"}),
]


def write_events(path):
    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1) + struct.pack("<I", 0))
    out += block(1, struct.pack("<HHI", 158, 0, 1024) + opt(2, b"phyllo0") +
                 opt(9, b"\x06") + struct.pack("<I", 0))
    for i, (direction, text, _) in enumerate(EVENTS):
        ts, data = 1700000000000000 + i, text.encode()
        body = struct.pack("<IIIII", 0, ts >> 32, ts & 0xffffffff, len(data), len(data)) + data
        body += b"\0" * (-len(body) % 4)
        out += block(6, body + opt(2, struct.pack("<I", direction)) + struct.pack("<I", 0))
    with open(path, "wb") as f:
        f.write(out)


def events(lua, d):
    pcap = d + "/events.pcapng"
    write_events(pcap)
    doc = dissect(lua, pcap)
    with open(d + "/events.json", "w") as f:
        json.dump(doc, f)
    got = packets_fields(doc)
    ok(len(got) == len(EVENTS), "events: %d trace events dissected" % len(EVENTS))
    for i, (vec, fields) in enumerate(zip(EVENTS, got)):
        for name, want in vec[2].items():
            have = fields.get(name, [None])[0]
            ok(have == want, "event %d: %s = %s" % (i + 1, name, want), "got %r" % (have,))


def vectors(lua, d):
    events(lua, d)
    anchors()
    pcap = d + "/vectors.pcapng"
    write_pcapng(pcap, ["minimal", "reduced", "standard", "minimal, from libphyllo",
                        "reduced, from libphyllo"], VECTORS)
    doc = dissect(lua, pcap)
    with open(d + "/vectors.json", "w") as f:
        json.dump(doc, f)
    got = packets_fields(doc)
    ok(len(got) == len(VECTORS), "vectors: %d frames dissected" % len(VECTORS))
    for i, (vec, fields) in enumerate(zip(VECTORS, got)):
        for name, want in vec[3].items():
            have = fields.get(name, [None])[0]
            ok(have == want, "vector %d: %s = %s" % (i + 1, name, want), "got %r" % (have,))


# ---- a captured session against the peer's own counters ----
ERRORS = ["overflow", "framing", "length", "crc", "type", "flags"]


def first(fields, name):
    return fields.get(name, [None])[0]


def session(lua, pcap, stats_file, closing=False):
    """closing: the stats were printed before the handle closed, and a
    close sends the ACK still owed (lib_tty.c's t_close): one pure ACK
    after the counters, the capture's last outbound frame, may be extra."""
    with open(stats_file) as f:
        st = json.loads(f.readline())["stats"]
    doc = dissect(lua, pcap)
    with open(pcap + ".json", "w") as f:
        json.dump(doc, f)
    pk = packets_fields(doc)
    inb = [p for p in pk if first(p, "phyllo.direction") == "1"]
    out = [p for p in pk if first(p, "phyllo.direction") == "2"]
    name = pcap.rsplit("/", 1)[-1]
    if closing and len(out) == st["tx_frames"] + 1 and \
            first(out[-1], "phyllo.rel.kind") == "pure ACK":
        ok(True, "%s: the last frame, a pure ACK, went out at close, after the counters" % name)
        out = out[:-1]
    ok(len(inb) + len(out) == len(pk), "%s: every frame has a direction" % name)
    ok(len(inb) == st["rx_frames"], "%s: %d inbound frames = rx_frames" % (name, len(inb)),
       "rx_frames %d" % st["rx_frames"])
    ok(len(out) == st["tx_frames"], "%s: %d outbound frames = tx_frames" % (name, len(out)),
       "tx_frames %d" % st["tx_frames"])
    for e in ERRORS:
        n = sum(1 for p in inb if first(p, "phyllo.error") == e)
        ok(n == st["rx_" + e], "%s: %d inbound '%s' errors = rx_%s" % (name, n, e, e),
           "rx_%s %d" % (e, st["rx_" + e]))
    bad = sum(1 for p in inb if first(p, "phyllo.crc.status") == "0")
    ok(bad == st["rx_crc"], "%s: %d bad CRCs = rx_crc" % (name, bad))
    ok(all(first(p, "phyllo.crc.status") == "1" for p in out),
       "%s: every outbound CRC good (the dissector's CRC-32 = the core's)" % name)

    def count(frames, key, val):
        return sum(1 for p in frames if first(p, key) == val)
    n = count(out, "phyllo.rel.kind", "NAK")
    ok(n == st["tx_naks"], "%s: %d outbound NAKs = tx_naks" % (name, n), "tx_naks %d" % st["tx_naks"])
    # a NAK outside the send window counts as rx_ack_stale instead
    n = count(inb, "phyllo.rel.kind", "NAK")
    ok(st["rx_naks"] <= n <= st["rx_naks"] + st["rx_ack_stale"],
       "%s: %d inbound NAKs = rx_naks %d (+ up to rx_ack_stale %d)" %
       (name, n, st["rx_naks"], st["rx_ack_stale"]))
    n = count(out, "phyllo.rel.retransmission", "1")
    ok(n == st["tx_retransmits"], "%s: %d outbound retransmissions = tx_retransmits" % (name, n),
       "tx_retransmits %d" % st["tx_retransmits"])
    n = count(out, "phyllo.rel.kind", "pure ACK")
    ok(n == st["tx_acks"], "%s: %d outbound pure ACKs = tx_acks" % (name, n),
       "tx_acks %d" % st["tx_acks"])
    return st


def kernel(lua, pcap, before_file, after_file):
    """Trace events of /dev/phylloN against its counters' change."""
    def load(fn):
        with open(fn) as f:
            d = json.loads(f.read().strip())
        return d.get("stats", d)
    b, a = load(before_file), load(after_file)
    delta = {k: a[k] - b[k] for k in a if k in b}
    doc = dissect(lua, pcap)
    ev = packets_fields(doc)
    ok(len(ev) > 0, "kernel: %d trace events captured" % len(ev))
    ts = [float(p["_source"]["layers"]["frame"]["frame.time_epoch"]) for p in doc]
    ok(all(a <= b for a, b in zip(ts, ts[1:])), "kernel: the events' times never go back")
    dirs = {}
    for p, fields in zip(doc, ev):
        d = p["_source"]["layers"]["frame"].get("frame.packet_flags_tree", {}).get(
            "frame.packet_flags_direction", "0")
        dirs.setdefault(first(fields, "phyllo_event.name"), set()).add(int(d, 0))
    ok(dirs.get("phyllo_rx_frame") == {1} and dirs.get("phyllo_tx_frame") == {2},
       "kernel: every received frame inbound, every sent frame outbound", repr(dirs))

    def n(name, key=None, val=None):
        return sum(1 for p in ev if first(p, "phyllo_event.name") == name and
                   (key is None or first(p, key) == val))
    checks = [("rx_frames", n("phyllo_rx_frame"), "phyllo_rx_frame events"),
              ("tx_frames", n("phyllo_tx_frame"), "phyllo_tx_frame events"),
              ("tx_naks", n("phyllo_tx_control", "phyllo_event.nak", "1"), "NAKs sent"),
              ("tx_acks", n("phyllo_tx_control", "phyllo_event.nak", "0"), "pure ACKs sent"),
              ("rx_naks", n("phyllo_rx_ack", "phyllo_event.nak", "1"), "NAKs received"),
              ("tx_timeouts", n("phyllo_timeout"), "timeouts"),
              ("tx_retransmits", sum(int(first(p, "phyllo_event.retransmitted") or 0)
                                     for p in ev), "units resent")]
    for e in ERRORS + ["seq", "dup"]:
        checks.append(("rx_" + e, n("phyllo_rx_frame", "phyllo_event.verdict", e),
                       "frames received with verdict " + e))
    for counter, got, what in checks:
        ok(got == delta[counter], "kernel: %d %s = the change of %s" % (got, what, counter),
           "%s went from %d to %d" % (counter, b[counter], a[counter]))
    for counter in ("rx_crc", "tx_retransmits"):
        ok(delta[counter] > 0, "kernel: the lossy run had %s (%d)" % (counter, delta[counter]))
    naks = delta["tx_naks"] + delta["rx_naks"]
    ok(naks > 0, "kernel: the lossy run had NAKs (%d)" % naks)


def fields(lua, jsons):
    with open(lua) as f:
        declared = set(re.findall(r'ProtoField\.\w+\("([^"]+)"', f.read()))
    seen = set()
    for j in jsons:
        with open(j) as f:
            for p in packets_fields(json.load(f)):
                seen |= set(p)
    missing = sorted(declared - seen)
    ok(not missing, "all %d fields the dissector declares were shown" % len(declared),
       "never shown: " + ", ".join(missing))


def main():
    cmd = sys.argv[1]
    if cmd == "vectors":
        vectors(sys.argv[2], sys.argv[3])
    elif cmd == "session":
        session(sys.argv[2], sys.argv[3], sys.argv[4], "--closing" in sys.argv[5:])
    elif cmd == "kernel":
        kernel(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif cmd == "fields":
        fields(sys.argv[2], sys.argv[3:])
    sys.exit(1 if failed else 0)


main()
