#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-safety.sh - the tool's promises about files and failures (issue 11,
# bugs 1, 2 and 5), each checked the way a user would meet it:
#  1. a regular file, a directory or /dev/null as --device (peer) or TTY
#     (attach) is refused with a clear message, and nothing is written;
#  2. --pty PATH never replaces what is at PATH, and removes its own link
#     at exit: normal end, SIGINT, SIGTERM, SIGHUP, an error exit;
#  5. peer --client: a progress bar on a terminal, never-sent messages not
#     counted as lost, a message and a status on hang-up and on Ctrl-C, a
#     time-out that says what to check; -w and -b out of range refused with
#     the range; --version; the man page documents what the tool has.
# Usage: test-safety.sh PHYLLO_BINARY
set -u
bin=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/checks.sh"

# wait_for TEST PATH: up to 5 s
wait_for() {
	i=0
	while ! test "$1" "$2" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	test "$1" "$2"
}

# expect_fail NAME RC WANT CMD...: CMD exits RC and says WANT on stderr
expect_fail() {
	name=$1 want_rc=$2 want=$3
	shift 3
	timeout 60 "$@" >"$dir/out" 2>"$dir/err" </dev/null
	rc=$?
	if [ $rc -eq "$want_rc" ] && grep -q -- "$want" "$dir/err"; then
		ok "$name"
	else
		bad "$name (rc $rc, wanted $want_rc and '$want')"
	fi
}

# --- 1. no tty, no writes --------------------------------------------------
printf 'precious\n' >"$dir/file"
cp "$dir/file" "$dir/file.orig"
mkdir "$dir/adir"
expect_fail "peer -d FILE refused" 1 "is a regular file, not a serial port" \
	"$bin" peer --echo -d "$dir/file"
expect_fail "peer --client -d FILE refused" 1 "nothing was written" \
	"$bin" peer --client -n 1 -d "$dir/file"
cmp -s "$dir/file" "$dir/file.orig" && ok "the file is unchanged" || bad "the file was changed"
expect_fail "peer -d DIR refused" 1 "is a directory, not a serial port" \
	"$bin" peer --echo -d "$dir/adir"
expect_fail "peer -d /dev/null refused" 1 "not a tty" "$bin" peer --echo -d /dev/null
expect_fail "attach FILE refused" 1 "is a regular file, not a serial port" \
	"$bin" attach "$dir/file" -f
cmp -s "$dir/file" "$dir/file.orig" && ok "the file is still unchanged" ||
	bad "attach changed the file"

# --- 2. --pty: never replace, always clean up ------------------------------
for what in file dir link; do
	case $what in
	file) printf 'keep me\n' >"$dir/p-$what" ;;
	dir) mkdir "$dir/p-$what" ;;
	link) ln -s /nonexistent/target "$dir/p-$what" ;;
	esac
	expect_fail "--pty over an existing $what refused" 1 "already exists" \
		"$bin" peer --echo --pty "$dir/p-$what"
done
[ "$(cat "$dir/p-file")" = "keep me" ] && [ -d "$dir/p-dir" ] &&
	[ "$(readlink "$dir/p-link")" = /nonexistent/target ] &&
	ok "what was there is untouched" || bad "--pty changed what was there"

# the link goes at exit, whatever ends the peer
for sig in INT TERM HUP; do
	"$bin" peer --echo --pty "$dir/pty-$sig" 2>"$dir/err" &
	pid=$!
	pids="$pids $pid"
	if wait_for -L "$dir/pty-$sig"; then
		kill -$sig $pid
		wait $pid
		rc=$?
		if [ ! -e "$dir/pty-$sig" ] && [ ! -L "$dir/pty-$sig" ] && [ $rc -eq 0 ]; then
			ok "--pty link removed on SIG$sig (echo: status 0)"
		else
			bad "--pty link after SIG$sig (rc $rc)"
		fi
	else
		bad "no --pty link for SIG$sig"
	fi
done
# an error exit after the link was made: a client that times out
"$bin" peer --client --pty "$dir/pty-err" -n 5 -t 1 >"$dir/out" 2>"$dir/err"
rc=$?
[ $rc -eq 1 ] && [ ! -L "$dir/pty-err" ] && ok "--pty link removed on a time-out" ||
	bad "--pty link after a time-out (rc $rc)"

# --- 5. the client ---------------------------------------------------------
# nothing on the far end: a hint, and nothing counted as lost that was never sent
if grep -q "nothing at all came from" "$dir/err" && grep -q "is the far end running\|Is the far end running" "$dir/err"; then
	ok "time-out says what to check"
else
	bad "time-out message"
fi
if grep -q '"lost":0,.*"pending":4,"unsent":1,' "$dir/out"; then
	ok "a time-out counts sent-and-missing as lost, never-sent apart"
else
	bad "lost/unsent after a time-out: $(cat "$dir/out")"
fi

