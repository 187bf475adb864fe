#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR MIT
"""icount-anatomy.py RUN.txt - where the time goes in a traced run of the
deterministic bench (BENCH_TRACE=1 or 3 tests/bench/icount.sh RUN.txt).

ACK service (ack-*), per sample, from the far end's first frame (t0) to
the path's next frame, the same samples icount-guest.sh takes: when the
tty's flush work started, when the line discipline's or n_tty's
receive_buf ran, when the application ran (user paths) and the frame.
Round trip (rtt-*), per cycle from the application's frame to its next:
the far end's echo frame, the path's receive of it, the application
running. With BENCH_TRACE=3, the mean time and count of each function
under the line discipline's receive_buf. Medians; tracing costs guest
instructions, so compare segments with each other (docs/bench.md)."""
import collections
import re
import sys

EVENT = re.compile(r"^TRACE (\S+)\s+(.+?)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): (\S+): ?(.*)$")
GRAPH = re.compile(r"^TRACE (\S+)\s+\d\)\s+[+!#*@$ ]*([\d.]+ us)?\s*\|(\s*)(.*)$")


def pct(v, q):
    """Nearest-rank percentile q (0..1) of v."""
    v = sorted(v)
    return v[max(int(q * len(v) + 0.999999), 1) - 1] if v else 0


def load(path):
    events = collections.defaultdict(list)
    for line in open(path, errors="replace"):
        m = EVENT.match(line.replace("\r", "").rstrip("\n"))
        if m:
            name, comm, pid, t, ev, rest = m.groups()
            events[name].append((float(t) * 1e6, comm.strip(), int(pid), ev, rest))
    return events


def ack_samples(evs):
    """What each ACK-service sample went through, in microseconds."""
    far = next((pid for _, comm, pid, ev, _ in evs if ev == "w" and comm == "phyllo"), None)
    out, cur = [], None
    for t, _, pid, ev, rest in evs:
        if ev == "w" and pid == far:
            cur = cur or {"t0": t}
        elif ev == "w" and rest.endswith("b0=0") and cur:
            cur["frame"] = t
            out.append(cur)
            cur = None
        elif cur and ev == "fl":
            cur.setdefault("flush", t)
        elif cur and ev in ("rb", "nrb"):
            cur.setdefault("receive", t)
        elif cur and ev == "sched_switch" and "next_comm=bench-app" in rest and "receive" in cur:
            cur.setdefault("app", t)
    return out


def rtt_cycles(evs):
    out, cur = [], None
    for t, comm, _, ev, rest in evs:
        if ev == "w" and comm == "bench-app":
            if cur and "app" in cur:
                cur["next"] = t
                out.append(cur)
            cur = {"frame": t}
        elif cur and ev == "w" and comm == "phyllo":
            cur.setdefault("echo", t)
        elif cur and ev in ("rb", "nrb") and "echo" in cur:
            cur.setdefault("receive", t)
        elif cur and ev == "sched_switch" and "next_comm=bench-app" in rest and "receive" in cur:
            cur.setdefault("app", t)
    return out


def segments(name, rows, steps):
    total = [r[steps[-1]] - r[steps[0]] for r in rows if steps[-1] in r]
    print("%s: %d samples, %s -> %s p50 %.0f us, p99 %.0f us" %
          (name, len(rows), steps[0], steps[-1], pct(total, .5), pct(total, .99)))
    have = [s for s in steps if any(s in r for r in rows)]
    for a, b in zip(have, have[1:]):
        v = [r[b] - r[a] for r in rows if a in r and b in r]
        print("  %-8s -> %-8s p50 %6.0f  p99 %6.0f" % (a, b, pct(v, .5), pct(v, .99)))


def graph(path):
    """Mean time and count of each function under receive_buf, per run."""
    runs = collections.defaultdict(lambda: collections.defaultdict(list))
    stacks = collections.defaultdict(list)
    for line in open(path, errors="replace"):
        m = GRAPH.match(line.replace("\r", "").rstrip("\n"))
        if not m:
            continue
        name, dur, _, body = m.groups()
        stack = stacks[name]
        if body.endswith("{"):
            stack.append(body[:-1].strip())
            continue
        if body.startswith("}") and stack:
            fn = stack.pop()
        elif body.endswith(";"):
            fn = body[:-1].strip()
        else:
            continue
        if dur:
            runs[name][(stack[-1] if stack else "", fn)].append(float(dur.split()[0]))
    for name, fns in runs.items():
        print("%s: function graph under receive_buf (mean us, calls)" % name)
        for (parent, fn), v in sorted(fns.items(), key=lambda kv: -sum(kv[1]))[:16]:
            print("  %-44s %-40s %7.1f %6d" % (parent[:44], fn[:40], sum(v) / len(v), len(v)))


def main():
    events = load(sys.argv[1])
    for name, evs in events.items():
        if "/ack-" in name:
            segments(name, ack_samples(evs), ("t0", "flush", "receive", "app", "frame"))
        elif "/rtt-" in name:
            segments(name, rtt_cycles(evs), ("frame", "echo", "receive", "app", "next"))
    graph(sys.argv[1])
    for line in open(sys.argv[1], errors="replace"):
        if line.startswith("LINKSTATS "):
            print(line.strip())


if __name__ == "__main__":
    main()
