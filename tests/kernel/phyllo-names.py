#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# phyllo-names.py - the Python package in test-kernel's named-link phase
# (names-tests.sh), as phyllo-names.c is libphyllo: one Link, kept open;
# one line per thing received, flushed: ready, unit TOPIC JSON, down
# (LinkDown), up SESSION (LinkUp), reset SESSION, end ERROR.
# Usage: phyllo-names.py /dev/phylloN
import json
import sys

import phyllolink

link = phyllolink.open(sys.argv[1])
link.subscribe("")
print("ready", flush=True)
while True:
    try:
        m = link.receive()
    except phyllolink.LinkDown:
        print("down", flush=True)
        continue
    except phyllolink.LinkUp:
        print(f"up {link.status()['session']}", flush=True)
        continue
    except phyllolink.SessionReset:
        print(f"reset {link.status()['session']}", flush=True)
        continue
    except phyllolink.PhylloError as e:
        print(f"end {e}", flush=True)
        sys.exit(1)
    if m is not None:
        print(f"unit {m.topic} {json.dumps(m.value)}", flush=True)
