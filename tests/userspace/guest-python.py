# SPDX-License-Identifier: GPL-2.0-only OR MIT
"""Runs inside the qemu guest of test-guest.sh (guest-attach.sh calls it):
the Python package on /dev/phylloN, the kernel transport, against the echo
peer at the far end of the link. Prints "python on DEV: ok" or fails."""

import sys

import phyllolink as phyllo

dev = sys.argv[1]
with phyllo.open(dev) as link:
    assert link.status()["transport"] == "kernel", link.status()
    reply = link.request("servo", 90, timeout=5)
    assert reply.value == 90 and isinstance(reply.value, int), reply
    assert reply.payload == b"\x5a", reply.payload
    link.subscribe("sensors/")
    link.publish("sensors/t", 21.5)
    link.publish("other", 1)            # echoed, not subscribed
    got = [(m.topic, m.value) for m in link.messages(timeout=2)]
    assert got == [("sensors/t", 21.5)], got
    calls = []
    link.subscribe("cb/", calls.append)  # two prefixes: the library filters
    link.publish("cb/x", {"k": [1, 2]})
    assert link.loop(timeout=5, count=1) == 1 and calls[0].value == {"k": [1, 2]}, calls
    link.subscribe_type(phyllo.TYPE_BUFFER)
    link.send(phyllo.TYPE_BUFFER, b"raw")
    m = link.receive(timeout=5)
    assert m is not None and m.payload == b"raw", m
    st = link.stats()
    assert st["rx_units"] >= 4 and st["sessions"] >= 1 and len(st) == 34, st
print(f"python on {dev}: ok")
