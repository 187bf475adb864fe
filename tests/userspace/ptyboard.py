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
# CMD is typically `phyllo peer --echo` (its link is stdin/stdout).
import os
import random
import signal
import subprocess
import sys
import time
import tty


def main():
    mode, link = sys.argv[1], sys.argv[2]
    master, slave = os.openpty()
    tty.setraw(slave)
    if mode != "once":
        os.symlink(os.ttyname(slave), link)
    child = None

    def stop(*_):
        if child and child.poll() is None:
            child.kill()
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
        child = subprocess.Popen(cmd, stdin=master, stdout=master, stderr=subprocess.DEVNULL)
        time.sleep(seconds)
        child.kill()
        child.wait()
        child = None
        os.symlink(os.ttyname(slave), link)	# only now: the port is there
        while True:
            time.sleep(1)
    while mode == "restart":
        child = subprocess.Popen(cmd, stdin=master, stdout=master, stderr=subprocess.DEVNULL)
        time.sleep(seconds)
        child.kill()
        child.wait()
    sys.exit(f"ptyboard.py: unknown mode {mode}")


if __name__ == "__main__":
    main()
