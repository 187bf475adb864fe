#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# bench-bridge.sh - phyllo-bridge's throughput, latency and CPU against
# mosquitto_pub/mosquitto_sub on the same broker in the same run (Debian's
# mosquitto on 127.0.0.1, a free port, its own config; the optimised
# bridge and tests/bridge/board.c on a pty, which has no line rate: the
# bridge and the link stack are the bound). Prints one table:
#   up    board -> bridge -> broker -> mosquitto_sub, QoS 1
#   down  mosquitto_pub -> broker -> bridge -> board, QoS 1
#   mqtt  mosquitto_pub -l -> broker -> mosquitto_sub, QoS 1 (the reference)
#   latency: a publish to its receipt by mosquitto_sub (-F %U), one every
#   2 ms: from the board (through the link and the bridge) and from a
#   paho client (the broker alone)
# Then the same board behind tests/bridge/line.c, a line of BENCH_BAUD
# (8N1), and a second table: each way, the link alone (a second board.c
# on the link's tty) against the bridge there instead, in the same run;
# the latency from the board's publish to its receipt, link alone, and
# to mosquitto_sub through the bridge, and what the bridge adds. Exits 1
# if a path did not deliver every message.
# Usage: bench-bridge.sh BUILD_HOST_DIR  (BENCH_N messages, default 20000;
# BENCH_LAT latency samples, default 2000; BENCH_BAUD, default 115200;
# BENCH_LINE_N messages each way on the line, default 2000;
# BENCH_LINE_LAT latency samples there, one every 10 ms, default 500)
set -u
H=$1
N=${BENCH_N:-20000}
L=${BENCH_LAT:-2000}
dir=$(mktemp -d)
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM PIPE
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
now() { date +%s.%N; }
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }	# user + system, 1/100 s
hz=$(getconf CLK_TCK)
count() { grep -a -c -- "$2" "$1" 2>/dev/null || true; }
wait_count() {	# FILE PATTERN N: up to 120 s
	i=0
	while [ "$(count "$1" "$2")" -lt "$3" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
}
sub_ready() {	# FILE: until the probe the subscriber also takes is there
	i=0
	until grep -q probe "$1" 2>/dev/null; do
		mosquitto_pub -h 127.0.0.1 -p $port -t bench/probe -m probe; sleep 0.1
		i=$((i + 1)); [ $i -gt 50 ] && return 1
	done
}

printf 'listener %s 127.0.0.1\nallow_anonymous true\nuser root\npersistence false\nmax_queued_messages 0\n' \
	$port >"$dir/mosquitto.conf"
mosquitto -c "$dir/mosquitto.conf" 2>/dev/null &
pids="$pids $!"
sleep 0.5
mkfifo "$dir/in"
"$H/bridge-board-O2" "$dir/pty" <"$dir/in" >"$dir/board" 2>"$dir/board.err" &
board=$!
pids="$pids $board"
exec 7>"$dir/in"
sleep 0.5
printf 'link = %s\ntransport = tty\nhost = 127.0.0.1\nport = %s\nname = b\nstats_interval = 0\nqueue = 1000000\n' \
	"$dir/pty" $port >"$dir/b.conf"
"$H/phyllo-bridge" -c "$dir/b.conf" >"$dir/bridge.out" 2>"$dir/bridge.err" &
bridge=$!
pids="$pids $bridge"
sleep 1

# up: the board's burst to a subscriber
mosquitto_sub -h 127.0.0.1 -p $port -q 1 -t phyllo/b/f -t bench/probe >"$dir/up.sub" &
pids="$pids $!"
sub_ready "$dir/up.sub"
c0=$(ticks $bridge) t0=$(now)
echo "burst f $N" >&7
wait_count "$dir/up.sub" '^{"n"' $N
t1=$(now) c1=$(ticks $bridge)
up=$(echo "$N / ($t1 - $t0)" | bc -l) up_cpu=$(echo "($c1 - $c0) * 1000000 / $hz / $N" | bc -l)

# down: mosquitto_pub -l to the board
c0=$(ticks $bridge) t0=$(now)
seq 0 $((N - 1)) | mosquitto_pub -h 127.0.0.1 -p $port -q 1 -l -t phyllo/b/cmd/d
wait_count "$dir/board" '^d ' $N
t1=$(now) c1=$(ticks $bridge)
down=$(echo "$N / ($t1 - $t0)" | bc -l) down_cpu=$(echo "($c1 - $c0) * 1000000 / $hz / $N" | bc -l)

# the reference: mosquitto_pub -l to mosquitto_sub, both processes' CPU
mosquitto_sub -h 127.0.0.1 -p $port -q 1 -t bench/x -t bench/probe >"$dir/ref.sub" &
rsub=$!
pids="$pids $rsub"
sub_ready "$dir/ref.sub"
c0=$(ticks $rsub) t0=$(now)
seq 0 $((N - 1)) | mosquitto_pub -h 127.0.0.1 -p $port -q 1 -l -t bench/x &
rpub=$!
wait_count "$dir/ref.sub" '^[0-9]' $N
t1=$(now) c1=$(ticks $rsub)
wait $rpub
ref=$(echo "$N / ($t1 - $t0)" | bc -l) ref_cpu=$(echo "($c1 - $c0) * 1000000 / $hz / $N" | bc -l)

# latency: board -> subscriber, then paho -> subscriber, one every 2 ms
pct() {	# one latency a line, in us: "p50 p99"
	sort -n | awk '{ v[NR] = $1 } END { printf "%d %d", v[int(NR * 0.5 + 0.5)], v[int(NR * 0.99 + 0.5)] }'
}
lat() {	# FILE: p50 p99 of receipt minus the "t" in the payload, in us
	sed -n 's/^\([0-9]*\)\.\([0-9]\{6\}\)[0-9]* .*"t":\([0-9]*\).*/\1\2 \3/p' "$1" |
		awk '{ print $1 - $2 }' | pct
}
mosquitto_sub -h 127.0.0.1 -p $port -q 1 -F '%U %p' -t phyllo/b/lat -t bench/lat -t bench/probe \
	>"$dir/lat.sub" &
pids="$pids $!"
sub_ready "$dir/lat.sub"
echo "pace 2000" >&7
echo "stamp lat $L" >&7
wait_count "$dir/lat.sub" '"t":' $L
/usr/bin/python3 - 127.0.0.1 $port $L <<'PY'
import sys, time
import paho.mqtt.client as mqtt
c = mqtt.Client()
c.connect(sys.argv[1], int(sys.argv[2]))
c.loop_start()
for i in range(int(sys.argv[3])):
    c.publish("bench/lat", '{"n":%d,"t":%d}' % (i, time.time_ns() // 1000), qos=1).wait_for_publish()
    time.sleep(0.002)
c.loop_stop()
PY
wait_count "$dir/lat.sub" '"t":' $((2 * L))
grep phyllo/b/lat -v "$dir/lat.sub" >/dev/null
grep -v '"n":[0-9]*,"t"' "$dir/lat.sub" >/dev/null
head -n $((L + 1)) "$dir/lat.sub" | grep '"t"' >"$dir/lat.board"
tail -n $L "$dir/lat.sub" >"$dir/lat.paho"
set -- $(lat "$dir/lat.board")
b50=$1 b99=$2
set -- $(lat "$dir/lat.paho")
p50=$1 p99=$2

printf '%-6s %10s %12s %s\n' path msgs/s "CPU us/msg" "(whose CPU)"
printf '%-6s %10.0f %12.1f %s\n' up "$up" "$up_cpu" "phyllo-bridge"
printf '%-6s %10.0f %12.1f %s\n' down "$down" "$down_cpu" "phyllo-bridge"
printf '%-6s %10.0f %12.1f %s\n' mqtt "$ref" "$ref_cpu" "mosquitto_sub"
printf 'ratios: up %.2f, down %.2f of mosquitto_pub -> mosquitto_sub\n' \
	"$(echo "$up / $ref" | bc -l)" "$(echo "$down / $ref" | bc -l)"
printf 'latency to mosquitto_sub, us: board through the bridge p50 %d p99 %d; paho alone p50 %d p99 %d\n' \
	"$b50" "$b99" "$p50" "$p99"

# ---- at the line rate: the bridge minus the link alone ------------------
# tests/bridge/line.c between the board's pty and the link's tty, at
# BENCH_BAUD (8N1). First the link alone, a second board.c on the host's
# end (--open --stamp: it prints its receipt time); then phyllo-bridge
# there instead, on the same board and line, to the same broker.
B=${BENCH_BAUD:-115200}
LN=${BENCH_LINE_N:-2000}
LL=${BENCH_LINE_LAT:-500}
kill $bridge
wait $bridge 2>/dev/null
kill $board	# boards on pty masters share one lock: one at a time
wait $board 2>/dev/null
exec 7>&-
mkfifo "$dir/lin" "$dir/hin"
"$H/bridge-board-O2" "$dir/lpty" <"$dir/lin" >"$dir/lboard" 2>"$dir/lboard.err" &
pids="$pids $!"
exec 7>"$dir/lin"
sleep 0.5
"$H/bridge-line" "$B" "$dir/lpty" "$dir/ltty" 2>"$dir/line.err" &
line=$!
pids="$pids $line"
sleep 0.5
fail=0
need() {	# FILE PATTERN N WHAT: all N there, or say so and fail at the end
	[ "$(count "$1" "$2")" -ge "$3" ] || { echo "FAIL $4: $(count "$1" "$2") of $3"; fail=1; }
}
# rate FILE PATTERN CMD...: run CMD, then wait until $LN lines of FILE
# match PATTERN; the messages per second in $r
rate() {
	f=$1 pat=$2
	shift 2
	t0=$(now)
	"$@"
	wait_count "$f" "$pat" $LN
	t1=$(now)
	r=$(echo "$LN / ($t1 - $t0)" | bc -l)
}
send() { echo "$1" >&"$2"; }

"$H/bridge-board-O2" "$dir/ltty" --open --stamp <"$dir/hin" >"$dir/host" 2>"$dir/host.err" &
hostb=$!
pids="$pids $hostb"
exec 8>"$dir/hin"
sleep 0.5
echo "pace 0" >&7
rate "$dir/host" ' f ' send "burst f $LN" 7
need "$dir/host" ' f ' $LN "link alone, up"
lup=$r
rate "$dir/lboard" '^d ' send "burst d $LN" 8
need "$dir/lboard" '^d ' $LN "link alone, down"
ldown=$r
echo "pace 10000" >&7	# one every 10 ms: no message waits for the one before
echo "stamp lat $LL" >&7
wait_count "$dir/host" ' lat ' $LL
need "$dir/host" ' lat ' $LL "link alone, latency"
set -- $(sed -n 's/^\([0-9]*\) lat .*"t":\([0-9]*\).*/\1 \2/p' "$dir/host" | awk '{ print $1 - $2 }' | pct)
l50=$1 l99=$2
kill $hostb	# the link's tty is the bridge's now
wait $hostb 2>/dev/null
exec 8>&-

printf 'link = %s\ntransport = tty\nbaud = %s\nhost = 127.0.0.1\nport = %s\nname = l\nstats_interval = 0\nqueue = 1000000\n' \
	"$dir/ltty" "$B" $port >"$dir/l.conf"
"$H/phyllo-bridge" -c "$dir/l.conf" >"$dir/lbridge.out" 2>"$dir/lbridge.err" &
bridge=$!
pids="$pids $bridge"
i=0
until grep -q "connected to" "$dir/lbridge.err"; do sleep 0.1; i=$((i + 1)); [ $i -gt 100 ] && break; done
mosquitto_sub -h 127.0.0.1 -p $port -q 1 -t phyllo/l/g -t bench/probe >"$dir/lup.sub" &
pids="$pids $!"
sub_ready "$dir/lup.sub"
echo "pace 0" >&7
c0=$(ticks $bridge)
rate "$dir/lup.sub" '^{"n"' send "burst g $LN" 7
c1=$(ticks $bridge)
need "$dir/lup.sub" '^{"n"' $LN "through the bridge, up"
bup=$r bup_cpu=$(echo "($c1 - $c0) * 1000000 / $hz / $LN" | bc -l)
c0=$(ticks $bridge)
rate "$dir/lboard" '^e ' sh -c "seq 0 $((LN - 1)) | mosquitto_pub -h 127.0.0.1 -p $port -q 1 -l -t phyllo/l/cmd/e"
c1=$(ticks $bridge)
need "$dir/lboard" '^e ' $LN "through the bridge, down"
bdown=$r bdown_cpu=$(echo "($c1 - $c0) * 1000000 / $hz / $LN" | bc -l)
mosquitto_sub -h 127.0.0.1 -p $port -q 1 -F '%U %p' -t phyllo/l/llat -t bench/probe >"$dir/llat.sub" &
pids="$pids $!"
sub_ready "$dir/llat.sub"
echo "pace 10000" >&7
echo "stamp llat $LL" >&7
wait_count "$dir/llat.sub" '"t":' $LL
need "$dir/llat.sub" '"t":' $LL "through the bridge, latency"
set -- $(lat "$dir/llat.sub")
m50=$1 m99=$2

echo "at $B baud (tests/bridge/line.c, 8N1), $LN messages each way, $LL latency samples one every 10 ms:"
printf '%-6s %12s %14s %8s %12s\n' path "link alone" "through bridge" ratio "CPU us/msg"
printf '%-6s %12.0f %14.0f %8.2f %12.1f\n' up "$lup" "$bup" "$(echo "$bup / $lup" | bc -l)" "$bup_cpu"
printf '%-6s %12.0f %14.0f %8.2f %12.1f\n' down "$ldown" "$bdown" "$(echo "$bdown / $ldown" | bc -l)" "$bdown_cpu"
printf 'latency, us, board publish to receipt: link alone p50 %d p99 %d; to mosquitto_sub through the bridge p50 %d p99 %d; the bridge adds p50 %d p99 %d\n' \
	"$l50" "$l99" "$m50" "$m99" $((m50 - l50)) $((m99 - l99))
sed 's/^/    /' "$dir/line.err"
exit $fail
