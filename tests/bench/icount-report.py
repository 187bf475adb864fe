#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR MIT
"""icount-report.py OUT_PREFIX RUN1.txt [RUN2.txt] - the tables of the
deterministic bench (icount.sh), kernel against userspace measured side by
side in one run, and with RUN2 how far a second run moved each figure.
Writes OUT_PREFIX.json and, with matplotlib, OUT_PREFIX.png: the latency
CDF of each scenario (log scale), the three paths side by side.
--check: only verify that RUN1 has every scenario row with samples."""
import json
import sys

PATHS = ("kernel", "user", "user-rt")
SCENS = ("ack-prompt", "ack-sleep", "ack-hog1", "ack-hog2", "ack-stream",
         "rtt-prompt", "rtt-sleep", "rtt-hog1", "rtt-hog2", "rtt-stream")
WHAT = {"ack": "ACK service (far end's bytes into the pty -> the path's next frame out)",
        "rtt": "application round trip (phyllo_send -> its echo's phyllo_recv)"}
APP = {"prompt": "reads promptly", "sleep": "sleeps 50 ms between reads",
       "hog1": "1 CPU hog beside it", "hog2": "2 CPU hogs beside it",
       "stream": "far end at line rate (ack) / 8 in flight (rtt)"}
FIGS = ("p50", "p99", "p999", "max")


def load(path):
    res, samples = {}, {}
    for line in open(path):
        kind, _, rest = line.strip().partition(" ")
        name, _, text = rest.partition(" ")
        if kind == "RESULT":
            try:
                res[name] = json.loads(text)
            except ValueError:
                res[name] = {}
        elif kind == "SAMPLES":
            samples[name] = sorted(float(v) for v in text.split())
    return res, samples


def pct(v, q):
    """Nearest-rank percentile q (0..1) of the sorted list v."""
    if not v:
        return 0.0
    i = max(1, int(q * len(v) + 0.999999))
    return v[min(i, len(v)) - 1]


def figures(res, samples):
    out = {}
    for scen in SCENS:
        for path in PATHS:
            name = f"{path}/{scen}"
            v, r = samples.get(name, []), res.get(name, {})
            count = r.get("count", 0)
            cpu = r.get("app_cpu_us", 0) + r.get("other_cpu_us", 0)
            out[name] = {"n": len(v), "p50": pct(v, 0.5), "p99": pct(v, 0.99),
                         "p999": pct(v, 0.999), "max": v[-1] if v else 0.0,
                         "cpu_us_per_msg": cpu / count if count else 0.0}
    return out


def ratio(a, b):
    return f"{a / b:.2f}" if b else "-"


def table(fig, other=None):
    print(f"{'scenario':<11} {'path':<8} {'n':>5} {'p50 us':>9} {'p99 us':>9} "
          f"{'p99.9 us':>9} {'max us':>9} {'CPU us/msg':>10}" +
          ("  run 2 moved" if other else ""))
    for scen in SCENS:
        if scen in ("ack-prompt", "rtt-prompt"):
            print(WHAT[scen[:3]])
        for path in PATHS:
            f = fig[f"{path}/{scen}"]
            line = (f"{scen:<11} {path:<8} {f['n']:>5} {f['p50']:>9.1f} {f['p99']:>9.1f} "
                    f"{f['p999']:>9.1f} {f['max']:>9.1f} {f['cpu_us_per_msg']:>10.1f}")
            if other:
                line += f"  {100 * moved(f, other[f'{path}/{scen}']):>5.1f}%"
            print(line)
        k, u, rt = (fig[f"{p}/{scen}"] for p in PATHS)
        print(f"{'':<11} p99 kernel/user {ratio(k['p99'], u['p99'])}, "
              f"kernel/user-rt {ratio(k['p99'], rt['p99'])}; CPU kernel/user "
              f"{ratio(k['cpu_us_per_msg'], u['cpu_us_per_msg'])}, kernel/user-rt "
              f"{ratio(k['cpu_us_per_msg'], rt['cpu_us_per_msg'])}  ({APP[scen[4:]]})")


def moved(a, b):
    """The largest relative change of p50, p99, p99.9 and CPU between runs."""
    keys = ("p50", "p99", "p999", "cpu_us_per_msg")
    return max(abs(a[k] - b[k]) / max(abs(a[k]), 1e-9) for k in keys)


