#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-peer.sh - two `phyllo peer` processes on a pty pair: 10,000 messages
# on each preset, then the standard preset with faults injected on both
# sides; zero lost, duplicated or reordered. Then every CLI error path.
# Usage: test-peer.sh PHYLLO_BINARY [COUNT]
set -u
bin=$1
count=${2:-10000}
. "$(dirname "$0")/checks.sh"

# field NAME FILE: a top-level number from the client's JSON line
field() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" "$2" | head -1; }

# echo_start PRESET [fault options]: an echo peer on a new pty at $dir/pty
echo_start() {
	rm -f "$dir/pty"
	preset=$1
	shift
	"$bin" peer --echo --pty "$dir/pty" -p "$preset" --stats "$dir/echo.json" "$@" \
		>/dev/null 2>"$dir/echo.err" &
	echo_pid=$!
	pids=$echo_pid
	i=0
	while [ ! -e "$dir/pty" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}

echo_stop() {
	kill "$echo_pid" 2>/dev/null
	wait "$echo_pid" 2>/dev/null
}

# run_client NAME PRESET PAYLOAD N [client options]
run_client() {
	name=$1 preset=$2 payload=$3 n=$4
	shift 4
	if "$bin" peer --client -d "$dir/pty" -p "$preset" -n "$n" --payload "$payload" \
		"$@" >"$dir/client.json" 2>"$dir/client.err" &&
	   [ "$(field received "$dir/client.json")" = "$n" ] &&
	   [ "$(field lost "$dir/client.json")" = 0 ] &&
	   [ "$(field duplicates "$dir/client.json")" = 0 ] &&
	   [ "$(field reordered "$dir/client.json")" = 0 ] &&
	   [ "$(field mismatches "$dir/client.json")" = 0 ]; then
		ok "$name: $(sed -n 's/.*"msgs_per_s":\([0-9.]*\).*/\1/p' "$dir/client.json") msgs/s"
	else
		bad "$name"
		cat "$dir/client.json" "$dir/client.err"
		echo_stop
		echo "echo peer:"; cat "$dir/echo.json" "$dir/echo.err" 2>/dev/null
	fi
}

for preset in minimal reduced standard; do
	echo_start $preset
	run_client "$preset: $count counter messages each way" $preset counter "$count"
	run_client "$preset: 1000 small tuples" $preset small 1000
	run_client "$preset: 1000 large tuples" $preset large 1000
	run_client "$preset: 1000 very-large tuples" $preset very-large 1000
	echo_stop
done

# Faults on both peers: the echo peer on what it receives, the client in
# both directions.
echo_start standard --drop 3 --corrupt 3 --dup 1 --seed 11 --fault-dir rx
run_client "standard with faults: $count messages, zero lost/dup/reordered" standard counter \
	"$count" --drop 3 --corrupt 3 --dup 1 --delay 1 --seed 5 --timeout 300
echo_stop
# Every corrupted frame the client received (the echo peer corrupts nothing
# it sends) is exactly one receive error.
corrupted() { # corrupted DIR FILE
	sed -n "s/.*\"$1\":{\"frames\":[0-9]*,\"dropped\":[0-9]*,\"corrupted\":\([0-9]*\).*/\1/p" "$2"
}
inj=$(corrupted rx "$dir/client.json")
err=$(($(field rx_crc "$dir/client.json") + $(field rx_framing "$dir/client.json") + \
	$(field rx_length "$dir/client.json") + $(field rx_type "$dir/client.json") + \
	$(field rx_flags "$dir/client.json")))
if [ "$inj" -gt 0 ] && [ "$err" -eq "$inj" ]; then
	ok "client counted $err receive errors for $inj corrupted frames"
else
	bad "client receive errors ($err) != corrupted frames it received ($inj)"
fi

# CLI error paths: each must fail with status 2 and say what is wrong.
expect_err() {
	name=$1 want=$2
	shift 2
	"$bin" "$@" >"$dir/out" 2>"$dir/err"
	rc=$?
	if [ $rc -ne 0 ] && grep -q -- "$want" "$dir/err"; then
		ok "error: $name"
	else
		bad "error: $name (rc $rc)"
		cat "$dir/err"
	fi
}
expect_err "no command" "usage"
expect_err "unknown command" "not a command" frobnicate
expect_err "no role" "exactly one of" peer
expect_err "both roles" "exactly one of" peer --echo --client
expect_err "bad preset" "not one of minimal" peer --echo -p fancy
expect_err "bad count" "not a number" peer --client -n ten
expect_err "bad percentage" "not a percentage" peer --echo --drop 120
expect_err "bad payload" "is not small" peer --client --payload huge
expect_err "missing device" "cannot open /nonexistent" peer --echo -d /nonexistent
expect_err "bad baud" "valid speeds" peer --echo -b 12345
expect_err "bad connect address" "is not unix:PATH" peer --echo --connect foo:bar
expect_err "two links" "only one of" peer --echo -d /dev/null --connect unix:/x
expect_err "rto bounds" "bad stack settings" peer --echo --rto-min 50 --rto-max 10 -d /dev/null
"$bin" peer --help | grep -q -- "--preset" && ok "peer --help" || bad "peer --help"

checks_done
