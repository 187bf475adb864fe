#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-docs.py - the manual pages say what the program does, no more, no
# less. Fails when:
#  - an option of `phyllo CMD --help` is missing from CMD's SYNOPSIS in
#    phyllo(1), or the SYNOPSIS names one --help does not (per command);
#  - a long option of `phyllo CMD --help` is never spelled out anywhere in
#    phyllo(1) (the SYNOPSIS may give only -n; somewhere the page must say
#    --count), or a usage line names by its long form an option that has a
#    short one (the others' usage lines give the short: [-j], not [--json]);
#  - a counter the tool prints (the core's X-macro list and the library's
#    glue counters) has no entry in phyllo(1)'s COUNTERS section, or an
#    entry names no counter;
#  - a function libphyllo.h exports (PHYLLO_API) has no prototype in
#    libphyllo(3)'s SYNOPSIS, or the page names one the header lacks.
# Usage: test-docs.py PHYLLO_BINARY REPO_DIR
import re
import subprocess
import sys

COMMANDS = ["attach", "detach", "list", "pub", "sub", "echo", "stats", "drain", "peer"]
failures = 0
passes = 0


def check(ok, what, detail=""):
    global failures, passes
    if ok:
        passes += 1
        print(f"ok   {what}")
    else:
        failures += 1
        print(f"FAIL {what}")
        if detail:
            print(f"     {detail}")


def roff_text(s):
    """The man page's text with its escapes for '-' undone."""
    return s.replace("\\-", "-").replace("\\fB", "").replace("\\fI", "").replace("\\fR", "")


def help_options(text):
    """Options of a --help text: {identity: {forms}}; identity is the long
    name when there is one. Short forms pair with a long one on the same
    'left column' (-b, --baud)."""
    # the usage line (and its continuations) and the option lines, not
    # the prose, which may name another command's options
    keep, in_usage = [], False
    for line in text.splitlines():
        in_usage = line.startswith("usage:") or (in_usage and line.startswith(" ") and
                                                 line.strip().startswith("["))
        if in_usage or re.match(r"\s+-", line):
            keep.append(line)
    text = "\n".join(keep)
    opts = {}
    for line in text.splitlines():
        for short, long_ in re.findall(r"(?<![\w-])-([a-zA-Z]),\s+--([a-z][\w-]*)", line):
            opts.setdefault("--" + long_, set()).update({"-" + short, "--" + long_})
    for long_ in re.findall(r"(?<![\w-])--([a-z][\w-]*)", text):
        opts.setdefault("--" + long_, set()).add("--" + long_)
    paired = {f for forms in opts.values() for f in forms if not f.startswith("--")}
    for short in re.findall(r"(?<![\w-])-([a-zA-Z])\b", text):
        if "-" + short not in paired:
            opts.setdefault("-" + short, {"-" + short})
    opts.pop("--help", None)
    opts.pop("-h", None)
    return opts


def synopsis_blocks(man):
    """SYNOPSIS text of each command: from '.B phyllo CMD' to the next
    '.B phyllo' line or section."""
    syn = man.split(".SH SYNOPSIS", 1)[1].split("\n.SH ", 1)[0]
    blocks = {}
    cur = None
    for line in syn.splitlines():
        m = re.match(r"\.B phyllo (\w+)", line)
        if m:
            cur = m.group(1)
            blocks[cur] = ""
            continue
        if line.startswith(".B phyllo"):
            cur = None
        if cur:
            blocks[cur] += roff_text(line) + "\n"
    return blocks


def check_synopsis(binary, man):
    blocks = synopsis_blocks(man)
    for cmd in COMMANDS:
        helptext = subprocess.run([binary, cmd, "--help"], capture_output=True,
                                  text=True).stdout
        opts = help_options(helptext)
        block = blocks.get(cmd)
        if block is None:
            check(False, f"phyllo(1) SYNOPSIS has phyllo {cmd}")
            continue
        words = set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", block))
        missing = sorted(i for i, forms in opts.items() if not forms & words)
        known = {f for forms in opts.values() for f in forms}
        extra = sorted(w for w in words if w not in known)
        check(not missing, f"phyllo(1) SYNOPSIS: every option of 'phyllo {cmd} --help'",
              f"missing: {' '.join(missing)}")
        check(not extra, f"phyllo(1) SYNOPSIS: phyllo {cmd} names only options it has",
              f"not in --help: {' '.join(extra)}")


