#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR MIT
"""bench.py BUILD HOST - make bench-firmware: the firmware measured on simavr.

Runs the in-simulator echo client of phyllo-simavr (the same protocol core,
in simulated time, so every number is exact and repeatable) against the
Uno and Micro standard + pub-sub builds, for the three benchmark tuples,
stop-and-wait and with the window full, at 115200 and 1,000,000 baud.
Prints a table and writes BUILD/firmware/bench.json.

Two cycle counts per echo are reported:
  busy   every CPU cycle not spent asleep: protocol work, every UART
         interrupt (one per byte each way) and the 1 kHz clock tick;
  stack  the cycles inside the firmware's GPIOR1 bracket: parsing the
         request, building and queueing the reply, the protocol timers
         (plus the UART interrupts that happen to fall inside).
"""
import bisect
import json
import os
import subprocess
import sys

BUILD, HOST = sys.argv[1], sys.argv[2]
FW = os.path.join(BUILD, "firmware")
SIM = os.path.join(HOST, "phyllo-simavr")
TUPLES = ("small", "large", "very-large")


def elf(name):
    return os.path.join(FW, name, "phyllo-%s.elf" % name)


def run(build, mcu, baud, payload, window, count):
    cmd = [SIM, "--bench", "--mcu", mcu, "--baud", str(baud), "--preset", "standard",
           "--payload", payload, "--window", str(window), "--count", str(count), elf(build)]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       universal_newlines=True, check=False)
    line = [l for l in p.stdout.splitlines() if l.startswith("{")]
    r = json.loads(line[-1]) if line else {"ok": False}
    r.update({"build": build, "payload": payload})
    return r


def sizes():
    out = []
    for name in sorted(os.listdir(FW)):
        path = elf(name)
        if not os.path.exists(path):
            continue
        sec = {}
        for l in subprocess.check_output(["avr-size", "-A", path],
                                         universal_newlines=True).splitlines():
            f = l.split()
            if len(f) >= 2 and f[0] in (".text", ".data", ".bss"):
                sec[f[0][1:]] = int(f[1])
        out.append({"build": name, "text": sec.get("text", 0), "data": sec.get("data", 0),
                    "bss": sec.get("bss", 0), "flash": sec.get("text", 0) + sec.get("data", 0),
                    "static_ram": sec.get("data", 0) + sec.get("bss", 0)})
    return out


# build, mcu, baud, window: the Uno holds 2 units, the Micro 4; at 1 Mbaud
# the CPU is the bottleneck and 4 large requests in flight overrun even the
# Micro's 256-byte ring, so it runs with 2. Every tuple runs with the window
# full, the very large one too: the firmware takes in a request while it
# sends a reply.
PLAN = [
    ("uno-standard", "atmega328p", 115200, 1),
    ("uno-standard", "atmega328p", 115200, 2),
    ("uno-standard-1m", "atmega328p", 1000000, 1),
    ("uno-standard-1m", "atmega328p", 1000000, 2),
    ("micro-standard", "atmega32u4", 115200, 4),
    ("micro-standard-1m", "atmega32u4", 1000000, 2),
]


def run_all():
    runs = []
    for build, mcu, baud, window in PLAN:
        for payload in TUPLES:
            runs.append(run(build, mcu, baud, payload, window, 1000))
    return runs


# Where the busy cycles of an echo go, by layer: --profile gives the busy
# cycles of every flash address, addr2line the source file each came from
# (inlined code counts where it was written).
LAYERS = (
    ("UART (interrupts, rings, write)", ("uart.c", "uart_ring.h", "mega0_usart.c")),
    ("clock tick", ("clock.c",)),
    ("main loop (sleep test, feed)", ("main.c", "main_loop.h")),
    ("COBS", ("phyllo_cobs.c", "phyllo_cobs_buf.c")),
    ("CRC-32", ("phyllo_crc.c", "phyllo_crc_bitwise.c")),
    ("reliable (ARQ)", ("phyllo_arq.c",)),
    ("datagram + stack glue", ("phyllo_stack.c", "phyllo_datagram.c", "phyllo_chunk.c")),
    ("pub-sub + node", ("phyllo_pubsub.c", "phyllo_doc.c", "phyllo_node.c")),
    ("MessagePack", ("phyllo_msgpack.c",)),
)
LIBC = ("memcpy", "memchr", "memcmp", "memcmp_P", "memset", "memmove", "strlen")
SPLIT = [("uno-standard", "atmega328p", 115200, 1), ("uno-standard-1m", "atmega328p", 1000000, 2)]


