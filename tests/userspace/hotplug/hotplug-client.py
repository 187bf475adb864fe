#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# hotplug-client.py - the Python program of make test-hotplug, as
# hotplug-client.c is its libphyllo program: one phyllolink Link on
# /dev/phyllo/NAME, opened once and kept across every unplug, plug and
# reset; one line per thing received, flushed, each starting with the
# CLOCK_MONOTONIC time in seconds: ready, unit TOPIC JSON, down (LinkDown),
# up SESSION (LinkUp), reset SESSION (SessionReset), end ERROR.
# Usage: hotplug-client.py LINK
import json
import sys
import time

import phyllolink


def say(text):
    print("%.6f %s" % (time.monotonic(), text), flush=True)


def main():
    link = phyllolink.open(sys.argv[1])
    link.subscribe("")
    say("ready")
    while True:
        try:
            m = link.receive()
        except phyllolink.LinkDown:
            say("down")
            continue
        except phyllolink.LinkUp:
            say("up %s" % link.status()["session"])
            continue
        except phyllolink.SessionReset:
            say("reset %s" % link.status()["session"])
            continue
        except phyllolink.PhylloError as e:
            say("end %s" % e)
            return 1
        if m is not None:
            say("unit %s %s" % (m.topic, json.dumps(m.value)))


if __name__ == "__main__":
    sys.exit(main())
