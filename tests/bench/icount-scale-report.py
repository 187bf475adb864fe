#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR MIT
"""icount-scale-report.py [--tree T] OUT_PREFIX RUN.txt - the scaling
series of the deterministic bench (icount-scale.sh): per point and path
the CPU per message (per delivered unit for readers), link 0's ACK
service p50/p99, its round trip p50/p99, the slab memory the point added,
then the issue's goals, met or not, from this one run. Writes
OUT_PREFIX.json, OUT_PREFIX.md (the table in Markdown) and, with
matplotlib, OUT_PREFIX.png. Nothing is asserted on a figure.
--check LINKS READERS RUN.txt: only verify that every point of the comma
lists (both paths) has its figures: units read, samples, memory."""
import json
import sys

PATHS = ("kernel", "user")


def load(path):
    res, samples, stats = {}, {}, {}
    for line in open(path, errors="replace"):
        kind, _, rest = line.strip().partition(" ")
        name, _, text = rest.partition(" ")
        if not name.startswith("scale/"):
            continue
        name = name[len("scale/"):]
        if kind == "RESULT":
            try:
                res[name] = json.loads(text)
            except ValueError:
                res[name] = {}
        elif kind == "SAMPLES":
            tag, _, vals = text.partition(" ")
            samples[f"{name}/{tag}"] = sorted(float(v) for v in vals.split())
        elif kind == "LINKSTATS":
            stats[name] = dict(kv.split("=") for kv in text.split())
    return res, samples, stats


def pct(v, q):
    """Nearest-rank percentile q (0..1) of the sorted list v."""
    if not v:
        return 0.0
    i = max(1, int(q * len(v) + 0.999999))
    return v[min(i, len(v)) - 1]


def point(res, samples, stats, name, path, rtt=None):
    r = res.get(f"{name}/{path}", {})
    v = samples.get(f"{name}/{path}/ack", [])
    count = r.get("count", 0)
    f = {"count": count, "cpu_us": r.get("cpu_us", 0),
         "cpu_per_msg": r.get("cpu_us", 0) / count if count else 0.0,
         "switches_per_msg": r.get("switches", 0) / count if count else 0.0,
         "msgs_per_s": count * 1000.0 / r["win_ms"] if r.get("win_ms") else 0.0,
         "app_min": r.get("app_min", 0), "app_max": r.get("app_max", 0),
         "ack_n": len(v), "ack_p50": pct(v, 0.5), "ack_p99": pct(v, 0.99),
         "slab_kb": r.get("slab1_kb", 0) - r.get("slab0_kb", 0),
         "linkstats": stats.get(f"{name}/{path}", {})}
    for k in ("router_units", "router_lost"):
        if k in r:
            f[k] = r[k]
    if rtt is not None:
        w = samples.get(f"{rtt}/{path}/rtt", [])
        a = samples.get(f"{rtt}/{path}/ack", [])
        f.update({"rtt_n": len(w), "rtt_p50": pct(w, 0.5), "rtt_p99": pct(w, 0.99),
                  "ack_echo_n": len(a), "ack_echo_p50": pct(a, 0.5),
                  "ack_echo_p99": pct(a, 0.99)})
    return f


def series(res, samples, stats):
    pts = {"links": {}, "readers": {}}
    for name in res:
        kind, _, rest = name.partition("-")
        n = int(rest.split("/")[0])
        if kind == "links" and name.endswith("/stream/kernel"):
            pts["links"][n] = {p: point(res, samples, stats, f"links-{n}/stream", p,
                                        rtt=f"links-{n}/rtt") for p in PATHS}
        elif kind == "readers" and name.endswith("/kernel"):
            pts["readers"][n] = {p: point(res, samples, stats, f"readers-{n}", p)
                                 for p in PATHS}
    return pts


def ratio(a, b):
    return a / b if b else float("inf")


