#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR MIT
"""report.py RESULTS OUT.json - the tables of `make bench`, with ratios
measured side by side in one run, and plain words where the kernel path
does not win."""
import json
import sys


def load(path):
    res = {}
    for line in open(path):
        name, _, text = line.strip().partition(" ")
        try:
            res[name] = json.loads(text)
        except ValueError:
            res[name] = {"error": text}
    return res


def ratio(a, b):
    return a / b if b else float("inf")


def rtt_table(r):
    print("1. application round trip, small tuple, stop-and-wait (guest app is the client)")
    print(f"{'path':<10} {'load':<6} {'msgs/s':>8} {'p50 us':>8} {'p99 us':>8} {'max us':>8}")
    rows = {}
    for path in ("kernel", "user"):
        for load in ("idle", "load"):
            d = r.get(f"rtt-{path}-{load}", {})
            rt = d.get("rtt_us", {})
            rows[(path, load)] = d
            print(f"{path:<10} {load:<6} {d.get('msgs_per_s', 0):>8.1f} {rt.get('p50', 0):>8} "
                  f"{rt.get('p99', 0):>8} {rt.get('max', 0):>8}")
    out = {}
    for load in ("idle", "load"):
        k, u = rows[("kernel", load)], rows[("user", load)]
        out[load] = {
            "msgs_per_s_kernel_over_user": ratio(k.get("msgs_per_s", 0), u.get("msgs_per_s", 0)),
            "p99_kernel_over_user": ratio(k.get("rtt_us", {}).get("p99", 0),
                                          u.get("rtt_us", {}).get("p99", 0)),
        }
        print(f"  {load}: kernel/userspace msgs/s {out[load]['msgs_per_s_kernel_over_user']:.2f}, "
              f"p99 {out[load]['p99_kernel_over_user']:.2f}")
    return rows, out


def ack_table(r):
    print("2. link service, far end streaming while the guest app reads every 50 ms")
    print(f"{'path':<10} {'ack p50 us':>10} {'ack p99 us':>10} {'ack max us':>10} "
          f"{'resent':>7} {'timeouts':>8} {'kB/s':>7}")
    rows = {}
    for path, key in (("kernel", "stream-s2"), ("user", "stream-s3")):
        d = r.get(key, {})
        a, st = d.get("ack_us", {}), d.get("stats", {})
        rows[path] = d
        print(f"{path:<10} {a.get('p50', 0):>10} {a.get('p99', 0):>10} {a.get('max', 0):>10} "
              f"{st.get('tx_retransmits', 0):>7} {st.get('tx_timeouts', 0):>8} "
              f"{d.get('goodput_kbytes_per_s', 0):>7.2f}")
    k, u = rows["kernel"], rows["user"]
    out = {"ack_p99_kernel_over_user": ratio(k.get("ack_us", {}).get("p99", 0),
                                            u.get("ack_us", {}).get("p99", 0)),
           "kernel_timeouts": k.get("stats", {}).get("tx_timeouts", -1)}
    print(f"  far-end ACK p99 kernel/userspace {out['ack_p99_kernel_over_user']:.3f}")
    return rows, out


def ack_service_table(r):
    print("3. ACK service time in the guest, at the tty layer (data bytes in -> next frame out)")
    print(f"{'path':<10} {'app':<12} {'n':>5} {'p50 us':>8} {'p99 us':>8} {'max us':>8}")
    rows = {}
    for pause in ("0", "50"):
        for path in ("kernel", "user"):
            d = r.get(f"ack-{path}-{pause}", {})
            rows[f"{path}-{pause}"] = d
            app = "prompt" if pause == "0" else "sleeps 50ms"
            print(f"{path:<10} {app:<12} {d.get('n', 0):>5} {d.get('p50_us', 0):>8} "
                  f"{d.get('p99_us', 0):>8} {d.get('max_us', 0):>8}")
    d = r.get("ack-kernel_nodelay-50", {})
    rows["kernel_nodelay-50"] = d
    print(f"{'kernel':<10} {'sleeps 50ms':<12} {d.get('n', 0):>5} {d.get('p50_us', 0):>8} "
          f"{d.get('p99_us', 0):>8} {d.get('max_us', 0):>8}   (ack_delay_ms 0)")
    out = {}
    for pause in ("0", "50"):
        k, u = rows[f"kernel-{pause}"], rows[f"user-{pause}"]
        out[pause] = {q: ratio(k.get(f"{q}_us", 0), u.get(f"{q}_us", 0))
                      for q in ("p50", "p99", "max")}
        print(f"  app {'prompt' if pause == '0' else 'sleeping'}: kernel/userspace "
              f"p50 {out[pause]['p50']:.3f}, p99 {out[pause]['p99']:.3f}, "
              f"max {out[pause]['max']:.3f}")
    k, u = rows["kernel_nodelay-50"], rows["user-50"]
    out["50_nodelay"] = {q: ratio(k.get(f"{q}_us", 0), u.get(f"{q}_us", 0))
                         for q in ("p50", "p99", "max")}
    print(f"  app sleeping, kernel without the ACK delay: kernel/userspace "
          f"p50 {out['50_nodelay']['p50']:.3f}, p99 {out['50_nodelay']['p99']:.3f}, "
          f"max {out['50_nodelay']['max']:.3f}")
    return rows, out


