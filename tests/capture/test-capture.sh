#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-capture.sh - make test-capture: `phyllo capture` and the Wireshark
# dissector (tools/wireshark/phyllo.lua) under Debian's tshark.
#  1. Known frames (docs/protocol.md's examples and every error class, one
#     interface per preset) dissected field by field (check.py vectors).
#  2. A lossy session: an echo peer and a client, faults injected on both
#     sides both ways (drops, duplicates, 1-8 bit corruption that hits
#     delimiters too), each capturing itself (the client through
#     `phyllo capture -- ...`, the echo through PHYLLO_CAPTURE), and
#     `phyllo echo --tty` (libphyllo's tty transport) against another. Each
#     capture, dissected, must show as many frames, receive errors of each
#     class, bad CRCs, NAKs, pure ACKs and retransmissions as the stats
#     that peer printed; the session must have had some of each.
#  3. Every field the dissector declares was shown somewhere.
#  4. The command's refusals: nothing to capture, a regular file or a tty
#     given as --device.
# Usage: test-capture.sh PHYLLO_BINARY LUA_SCRIPT [COUNT]
set -u
bin=$1 lua=$2 count=${3:-400}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../userspace/checks.sh"
faults="--drop 2 --dup 1 --corrupt 3 --corrupt-bits 8"
# check.py's ok and FAIL lines, counted with ours
py() {
	python3 "$here/check.py" "$@" >"$dir/py.out" 2>&1
	cat "$dir/py.out"
	pass=$((pass + $(grep -c '^ok' "$dir/py.out")))
	fail=$((fail + $(grep -c '^FAIL' "$dir/py.out")))
}

py vectors "$lua" "$dir"

PHYLLO_CAPTURE=$dir/echo.pcapng "$bin" peer --echo --pty "$dir/pty" --stats "$dir/echo.json" \
	$faults --seed 11 >/dev/null 2>"$dir/echo.err" &
echo_pid=$!
pids=$echo_pid
i=0
while [ ! -e "$dir/pty" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if "$bin" capture -w "$dir/client.pcapng" -- "$bin" peer --client -d "$dir/pty" -n "$count" \
	--payload small $faults --seed 12 --stats "$dir/client.json" >"$dir/out" 2>"$dir/err"; then
	ok "a lossy session of $count echoes, both peers capturing"
else
	bad "a lossy session of $count echoes, both peers capturing"
fi
kill "$echo_pid" 2>/dev/null
wait "$echo_pid" 2>/dev/null
[ -s "$dir/echo.json" ] && ok "the echo peer wrote its stats" || bad "the echo peer wrote its stats"

# A field of the stats object of a peer's JSON line.
stat() { sed -n "s/.*\"stats\":{[^}]*\"$1\":\([0-9]*\).*/\1/p" "$2"; }
for side in client echo; do
	py session "$lua" "$dir/$side.pcapng" "$dir/$side.json"
done
# libphyllo's tty transport (`phyllo echo --tty`) capturing itself, against
# a lossy echo peer; its JSON line carries the library's counters.
PHYLLO_CAPTURE=$dir/peer2.pcapng "$bin" peer --echo --pty "$dir/pty2" $faults --seed 13 \
	>/dev/null 2>"$dir/echo2.err" &
echo2_pid=$!
pids="$pids $echo2_pid"
i=0
while [ ! -e "$dir/pty2" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if PHYLLO_CAPTURE=$dir/lib.pcapng "$bin" echo --tty "$dir/pty2" -n "$count" --json \
	>"$dir/lib.json" 2>"$dir/err"; then
	ok "phyllo echo --tty (libphyllo), $count echoes, capturing"
else
	bad "phyllo echo --tty (libphyllo), $count echoes, capturing"
fi
PHYLLO_CAPTURE=$dir/nodir/x.pcapng "$bin" echo --tty "$dir/pty2" -n 1 -t 1 >"$dir/out" 2>"$dir/err"
[ $? != 0 ] && grep -q "PHYLLO_CAPTURE=.*cannot create the capture file: .*(there is no folder" "$dir/err" &&
	! grep -q "cannot open" "$dir/err" &&
	ok "libphyllo: an unwritable PHYLLO_CAPTURE fails the open, said" ||
	bad "libphyllo: an unwritable PHYLLO_CAPTURE fails the open, said"
kill "$echo2_pid" 2>/dev/null
wait "$echo2_pid" 2>/dev/null
py session "$lua" "$dir/lib.pcapng" "$dir/lib.json" --closing

# The session must have exercised what the counts compare.
for f in rx_crc tx_naks tx_retransmits rx_framing; do
	n=$(( $(stat $f "$dir/client.json") + $(stat $f "$dir/echo.json") ))
	[ "$n" -gt 0 ] && ok "the session had $f ($n)" || bad "the session had no $f"
done
py fields "$lua" "$dir/vectors.json" "$dir/events.json" "$dir/client.pcapng.json" \
	"$dir/echo.pcapng.json"

# A capture tshark reads as pcapng with the direction of each packet.
if capinfos -t -E "$dir/client.pcapng" >"$dir/out" 2>&1 &&
   grep -q "pcapng" "$dir/out" && grep -q "USER 10" "$dir/out"; then
	ok "capinfos: pcapng, LINKTYPE_USER10"
else
	bad "capinfos: pcapng, LINKTYPE_USER10"
fi

"$bin" capture -w "$dir/x.pcapng" -- true >"$dir/out" 2>"$dir/err"
[ $? = 1 ] && grep -q "true wrote no" "$dir/err" && ok "capture -- a command that writes no capture: said, status 1" ||
	bad "capture -- a command that writes no capture: said, status 1"
"$bin" capture -w "$dir/x.pcapng" >"$dir/out" 2>"$dir/err"
[ $? = 2 ] && grep -q "say what to capture" "$dir/err" && ok "capture with nothing to capture: status 2" ||
	bad "capture with nothing to capture: status 2"
: >"$dir/regular"
"$bin" capture -w "$dir/x.pcapng" --device "$dir/regular" -t 1 >"$dir/out" 2>"$dir/err"
[ $? = 1 ] && grep -q "not a /dev/phylloN" "$dir/err" && ok "capture --device on a regular file: refused" ||
	bad "capture --device on a regular file: refused"
"$bin" capture -w "$dir/x.pcapng" --device /dev/null -t 1 >"$dir/out" 2>"$dir/err"
[ $? = 1 ] && grep -q "not a /dev/phylloN" "$dir/err" && ok "capture --device /dev/null: refused" ||
	bad "capture --device /dev/null: refused"
PHYLLO_CAPTURE=$dir/nodir/x.pcapng timeout 10 "$bin" peer --echo --pty "$dir/pty2" \
	>"$dir/out" 2>"$dir/err"
[ $? = 1 ] && grep -q "PHYLLO_CAPTURE=.*cannot create the capture file" "$dir/err" &&
	ok "an unwritable PHYLLO_CAPTURE: status 1, said" || bad "an unwritable PHYLLO_CAPTURE: status 1, said"
checks_done
