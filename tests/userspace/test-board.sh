#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-board.sh - the first contact with a board (issue 17), on ptys, no
# module: `phyllo peer --echo` as the board, and ptyboard.py for the far
# ends that go wrong (nothing there, another speed, a late boot, a board
# that keeps restarting).
#   1  the speed: 115200 whatever the port was set to (pub, peer -d)
#   2  HUPCL cleared; a board that boots late is waited for; a normal
#      reconnect is not a loss for the echo peer
#   6  the board's counters by name (stats reply), stats --tty says whose
#   7  timeouts say what the link saw; echo takes the offered window and
#      adapts to a far end that loses frames
#   8  negative numbers, missing/extra arguments, one size limit, 2^64-1,
#      Ctrl-C on echo, sub waits for ever, the progress line, completion
# (3, a busy port naming its holder, is in test-tty.sh; 9 in test-docs.py)
# Usage: test-board.sh PHYLLO_BINARY
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/checks.sh"
# where --tty programs report their counters while they run (lib_report.c)
PHYLLO_RUN_DIR=$dir/run
export PHYLLO_RUN_DIR
mkdir "$PHYLLO_RUN_DIR"

# wait_link PATH: until the pty's symlink is there
wait_link() {
	i=0
	while [ ! -L "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
# board NAME [peer options]: an echo peer on a new pty at $dir/NAME
board() {
	name=$1
	shift
	"$bin" peer --echo --pty "$dir/$name" "$@" 2>"$dir/$name.err" &
	pids="$pids $!"
	wait_link "$dir/$name"
}
# far MODE NAME [args]: ptyboard.py's far end at $dir/NAME
far() {
	mode=$1 name=$2
	shift 2
	python3 "$here/ptyboard.py" "$mode" "$dir/$name" "$@" 2>"$dir/$name.err" &
	pids="$pids $!"
	wait_link "$dir/$name"
}
# fails NAME RC WANT-ERR CMD...: exit status RC and stderr matching WANT-ERR
fails() {
	name=$1 want_rc=$2 want=$3
	shift 3
	"$@" >"$dir/out" 2>"$dir/err" </dev/null
	rc=$?
	if [ $rc -eq "$want_rc" ] && grep -q -- "$want" "$dir/err"; then
		ok "$name"
	else
		bad "$name (rc $rc)"
	fi
}

board b
b=$dir/b
# 8: sub with no -t waits for ever: started now, looked at once the rest ran
board quiet
"$bin" sub --tty "$dir/quiet" nothing >/dev/null 2>"$dir/sub.err" &
sub=$!
pids="$pids $sub"

# 1, 2: speed and HUPCL, as a freshly plugged port has them
stty -F "$b" 9600 hupcl
run "pub --tty on a 9600-baud port" '' "$bin" pub --tty "$b" blink true
[ "$(stty -F "$b" speed)" = 115200 ] && ok "1: pub set the port to 115200, the firmware's" ||
	bad "1: pub left the port at $(stty -F "$b" speed)"
stty -F "$b" -a | grep -q -- -hupcl && ok "2: pub cleared HUPCL (the next open resets no board)" ||
	bad "2: HUPCL still set: $(stty -F "$b" -a | grep -o -- '-*hupcl')"
board c
stty -F "$dir/c" 9600 hupcl
"$bin" peer --client --device "$dir/c" -n 20 >"$dir/out" 2>"$dir/err" &&
	[ "$(stty -F "$dir/c" speed)" = 115200 ] && stty -F "$dir/c" -a | grep -q -- -hupcl &&
	ok "1, 2: peer --client --device: 115200 and HUPCL off" || bad "1, 2: peer --client --device"

# 2: a board that boots 1.5 s after the port appears (its bootloader)
far late late 1.5 "$bin" peer --echo
run "2: pub --reply waits for a board that boots late" '^ping 1$' \
	"$bin" pub --tty "$dir/late" --reply ping 1
# 2: three programs in turn: new sessions, nothing lost
for i in 1 2 3; do "$bin" pub --tty "$b" --reply ping 1 >/dev/null 2>&1; done
n=$(grep -c "started a new session.*nothing was in flight" "$dir/b.err")
if [ "$n" -ge 3 ] && ! grep -q "in flight lost" "$dir/b.err"; then
	ok "2: the echo peer calls $n new programs new sessions, nothing lost"
else
	bad "2: the echo peer's reconnect wording ($n): $(tail -2 "$dir/b.err")"
fi

# 6: the board's counters by name (the echo peer sends the array back)
run "6: a stats reply printed by name" '^rx_framing  *39$' \
	"$bin" pub --tty "$b" --reply stats '[131,6,3,0,39]'
run "6: and in JSON beside the array" '"value":\[131,6,3,0,39\],"counters":{.*"rx_framing":39}' \
	"$bin" pub --tty "$b" --reply -j stats '[131,6,3,0,39]'
n=$(python3 -c 'import re,sys; print(len(re.findall(r"X\((\w+)\)", open(sys.argv[1]).read().split("PHYLLO_STATS_LIST(X)")[1])))' \
	"$here/../../userspace/lib/stats_list.h")
run "6: a newer firmware's extra counter is shown too" "^counter_$n  *7$" \
	"$bin" pub --tty "$b" --reply stats "[$(seq -s, 1 "$n"),7]"
run "6: stats --tty says whose counters they are" "this command's own session" \
	"$bin" stats --tty "$b"

# 7: what a timeout saw
far silent silent
fails "7: nothing at all" 1 "no reply within 1 s: nothing at all came" \
	"$bin" pub --tty "$dir/silent" --reply -t 1 ping 1
fails "7: sub -t, nothing at all" 1 "no message within 1 s: nothing at all came" \
	"$bin" sub --tty "$dir/silent" -t 1 x
far noise noise
fails "7: garbage: another speed" 1 "no valid frame.*another speed" \
	"$bin" pub --tty "$dir/noise" -t 1 servo 1
board std
fails "7: valid frames of another preset" 1 "another preset" \
	"$bin" pub --tty "$dir/std" --preset minimal --reply -t 2 ping 1
far once once 0.5 "$bin" peer --echo
fails "7: pub --preset minimal to a standard board says so" 1 \
	"sent unacknowledged (--preset minimal).*another preset" \
	"$bin" pub --tty "$dir/once" --preset minimal blink true
far restart restart 0.3 "$bin" peer --echo --pause-ms 20
fails "7: a session that keeps resetting" 1 "keeps resetting" \
	"$bin" echo --tty "$dir/restart" -n 100000 -t 3
fails "7: stats --tty with no session says why" 1 "no session.*nothing at all came" \
	"$bin" stats --tty "$dir/silent" -t 1
fails "7: the link up, no answer" 1 "the link is up (session 1); nothing was published" \
	"$bin" sub --tty "$b" -t 1 nothing/
board w2 -w 2
run "7: echo takes the window the far end offers (2)" '"window":2,' \
	"$bin" echo --tty "$dir/w2" -n 50 --json
board lossy --drop 30 --fault-dir rx --seed 3	# what it receives: gaps, NAKs
run "7: echo halves its window while frames are lost" '"window":[12],.*"lost":0,' \
	"$bin" echo --tty "$dir/lossy" -n 200 --json
grep -q "going on with 2" "$dir/err" && ok "7: and says so" || bad "7: no word on the window"

# 8: the command line
run "8: a negative number needs no --" '^servo -5$' "$bin" pub --tty "$b" --reply servo -5
run "8: -t's value is still -t's" '^servo -2.5$' "$bin" pub --tty "$b" -t 3 --reply servo -2.5
run "8: 2^64 - 1 is an integer" '^n 18446744073709551615$' \
	"$bin" pub --tty "$b" --reply n 18446744073709551615
fails "8: a missing value is named" 2 "missing the JSON value to publish on 'servo'" \
	"$bin" pub --tty "$b" servo
fails "8: an extra argument is named" 2 "'3' is one too many" "$bin" pub --tty "$b" servo 1 3
fails "8: an unknown option: the usage line" 2 "^usage: phyllo sub" "$bin" sub --bogus x
s232=$(printf '%232s' '' | tr ' ' a)
run "8: a 232-character string on blink fits" '' "$bin" pub --tty "$b" blink "\"$s232\""
fails "8: 233 characters: the limit, said" 2 "at most 232 characters fits" \
	"$bin" pub --tty "$b" blink "\"${s232}a\""
fails "8: 300 characters: the same words, the same status" 2 "at most 232 characters fits" \
	"$bin" pub --tty "$b" blink "\"$(printf '%300s' '' | tr ' ' a)\""
n=$(grep -c "session reset" "$dir/b.err")
"$bin" echo --tty "$b" -n 1000000 -t 60 --json >"$dir/out" 2>"$dir/err" &
echo_pid=$!
i=0	# until its session is open (its handler is set before it opens)
while [ "$(grep -c "session reset" "$dir/b.err")" -le "$n" ] && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
sleep 0.3
kill -INT $echo_pid
wait $echo_pid
rc=$?
if [ $rc -eq 130 ] && grep -q '"received":[1-9]' "$dir/out" && grep -q "stopped by" "$dir/err"
then
	ok "8: Ctrl-C on echo: the partial report, status 130"
else
	bad "8: Ctrl-C on echo (rc $rc)"
fi
script -qfec "$bin echo --tty $b -n 300 -w 1" /dev/null >"$dir/out" 2>&1 </dev/null
grep -q '/s, ETA [0-9]* s' "$dir/out" && ok "8: the progress line has a rate and an ETA" ||
	bad "8: progress line: $(tr '\r' '\n' <"$dir/out" | grep '\]' | tail -1)"
# shellcheck disable=SC2016
comp='. "$1"; c() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _phyllo; echo "${COMPREPLY[*]}"; }
c "$2" su; c "$2" pub --re; c "$2" echo --payload very; c "$2" peer --no-h'
bash -c "$comp" sh "$here/../../userspace/phyllo.bash-completion" "$bin" >"$dir/out" 2>"$dir/err"
[ "$(tr '\n' '|' <"$dir/out")" = "sub|--reply|very-large|--no-handshake|" ] &&
	ok "8: bash completion: commands, options, values" || bad "8: completion gave: $(cat "$dir/out")"
if kill -0 $sub 2>/dev/null; then
	ok "8: sub with no -t is still waiting, quiet for the whole run"
else
	bad "8: sub with no -t ended: $(cat "$dir/sub.err")"
fi

# the userspace stack's counters while it runs: sub holds the port
"$bin" stats --tty "$dir/quiet" >"$dir/out" 2>"$dir/err" </dev/null
if grep -q "the live session of process $sub (.*sub --tty $dir/quiet nothing)" "$dir/out" &&
   grep -q "^sessions  *1$" "$dir/out"; then
	ok "live: stats --tty on a port in use shows the holder's session and counters"
else
	bad "live: stats --tty on a port in use"
fi
if "$bin" stats --tty "$dir/quiet" --json >"$dir/out" 2>"$dir/err" </dev/null &&
   grep -q '^{"rx_bytes":[1-9][0-9]*,.*"sessions":1,' "$dir/out" && kill -0 $sub 2>/dev/null; then
	ok "live: and as JSON, the holder still holding the port"
else
	bad "live: as JSON"
fi
kill -TERM $sub
wait $sub
rc=$?
[ $rc -eq 143 ] && [ -z "$(ls "$dir/run")" ] &&
	ok "live: sub ends on SIGTERM (143) and removes its report" ||
	bad "live: sub on SIGTERM (rc $rc, left: $(ls "$dir/run"))"
checks_done
