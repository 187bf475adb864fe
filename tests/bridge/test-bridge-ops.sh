#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-bridge-ops.sh - the bridge as operators run it, against Debian's
# mosquitto brokers started here (127.0.0.1, free ports, configurations
# and databases in this run's scratch folder):
#  1. the broker killed (-9) and started again 1 s later, plain and with
#     TLS: the bridge connected again, the time from the broker listening
#     printed (a figure, not a verdict: it stretches with the load; with
#     TLS libmosquitto 2.0 keeps the socket of an attempt that met a reset
#     open, and the bridge used to wait a keepalive, 30 s);
#  2. `host` as a list: a first broker that takes the TCP connection and
#     never answers is given up after connect_timeout, the second used;
#     that one killed, the bridge moves back to the first once it answers;
#  3. 2,000 QoS 1 commands waiting in the broker for the bridge, a board
#     answering each, a broker that saves its database on every change:
#     nothing dropped, every answer delivered (duplicates counted);
#  4. a name outside the user's ACL (MQTT 5): its status refused, exit 3.
# Usage: test-bridge-ops.sh BUILD_HOST_DIR [BRIDGE]   (BRIDGE: the binary to
# test, phyllo-bridge-san by default)
set -u
H=$1
bridge=${2:-$H/phyllo-bridge-san}
. "$(dirname "$0")/../userspace/checks.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tls.sh"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
port=$(free_port)

