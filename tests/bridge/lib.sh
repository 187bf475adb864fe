# SPDX-License-Identifier: GPL-2.0-only OR MIT
# shellcheck shell=sh
#
# lib.sh - sourced by the bridge's host tests after checks.sh ($dir,
# $pids): a free port, waiting for a line in a file, and Debian's
# mosquitto started on a configuration of the test's own.
#   free_port                      a free TCP port on 127.0.0.1
#   wait_for FILE PATTERN [TENTHS] until FILE holds a line matching
#                                  PATTERN (10 s unless told): 0, else 1
#   broker_start [CONF]            mosquitto -c CONF ($dir/mosquitto.conf),
#                                  its pid in $broker, once it answers a
#                                  publish on $port (its errors in
#                                  $dir/broker.err)
#   listening PORT [NETNS]         something listens on 127.0.0.1:PORT (in
#                                  network namespace NETNS if named): 0
#   wait_listen PORT [TENTHS [NETNS]]  until it does (10 s unless told):
#                                  0, else 1 and a line saying so
#   wait_sub LOG TOPIC [ID]        until a broker's LOG (its configuration
#                                  has log_type subscribe) shows client ID
#                                  (any unless named) subscribed to TOPIC,
#                                  i.e. what is published there now reaches
#                                  it (10 s): 0, else 1 and a line saying so
#   bridge_start NAME [TENTHS]     $bridge -c $dir/NAME.conf in the
#                                  background (stdout, stderr: NAME.out,
#                                  NAME.err; its pid in $bridge_NAME, and
#                                  in $pids), until its stderr says
#                                  "connected to" (10 s unless told): 0,
#                                  else 1
#   wait_probe FILE TOPIC PORT     until a mosquitto_sub -v writing FILE,
#                                  subscribed to TOPIC too, shows a probe
#                                  published there on PORT (5 s): the
#                                  subscription is in place with any
#                                  broker, even one that logs none
# Every wait here is for a condition, bounded; never a fixed sleep.
free_port() {
	/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
wait_for() {
	i=0
	while ! grep -q -- "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt "${3:-100}" ] && return 1
		sleep 0.1
	done
	return 0
}
# The bridge's logs are emptied here, before it starts: a redirection of
# a command run in the background happens in the child, so a wait begun
# at once could read what the previous bridge of that name wrote,
# "connected to" and all (test-bridge-rabbitmq failed 4 runs in 10 so).
bridge_start() {
	: >"$dir/$1.out"
	: >"$dir/$1.err"
	"$bridge" -c "$dir/$1.conf" >>"$dir/$1.out" 2>>"$dir/$1.err" &
	eval "bridge_$1=\$!"
	pids="$pids $!"
	wait_for "$dir/$1.err" "connected to" "${2:-100}"
}
broker_start() {
	mosquitto -c "${1:-$dir/mosquitto.conf}" 2>>"$dir/broker.err" &
	broker=$!
	pids="$pids $broker"
	i=0
	until mosquitto_pub -h 127.0.0.1 -p $port -t probe -n 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 50 ] && { echo "broker did not start"; cat "$dir/broker.err"; return 1; }
		sleep 0.1
	done
}
listening() {
	if [ -n "${2:-}" ]; then
		ip netns exec "$2" ss -Hltn "sport = :$1" | grep -q LISTEN
	else
		ss -Hltn "sport = :$1" | grep -q LISTEN
	fi
}
wait_listen() {
	i=0
	until listening "$1" "${3:-}"; do
		i=$((i + 1))
		[ $i -gt $((${2:-100} * 5)) ] && { echo "nothing listens on port $1 after $((${2:-100} / 10)) s"; return 1; }
		sleep 0.02
	done
}
# mosquitto logs "TIME: ID QOS TOPIC" once the subscription is in place
wait_sub() {
	wait_for "$1" ": ${3:-[^ ]*} [0-2] $2\$" || {
		echo "no subscription to $2${3:+ by $3} in $1 after 10 s"
		return 1
	}
}
wait_probe() {
	i=0
	until grep -q "^$2 " "$1" 2>/dev/null; do
		mosquitto_pub -h 127.0.0.1 -p "$3" -t "$2" -m up 2>/dev/null || true
		i=$((i + 1)); [ $i -gt 50 ] && { echo "no probe back on $2 in $1 after 5 s"; return 1; }
		sleep 0.1
	done
}
