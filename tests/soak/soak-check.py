#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR MIT
"""soak-check.py - judge and summarise one run of tests/soak/soak.sh.

Reads DIR/client.json (the client's JSON line), DIR/client.err and
DIR/echoN.json for each echo life. Checks, and names every failure:
 1. units: the client sent UNITS and every one came back but those lost to
    a reset (received + reset_lost == UNITS); none lost otherwise,
    duplicated, reordered, corrupted (mismatches) or late (declared lost
    to a reset, then delivered after all).
 2. resets: each echo restart reached the client as one peer restart,
    reported on stderr and counted (resets, peer_resets, sessions); no echo
    life saw a reset; every life but the last crashed, the last did not.
 3. reset losses: reset_lost <= the client's tx_reset_lost (units it had in
    flight) + the crashed lives' `unanswered` (units taken, not answered).
 4. error accounting, per receiver (the client and each echo life), as
    userspace/fault.h defines it:
      rx_frames == chunks
      0 <= errors - bad_chunks <= allowance
      inner + split <= bad_chunks <= corrupted + zeros_made
    errors = rx_overflow + rx_framing + rx_length + rx_crc + rx_type +
    rx_flags; allowance = frames a restart cut before the injector saw
    them (the client: one per restart, the frame the dying echo was
    writing; an echo life after the first: one, as its first read may
    start in the middle of a frame).
Exit status 0 when all hold, 1 otherwise.
"""
import argparse
import json
import os
import sys

ERRORS = ("rx_overflow", "rx_framing", "rx_length", "rx_crc", "rx_type", "rx_flags")


def load(path):
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                return json.loads(line)
    raise ValueError(f"{path}: no JSON summary")


def errors(stats):
    return sum(stats[k] for k in ERRORS)


class Judge:
    def __init__(self):
        self.failures = []

    def expect(self, ok, what):
        if not ok:
            self.failures.append(what)


def check_units(j, c, units):
    j.expect(c["sent"] == units, f"client sent {c['sent']} of {units}")
    j.expect(c["received"] + c["reset_lost"] == units,
             f"received {c['received']} + lost to resets {c['reset_lost']} != {units}")
    for k in ("lost", "duplicates", "reordered", "mismatches", "late"):
        j.expect(c[k] == 0, f"client: {k} = {c[k]}")


def check_resets(j, c, lives, restarts, err_lines):
    st = c["stats"]
    j.expect(c["resets"] == restarts, f"client reported {c['resets']} resets, not {restarts}")
    j.expect(st["peer_resets"] == restarts, f"client peer_resets {st['peer_resets']}")
    j.expect(st["sessions"] == restarts + 1, f"client sessions {st['sessions']}")
    j.expect(err_lines == restarts, f"client printed {err_lines} reset lines, not {restarts}")
    for n, e in enumerate(lives, 1):
        j.expect(e["resets"] == 0, f"echo life {n} saw {e['resets']} resets")
        j.expect(e["stats"]["sessions"] == 1, f"echo life {n}: {e['stats']['sessions']} sessions")
        j.expect(e["crashed"] == (n <= restarts), f"echo life {n}: crashed = {e['crashed']}")
    unanswered = sum(e["unanswered"] for e in lives[:restarts])
    bound = st["tx_reset_lost"] + unanswered
    j.expect(c["reset_lost"] <= bound,
             f"lost to resets {c['reset_lost']} > tx_reset_lost {st['tx_reset_lost']}"
             f" + unanswered {unanswered}")


def check_accounting(j, name, peer, allowance):
    st, fx = peer["stats"], peer["faults"]["rx"]
    err = errors(st)
    j.expect(st["rx_frames"] == fx["chunks"],
             f"{name}: rx_frames {st['rx_frames']} != chunks {fx['chunks']}")
    j.expect(0 <= err - fx["bad_chunks"] <= allowance,
             f"{name}: errors {err} vs bad_chunks {fx['bad_chunks']} (allowance {allowance})")
    j.expect(fx["inner"] + fx["split"] <= fx["bad_chunks"] <= fx["corrupted"] + fx["zeros_made"],
             f"{name}: bad_chunks {fx['bad_chunks']} outside its bounds")