def lib_table(r):
    d = r.get("lib-overhead", {})
    print("4. libphyllo against bare read/write on /dev/phyllo0 (publish + echo, stop-and-wait)")
    print(f"{'path':<10} {'n':>5} {'user us/msg':>11} {'sys us/msg':>10} "
          f"{'rtt p50 us':>10} {'rtt p99 us':>10}")
    for path in ("raw", "lib"):
        p = d.get(path, {})
        print(f"{path:<10} {p.get('n', 0):>5} {p.get('user_us_per_msg', 0):>11.1f} "
              f"{p.get('sys_us_per_msg', 0):>10.1f} {p.get('rtt_p50_us', 0):>10.0f} "
              f"{p.get('rtt_p99_us', 0):>10.0f}")
    raw, lib = d.get("raw", {}), d.get("lib", {})
    out = {"user_lib_over_raw": d.get("user_lib_over_raw", float("inf")),
           "cpu_lib_over_raw": d.get("cpu_lib_over_raw", float("inf")),
           "user_us_added_per_msg": lib.get("user_us_per_msg", 0) - raw.get("user_us_per_msg", 0),
           "rtt_p50_lib_over_raw": ratio(lib.get("rtt_p50_us", 0), raw.get("rtt_p50_us", 0))}
    print(f"  library/raw: user CPU per message {out['user_lib_over_raw']:.2f} "
          f"({out['user_us_added_per_msg']:+.1f} us), user+sys {out['cpu_lib_over_raw']:.2f}, "
          f"round trip p50 {out['rtt_p50_lib_over_raw']:.3f}")
    return d, out


def verdicts(rtt, ack):
    says = []
    if rtt["idle"]["msgs_per_s_kernel_over_user"] < 1.0:
        says.append("idle round trips: the kernel path is slower than userspace")
    if rtt["load"]["p99_kernel_over_user"] > 1.0:
        says.append("under load: the kernel path's p99 is worse than userspace")
    if ack["ack_p99_kernel_over_user"] > 0.1:
        says.append("slow application: the kernel's ACK p99 is more than 0.1x userspace's")
    if ack["kernel_timeouts"] != 0:
        says.append("slow application: the far end timed out with the kernel path")
    print("targets: " + ("all met" if not says else "NOT MET: " + "; ".join(says)))
    return says


def main():
    r = load(sys.argv[1])
    rows1, rtt = rtt_table(r)
    print()
    rows2, ack = ack_table(r)
    print()
    rows3, svc = ack_service_table(r)
    print()
    rows4, lib = lib_table(r)
    print()
    missed = verdicts(rtt, ack)
    if svc["50"]["p99"] > 0.1:
        missed.append("sleeping app: the kernel's tty-layer ACK p99 is more than 0.1x userspace's")
        print("  NOT MET: " + missed[-1])
    json.dump({"round_trip": {f"{p}-{l}": v for (p, l), v in rows1.items()},
               "round_trip_ratios": rtt, "link_service": rows2,
               "link_service_ratios": ack, "targets_missed": missed,
               "drain": {k: r.get(k) for k in ("drain-kernel", "drain-user")},
               "ack_service": rows3, "ack_service_ratios": svc,
               "library": rows4, "library_ratios": lib},
              open(sys.argv[2], "w"), indent=1)
    print(f"written: {sys.argv[2]}")


if __name__ == "__main__":
    main()
