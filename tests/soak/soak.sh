#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# soak.sh - two `phyllo peer` processes on a pty pair, UNITS units each
# way under hostile faults, with RESTARTS board resets of the echo peer in
# the middle. See tests/soak/README.md.
#
# The client creates the pty and sends UNITS units of every length up to
# the MTU (payload counter), up to 96 awaiting their echo, so the echo
# peer's queue fills and it must refuse and hold; the echo peer (-d on the
# pty's slave) sends each one back. Each peer injects faults on what it
# receives, so each compares its own injector's counts with its own
# receive counters. Every echo life but the last stops dead after its
# share of echoes (--crash-after); a new one starts on the same pty after
# a "boot" pause, with a new nonce. The client is the one that must see,
# report and settle every reset. soak-check.py judges and summarises.
#
# Usage: soak.sh PHYLLO UNITS [RESTARTS [SEED]]
# Environment: SOAK_TIMEOUT (s; default 600 + UNITS / 100, only to report
# a stall), SOAK_KEEP=1 keeps the work directory.
set -u
bin=$1
units=$2
restarts=${3:-1}
seed=${4:-1}
timeout=${SOAK_TIMEOUT:-$((600 + units / 100))}
here=$(dirname "$0")
dir=$(mktemp -d "${TMPDIR:-/tmp}/phyllo-soak.XXXXXX")
client_pid=
echo_pid=
cleanup() {
	[ -n "$echo_pid" ] && kill "$echo_pid" 2>/dev/null
	[ -n "$client_pid" ] && kill "$client_pid" 2>/dev/null
	if [ "${SOAK_KEEP:-0}" = 1 ]; then echo "soak: kept $dir"; else rm -rf "$dir"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Per frame, on what each peer receives: 1% dropped, 1% corrupted (1..8
# bits, delimiters included), 0.5% duplicated; 0.1% start a burst of 2..8
# frames dropped or corrupted; 0.01% start a 50 ms blackout.
faults="--fault-dir rx --drop 1 --corrupt 1 --corrupt-bits 8 --dup 0.5 \
--burst 0.1 --burst-len 8 --blackout 0.01 --blackout-ms 50"
share=$((units / (restarts + 1)))
t0=$(date +%s.%N)

# shellcheck disable=SC2086
nice "$bin" peer --client --pty "$dir/pty" -n "$units" -w 96 --payload counter $faults \
	--seed "$seed" --timeout "$timeout" >"$dir/client.json" 2>"$dir/client.err" &
client_pid=$!
i=0
while [ ! -e "$dir/pty" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if [ ! -e "$dir/pty" ]; then
	echo "soak: FAIL: the client made no pty"
	cat "$dir/client.err"
	exit 1
fi

life=1
while [ $life -le $((restarts + 1)) ]; do
	# Without the client its pty is gone, and the number may be reused.
	kill -0 "$client_pid" 2>/dev/null || break
	crash=
	[ $life -le "$restarts" ] && crash="--crash-after $share"
	# shellcheck disable=SC2086
	nice "$bin" peer --echo -d "$dir/pty" $faults --seed $((seed * 1000 + life)) $crash \
		--stats "$dir/echo$life.json" 2>"$dir/echo$life.err" &
	echo_pid=$!
	[ $life -gt "$restarts" ] && break
	wait "$echo_pid"
	echo_pid=
	echo "soak: echo life $life stopped dead after $share echoes; booting a new one"
	sleep 0.2	# a board's boot time: the client is alone on the line
	life=$((life + 1))
done

wait "$client_pid"
client_rc=$?
client_pid=
t1=$(date +%s.%N)
# The last echo life ends when the client closes the pty, or now.
if [ -n "$echo_pid" ]; then
	kill -TERM "$echo_pid" 2>/dev/null
	wait "$echo_pid"
	echo_pid=
fi
stalled=0
if [ $client_rc -ne 0 ] && grep -q "timed out" "$dir/client.err"; then
	stalled=1
fi
python3 "$here/soak-check.py" --dir "$dir" --units "$units" --restarts "$restarts" \
	--client-rc "$client_rc" --stalled "$stalled" --start "$t0" --end "$t1"