def split(build, mcu, baud, payload, window, count=1000):
    prof = os.path.join(FW, "bench-profile.txt")
    cmd = [SIM, "--bench", "--mcu", mcu, "--baud", str(baud), "--preset", "standard",
           "--payload", payload, "--window", str(window), "--count", str(count),
           "--profile", prof, elf(build)]
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    rows = [l.split() for l in open(prof)]
    lines = subprocess.run(["avr-addr2line", "-e", elf(build)] + [a for a, _ in rows],
                           stdout=subprocess.PIPE, universal_newlines=True).stdout.splitlines()
    # The C library and libgcc have no line information: addr2line names
    # the nearest line before them, so their code is told by its symbol.
    syms = []
    for l in subprocess.check_output(["avr-nm", "-n", elf(build)],
                                     universal_newlines=True).splitlines():
        f = l.split()
        if len(f) == 3 and f[1] in "tTwW":
            syms.append((int(f[0], 16), f[2]))
    addrs = [a for a, _ in syms]
    per = {name: 0 for name, _ in LAYERS}
    per["libc, libgcc, vectors"] = 0
    for (a, c), line in zip(rows, lines):
        i = bisect.bisect_right(addrs, int(a, 16)) - 1
        sym = syms[i][1] if i >= 0 else ""
        f = line.split(":")[0].split("/")[-1]
        name = next((n for n, files in LAYERS if f in files), "libc, libgcc, vectors")
        if sym in LIBC or (sym.startswith("__") and not sym.startswith("__vector_")):
            name = "libc, libgcc, vectors"
        per[name] += int(c)
    os.unlink(prof)
    return {"build": build, "baud": baud, "window": window, "payload": payload,
            "cycles_per_echo": {k: round(v / count) for k, v in per.items()},
            "total_per_echo": round(sum(per.values()) / count)}


def split_all():
    return [split(b, m, baud, p, w) for b, m, baud, w in SPLIT for p in TUPLES]


def print_split(splits):
    print("\nbusy cycles per echo by layer (1,000 echoes, session set-up included)")
    heads = ["%s %s w%d" % (s["payload"], "1M" if s["baud"] == 1000000 else "115k", s["window"])
             for s in splits]
    print("%-32s" % "layer" + "".join("%19s" % h for h in heads))
    for name in list(splits[0]["cycles_per_echo"]):
        print("%-32s" % name + "".join("%19d" % s["cycles_per_echo"][name] for s in splits))
    print("%-32s" % "total" + "".join("%19d" % s["total_per_echo"] for s in splits))


def print_runs(runs):
    print("%-18s %7s %3s %-10s %6s %9s %10s %8s %8s %6s" % (
        "build", "baud", "win", "tuple", "ok", "echoes/s", "goodput/s", "busy/ech",
        "stack/ech", "rexmit"))
    for r in runs:
        print("%-18s %7s %3s %-10s %6s %9.1f %10.0f %8.0f %8.0f %6s" % (
            r["build"], r.get("baud", "?"), r.get("window", "?"), r["payload"],
            "yes" if r.get("ok") else "NO", r.get("echoes_per_s", 0),
            r.get("goodput_bytes_per_s", 0), r.get("busy_cycles_per_echo", 0),
            r.get("stack_cycles_per_echo", 0), r.get("tx_retransmits", "?")))


