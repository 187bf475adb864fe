#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-uno.sh - the tool's first commands against the Uno firmware itself
# (phyllo-simavr, real 115200-baud timing, on a pty), with the options a
# new user types, which are none: the speed, the board's handshake, its
# counters by name, the window its handshake offers, and what a wrong
# preset looks like (issue 17, findings 1, 6 and 7); then every --tty
# command of phyllo(1)'s EXAMPLES, as written there (the port renamed);
# then the README's first try without a board (issue 27, 1): `make try`
# and the lines the README shows against it, as written there (the port
# at a scratch path, the tool this test's), and a target named by its
# relative path.
# Usage: test-uno.sh BUILD_DIR PHYLLO_BINARY MAKE
set -u
build=$1
bin=$2
make=$3
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/checks.sh"

sim=$build/host/phyllo-simavr
elf=$build/firmware/uno-standard/phyllo-uno-standard.elf
"$sim" --pty --link "$dir/uno" --seconds 300 "$elf" >"$dir/sim.out" 2>"$dir/sim.err" &
simpid=$!
pids=$simpid
i=0
while [ ! -L "$dir/uno" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
stty -F "$dir/uno" 9600 hupcl	# as a freshly plugged ttyACM0 is

fails() {
	name=$1 want=$2
	shift 2
	"$@" >"$dir/out" 2>"$dir/err" </dev/null
	rc=$?
	if [ $rc -ne 0 ] && grep -q -- "$want" "$dir/err"; then ok "$name"; else bad "$name (rc $rc)"; fi
}

# first, while the board still says SYN (no host has answered it yet)
fails "7: --preset minimal against the standard board: another preset" "another preset" \
	"$bin" pub --tty "$dir/uno" --preset minimal --reply -t 3 ping 1
run "pub --tty --reply ping 1 with no -b, the port left at 9600" '^ping ' \
	"$bin" pub --tty "$dir/uno" --reply ping 1
# (simavr's pty takes any speed: what the tool set is what a board would get)
[ "$(stty -F "$dir/uno" speed)" = 115200 ] && stty -F "$dir/uno" -a | grep -q -- -hupcl &&
	ok "1, 2: it set the port to 115200 and cleared HUPCL" ||
	bad "1, 2: the port is at $(stty -F "$dir/uno" speed), $(stty -F "$dir/uno" -a | grep -o -- '-*hupcl')"
run "6: the board's counters by name" '^sessions  *[1-9]' \
	"$bin" pub --tty "$dir/uno" --reply stats null
grep -q '^peer_resets ' "$dir/out" && grep -q '^rx_framing  *0$' "$dir/out" &&
	ok "6: every counter named (peer_resets, rx_framing 0)" || bad "6: counters"
run "7: echo very-large takes the Uno's window (2), nothing lost" \
	'"window":2,.*"received":40,.*"lost":0,' \
	"$bin" echo --tty "$dir/uno" --payload very-large -n 40 --json
run "pub blink true, as the Blink sketch says" '' "$bin" pub --tty "$dir/uno" blink true
# phyllo(1)'s EXAMPLES on a --tty port, as written there (the port
# renamed); sub waits for ever: it is started, left, and stats reads its
# live counters meanwhile
PHYLLO_RUN_DIR=$dir/run
export PHYLLO_RUN_DIR
mkdir "$PHYLLO_RUN_DIR"
sed -n '/^\.SH EXAMPLES/,/^\.SH/p' "$(dirname "$0")/../../docs/phyllo.1" | sed 's/\\-/-/g' |
	grep -- '--tty /dev/ttyACM0' | sed -e "s|/dev/ttyACM0|$dir/uno|" -e "s|^phyllo |$bin |" \
	>"$dir/examples"
sub=
while read -r line; do
	case $line in
	*" sub "*)
		$line >/dev/null 2>&1 &
		sub=$!
		pids="$pids $sub"
		i=0
		while [ ! -e "$dir/run/tty-$(basename "$(readlink "$dir/uno")").json" ] && [ $i -lt 50 ]
		do sleep 0.1; i=$((i + 1)); done
		continue ;;
	esac
	# shellcheck disable=SC2086
	if $line >"$dir/out" 2>"$dir/err" </dev/null; then
		ok "phyllo(1) EXAMPLES: ${line#"$bin" }"
	else
		bad "phyllo(1) EXAMPLES: ${line#"$bin" }"
	fi
done <"$dir/examples"
[ "$(wc -l <"$dir/examples")" -ge 5 ] && [ -n "$sub" ] &&
	grep -q "live session of process $sub" "$dir/out" &&
	ok "phyllo(1) EXAMPLES: $(wc -l <"$dir/examples") on --tty; stats read the running sub's" ||
	bad "phyllo(1) EXAMPLES: $(wc -l <"$dir/examples") found, or stats did not read sub's counters"
kill $sub 2>/dev/null
kill $simpid 2>/dev/null
wait $simpid 2>/dev/null
pids=$sub
grep -q "resets 0" "$dir/sim.err" && ok "the firmware never restarted" ||
	bad "the simulator saw a restart or an overrun: $(tail -2 "$dir/sim.err")"

# 1 (issue 27): make try, then the README's lines against it
$make -C "$top" --no-print-directory try BUILD="$build" TRY_TTY="$dir/try" TRY_SECONDS=300 \
	>"$dir/try.out" 2>"$dir/try.err" </dev/null &
trypid=$!
pids="$pids $trypid"
i=0
while [ ! -L "$dir/try" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
[ -L "$dir/try" ] && grep -q "^    $dir/try$" "$dir/try.out" &&
	ok "1: make try: the Uno firmware on a pty at the path it prints" ||
	bad "1: make try: no pty at $dir/try ($(tail -3 "$dir/try.err"))"
sed -n '/^## A first try/,/^## /p' "$top/README.md" | grep -E '^    (build/host/phyllo|PYTHONPATH=python python3) ' |
	sed -e 's/^    //' -e 's/  *# .*//' >"$dir/try-lines"
n=0
while read -r line; do
	n=$((n + 1))
	# as written, but the port (a scratch path), the tool (this test's) and
	# Debian's python3 with this build's library
	line=$(echo "$line" | sed -e "s|build/try/ttyACM0|$dir/try|g" -e "s|^build/host/phyllo |$bin |" \
		-e "s|^PYTHONPATH=python python3 |PYTHONPATH=$top/python PHYLLO_LIBRARY=$build/host/libphyllo.so.0 /usr/bin/python3 |")
	if sh -c "$line" >"$dir/out" 2>"$dir/err" </dev/null; then
		ok "1: README's first try: ${line#"$bin" }"
	else
		bad "1: README's first try: $line"
	fi
	[ $n -gt 1 ] || grep -q '^ping 0$' "$dir/out" || bad "1: the first ping's answer: $(cat "$dir/out")"
done <"$dir/try-lines"
[ $n -ge 4 ] && ok "1: $n lines of the README's first try ran" || bad "1: only $n try-it lines in the README"
kill $trypid 2>/dev/null
wait $trypid 2>/dev/null
# (with the default BUILD, the clone's build/: a dry run builds nothing)
$make -C "$top" --no-print-directory -n build/firmware/uno-standard/phyllo-uno-standard.elf \
	build/host/phyllo-simavr BUILD="$top/build" >"$dir/out" 2>"$dir/err" &&
	ok "1: targets named by their relative path have rules" || bad "1: make build/...: no rule"
checks_done
