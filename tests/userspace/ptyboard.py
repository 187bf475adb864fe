#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# ptyboard.py - the far ends a new user meets, on a new pty whose slave is
# symlinked at LINK (removed at exit), until SIGTERM:
#   silent LINK                nothing there: the port is open, nothing answers
#   noise LINK                 bytes that never make a frame (another speed):
#                              a seeded random stream, zeros included
#   late LINK S CMD...         a board that boots S seconds after the port
#                              appears: CMD runs then, on the pty (stdin/stdout)
#   restart LINK S CMD...      a board that keeps restarting: CMD runs for S
#                              seconds, is killed and starts again, forever
#   once LINK S CMD...         CMD runs for S seconds before anyone opens the
#                              port (what it writes waits in the pty for the
#                              first reader: a board's first frames), is
#                              killed, and nothing more is said; LINK
#                              appears then
# CMD is typically `phyllo peer --echo` (its link is stdin/stdout). In
# restart and once, CMD's S seconds count from the first byte it writes
# (relayed to the pty through a pipe), not from its start: on a loaded
# machine a sanitized peer may take longer than S to start, and a board
# killed before it said anything is not the board the test describes.
import os
import random
import select
import signal
import subprocess
import sys
import time
import tty


running = []	# the CMD run_for() runs, for stop() to end


def run_for(cmd, master, seconds):
    """CMD on the pty for SECONDS from its first byte written, then killed."""
    child = subprocess.Popen(cmd, stdin=master, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
    running[:] = [child]
    out = child.stdout.fileno()
    data = os.read(out, 4096)	# however long it takes to start
    end = time.monotonic() + seconds
    while data:
        os.write(master, data)
        left = end - time.monotonic()
        if left <= 0 or not select.select([out], [], [], left)[0]:
            break
        data = os.read(out, 4096)
    child.kill()
    child.wait()
    child.stdout.close()
    running.clear()


def main():
    mode, link = sys.argv[1], sys.argv[2]
    master, slave = os.openpty()
    tty.setraw(slave)
    if mode != "once":
        os.symlink(os.ttyname(slave), link)
    child = None

    def stop(*_):
        for c in ([child] if child else []) + running:
            if c.poll() is None:
                c.kill()
        try:
            os.unlink(link)
        except OSError:
            pass
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if mode == "silent":
        while True:
            time.sleep(1)
    if mode == "noise":
        rnd = random.Random(17)
        while True:
            os.write(master, bytes(rnd.randrange(256) for _ in range(64)))
            time.sleep(0.02)
    seconds, cmd = float(sys.argv[3]), sys.argv[4:]
    if mode == "late":
        time.sleep(seconds)
        child = subprocess.Popen(cmd, stdin=master, stdout=master)
        child.wait()
        stop()
    if mode == "once":
        run_for(cmd, master, seconds)
        os.symlink(os.ttyname(slave), link)	# only now: the port is there
        while True:
            time.sleep(1)
    while mode == "restart":
        run_for(cmd, master, seconds)
    sys.exit(f"ptyboard.py: unknown mode {mode}")


if __name__ == "__main__":
    main()
