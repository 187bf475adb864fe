#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-bridge-netns.sh - the board-to-board `temp` of docs/bridge.md
# across real network interfaces: three network namespaces, the broker's
# (Debian's mosquitto on its port 1883) and two hosts, a and b, each
# joined to it by a veth pair of its own (10.231.1.0/24, 10.231.2.0/24; no
# routing, so a and b reach nothing but the broker). Board b
# (tests/bridge/board.c) publishes temp; host b's bridge puts it on
# phyllo/b/temp; host a's bridge imports that topic to board a
# (`phyllo peer --echo`), whose echo comes back out as phyllo/a/temp. The
# boards' ptys are in the one filesystem; only the bridges and the broker
# are in namespaces. Needs root (ip netns); says "skip" without it.
# Usage: test-bridge-netns.sh BUILD_HOST_DIR
set -u
H=$1
. "$(dirname "$0")/../userspace/checks.sh"
. "$(dirname "$0")/lib.sh"
ns=phb$$
if ! ip netns add ${ns}h 2>/dev/null; then
	echo "skip test-bridge-netns: cannot make a network namespace (ip netns add needs root)"
	exit 0
fi
ip netns add ${ns}a && ip netns add ${ns}b || exit 1
trap 'for p in $pids; do kill $p 2>/dev/null; done; for n in h a b; do ip netns del $ns$n; done; rm -rf "$dir"' EXIT
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
in_ns() { n=$1; shift; ip netns exec "$ns$n" "$@"; }
# host N NET: host N's eth0 10.231.NET.2, the broker's side h$N 10.231.NET.1
host() {
	ip -n ${ns}h link add "h$1" type veth peer name eth0 netns "$ns$1" &&
	ip -n ${ns}h addr add "10.231.$2.1/24" dev "h$1" && ip -n ${ns}h link set "h$1" up &&
	ip -n "$ns$1" addr add "10.231.$2.2/24" dev eth0 && ip -n "$ns$1" link set eth0 up &&
	ip -n "$ns$1" link set lo up
}
host a 1 && host b 2 && ip -n ${ns}h link set lo up || { bad "veth pairs"; exit 1; }
# tx N: the bytes host N has sent on its eth0
tx() { in_ns "$1" cat /sys/class/net/eth0/statistics/tx_bytes; }

printf 'listener 1883\nallow_anonymous true\nuser root\npersistence false\n' >"$dir/m.conf"
ip netns exec ${ns}h mosquitto -c "$dir/m.conf" 2>"$dir/broker.err" &
pids="$pids $!"
i=0
until in_ns a mosquitto_pub -h 10.231.1.1 -t probe -n 2>/dev/null; do
	i=$((i + 1)); [ $i -gt 50 ] && { bad "host a reaches the broker"; exit 1; }
	sleep 0.1
done
in_ns b mosquitto_pub -h 10.231.1.1 -t probe -n 2>/dev/null &&
	bad "host b reaches host a's network" || ok "three namespaces: a and b reach the broker, not each other's net"

"$H/phyllo-san" peer --echo --pty "$dir/a.pty" 2>"$dir/a.board.err" &
pids="$pids $!"
mkfifo "$dir/b.in"
"$H/bridge-board" "$dir/b.pty" <"$dir/b.in" >"$dir/b.board" 2>"$dir/b.board.err" &
pids="$pids $!"
exec 7>"$dir/b.in"
i=0
while { [ ! -L "$dir/a.pty" ] || [ ! -L "$dir/b.pty" ]; } && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
# the configurations of docs/bridge.md's two hosts, less the credentials
printf 'host = 10.231.1.1\nname = a\nimport = phyllo/b/temp temp\n' >"$dir/a.conf"
printf 'host = 10.231.2.1\nname = b\n' >"$dir/b.conf"
for n in a b; do
	ip netns exec "$ns$n" "$H/phyllo-bridge-san" -c "$dir/$n.conf" --tty "$dir/$n.pty" \
		>"$dir/$n.out" 2>"$dir/$n.err" &
	pids="$pids $!"
	eval "bridge_$n=\$!"
done
wait_for "$dir/a.err" "connected to 10.231.1.1:1883" && wait_for "$dir/b.err" "connected to 10.231.2.1:1883" &&
	ok "bridge a connects through its eth0 to 10.231.1.1, bridge b through its own to 10.231.2.1" ||
	bad "bridges connect: $(cat "$dir/a.err" "$dir/b.err")"
ip netns exec ${ns}h mosquitto_sub -h 127.0.0.1 -q 1 -v -t phyllo/a/temp -t probe/obs >"$dir/obs.sub" &
pids="$pids $!"
until grep -q probe/obs "$dir/obs.sub"; do in_ns h mosquitto_pub -h 127.0.0.1 -t probe/obs -n; sleep 0.1; done
txa=$(tx a) txb=$(tx b)
echo "burst temp 3" >&7
wait_for "$dir/obs.sub" '^phyllo/a/temp {"n":2}$'
[ "$(grep -c '^phyllo/a/temp {"n":[012]}$' "$dir/obs.sub")" -eq 3 ] &&
	ok "board b's temp reaches board a across two hosts' interfaces and back (3 of 3)" ||
	bad "temp from b to a: $(cat "$dir/obs.sub")"
txa=$(($(tx a) - txa)) txb=$(($(tx b) - txb))
[ $txa -gt 0 ] && [ $txb -gt 0 ] && ok "and went over the wires: host a sent $txa bytes on eth0, host b $txb" ||
	bad "eth0 counters: a $txa, b $txb"
for n in a b; do
	kill -TERM "$(eval "echo \$bridge_$n")"
	wait "$(eval "echo \$bridge_$n")"
	eval "rc_$n=$?"
done
awk '$1 == "board_tx" { t = $2 } END { exit t != 3 }' "$dir/a.out" &&
	awk '$1 == "mqtt_tx" { t = $2 } END { exit t != 3 }' "$dir/b.out" && [ "$rc_a$rc_b" = 00 ] &&
	ok "SIGTERM: bridge b published 3, bridge a sent 3 to its board, both exit 0" ||
	bad "counters (rc $rc_a $rc_b): a $(tr '\n' ' ' <"$dir/a.out"); b $(tr '\n' ' ' <"$dir/b.out")"
checks_done
