#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-bridge-rabbitmq.sh - the bridge on a second MQTT implementation:
# RabbitMQ 3.10's MQTT plugin (Debian's rabbitmq-server; MQTT 3.1.1 only),
# a two-node cluster on this machine (nodes a and b, on 127.0.0.1, free
# ports, their own epmd, cookie, databases and logs in the scratch folder),
# beside Debian's mosquitto in the same run:
#  1. the cluster: bridge a on node a, bridge b on node b (each with the
#     other node second in its `host` list); board b's topic reaches board
#     a across the cluster (an import), a command on node b reaches board
#     a and its answer comes back;
#  2. side by side, mosquitto and the cluster: messages per second board b
#     to board a (N in a burst), and the latency board b -> board a (p50,
#     p99 of 200 stamped messages, 20 ms apart), so what the cluster adds;
#  3. node a stopped (rabbitmqctl stop) while board a streams 2,000
#     messages: bridge a moves to node b, and every message it held is
#     acknowledged there (board_rx = mqtt_tx, nothing unsent), a subscriber
#     on node b gets all 2,000 (duplicates counted).
# The sessions' queues (mqtt-subscription-<client id>qos1, classic) are
# mirrored on both nodes (policy ha-mode all): without it a persistent
# session whose queue lived on the stopped node cannot be resumed on the
# other (the node closes the connection at every attempt), and a quorum
# queue of two nodes loses its majority with either.
# Usage: test-bridge-rabbitmq.sh BUILD_HOST_DIR [N]   (N: messages in the
# rate run, 2000 by default; make test-bridge-rabbitmq-short gives 300)
set -u
H=$1
N=${2:-2000}
bridge=$H/phyllo-bridge-san
. "$(dirname "$0")/../userspace/checks.sh"
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
RQ=/usr/lib/rabbitmq/bin
[ -x $RQ/rabbitmq-server ] || { echo "no $RQ/rabbitmq-server (scripts/deps.sh rabbitmq)"; exit 1; }

count() { grep -a -c -- "$2" "$1" 2>/dev/null || true; }
stat_of() { awk -v k="$2" '$1 == k { v = $2 } END { print v }' "$dir/$1.err" "$dir/$1.out"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# ---- the cluster ---------------------------------------------------------
epmd_port=$(free_port)
printf 'phyllo-test-%s' "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" >"$dir/.erlang.cookie"
chmod 400 "$dir/.erlang.cookie"
# rq NODE CMD...: CMD with NODE's environment (HOME for the cookie)
rq() {
	n=$1
	shift
	eval "amqp=\$amqp_$n dist=\$dist_$n"
	env HOME="$dir" ERL_EPMD_PORT=$epmd_port ERL_EPMD_ADDRESS=127.0.0.1 \
		RABBITMQ_NODENAME=$n@localhost RABBITMQ_NODE_PORT=$amqp RABBITMQ_DIST_PORT=$dist \
		RABBITMQ_MNESIA_BASE="$dir/rq-$n/mnesia" RABBITMQ_LOG_BASE="$dir/rq-$n/log" \
		RABBITMQ_CONFIG_FILE="$dir/rq-$n/rabbitmq" RABBITMQ_ADVANCED_CONFIG_FILE="$dir/rq-$n/advanced" \
		RABBITMQ_ENABLED_PLUGINS_FILE="$dir/rq-$n/enabled_plugins" RABBITMQ_PID_FILE="$dir/rq-$n/pid" \
		RABBITMQ_CONF_ENV_FILE="$dir/rq-$n/env" \
		RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}" "$@"
}
# node_start NODE: a node with the MQTT plugin, waited for (60 s)
node_start() {
	n=$1
	eval "amqp_$n=\$(free_port) dist_$n=\$(free_port) mqtt_$n=\$(free_port)"
	eval "amqp=\$amqp_$n mqtt=\$mqtt_$n"
	mkdir -p "$dir/rq-$n"
	echo '[rabbitmq_mqtt].' >"$dir/rq-$n/enabled_plugins"
	: >"$dir/rq-$n/env"
	cat >"$dir/rq-$n/rabbitmq.conf" <<EOF
listeners.tcp.1 = 127.0.0.1:$amqp
mqtt.listeners.tcp.1 = 127.0.0.1:$mqtt
mqtt.allow_anonymous = true
loopback_users = none
EOF
	rq "$n" $RQ/rabbitmq-server >"$dir/rq-$n.out" 2>&1 &
	pids="$pids $!"
	i=0
	until listening "$mqtt"; do
		i=$((i + 1)); [ $i -gt 600 ] && { tail "$dir/rq-$n.out"; return 1; }
		sleep 0.1
	done
	pids="$pids $(cat "$dir/rq-$n/pid")"
}
cleanup_rq() {
	for n in a b; do rq $n $RQ/rabbitmqctl -n $n@localhost stop >/dev/null 2>&1; done
	env ERL_EPMD_PORT=$epmd_port epmd -kill >/dev/null 2>&1
}
trap 'cleanup_rq; for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$dir"' EXIT