def table(pts):
    rows = ["| series | N | path | units read | CPU us/msg | ACK p50 us | ACK p99 us "
            "| RTT p50 us | RTT p99 us | ACK p99 us, link 0 echoing | slab KiB "
            "| KiB per link or reader | switches/msg |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for kind in ("links", "readers"):
        for n in sorted(pts[kind]):
            for p in PATHS:
                f = pts[kind][n][p]
                rtt = (f"{f['rtt_p50']:,.0f} | {f['rtt_p99']:,.0f} | {f['ack_echo_p99']:,.0f}"
                       if "rtt_n" in f else "- | - | -")
                rows.append(f"| {kind} | {n} | {p} | {f['count']:,} | {f['cpu_per_msg']:.1f} | "
                            f"{f['ack_p50']:,.0f} | {f['ack_p99']:,.0f} | {rtt} | "
                            f"{f['slab_kb']:,} | {f['slab_kb'] / n:,.0f} | "
                            f"{f['switches_per_msg']:.2f} |")
    return "\n".join(rows)


def linear(pts, path):
    """Least squares of slab KiB on N; the largest residual over the largest value."""
    xs = sorted(pts["links"])
    if len(xs) < 2:
        return None
    ys = [pts["links"][n][path]["slab_kb"] for n in xs]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    icpt = my - slope * mx
    resid = max(abs(y - (icpt + slope * x)) for x, y in zip(xs, ys))
    return {"kib_per_link": slope, "intercept_kib": icpt,
            "max_residual_kib": resid, "of_largest": resid / max(max(ys), 1)}


def goals(pts):
    out = []
    L, R = pts["links"], pts["readers"]
    if 1 in L and 32 in L:
        k1, k32 = L[1]["kernel"], L[32]["kernel"]
        r = ratio(k32["cpu_per_msg"], k1["cpu_per_msg"])
        out.append(("CPU/msg at 32 links <= 1.15x one link's (kernel)", r <= 1.15, r))
        r = ratio(k32["ack_p99"], k1["ack_p99"])
        out.append(("ACK p99 on link 0 at 32 links <= 1.5x one link's (kernel)", r <= 1.5, r))
        r = ratio(k32["ack_echo_p99"], k1["ack_echo_p99"])
        out.append(("the same, link 0 echoing a prompt application's round trips "
                    "(the others at line rate)", r <= 1.5, r))
    if 1 in R and 32 in R:
        r = ratio(R[32]["kernel"]["cpu_per_msg"], R[1]["kernel"]["cpu_per_msg"])
        out.append(("32 readers' CPU per delivered unit <= 1.5x one reader's (kernel)",
                    r <= 1.5, r))
    for kind in ("links", "readers"):
        for n in sorted(pts[kind]):
            k, u = pts[kind][n]["kernel"], pts[kind][n]["user"]
            r = ratio(k["cpu_per_msg"], u["cpu_per_msg"])
            out.append((f"CPU/msg kernel < user, {kind} {n}", r < 1, r))
    lin = linear(pts, "kernel")
    if lin:
        out.append((f"slab memory linear in links (kernel): {lin['kib_per_link']:.1f} KiB "
                    f"per link, largest residual {lin['max_residual_kib']:.0f} KiB",
                    lin["of_largest"] <= 0.1, lin["of_largest"]))
    return out


def plot(pts, path, tree):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 3, figsize=(15, 8))
    panels = [
        (axes[0][0], "links", "cpu_per_msg", "CPU us per message, all links"),
        (axes[0][1], "links", "ack_p99", "link 0 ACK service p99 (us), all at line rate"),
        (axes[0][2], "links", "rtt_p99", "link 0 round trip p99 (us), others at line rate"),
        (axes[1][0], "readers", "cpu_per_msg", "CPU us per delivered unit, one link, R readers"),
        (axes[1][1], "links", "ack_echo_p99",
         "link 0 ACK service p99 (us), link 0 echoing, others at line rate"),
        (axes[1][2], "links", "slab_kb", "slab KiB added (links)"),
    ]
    for ax, kind, key, title in panels:
        xs = sorted(pts[kind])
        for p, style in zip(PATHS, ("o-", "s--")):
            ax.plot(xs, [pts[kind][n][p].get(key, 0) for n in xs], style, label=p)
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs)
        ax.set_xticklabels([str(x) for x in xs])
        ax.set_xlabel("links" if kind == "links" else "readers on one link")
        ax.set_title(title, fontsize=9)
        if all(pts[kind][n][p].get(key, 0) >= 0 for n in xs for p in PATHS):
            ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
    axes[0][0].legend()
    fig.suptitle(f"phyllo scaling series: qemu -icount shift=2,sleep=off, 1 vCPU, "
                 f"virtual us; {tree}")
    fig.tight_layout()
    fig.savefig(path, dpi=80)


def check(links, readers, res, samples):
    missing = []
    for n in links:
        for p in PATHS:
            for sub, need in (("stream", "ack"), ("rtt", "rtt")):
                name = f"links-{n}/{sub}/{p}"
                r = res.get(name, {})
                if (not samples.get(f"{name}/{need}") or "slab1_kb" not in r or
                        (sub == "stream" and not r.get("count"))):
                    missing.append(name)
    for n in readers:
        for p in PATHS:
            name = f"readers-{n}/{p}"
            r = res.get(name, {})
            if not samples.get(f"{name}/ack") or not r.get("count") or "slab1_kb" not in r:
                missing.append(name)
    if missing:
        print("bench: no figures for " + " ".join(missing))
        return 1
    print(f"bench: every point of the scaling series has figures "
          f"(links {','.join(map(str, links))}, readers {','.join(map(str, readers))})")
    return 0


def main():
    args = sys.argv[1:]
    if args[0] == "--check":
        def nums(s):
            return [int(x) for x in s.split(",") if x and x != "none"]
        res, samples, _ = load(args[3])
        return check(nums(args[1]), nums(args[2]), res, samples)
    tree = "tree unknown"
    if args[0] == "--tree":
        tree, args = args[1], args[2:]
    prefix, run = args
    pts = series(*load(run))
    md = table(pts)
    print(md)
    g = goals(pts)
    print("goals (issue 28), this run:")
    for what, ok, r in g:
        print(f"  {'met    ' if ok else 'NOT MET'} {what} ({r:.2f})")
    lin = {p: linear(pts, p) for p in PATHS}
    for p in PATHS:
        if lin[p]:
            print(f"  slab per link, {p}: {lin[p]['kib_per_link']:.1f} KiB "
                  f"(intercept {lin[p]['intercept_kib']:.0f} KiB)")
    open(prefix + ".md", "w").write(md + "\n")
    json.dump({"tree": tree, "points": {k: {str(n): v for n, v in d.items()}
                                        for k, d in pts.items()},
               "goals": [{"goal": w, "met": ok, "ratio": r} for w, ok, r in g],
               "memory": lin}, open(prefix + ".json", "w"), indent=1)
    try:
        plot(pts, prefix + ".png", tree)
    except ImportError:
        print("bench: no matplotlib (scripts/deps.sh bench): no plot")
    return 0


if __name__ == "__main__":
    sys.exit(main())