count() { grep -a -c -- "$2" "$1" 2>/dev/null || true; }
stat_of() { awk -v k="$2" '$1 == k { v = $2 } END { print v }' "$dir/$1.err" "$dir/$1.out"; }
# conf NAME [lines on stdin]
conf() {
	{ echo "link = $dir/$1.pty"; echo "transport = tty"; echo "name = $1"
	  echo "reconnect_max = 1"; echo "stats_interval = 0"; cat; } >"$dir/$1.conf"
}
# start NAME: the bridge, waited for until connected (15 s)
start() { bridge_start "$1" 150; }
term() {	# term NAME: SIGTERM, its status in $rc
	eval "p=\$bridge_$1"
	kill -TERM "$p" 2>/dev/null
	wait "$p"
	rc=$?
}
board() {	# board NAME [--echo]: tests/bridge/board.c on a pty
	"$H/bridge-board" "$dir/$1.pty" ${2:-} <"$dir/never" >"$dir/$1.board" 2>"$dir/$1.board.err" &
	pids="$pids $!"
	eval "board_$1=\$!"
	i=0
	while [ ! -L "$dir/$1.pty" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
# mconf FILE PORT [more lines on stdin]
mconf() {
	f=$1 p=$2
	{ echo "listener $p 127.0.0.1"; echo "allow_anonymous true"; echo "user root"
	  echo "log_dest file $dir/$(basename "$f" .conf).log"; cat; } >"$f"
}
mkfifo "$dir/never"
exec 7<>"$dir/never"	# the boards' stdin: open, never written

# ---- 1. kill -9 and a restart 1 s later, the reconnect's time printed ----
test_ca "$dir" || { echo "test-bridge-ops: openssl could not make the test CA" >&2; exit 1; }
chmod 644 "$dir"/*.key
board r
for kind in plain tls; do
	mconf "$dir/$kind.conf" $port </dev/null
	: >"$dir/r.extra"
	if [ $kind = tls ]; then
		printf 'cafile %s\ncertfile %s\nkeyfile %s\n' "$dir/ca.crt" "$dir/server.crt" \
			"$dir/server.key" >>"$dir/$kind.conf"
		echo "tls_ca_file = $dir/ca.crt" >"$dir/r.extra"
	fi
	{ echo "host = 127.0.0.1"; echo "port = $port"; cat "$dir/r.extra"; } | conf r
	mosquitto -c "$dir/$kind.conf" 2>>"$dir/broker.err" &
	b1=$!
	pids="$pids $b1"
	wait_listen $port
	start r || bad "$kind: the bridge connects"
	kill -9 $b1
	wait $b1 2>/dev/null
	wait_for "$dir/r.err" "lost the broker" 50
	sleep 1	# the stimulus: the broker away for a second
	mosquitto -c "$dir/$kind.conf" 2>>"$dir/broker.err" &
	b1=$!
	pids="$pids $b1"
	wait_listen $port
	t0=$(date +%s%N)
	i=0
	until [ "$(count "$dir/r.err" "connected to")" -ge 2 ] || [ $i -gt 600 ]; do
		sleep 0.02; i=$((i + 1))
	done
	ms=$((($(date +%s%N) - t0) / 1000000))
	echo "     $kind: connected again $ms ms after the broker listened"
	# printed, not judged (tests never assert on wall-clock time: under
	# load it stretches); the wait above is a liveness bound
	[ "$(count "$dir/r.err" "connected to")" -ge 2 ] &&
		ok "$kind: broker killed (-9), back after 1 s: the bridge connected again ($ms ms)" ||
		bad "$kind: no reconnect after kill -9 ($ms ms)"
	term r
	kill $b1
	wait $b1 2>/dev/null
done

# ---- 2. a list of brokers, one of them stuck -----------------------------
# the stuck one: a socket that listens and never accepts (the kernel
# completes the handshake; no CONNACK ever comes)
port2=$(free_port)
/usr/bin/python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8); time.sleep(600)' $port2 &
stuck=$!
pids="$pids $stuck"
wait_listen $port2
mconf "$dir/b2.conf" $port </dev/null
mosquitto -c "$dir/b2.conf" 2>>"$dir/broker.err" &
b2=$!
pids="$pids $b2"
wait_listen $port
printf 'host = 127.0.0.1:%s, 127.0.0.1:%s\nconnect_timeout = 1\n' $port2 $port | conf r
"$bridge" -c "$dir/r.conf" --dry-run >"$dir/out" 2>"$dir/err" &&
	grep -q "^broker *127.0.0.1:$port2, tried first" "$dir/out" &&
	grep -q "^broker *127.0.0.1:$port, then" "$dir/out" &&
	ok "--dry-run lists the brokers in the order tried" || bad "--dry-run broker list"
t0=$(date +%s%N)
start r
ms=$((($(date +%s%N) - t0) / 1000000))
grep -q "no answer from the broker 127.0.0.1:$port2 in 1 s" "$dir/r.err" &&
	grep -q "connected to 127.0.0.1:$port " "$dir/r.err" &&
	ok "host list: a broker that never answers is given up after connect_timeout, the next one used ($ms ms)" ||
	bad "host list with a stuck broker ($ms ms): $(grep -v '^[a-z_]* *[0-9]*$' "$dir/r.err" | head -5)"
kill $stuck
wait $stuck 2>/dev/null
port3=$port2
mconf "$dir/b3.conf" $port3 </dev/null
mosquitto -c "$dir/b3.conf" 2>>"$dir/broker.err" &
b3=$!
pids="$pids $b3"
wait_listen $port3
t0=$(date +%s%N)
kill -9 $b2
wait $b2 2>/dev/null
wait_for "$dir/r.err" "connected to 127.0.0.1:$port3 " 50
ms=$((($(date +%s%N) - t0) / 1000000))
grep -q "connected to 127.0.0.1:$port3 " "$dir/r.err" &&
	ok "host list: the broker in use killed (-9), the bridge on the other one in $ms ms" ||
	bad "host list failover"
term r
kill $b3
wait $b3 2>/dev/null

# ---- 3. a burst of queued commands, a broker slow to acknowledge ---------
# autosave_on_changes with autosave_interval 1: the database written after
# every change, as the issue's broker did
N=${OPS_N:-2000}
mkdir -p "$dir/db"
mconf "$dir/slow.conf" $port <<EOF
persistence true
persistence_location $dir/db/
autosave_on_changes true
autosave_interval 1
max_queued_messages 100000
EOF
mosquitto -c "$dir/slow.conf" 2>>"$dir/broker.err" &
b4=$!
pids="$pids $b4"
wait_listen $port
kill $board_r
wait $board_r 2>/dev/null
board f --echo
printf 'host = 127.0.0.1\nport = %s\n' $port | conf f
start f	# the session and its subscription, kept by the broker
term f
mosquitto_sub -h 127.0.0.1 -p $port -q 1 -c -i phyllo-test-answers -t phyllo/f/e -C 1 -W 1 \
	>/dev/null 2>&1
seq 0 $((N - 1)) | mosquitto_pub -h 127.0.0.1 -p $port -q 1 -t phyllo/f/cmd/e -l
mosquitto_sub -h 127.0.0.1 -p $port -q 1 -c -i phyllo-test-answers -t phyllo/f/e \
	>"$dir/answers" 2>"$dir/sub.err" &
sub=$!
pids="$pids $sub"
t0=$(date +%s%N)
start f
i=0
until [ "$(sort -u "$dir/answers" | wc -l)" -ge $N ] || [ $i -gt 1200 ]; do
	sleep 0.1; i=$((i + 1))
done
ms=$((($(date +%s%N) - t0) / 1000000))
term f
got=$(sort -u "$dir/answers" | wc -l)
dup=$(($(wc -l <"$dir/answers") - got))
echo "     $N commands queued in the broker: $got answers distinct ($dup duplicates) in $ms ms; bridge board_tx $(stat_of f board_tx), board_rx $(stat_of f board_rx), queue_dropped $(stat_of f queue_dropped), down_dropped $(stat_of f down_dropped)"
[ "$(stat_of f queue_dropped)" = 0 ] && [ "$(stat_of f down_dropped)" = 0 ] && [ "$got" -eq $N ] &&
	ok "$N commands waiting in a slow broker, each answered: 0 dropped, $got of $N answers delivered ($dup duplicates)" ||
	bad "burst of queued commands: $got of $N answers, queue_dropped $(stat_of f queue_dropped)"
kill $sub $b4 2>/dev/null
wait $sub $b4 2>/dev/null

# ---- 4. outside its ACL: the status refused is fatal ---------------------
printf 'user root\n' >"$dir/acl"	# root may do nothing
: >"$dir/passwd"
chmod 600 "$dir/passwd"
mosquitto_passwd -b "$dir/passwd" root pw
mconf "$dir/acl.conf" $port <<EOF
password_file $dir/passwd
acl_file $dir/acl
EOF
sed -i 's/^allow_anonymous true/allow_anonymous false/' "$dir/acl.conf"
mosquitto -c "$dir/acl.conf" 2>>"$dir/broker.err" &
b5=$!
pids="$pids $b5"
wait_listen $port
printf 'host = 127.0.0.1\nport = %s\nprotocol = 5\nusername = root\npassword = pw\n' $port | conf f
chmod 600 "$dir/f.conf"
"$bridge" -c "$dir/f.conf" >"$dir/out" 2>"$dir/err" &
p=$!
pids="$pids $p"
i=0
while kill -0 $p 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill $p 2>/dev/null
wait $p
rc=$?
{ [ $rc -eq 3 ] && grep -q "refused this bridge's status on phyllo/f/status: Not authorized" "$dir/err" &&
  grep -q "giving up: check the broker's ACL" "$dir/err" && ! grep -q " on ?" "$dir/err"; } &&
	ok "MQTT 5, its status outside the ACL: refused, the bridge says which and exits 3" ||
	bad "status outside the ACL (rc $rc)"
kill $b5
wait $b5 2>/dev/null

checks_done