t0=$(now_ms)
node_start a && node_start b || { bad "the RabbitMQ nodes start"; checks_done; exit 1; }
t1=$(now_ms)
if rq b $RQ/rabbitmqctl -n b@localhost stop_app >"$dir/out" 2>"$dir/err" &&
   rq b $RQ/rabbitmqctl -n b@localhost join_cluster a@localhost >"$dir/out" 2>"$dir/err" &&
   rq b $RQ/rabbitmqctl -n b@localhost start_app >"$dir/out" 2>"$dir/err" &&
   rq a $RQ/rabbitmqctl -n a@localhost cluster_status >"$dir/out" 2>"$dir/err" &&
   rq a $RQ/rabbitmqctl -n a@localhost set_policy --apply-to queues mqtt-sessions \
	'^mqtt-subscription-' '{"ha-mode":"all","ha-sync-mode":"automatic"}' >>"$dir/out" 2>"$dir/err" &&
   grep -A3 'Running Nodes' "$dir/out" | grep -q b@localhost; then
	ok "RabbitMQ $(dpkg-query -W -f '${Version}' rabbitmq-server): two nodes started ($((t1 - t0)) ms) and clustered ($(($(now_ms) - t1)) ms)"
else
	bad "rabbitmqctl join_cluster"
	checks_done
	exit 1
fi
i=0	# the MQTT listener of b again, after start_app
until listening "$mqtt_b" || [ $i -gt 300 ]; do sleep 0.1; i=$((i + 1)); done

mport=$(free_port)
printf 'listener %s 127.0.0.1\nallow_anonymous true\nuser root\n' $mport >"$dir/mosquitto.conf"
mosquitto -c "$dir/mosquitto.conf" 2>"$dir/mosquitto.err" &
pids="$pids $!"
wait_listen $mport

# boards: a prints what it gets with its receipt time (--stamp) and
# echoes commands' topic "echo"; b publishes
for n in a b; do
	mkfifo "$dir/$n.in"
