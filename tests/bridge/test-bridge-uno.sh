#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-bridge-uno.sh - phyllo-bridge against the Uno firmware itself
# (phyllo-simavr on a pty, real 115200-baud byte timing) and Debian's
# mosquitto on 127.0.0.1: commands in JSON reach the board and its answers
# come out (ping's counter as an integer, its 28 counters as an array);
# bad JSON never gets to the board and is counted.
# Usage: test-bridge-uno.sh BUILD_DIR
set -u
build=$1
. "$(dirname "$0")/../userspace/checks.sh"
. "$(dirname "$0")/lib.sh"
H=$build/host
port=$(free_port)
printf 'listener %s 127.0.0.1\nallow_anonymous true\nuser root\npersistence false\n' $port \
	>"$dir/mosquitto.conf"
mosquitto -c "$dir/mosquitto.conf" 2>"$dir/broker.err" &
pids="$pids $!"
"$H/phyllo-simavr" --pty --link "$dir/uno" --seconds 120 \
	"$build/firmware/uno-standard/phyllo-uno-standard.elf" >"$dir/sim.out" 2>"$dir/sim.err" &
pids="$pids $!"
i=0
while [ ! -L "$dir/uno" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
printf 'link = %s\ntransport = tty\nbaud = 115200\nhost = 127.0.0.1\nport = %s\nstats_interval = 0\n' \
	"$dir/uno" $port >"$dir/b.conf"
"$H/phyllo-bridge-san" -c "$dir/b.conf" >"$dir/b.out" 2>"$dir/b.err" &
bridge=$!
pids="$pids $bridge"
wait_for "$dir/b.err" "connected to" 100 && ok "the bridge on the Uno's tty connects (name uno)" ||
	bad "bridge connects"
mosquitto_sub -h 127.0.0.1 -p $port -q 1 -v -t 'phyllo/uno/#' >"$dir/sub" &
pids="$pids $!"
wait_for "$dir/sub" "^phyllo/uno/status online" 100
pub() { mosquitto_pub -h 127.0.0.1 -p $port -q 1 "$@"; }
pub -t phyllo/uno/cmd/ping -m 1
wait_for "$dir/sub" '^phyllo/uno/ping [0-9]' 150 &&
	ok "ping 1 in, the Uno's counter out as an integer ($(grep '^phyllo/uno/ping ' "$dir/sub" | head -1))" ||
	bad "ping"
pub -t phyllo/uno/cmd/ping -m '{not json'
pub -t phyllo/uno/cmd/stats -m null
wait_for "$dir/sub" '^phyllo/uno/stats \[' 150
[ "$(sed -n 's/^phyllo\/uno\/stats \[\([0-9,]*\)\]$/\1/p' "$dir/sub" | tr ',' '\n' | wc -l)" -eq 28 ] &&
	ok "stats null in, the Uno's 28 counters out as a JSON array of integers" || bad "stats"
pub -t phyllo/uno/cmd/blink -m true
kill -TERM $bridge
wait $bridge
rc=$?
awk '$1 == "board_tx" && $2 == 3 { t = 1 } $1 == "bad_json" && $2 == 1 { j = 1 } END { exit !(t && j) }' \
	"$dir/b.out" && [ $rc -eq 0 ] &&
	ok "SIGTERM: 3 commands sent to the board, the bad one counted, exit 0" ||
	bad "counters (rc $rc): $(tr '\n' ' ' <"$dir/b.out")"
checks_done
