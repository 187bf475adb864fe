#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR MIT
"""bench.py BUILD HOST - the Cortex-M half of make bench-firmware.

qemu is not cycle-accurate, so the Cortex-M boards are measured in
instructions executed, counted by a qemu plugin (icount.c, built as
HOST/phyllo-icount.so) while the echo firmware serves `phyllo peer
--client` through a pty (qemu-pty.sh), with -icount shift=4 so that the
guest's clock follows the instructions it runs. For each board and tuple
(small, large, very large), stop-and-wait:

  all   every instruction the CPU executed: parsing, replying, the UART
        interrupts (one or more per byte each way), the main loop's
        wake-ups and the protocol timers;
  work  the instructions inside phyllo_cm_work_begin/_end (cm_main.c):
        parse, reply, timers (plus interrupts that fall inside), as the
        Uno's "stack" cycles.

The peer's retransmission timeout is held at 1-3 s so that no request is
sent twice (a resent one would be counted as work); the runs report the
peer's retransmissions, which should be 0. Both are per echo and net: two client runs of N1 and N2 echoes, each
bracketed by snapshots, give (count(N2) - count(N1)) / (N2 - N1), which
cancels the session set-up; the 1 kHz SysTick's idle cost (instructions
per tick, measured over a second of idling) is taken off for the ticks
that fell in the difference, since how many land depends on the host's
speed. Writes BUILD/firmware/bench-cortexm.json and prints a table.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

BUILD, HOST = sys.argv[1], sys.argv[2]
FW = os.path.join(BUILD, "firmware")
HERE = os.path.dirname(os.path.abspath(__file__))
PLUGIN = os.path.join(HOST, "phyllo-icount.so")
PEER = os.path.join(HOST, "phyllo")
BOARDS = [("cm-an385", "mps2-an385", "Cortex-M3", "Arduino Due"),
          ("cm-an386", "mps2-an386", "Cortex-M4", "Teensy 3.6"),
          ("cm-an500", "mps2-an500", "Cortex-M7", "Teensy 4.0"),
          ("cm-microbit", "microbit", "Cortex-M0", "Teensy LC")]
TUPLES = ("small", "large", "very-large")
N1, N2 = 50, 250


def symbols(elf):
    out = subprocess.check_output(["arm-none-eabi-nm", elf], universal_newlines=True)
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3:
            syms[f[2]] = int(f[0], 16)
    return syms


class Board:
    def __init__(self, build, machine, tmp):
        self.elf = os.path.join(FW, build, "phyllo-%s.elf" % build)
        s = symbols(self.elf)
        self.ctl = os.path.join(tmp, "ctl")
        self.out = os.path.join(tmp, "counts")
        self.tty = os.path.join(tmp, "tty")
        os.mkfifo(self.ctl)
        plugin = "%s,ctl=%s,out=%s,begin=%#x,end=%#x,tick=%#x" % (
            PLUGIN, self.ctl, self.out, s["phyllo_cm_work_begin"],
            s["phyllo_cm_work_end"], s["phyllo_cm_systick_isr"])
        self.proc = subprocess.Popen(
            [os.path.join(HERE, "qemu-pty.sh"), machine, self.elf, self.tty,
             "-icount", "shift=4,sleep=on", "-plugin", plugin],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(600):
            if os.path.exists(self.tty):
                break
            time.sleep(0.1)
        else:
            raise RuntimeError("qemu did not come up for " + build)
        self.lines = 0

    def snap(self):
        with open(self.ctl, "w") as f:
            f.write("\n")
        for _ in range(500):
            with open(self.out) as f:
                rows = f.read().splitlines()
            if len(rows) > self.lines:
                self.lines = len(rows)
                return [int(x) for x in rows[-1].split()]
            time.sleep(0.01)
        raise RuntimeError("the plugin did not answer")

    def client(self, payload, count):
        p = subprocess.run([PEER, "peer", "--client", "--device", self.tty, "--baud", "115200",
                            "--window", "1", "--count", str(count), "--payload", payload,
                            "--timeout", "300", "--rto-min", "1000", "--rto-max", "3000"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           universal_newlines=True, check=False)
        lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
        r = json.loads(lines[-1]) if lines else {}
        ok = p.returncode == 0 and r.get("received") == count and r.get("lost") == 0
        return ok, r

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def measure(board, payload):
    """Counts over runs of N1 and N2 echoes; idle cost per tick."""
    deltas = []
    ok = True
    rate = 0.0
    resent = 0
    for n in (N1, N2):
        a = board.snap()
        good, r = board.client(payload, n)
        b = board.snap()
        ok = ok and good
        rate = r.get("msgs_per_s", 0.0)
        resent += r.get("stats", {}).get("tx_retransmits", 0)
        deltas.append([y - x for x, y in zip(a, b)])
    a = board.snap()
    time.sleep(1.0)
    b = board.snap()
    idle = [y - x for x, y in zip(a, b)]
    per_tick_all = idle[0] / idle[2] if idle[2] else 0.0
    per_tick_work = idle[1] / idle[2] if idle[2] else 0.0
    d = [y - x for x, y in zip(deltas[0], deltas[1])]
    n = N2 - N1
    return {"payload": payload, "ok": ok,
            "insns_per_echo": round((d[0] - d[2] * per_tick_all) / n),
            "work_insns_per_echo": round((d[1] - d[2] * per_tick_work) / n),
            "ticks_per_echo": round(d[2] / n, 2),
            "idle_insns_per_tick": round(per_tick_all, 1),
            "qemu_echoes_per_s": rate, "peer_retransmits": resent}


def sizes(build):
    out = subprocess.check_output([os.path.join(HERE, "..", "..", "firmware", "cortexm",
                                                "size-table.sh"),
                                   os.path.join(FW, build, "phyllo-%s.elf" % build)],
                                  universal_newlines=True).splitlines()[-1].split()
    return {"flash": int(out[4]), "static_ram": int(out[5])}


def main():
    runs = []
    for build, machine, cpu, stands_for in BOARDS:
        with tempfile.TemporaryDirectory(prefix="phyllo-bench-") as tmp:
            board = Board(build, machine, tmp)
            try:
                for payload in TUPLES:
                    r = measure(board, payload)
                    r.update({"build": build, "machine": machine, "cpu": cpu,
                              "stands_for": stands_for})
                    r.update(sizes(build))
                    runs.append(r)
            finally:
                board.stop()
    print("%-12s %-10s %-10s %4s %12s %12s %8s %7s %10s" % (
        "build", "cpu", "tuple", "ok", "insns/echo", "work/echo", "ticks", "resent",
        "qemu ech/s"))
    for r in runs:
        print("%-12s %-10s %-10s %4s %12d %12d %8.2f %7d %10.1f" % (
            r["build"], r["cpu"], r["payload"], "yes" if r["ok"] else "NO",
            r["insns_per_echo"], r["work_insns_per_echo"], r["ticks_per_echo"],
            r["peer_retransmits"], r["qemu_echoes_per_s"]))
    print("\n(instructions, net of the 1 kHz tick; stop-and-wait; qemu's echoes/s say "
          "nothing about a real board)")
    path = os.path.join(FW, "bench-cortexm.json")
    with open(path, "w") as f:
        json.dump({"runs": runs}, f, indent=1)
    print("written: %s" % path)
    return 0 if all(r["ok"] for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