done
"$H/bridge-board" "$dir/a.pty" --stamp <"$dir/a.in" >"$dir/a.board" 2>"$dir/a.board.err" &
pids="$pids $!"
exec 7>"$dir/a.in"
i=0
while [ ! -L "$dir/a.pty" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5	# boards on pty masters share one flock: one at a time
"$H/bridge-board" "$dir/b.pty" <"$dir/b.in" >"$dir/b.board" 2>"$dir/b.board.err" &
pids="$pids $!"
exec 8>"$dir/b.in"
i=0
while [ ! -L "$dir/b.pty" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

# conf NAME HOSTS CLIENT_ID
conf() {
	cat >"$dir/$1.conf" <<EOF
link = $dir/$1.pty
transport = tty
name = $1
client_id = $3
host = $2
protocol = 3.1.1
reconnect_max = 1
connect_timeout = 2
stats_interval = 0
queue = 100000
EOF
	[ "$1" = a ] && echo "import = phyllo/b/t t" >>"$dir/a.conf"
	[ "$1" = a ] && echo "import = phyllo/b/lat lat" >>"$dir/a.conf"
	return 0
}
start() {	# start NAME: the bridge (lib.sh), until connected, printing
	# how long that took; 60 s, a bound for liveness only
	t0=$(now_ms)
	if bridge_start "$1" 600; then
		echo "     bridge $1 connected in $(($(now_ms) - t0)) ms"
	else
		bad "bridge $1 did not connect in 60 s"
		sed "s/^/     $1.err: /" "$dir/$1.err"
	fi
}
term() {
	eval "p=\$bridge_$1"
	kill -TERM "$p" 2>/dev/null
	wait "$p"
	rc=$?
}
# until_board FILE PATTERN N [TENTHS]: until N lines of board a match
until_lines() {
	i=0
	while [ "$(count "$1" "$2")" -lt "$3" ] && [ $i -lt "${4:-600}" ]; do sleep 0.1; i=$((i + 1)); done
}
# run KIND: bridges a and b on KIND's brokers; the rate and the latency
# board b -> board a; "KIND RATE P50 P99" appended to $dir/figures
run() {
	kind=$1
	if [ $kind = mosquitto ]; then
		conf a "127.0.0.1:$mport" pb-a-mosq; conf b "127.0.0.1:$mport" pb-b-mosq
	else
		conf a "127.0.0.1:$mqtt_a 127.0.0.1:$mqtt_b" pb-a-rq; conf b "127.0.0.1:$mqtt_b 127.0.0.1:$mqtt_a" pb-b-rq
	fi
	start a && start b || bad "$kind: bridges connect"
	# until a's subscriptions are in place: probes until one arrives
	base=$(count "$dir/a.board" ' t {"n":')
	i=0
	until [ "$(count "$dir/a.board" ' t {"n":')" -gt "$base" ] || [ $i -gt 100 ]; do
		echo "burst t 1" >&8; sleep 0.2; i=$((i + 1))
	done
	base=$(count "$dir/a.board" ' t {"n":')
	s=$(now_ms)
	echo "burst t $N" >&8
	until_lines "$dir/a.board" ' t {"n":' $((base + N)) 1200
	e=$(tail -1 "$dir/a.board" | cut -d' ' -f1)
	got=$(($(count "$dir/a.board" ' t {"n":') - base))
	rate=$(awk -v n=$got -v s=$s -v e=$e 'BEGIN { printf "%.0f", n / ((e / 1000 - s) / 1000) }')
	lbase=$(count "$dir/a.board" ' lat {"n":')
	echo "pace 20000" >&8
	echo "stamp lat 200" >&8
	until_lines "$dir/a.board" ' lat {"n":' $((lbase + 200)) 300
	echo "pace 0" >&8
	grep -a ' lat {"n":' "$dir/a.board" | tail -n +$((lbase + 1)) |
		sed 's/^\([0-9]*\) lat {"n":[0-9]*,"t":\([0-9]*\)}$/\1 \2/' |
		awk '{ print $1 - $2 }' | sort -n >"$dir/lat.$kind"
	p50=$(awk '{ v[NR] = $1 } END { printf "%.2f", v[int(NR * 0.5) + 1] / 1000 }' "$dir/lat.$kind")
	p99=$(awk '{ v[NR] = $1 } END { printf "%.2f", v[int(NR * 0.99) + 1] / 1000 }' "$dir/lat.$kind")
	echo "     $kind: board b -> board a $got of $N, $rate messages/s; latency p50 $p50 ms, p99 $p99 ms ($(wc -l <"$dir/lat.$kind") stamped)"
	echo "$kind $got $rate $p50 $p99" >>"$dir/figures"
	[ "$got" -eq "$N" ] && [ "$(wc -l <"$dir/lat.$kind")" -eq 200 ] &&
		ok "$kind: board b's $N messages reach board a through two bridges, 200 stamped ones too" ||
		bad "$kind: $got of $N, $(wc -l <"$dir/lat.$kind") of 200 stamped"
	# a command on the other bridge's node, for board a: board.c answers
	# nothing, so it is seen in a's output
	if [ $kind = rabbitmq ]; then
		mosquitto_pub -h 127.0.0.1 -p $mqtt_b -q 1 -t phyllo/a/cmd/ping -m '{"from":"b"}'
		until_lines "$dir/a.board" ' ping {"from":"b"}' 1 100
		[ "$(count "$dir/a.board" ' ping {"from":"b"}')" -eq 1 ] &&
			ok "rabbitmq: a command published on node b reaches board a, whose bridge is on node a" ||
			bad "rabbitmq: command across the cluster"
	fi
	term a
	term b
}
: >"$dir/figures"
run mosquitto
run rabbitmq
awk '$1 == "mosquitto" { r = $3; p = $4; q = $5 } $1 == "rabbitmq" {
	printf "     the cluster against mosquitto, same run: %.2fx the messages/s, p50 %+.2f ms, p99 %+.2f ms\n", $3 / r, $4 - p, $5 - q }' \
	"$dir/figures"

# ---- node a stopped under bridge a ---------------------------------------
conf a "127.0.0.1:$mqtt_a 127.0.0.1:$mqtt_b" pb-a-rq
start a
grep -q "connected to 127.0.0.1:$mqtt_a " "$dir/a.err" || {
	bad "bridge a is not on node a (node a MQTT $mqtt_a, node b $mqtt_b)"
	sed "s/^/     a.err: /" "$dir/a.err"
}
mosquitto_sub -h 127.0.0.1 -p $mqtt_b -q 1 -v -t phyllo/a/u -t probe/u >"$dir/u.sub" 2>"$dir/u.err" &
sub=$!
pids="$pids $sub"
wait_probe "$dir/u.sub" probe/u "$mqtt_b"
# distinct: the messages of phyllo/a/u that arrived, each once
distinct() { grep '^phyllo/a/u ' "$dir/u.sub" | sort -u | wc -l; }
F=2000
echo "pace 2000" >&7
echo "burst u $F" >&7
until_lines "$dir/u.sub" '^phyllo/a/u ' $((F / 4)) 300
ts=$(now_ms)
rq a $RQ/rabbitmqctl -n a@localhost stop >"$dir/out" 2>"$dir/err"
wait_for "$dir/a.err" "connected to 127.0.0.1:$mqtt_b " 300
moved=$(($(now_ms) - ts))
echo "pace 0" >&7
echo sync >&7
wait_for "$dir/a.board" '^synced' 600
i=0
until [ "$(distinct)" -ge $F ] || [ $i -gt 300 ]; do sleep 0.1; i=$((i + 1)); done
n=$(count "$dir/a.err" '^exit_undelivered ')
kill -USR1 $bridge_a
until_lines "$dir/a.err" '^exit_undelivered ' $((n + 1)) 50	# its counters
got=$(distinct)
dup=$(($(count "$dir/u.sub" '^phyllo/a/u ') - got))
term a
echo "     node a stopped after $((F / 4)) of $F: bridge a on node b $moved ms later; subscriber on node b: $got distinct ($dup duplicates); bridge a board_rx $(stat_of a board_rx), mqtt_tx $(stat_of a mqtt_tx), exit_unsent $(stat_of a exit_unsent), queue_dropped $(stat_of a queue_dropped)"
grep -q "connected to 127.0.0.1:$mqtt_b " "$dir/a.err" &&
	ok "node a stopped: bridge a moved to node b ($moved ms)" || bad "bridge a did not move to node b"
[ "$(stat_of a exit_unsent)" = 0 ] && [ "$(stat_of a queue_dropped)" = 0 ] && [ "$got" -eq $F ] &&
	ok "and lost nothing it held: all $F of board a's messages acknowledged and delivered on node b ($dup duplicates)" ||
	bad "failover: $got of $F, exit_unsent $(stat_of a exit_unsent)"
grep -v '^[a-z_]* *[0-9]*$' "$dir/a.err" | sed 's/^/     a: /' | tail -8
checks_done