def total(peers, key, sub="rx"):
    return sum(p["faults"][sub][key] for p in peers)


def stat(peers, key):
    return sum(p["stats"][key] for p in peers)


def row(label, client, echo):
    print(f"  {label:<34} {client:>14} {echo:>14}")


def summary(c, lives, args, seconds):
    both = [c]
    print(f"soak: {args.units} units each way (client -> echo -> client), "
          f"{args.restarts} echo restart(s), {seconds:.1f} s")
    echoed = sum(e["echoed"] for e in lives)
    print(f"  client -> echo: {c['sent']} sent, {stat(lives, 'rx_units')} taken by the echo "
          f"lives; echo -> client: {echoed} echoed, {c['received']} received")
    print(f"  lost to the restarts: {c['reset_lost']} (client tx_reset_lost "
          f"{c['stats']['tx_reset_lost']}, unanswered at the crashes "
          f"{sum(e['unanswered'] for e in lives[:args.restarts])}); lost otherwise "
          f"{c['lost']}, duplicated {c['duplicates']}, reordered {c['reordered']}, "
          f"corrupted {c['mismatches']}, late {c['late']}")
    row("faults injected (receive side)", "client", f"echo ({len(lives)} lives)")
    for label, key in (("frames offered", "frames"), ("dropped", "dropped"),
                       ("  of them in blackouts", "blackout_dropped"),
                       ("corrupted copies", "corrupted"), ("  inner", "inner"),
                       ("  split (a byte made 0x00)", "split"),
                       ("  merge (a delimiter hit)", "merge"), ("  bits flipped", "bits"),
                       ("duplicated", "duplicated"), ("bursts", "bursts"),
                       ("  frames they hit", "burst_frames"), ("blackouts", "blackouts"),
                       ("chunks passed on", "chunks"), ("  bad chunks", "bad_chunks")):
        row(label, total(both, key), total(lives, key))
    row("receiver", "", "")
    row("rx_frames", stat(both, "rx_frames"), stat(lives, "rx_frames"))
    row("errors (crc+framing+length+...)", errors(c["stats"]),
        sum(errors(e["stats"]) for e in lives))
    for k in ERRORS + ("rx_seq", "rx_dup", "rx_nosession", "rx_hold", "tx_retransmits",
                       "tx_timeouts", "tx_naks"):
        row(f"  {k}", stat(both, k), stat(lives, k))
    row("resets reported", c["resets"], sum(e["resets"] for e in lives))
    row("units refused (back-pressure)", "-", sum(e["refused"] for e in lives))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--units", type=int, required=True)
    ap.add_argument("--restarts", type=int, required=True)
    ap.add_argument("--client-rc", type=int, default=0)
    ap.add_argument("--stalled", type=int, default=0)
    ap.add_argument("--start", type=float, default=0)
    ap.add_argument("--end", type=float, default=0)
    args = ap.parse_args()
    j = Judge()
    if args.stalled:
        print("soak: FAIL: stalled (the client timed out)")
    try:
        c = load(os.path.join(args.dir, "client.json"))
        lives = [load(os.path.join(args.dir, f"echo{n}.json"))
                 for n in range(1, args.restarts + 2)]
    except (OSError, ValueError) as e:
        print(f"soak: FAIL: {e}")
        for f in sorted(os.listdir(args.dir)):
            if f.endswith(".err"):
                print(f"--- {f}")
                print(open(os.path.join(args.dir, f)).read(), end="")
        return 1
    with open(os.path.join(args.dir, "client.err")) as f:
        err_lines = sum("session reset" in line for line in f)
    summary(c, lives, args, args.end - args.start)
    j.expect(args.client_rc == 0, f"client exit status {args.client_rc}")
    check_units(j, c, args.units)
    check_resets(j, c, lives, args.restarts, err_lines)
    check_accounting(j, "client", c, args.restarts)
    for n, e in enumerate(lives, 1):
        check_accounting(j, f"echo life {n}", e, 0 if n == 1 else 1)
    for f in j.failures:
        print(f"soak: FAIL: {f}")
    if j.failures or args.stalled:
        return 1
    print("soak: ok: nothing lost but to the restarts, nothing duplicated, reordered or "
          "corrupted; every reset reported; every damaged chunk counted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