def usage_line(text):
    """The usage line of a --help text, with its continuation lines."""
    lines, keep = [], False
    for line in text.splitlines():
        keep = line.startswith("usage:") or (keep and line.startswith(" ") and
                                              line.strip().startswith("["))
        if keep:
            lines.append(line)
    return "\n".join(lines)


def check_spelled(binary, man):
    text = roff_text(man)
    words = set(re.findall(r"(?<![\w-])(--[a-zA-Z][\w-]*)", text))
    for cmd in COMMANDS + ["capture"]:
        helptext = subprocess.run([binary, cmd, "--help"], capture_output=True,
                                  text=True).stdout
        opts = help_options(helptext)
        longs = sorted(f for forms in opts.values() for f in forms if f.startswith("--"))
        missing = [f for f in longs if f not in words]
        check(not missing, f"phyllo(1) spells out every long option of 'phyllo {cmd} --help'",
              f"never written: {' '.join(missing)}")
        usage = usage_line(helptext)
        long_form = sorted(f for forms in opts.values() for f in forms
                           if f.startswith("--") and len(forms) > 1 and
                           re.search(r"\[" + re.escape(f) + r"[\] ]", usage))
        check(not long_form, f"'phyllo {cmd} --help': the usage line gives short options",
              f"long where a short one exists: {' '.join(long_form)}")


def check_counters(repo, man):
    stats_h = open(f"{repo}/userspace/lib/stats_list.h").read()
    lst = stats_h.split("#define PHYLLO_STATS_LIST(X)", 1)[1].split("\n#endif", 1)[0]
    names = re.findall(r"X\((\w+)\)", lst)
    lib_c = open(f"{repo}/userspace/lib/lib.c").read()
    glue = lib_c.split("PHYLLO_STATS_LIST(LIB_STAT_NAME)", 1)[1].split("};", 1)[0]
    names += re.findall(r'"(\w+)"', glue)
    section = man.split(".SH COUNTERS", 1)
    if len(section) < 2:
        check(False, "phyllo(1) has a COUNTERS section")
        return
    section = section[1].split("\n.SH ", 1)[0]
    entries = re.findall(r"^\.TP\n\.B (\w+)", section, re.M)
    missing = [n for n in names if n not in entries]
    extra = [e for e in entries if e not in names]
    check(not missing, f"phyllo(1) COUNTERS explains all {len(names)} counters",
          f"missing: {' '.join(missing)}")
    check(not extra, "phyllo(1) COUNTERS names only real counters", f"extra: {' '.join(extra)}")


def check_library(repo):
    header = open(f"{repo}/userspace/include/libphyllo.h").read()
    exported = re.findall(r"PHYLLO_API\s+[^;(]*?\b(phyllo_\w+)\s*\(", header)
    page = open(f"{repo}/docs/libphyllo.3").read()
    syn = page.split(".SH SYNOPSIS", 1)[1].split("\n.SH ", 1)[0]
    syn = roff_text(syn).replace('"', "")
    protos = set(re.findall(r"\b(phyllo_\w+)\s*\(", syn))
    missing = [f for f in exported if f not in protos]
    extra = sorted(p for p in protos if p not in exported)
    check(not missing, f"libphyllo(3) SYNOPSIS: a prototype for each of {len(exported)} "
          "exported functions", f"missing: {' '.join(missing)}")
    check(not extra, "libphyllo(3) SYNOPSIS: only functions the header has",
          f"extra: {' '.join(extra)}")


def main():
    binary, repo = sys.argv[1], sys.argv[2]
    man = open(f"{repo}/docs/phyllo.1").read()
    check_synopsis(binary, man)
    check_spelled(binary, man)
    check_counters(repo, man)
    check_library(repo)
    print(f"{passes} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