def targets(fig):
    """Issue 18's targets, met or not, in words (reported, never asserted)."""
    def p99(path, scen):
        return fig[f"{path}/{scen}"]["p99"]

    def cpu(path, scen):
        return fig[f"{path}/{scen}"]["cpu_us_per_msg"]
    rows = [(f"ACK p99 kernel <= {lim}x user, {s}", p99("kernel", s) <= lim * p99("user", s))
            for s, lim in (("ack-sleep", 0.1), ("ack-hog1", 0.1), ("ack-hog2", 0.1),
                           ("ack-prompt", 0.5))]
    rows += [(f"ACK p99 kernel <= 100 us, {s}", p99("kernel", s) <= 100)
             for s in SCENS if s.startswith("ack-")]
    rows += [(f"round trip p99 kernel <= 0.7x user, {s}", p99("kernel", s) <= 0.7 * p99("user", s))
             for s in ("rtt-prompt", "rtt-hog1", "rtt-hog2")]
    rows += [(f"p99 kernel <= user-rt, {s}", p99("kernel", s) <= p99("user-rt", s)) for s in SCENS]
    rows += [(f"CPU/msg kernel < user-rt, {s}", cpu("kernel", s) < cpu("user-rt", s))
             for s in SCENS]
    print("targets (issue 18):")
    for what, ok in rows:
        print(f"  {'met    ' if ok else 'NOT MET'} {what}")
    return {what: ok for what, ok in rows}


def stability(a, b):
    """Per figure (p50, p99, p99.9, CPU): how many of the rows moved less
    than 10% between the two runs, and which did not."""
    out = {}
    for key in ("p50", "p99", "p999", "cpu_us_per_msg"):
        far = [k for k in a if abs(a[k][key] - b[k][key]) >= 0.1 * max(abs(a[k][key]), 1e-9)]
        out[key] = {"within": len(a) - len(far), "rows": len(a), "moved": far}
        print(f"two runs, {key}: {len(a) - len(far)} of {len(a)} rows within 10%" +
              (f"; not {', '.join(far)}" if far else ""))
    return out


def plot(samples, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 5, figsize=(20, 8), sharey=True)
    for ax, scen in zip(axes.flat, SCENS):
        for p, style in zip(PATHS, ("-", "--", ":")):
            v = samples.get(f"{p}/{scen}", [])
            if v:
                ax.step(v, [(i + 1) / len(v) for i in range(len(v))], style,
                        where="post", label=p)
        ax.set_xscale("log")
        ax.set_title(f"{scen}: {APP[scen[4:]]}", fontsize=9)
        ax.set_xlabel("virtual us")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("ACK service, CDF")
    axes[1][0].set_ylabel("round trip, CDF")
    axes[0][0].legend()
    fig.suptitle("phyllo deterministic bench: qemu -icount shift=2,sleep=off, 1 vCPU, "
                 "both ends in the guest (tests/bench/icount.sh)")
    fig.tight_layout()
    fig.savefig(path, dpi=80)


def check(res, samples):
    missing = [f"{p}/{s}" for s in SCENS for p in PATHS
               if not samples.get(f"{p}/{s}") or "count" not in res.get(f"{p}/{s}", {})]
    if missing:
        print("bench: no figures for " + " ".join(missing))
        return 1
    print(f"bench: every scenario row has samples ({len(SCENS) * len(PATHS)} rows)")
    return 0


def main():
    if sys.argv[1] == "--check":
        return check(*load(sys.argv[2]))
    prefix, runs = sys.argv[1], sys.argv[2:]
    res, samples = load(runs[0])
    fig = figures(res, samples)
    other = figures(*load(runs[1])) if len(runs) > 1 else None
    table(fig, other)
    report = {"run1": fig, "targets": targets(fig)}
    if other:
        report["run2"] = other
        report["within_10pct"] = stability(fig, other)
    json.dump(report, open(prefix + ".json", "w"), indent=1)
    try:
        plot(samples, prefix + ".png")
    except ImportError:
        print("bench: no matplotlib (scripts/deps.sh bench): no plot")
    return check(res, samples)


if __name__ == "__main__":
    sys.exit(main())
