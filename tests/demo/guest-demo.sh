#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# Runs inside the qemu guest (see demo.sh): attach the line discipline to
# ttyS1, where the emulated Uno is, talk pub-sub to its endpoints, run the
# echo benchmark with the three tuples, print the table and the counters.
# COUNT (kernel command line phyllo.count=) sets the echoes per tuple.
set -u
count=$(sed -n 's/.*phyllo\.count=\([0-9]*\).*/\1/p' /proc/cmdline)
count=${count:-200}
fail=0
step() { echo; echo "== $*"; }

if grep -q 'phyllo.cli=1' /proc/cmdline; then
	step "CLI error paths (make demo-short)"
	sh /cli.sh || fail=1
fi

step "ldattach -s 115200 29 /dev/ttyS1"
ldattach -s 115200 29 /dev/ttyS1 || { echo "ldattach failed"; exit 1; }
i=0
while [ ! -e /dev/phyllo0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
phyllo list

step "phyllo pub --reply ping 1   (the board answers with a counter)"
phyllo pub --reply -t 10 ping 1 || fail=1
phyllo pub --reply -t 10 ping 1 || fail=1
step "ping-example   (README.md's libphyllo program, built with pkg-config: publishes temp, asks ping)"
ping-example /dev/phyllo0 || fail=1
step "phyllo pub blink true / false   (the board's LED)"
phyllo pub blink true || fail=1
phyllo pub blink false || fail=1
step "phyllo pub --reply stats null   (the board's own link counters)"
phyllo pub --reply -t 10 stats null || fail=1

# Small and large keep the window full (the Uno takes 2 in flight, and says
# so in its SYN); very-large runs at phyllo echo's default window, the one
# the board's handshake offers (2 on the Uno: it takes in a request while it
# sends a reply), and the kernel's resend counter is read around it.
resent() {
	phyllo stats | awk '$1 == "tx_retransmits" { print $2 }'
}
step "phyllo echo: $count echoes of each benchmark tuple"
for pw in small:4 large:4 very-large:; do
	p=${pw%:*}
	w=${pw#*:}
	[ "$p" != very-large ] || r0=$(resent)
	phyllo echo --payload "$p" -n "$count" ${w:+-w "$w"} -t 300 --json >/tmp/echo-$p.json ||
		fail=1
	[ "$p" != very-large ] || r1=$(resent)
done
printf '\n%-11s %6s %6s %9s %8s %8s %8s %8s %5s\n' payload bytes window echoes/s kB/s \
	"p50 us" "p99 us" "max us" lost
for pw in small:4 large:4 very-large:; do
	p=${pw%:*}
	sed -e 's/.*"window":\([0-9]*\).*"payload_bytes":\([0-9]*\).*"lost":\([0-9]*\).*"msgs_per_s":\([0-9.]*\),"kbytes_per_s":\([0-9.]*\).*"p50":\([0-9]*\),"p99":\([0-9]*\),"max":\([0-9]*\).*/\1 \2 \4 \5 \6 \7 \8 \3/' \
		/tmp/echo-$p.json | { read -r win bytes rate kbs p50 p99 max lost
		printf '%-11s %6s %6s %9s %8s %8s %8s %8s %5s\n' "$p" "$bytes" "$win" \
			"$rate" "$kbs" "$p50" "$p99" "$max" "$lost"; }
done
echo "very-large: the kernel's tx_retransmits during it: $((${r1:-0} - ${r0:-0}))"
step "phyllo pub --reply stats null   (the board's counters after the echoes)"
phyllo pub --reply -t 10 stats null || fail=1
step "phyllo stats (the kernel's side of the link)"
phyllo stats
[ $fail = 0 ] && echo "DEMO OK" || echo "DEMO FAILED"
exit $fail
