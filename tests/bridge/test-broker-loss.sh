#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-broker-loss.sh - what Debian's mosquitto itself keeps when it is
# killed with -9, the part of a message's way the bridge cannot answer
# for. A subscriber with a persistent session (client id, clean session
# off, QoS 1) goes away; N messages are published to it at QoS 1, each
# acknowledged by the broker (mosquitto_pub returns only then); the broker
# is stopped and started again on the same configuration and database;
# the subscriber comes back and counts what it is given before a marker
# published after its return. One line per case, and the exact counts are
# checked, so that a mosquitto that keeps more or less than
# docs/bridge.md says fails here:
#   term      persistence true, SIGTERM       all N (saved at the stop)
#   off       persistence false, kill -9      0, and the session is gone
#   on        persistence true, kill -9       0: the default autosave is
#             (default autosave_interval)     every 1800 s; nothing since
#                                             the last save survives
#   changes   persistence true, kill -9,      all, or all but the last:
#             autosave_on_changes true,       a save each time more than 1
#             autosave_interval 1             change (a subscription, a
#                                             queued message) is counted
# Usage: test-broker-loss.sh   (LOSS_N messages, default 1000)
set -u
N=${LOSS_N:-1000}
. "$(dirname "$0")/../userspace/checks.sh"
. "$(dirname "$0")/lib.sh"
port=$(free_port)
# run_case NAME SIGNAL [config lines on stdin]: what the subscriber got
# back is counted in $kept
run_case() {
	rm -rf "$dir/db" && mkdir -p "$dir/db"
	{ printf 'listener %s 127.0.0.1\nallow_anonymous true\nuser root\n' $port
	  printf 'persistence_location %s/db/\nmax_queued_messages 0\n' "$dir"
	  cat; } >"$dir/m.conf"
	kept=-1
	broker_start "$dir/m.conf" || return
	# the persistent session, then away
	mosquitto_sub -h 127.0.0.1 -p $port -q 1 -c -i "loss-$1" -t loss/t -E 2>>"$dir/err"
	seq 1 $N | mosquitto_pub -h 127.0.0.1 -p $port -q 1 -l -t loss/t 2>>"$dir/err"
	kill -"$2" $broker
	wait $broker 2>/dev/null
	broker_start "$dir/m.conf" || return
	mosquitto_sub -h 127.0.0.1 -p $port -q 1 -c -i "loss-$1" -t loss/t -t "loss/end" -v \
		>"$dir/$1.sub" 2>>"$dir/err" &
	sub=$!
	pids="$pids $sub"
	# the marker reaches it only if it is subscribed: through its old
	# session, or by the new subscription once that is made
	i=0
	until grep -q '^loss/end' "$dir/$1.sub" 2>/dev/null; do
		mosquitto_pub -h 127.0.0.1 -p $port -q 1 -t loss/end -m end
		i=$((i + 1)); [ $i -gt 100 ] && break
		sleep 0.1
	done
	kill $sub
	wait $sub 2>/dev/null
	kill $broker
	wait $broker 2>/dev/null
	kept=$(grep -c '^loss/t ' "$dir/$1.sub")
}

printf 'persistence true\n' >"$dir/c"
run_case term TERM <"$dir/c"; term=$kept
printf 'persistence false\n' >"$dir/c"
run_case off KILL <"$dir/c"; off=$kept
printf 'persistence true\n' >"$dir/c"
run_case on KILL <"$dir/c"; on=$kept
printf 'persistence true\nautosave_on_changes true\nautosave_interval 1\n' >"$dir/c"
run_case changes KILL <"$dir/c"; changes=$kept
echo "     mosquitto $(mosquitto -h 2>/dev/null | sed -n '1s/.*version //p'), $N QoS 1 messages acknowledged to the publisher, queued for a persistent session that is away:"
echo "     persistence true, SIGTERM: $term kept; persistence false, kill -9: $off;"
echo "     persistence true, kill -9: $on; with autosave_on_changes true, autosave_interval 1: $changes"
[ "$term" = "$N" ] && ok "SIGTERM with persistence: all $N kept" || bad "SIGTERM: $term of $N kept"
[ "$off" = 0 ] && ok "kill -9 without persistence: all $N lost" || bad "kill -9, no persistence: $off kept"
[ "$on" = 0 ] && ok "kill -9 with persistence but the default autosave: all $N lost" ||
	bad "kill -9, default autosave: $on kept"
[ "$changes" -ge $((N - 1)) ] 2>/dev/null &&
	ok "kill -9 with autosave_on_changes, autosave_interval 1: $changes of $N kept" ||
	bad "kill -9, autosave on every change: $changes of $N kept"
checks_done