def print_sizes(sz, runs):
    # Stack headroom: RAM between the end of .bss (RAM starts at 0x100 on
    # both chips) and the lowest stack pointer any run of the build reached.
    for s in sz:
        sps = [r["sp_min"] for r in runs if r["build"] == s["build"] and r.get("sp_min")]
        if sps:
            s["lowest_sp"] = min(sps)
            s["stack_headroom"] = min(sps) + 1 - (0x100 + s["static_ram"])
    print("\n%-22s %8s %8s %8s %10s %10s %9s" % ("build", "text", "data", "bss", "flash",
                                                "static-ram", "headroom"))
    for s in sz:
        print("%-22s %8d %8d %8d %10d %10d %9s" % (s["build"], s["text"], s["data"], s["bss"],
                                                 s["flash"], s["static_ram"],
                                                 s.get("stack_headroom", "-")))


def check_targets(runs, sz):
    def pick(build, baud, window, payload):
        for r in runs:
            if (r["build"] == build and r.get("baud") == baud and
                    r.get("window") == window and r["payload"] == payload):
                return r
        return {}

    uno = next((s for s in sz if s["build"] == "uno-standard"), {})
    targets = []

    def target(what, measured, limit, at_most):
        met = measured <= limit if at_most else measured >= limit
        targets.append({"what": what, "measured": round(measured, 1), "target": limit,
                        "kind": "at most" if at_most else "at least", "met": met})

    target("Uno static RAM (data+bss), bytes", uno.get("static_ram", 1e9), 1280, True)
    target("Uno flash, bytes", uno.get("flash", 1e9), 12 * 1024, True)
    for payload, limit in (("small", 12000), ("large", 25000), ("very-large", 70000)):
        r = pick("uno-standard", 115200, 1, payload)
        target("stack cycles per %s echo (115200, stop-and-wait)" % payload,
               r.get("stack_cycles_per_echo", 1e9), limit, True)
        target("busy cycles per %s echo (115200, stop-and-wait, all interrupts)" % payload,
               r.get("busy_cycles_per_echo", 1e9), limit, True)
    vl = pick("uno-standard", 115200, 2, "very-large")
    target("very-large echoes/s, window 2, 115200", vl.get("echoes_per_s", 0), 39, False)
    target("very-large resends, window 2, 115200", vl.get("tx_retransmits", 1e9), 0, True)
    target("small echoes/s, window full, 115200",
           pick("uno-standard", 115200, 2, "small").get("echoes_per_s", 0), 300, False)
    target("large echoes/s, window full, 115200",
           pick("uno-standard", 115200, 2, "large").get("echoes_per_s", 0), 145, False)
    sm = pick("uno-standard-1m", 1000000, 2, "small")
    target("small echoes/s, window 2, 1 Mbaud", sm.get("echoes_per_s", 0), 2500, False)
    target("busy cycles per small echo, window 2, 1 Mbaud", sm.get("busy_cycles_per_echo", 1e9),
           6400, True)
    target("very-large echoes/s, window 2, 1 Mbaud",
           pick("uno-standard-1m", 1000000, 2, "very-large").get("echoes_per_s", 0), 300, False)

    print("\n%-70s %9s %8s %s" % ("target (Uno, standard + pub-sub)", "measured", "target",
                                    "met"))
    for t in targets:
        print("%-70s %9s %8s %s" % (t["what"], t["measured"],
                                     ("<=" if t["kind"] == "at most" else ">=") +
                                     str(t["target"]), "yes" if t["met"] else "NO"))
    return targets


def main():
    runs = run_all()
    print_runs(runs)
    sz = sizes()
    print_sizes(sz, runs)
    splits = split_all()
    print_split(splits)
    targets = check_targets(runs, sz)
    path = os.path.join(FW, "bench.json")
    with open(path, "w") as f:
        json.dump({"runs": runs, "sizes": sz, "layers": splits, "targets": targets}, f, indent=1)
    print("\nwritten: %s" % path)
    return 0 if all(r.get("ok") for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
