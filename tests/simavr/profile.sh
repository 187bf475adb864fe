#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# profile.sh FIRMWARE.elf PROFILE - busy cycles per function, largest first,
# from the address histogram phyllo-simavr --profile writes.
set -e
avr-nm -n "$1" | awk '$2 ~ /^[tTwW]$/ { print $1, $3 }' > "$2.syms"
python3 - "$2.syms" "$2" <<'PY'
import bisect, sys
syms = [(int(a, 16), n) for a, n in (l.split() for l in open(sys.argv[1]))]
addrs = [a for a, _ in syms]
tot, per = 0, {}
for line in open(sys.argv[2]):
    a, c = line.split()
    a, c = int(a, 16), int(c)
    i = bisect.bisect_right(addrs, a) - 1
    f = syms[i][1] if i >= 0 else "?"
    per[f] = per.get(f, 0) + c
    tot += c
for f, c in sorted(per.items(), key=lambda x: -x[1])[:30]:
    print("%10d %5.1f%% %s" % (c, 100.0 * c / tot, f))
PY
