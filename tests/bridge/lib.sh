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
