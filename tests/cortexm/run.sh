#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# tests/cortexm/run.sh BUILD HOST [BOARD...] - the Cortex-M part of
# `make test-firmware`, on qemu-system-arm, for each emulated board
# (default: cm-an385 cm-an386 cm-an500 cm-microbit):
#   1. the core suites (build/firmware/cm-tests/BOARD.elf): qemu exits 0
#      through semihosting only if every case passed;
#   2. the echo firmware on a pty (qemu-pty.sh), `phyllo peer --client`:
#      COUNT echoes of each tuple, small and large with 4 in flight,
#      very large with 2: nothing lost, wrong, duplicated or reordered;
#   3. 5% of the frames dropped and 5% corrupted, both directions;
#   4. 16 KB of random bytes into the UART, then a normal session.
# The peer runs with --rto-min 50: qemu's UARTs hold one byte (CMSDK) or
# six (nRF51), so every few received bytes go through qemu's main loop and
# an echo's round trip on this loaded 2-core host reaches tens of ms;
# retransmissions are counted in the output, only correctness is asserted.
# COUNT=N overrides the 200 echoes per tuple.
set -u
BUILD=$1
HOST=$2
shift 2
BOARDS=${*:-cm-an385 cm-an386 cm-an500 cm-microbit}
HERE=$(cd "$(dirname "$0")" && pwd)
PEER=$HOST/phyllo
FW=$BUILD/firmware
COUNT=${COUNT:-200}
TMP=$(mktemp -d /tmp/phyllo-cm.XXXXXX)
QPID=
failed=0
trap 'stop_qemu; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM

fail() {
	echo "FAIL: $*"
	failed=$((failed + 1))
}

machine() {
	case $1 in
	cm-microbit) echo microbit ;;
	cm-*) echo "mps2-${1#cm-}" ;;
	esac
}

stop_qemu() {
	[ -n "$QPID" ] || return 0
	kill "$QPID" 2>/dev/null
	wait "$QPID" 2>/dev/null
	QPID=
}

start_qemu() {
	rm -f "$TMP/tty"
	"$HERE/qemu-pty.sh" "$(machine "$1")" "$FW/$1/phyllo-$1.elf" "$TMP/tty" \
		>"$TMP/qemu.log" 2>&1 &
	QPID=$!
	i=0
	while [ ! -e "$TMP/tty" ]; do
		i=$((i + 1))
		if [ $i -gt 300 ] || ! kill -0 "$QPID" 2>/dev/null; then
			fail "$1: qemu did not come up"
			cat "$TMP/qemu.log"
			return 1
		fi
		sleep 0.1
	done
}

# client NAME PAYLOAD WINDOW COUNT [peer options...]
client() {
	name=$1 payload=$2 window=$3 count=$4
	shift 4
	"$PEER" peer --client --device "$TMP/tty" --baud 115200 --preset standard \
		--window "$window" --count "$count" --payload "$payload" --timeout 300 \
		--rto-min 50 "$@" >"$TMP/client.json" 2>"$TMP/client.err"
	rc=$?
	summary=$(grep -o '"sent":[0-9]*,"received":[0-9]*,"mismatches":[0-9]*,"lost":[0-9]*,"duplicates":[0-9]*,"reordered":[0-9]*' "$TMP/client.json")
	extra=$(grep -o '"msgs_per_s":[0-9.]*\|"tx_retransmits":[0-9]*' "$TMP/client.json" | tr '\n' ' ')
	if [ $rc -ne 0 ] || [ -z "$summary" ] ||
	   ! echo "$summary" | grep -q "\"received\":$count,\"mismatches\":0,\"lost\":0,\"duplicates\":0,\"reordered\":0"; then
		fail "$name: client exit $rc: $summary"
		cat "$TMP/client.err" "$TMP/client.json"
		return 1
	fi
	echo "ok   $name: $summary $extra"
}

for b in $BOARDS; do
	m=$(machine "$b")
	echo "== $b ($m)"
	out=$(timeout 600 qemu-system-arm -M "$m" -kernel "$FW/cm-tests/$b.elf" -display none \
		-nodefaults -serial stdio -semihosting-config enable=on,target=native 2>&1)
	rc=$?
	line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
	if [ $rc -eq 0 ] && echo "$line" | grep -q ', 0 failed$'; then
		echo "ok   $b core suites: $line"
	else
		fail "$b core suites (qemu exit $rc): ${line:-no result line}"
		echo "$out" | tail -20
	fi

	start_qemu "$b" || continue
	client "$b/small" small 4 "$COUNT"
	client "$b/large" large 4 "$COUNT"
	client "$b/very-large" very-large 2 "$COUNT"
	client "$b/lossy-small" small 4 "$COUNT" --drop 5 --corrupt 5 --seed 1
	client "$b/lossy-large" large 4 "$COUNT" --drop 5 --corrupt 5 --seed 2
	head -c 16384 /dev/urandom >"$TMP/tty"
	client "$b/after-noise" small 4 200
	stop_qemu
done

if [ $failed -ne 0 ]; then
	echo "test-firmware (Cortex-M): $failed failure(s)"
	exit 1
fi
echo "test-firmware (Cortex-M): all passed"