# noise on the line (a wrong speed looks so): bytes but no frame -> a hint
# at the speed and the preset
"$bin" peer --client --pty "$dir/pty-noise" -n 5 -t 2 >"$dir/out" 2>"$dir/err" &
cpid=$!
wait_for -L "$dir/pty-noise"
while kill -0 $cpid 2>/dev/null; do
	[ -L "$dir/pty-noise" ] && head -c 2000 /dev/urandom >"$dir/pty-noise" 2>/dev/null
	sleep 0.2
done
wait $cpid
rc=$?
if [ $rc -eq 1 ] && grep -q "no valid frame" "$dir/err" && grep -q -- "--baud" "$dir/err" &&
   grep -q -- "--preset" "$dir/err"; then
	ok "time-out on noise hints at --baud and --preset"
else
	bad "time-out on noise (rc $rc)"
fi

# progress on a terminal, for runs longer than a second (a slow echo peer)
"$bin" peer --echo --pty "$dir/pty-slow" --pause-ms 20 -v 2>"$dir/slow.err" &
pid=$!
pids="$pids $pid"
wait_for -L "$dir/pty-slow"
script -qec "$bin peer --client -d $dir/pty-slow -n 100 -w 1 >$dir/out" /dev/null \
	>"$dir/tty" 2>&1
if grep -q '\[#*' "$dir/tty" && grep -q '100/100' "$dir/tty" && grep -q '"received":100' "$dir/out"; then
	ok "progress bar on a terminal"
else
	bad "progress bar: $(tr '\r' '\n' <"$dir/tty" | tail -3)"
fi
# and none when stderr is not a terminal
"$bin" peer --client -d "$dir/pty-slow" -n 3 >"$dir/out" 2>"$dir/err"
[ ! -s "$dir/err" ] && ok "no progress bar off a terminal" || bad "stderr off a terminal"

# Ctrl-C: a line on stderr, the summary, status 130
# (once its session is open: the signal handlers are in place)
opened=$(grep -c "session .* open" "$dir/slow.err")
"$bin" peer --client -d "$dir/pty-slow" -n 100000 -w 1 >"$dir/out" 2>"$dir/err" &
cpid=$!
i=0
while [ "$(grep -c "session .* open" "$dir/slow.err")" = "$opened" ] && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
sleep 0.5
kill -INT $cpid
wait $cpid
rc=$?
if [ $rc -eq 130 ] && grep -q "stopped by Interrupt after [0-9]* of 100000" "$dir/err" &&
   grep -q '"lost":0,' "$dir/out"; then
	ok "SIGINT: a message, the summary, status 130, nothing unsent counted lost"
else
	bad "SIGINT (rc $rc): $(cat "$dir/out")"
fi
kill $pid; wait $pid 2>/dev/null

# hang-up: the echo peer (owner of the pty) dies mid-run
"$bin" peer --echo --pty "$dir/pty-hup" --pause-ms 10 -v 2>"$dir/hup.err" &
pid=$!
pids="$pids $pid"
wait_for -L "$dir/pty-hup"
"$bin" peer --client -d "$dir/pty-hup" -n 100000 -w 1 >"$dir/out" 2>"$dir/err" &
cpid=$!
i=0
while ! grep -q "session .* open" "$dir/hup.err" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
kill -KILL $pid
wait $cpid
rc=$?
if [ $rc -eq 1 ] && grep -q "hung up (the far end closed it) after [0-9]* of 100000" "$dir/err"; then
	ok "hang-up: a message and status 1"
else
	bad "hang-up (rc $rc)"
fi
rm -f "$dir/pty-hup"	# its owner was killed: the one case it cannot clean up

# option ranges
expect_fail "-w 9 refused with the range" 2 "not a number from 1 to 8" "$bin" peer --echo -w 9
expect_fail "-b 12345 lists the valid speeds" 2 "valid speeds: .* 115200 .* 4000000" \
	"$bin" peer --echo -b 12345
expect_fail "attach -b 12345 lists the valid speeds" 2 "valid speeds:" \
	"$bin" attach /dev/null -b 12345
rm -f "$dir/err"
"$bin" --version >"$dir/out" 2>&1 && grep -q "^phyllo [0-9][0-9.]*$" "$dir/out" &&
	ok "--version: $(cat "$dir/out")" || bad "--version"

# the man page: every command and option users meet
rm -f "$dir/err"
for want in '^\.B phyllo drain' 'BI* \\-\\-schema' 'B \\-\\-unreliable' '^\.SH PERMISSIONS' \
	'KERNEL=="phyllo' 'phyllo \\-\\-version'; do
	grep -q -- "$want" "$top/docs/phyllo.1" && ok "phyllo(1) has $want" ||
		bad "phyllo(1) lacks $want"
done
# the pointer dev.c prints leads to a rule that is there
grep -q 'PERMISSIONS in phyllo(1)' "$top/userspace/dev.c" && ok "dev.c points to phyllo(1)" ||
	bad "dev.c's udev pointer"

checks_done
