#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-tty.sh - the tool's link commands on the userspace transport: no
# kernel module, the protocol in libphyllo inside the tool (--tty), and
# `phyllo peer --echo --pty` as the board, two processes on a pty.
# pub (with the reply it echoes), sub, echo on every preset and payload,
# stats; a port in use, a file that is no tty, a hang-up mid-run.
# Usage: test-tty.sh PHYLLO_BINARY
set -u
bin=$1
. "$(dirname "$0")/checks.sh"

# board_start [peer options]: an echo peer on a new pty at $dir/pty
board_start() {
	"$bin" peer --echo --pty "$dir/pty" "$@" 2>"$dir/board.err" &
	board=$!
	pids=$board
	i=0
	while [ ! -L "$dir/pty" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
board_stop() {
	kill "$board" 2>/dev/null
	wait "$board" 2>/dev/null
	board= pids=
}

# fails NAME WANT-ERR CMD...: non-zero exit and stderr matching WANT-ERR
fails() {
	name=$1 want=$2
	shift 2
	"$@" >"$dir/out" 2>"$dir/err" </dev/null
	rc=$?
	if [ $rc -ne 0 ] && grep -q -- "$want" "$dir/err"; then
		ok "$name"
	else
		bad "$name (rc $rc)"
	fi
}

for preset in minimal reduced standard; do
	board_start -p $preset
	for payload in small large very-large counter; do
		run "$preset: echo --tty, 300 $payload" '"received":300,.*"lost":0,' \
			"$bin" echo --tty "$dir/pty" --preset $preset --payload $payload -n 300 --json
	done
	run "$preset: pub --reply servo 90 prints the integer back" '^servo 90$' \
		"$bin" pub --tty "$dir/pty" --preset $preset --reply servo 90
	board_stop
done

board_start
run "pub --reply of a document" '^{"topic":"cfg","value":{"a":\[1,2.5,"x"\],"b":null}}$' \
	"$bin" pub --tty "$dir/pty" --reply --json cfg '{"a":[1,2.5,"x"],"b":null}'
run "pub waits for the acknowledgement" '' "$bin" pub --tty "$dir/pty" servo 91
run "pub --unreliable" '' "$bin" pub --tty "$dir/pty" --unreliable servo 92
run "stats --tty: a session" '"sessions":1,' "$bin" stats --tty "$dir/pty" --json
fails "sub --tty: nothing published" "no message within 1 s" \
	"$bin" sub --tty "$dir/pty" -t 1 sensors/
fails "pub: bad JSON before anything is opened" "not a JSON value" \
	"$bin" pub --tty "$dir/pty" servo 90.
# one user of a port at a time
"$bin" sub --tty "$dir/pty" -t 5 nothing >/dev/null 2>&1 &
holder=$!
i=0	# until it holds the port's lock
while ! grep -q "FLOCK .* $holder " /proc/locks && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
fails "a port in use is refused, naming its holder" \
	"in use by process $holder (.*sub --tty $dir/pty -t 5 nothing).*SHARING A BOARD" \
	"$bin" stats --tty "$dir/pty"
wait $holder
printf 'keep\n' >"$dir/file"
fails "--tty FILE refused" "not a serial port" "$bin" pub --tty "$dir/file" servo 1
[ "$(cat "$dir/file")" = keep ] && ok "the file is unchanged" || bad "the file was changed"
fails "-d TTY says to use --tty" "use --tty" "$bin" stats -d "$dir/pty"
# the board goes away mid-run
"$bin" echo --tty "$dir/pty" -n 1000000 -t 60 --json >"$dir/out" 2>"$dir/err" &
client=$!
sleep 2
kill -KILL "$board"
wait "$board" 2>/dev/null
board= pids=
wait $client
rc=$?
if [ $rc -eq 1 ] && grep -q "detached or hung up" "$dir/err"; then
	ok "echo --tty: the board hung up mid-run"
else
	bad "echo --tty hang-up (rc $rc)"
fi
checks_done
