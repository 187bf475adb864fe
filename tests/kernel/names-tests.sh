#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The named-link phase of make test-kernel (kernel-tests.sh runs it with
# the module loaded and no link attached): every client rides over a
# board that goes away and comes back on another tty.
#  1. `phyllo attach --name` on a pty (phyllo peer --echo at its far
#     end): it prints /dev/phylloN and /dev/phyllo/NAME; sysfs and
#     `phyllo list` name the link. There is no udev here: the clients
#     take the bare NAME (-d NAME, found through sysfs) or /dev/phylloN.
#  2. `phyllo sub -d NAME`, a libphyllo program (phyllo-names) and the
#     Python package (phyllo-names.py), each on one open file, receive
#     a unit;
#  3. the pty hangs up (the peer, holding its master, is killed): the
#     link is down, `phyllo list` says so, each program reports the down
#     once and keeps running; `phyllo pub` started meanwhile waits;
#  4. a NEW pty attached under the same name: the same /dev/phylloN
#     comes up, each program reports the up, the unit written while
#     down arrives, then a unit sent after;
#  5. linger 0 and a detach with no file open: the link goes away.
# Usage: names-tests.sh PHYLLO_TOOL NAMES_BIN REPO SCRATCH
set -u
phyllo=$1 names=$2 repo=$3 tmp=$4/names
name=uml-board.1
mkdir -p "$tmp/lock"
export PHYLLO_LOCK_DIR=$tmp/lock
export PYTHONPATH=$repo/python PHYLLO_LIBRARY=${phyllo%/*}/libphyllo.so.0
pids=
fail() {
	echo "test-kernel: FAIL: names: $*"
	for f in "$tmp"/*.out "$tmp"/*.err; do
		[ -s "$f" ] && { echo "--- $f"; tail -8 "$f"; }
	done
	dmesg | tail -20
	# shellcheck disable=SC2086
	kill $pids 2>/dev/null
	exit 1
}
step() { echo "test-kernel: names: $*"; }
# wait_for EXPR...: up to 10 s for `test EXPR...`
wait_for() {
	tries=0
	while ! test "$@"; do
		tries=$((tries + 1))
		[ $tries -gt 200 ] && return 1
		sleep 0.05
	done
}
# seen FILE TEXT [COUNT]: up to 10 s for COUNT (1) lines of FILE holding TEXT
seen() {
	tries=0
	while [ "$(grep -c -- "$2" "$1" 2>/dev/null)" -lt "${3:-1}" ]; do
		tries=$((tries + 1))
		[ $tries -gt 200 ] && return 1
		sleep 0.05
	done
}
peer() {	# N: phyllo peer --echo at the far end of pty N
	"$phyllo" peer --echo --pty "$tmp/pty$1" >"$tmp/peer$1.out" 2>&1 &
	eval "peer$1=\$!"
	wait_for -e "$tmp/pty$1" || fail "phyllo peer made no pty"
}
attach() {	# N: phyllo attach --name on pty N; its first line is the device
	"$phyllo" attach --name "$name" "$tmp/pty$1" >"$tmp/attach$1.out" 2>"$tmp/attach$1.err" ||
		fail "phyllo attach --name $name on pty $1"
	head -1 "$tmp/attach$1.out"
}
# all FILE-TEXT: each program's output holds TEXT ([COUNT] times)
all() {
	seen "$tmp/sub.out" "$1" "${2:-1}" || fail "phyllo sub: no '$1'"
	seen "$tmp/c.out" "$1" "${2:-1}" || fail "libphyllo program: no '$1'"
	seen "$tmp/py.out" "$1" "${2:-1}" || fail "Python: no '$1'"
}
alive() {
	for p in $sub $cprog $py; do
		kill -0 "$p" 2>/dev/null || fail "a program ended ($1): pid $p"
	done
}

step "attach --name $name: /dev/phylloN and /dev/phyllo/$name"
peer 1
dev=$(attach 1)
n=${dev#/dev/phyllo}
grep -qx "/dev/phyllo/$name" "$tmp/attach1.out" || fail "attach printed no /dev/phyllo/$name"
[ "$(cat /sys/class/phyllo/phyllo$n/name)" = "$name" ] || fail "sysfs name"
"$phyllo" list >"$tmp/list1.out" || fail "phyllo list"
grep -q "^$dev .* up .* $name\$" "$tmp/list1.out" || fail "list: $(cat "$tmp/list1.out")"
peer 9
"$phyllo" attach --name "$name" "$tmp/pty9" >/dev/null 2>"$tmp/busy.err" &&
	fail "attach --name of a name up elsewhere succeeded"
grep -q "is up on another tty" "$tmp/busy.err" || fail "EBUSY: $(cat "$tmp/busy.err")"
kill "$peer9"

step "sub, a libphyllo program and Python on the link, one file each"
"$phyllo" sub -d "$name" '' >"$tmp/sub.out" 2>"$tmp/sub.err" &
sub=$!
"$names" "$dev" >"$tmp/c.out" 2>"$tmp/c.err" &
cprog=$!
python3 "$repo/tests/kernel/phyllo-names.py" "$dev" >"$tmp/py.out" 2>"$tmp/py.err" &
py=$!
pids="$sub $cprog $py"
seen "$tmp/c.out" ready && seen "$tmp/py.out" ready || fail "the programs did not start"
sleep 0.5	# sub prints nothing when it is ready
"$phyllo" pub -d "$name" first 1 || fail "pub first"
all "first 1"

step "the pty hangs up: down, every program told once, none ends"
kill "$peer1"
wait "$peer1" 2>/dev/null
wait_for "$(cat /sys/class/phyllo/phyllo$n/state 2>/dev/null)" = down ||
	fail "state after the hang-up: $(cat /sys/class/phyllo/phyllo$n/state)"
[ -e "$dev" ] || fail "$dev went away"
seen "$tmp/sub.err" "link down" || fail "phyllo sub: no 'link down'"
seen "$tmp/c.out" "^down" && seen "$tmp/py.out" "^down" || fail "no down reported"
"$phyllo" list >"$tmp/list2.out"
grep -q "^$dev  *- .*down [0-9]*s.* $name\$" "$tmp/list2.out" || fail "list: $(cat "$tmp/list2.out")"
"$phyllo" pub -d "$name" while-down 2 >"$tmp/pub.out" 2>"$tmp/pub.err" &
pub=$!
sleep 1
kill -0 $pub 2>/dev/null || fail "pub did not wait while down: $(cat "$tmp/pub.err")"
alive "down"

step "a new pty under the same name: the same $dev up, the programs go on"
peer 2
dev2=$(attach 2)
[ "$dev2" = "$dev" ] || fail "the name came back as $dev2, not $dev"
wait_for "$(cat /sys/class/phyllo/phyllo$n/state)" = up || fail "not up again"
wait $pub || fail "pub while down: $(cat "$tmp/pub.err")"
all "while-down 2"
seen "$tmp/sub.err" "link up, session" || fail "phyllo sub: no 'link up'"
seen "$tmp/c.out" "^up [0-9]" && seen "$tmp/py.out" "^up [0-9]" || fail "no up reported"
"$phyllo" pub -d "$name" after 3 || fail "pub after"
all "after 3"
[ "$(grep -c '^down' "$tmp/c.out")" = 1 ] && [ "$(grep -c '^down' "$tmp/py.out")" = 1 ] &&
	[ "$(grep -c 'link down' "$tmp/sub.err")" = 1 ] || fail "a down said more than once"
# the unit written while down came after the up, in every program
for f in c py; do
	awk '/^up /{u=NR} /while-down/{w=NR} END{exit !(u && w > u)}' "$tmp/$f.out" ||
		fail "$f: the unit sent while down is not after the up"
done
alive "up"
step "sub, libphyllo and Python: down and up once each, units before, while down and after"

step "no file open, linger 0: detached, the link goes away"
kill $sub $cprog $py
wait $sub $cprog $py 2>/dev/null
pids=
echo 0 >/sys/class/phyllo/phyllo$n/config/linger_ms || fail "config/linger_ms"
"$phyllo" detach "$name" >/dev/null || fail "detach $name"
wait_for ! -e "$dev" || fail "$dev still there with linger 0"
kill "$peer2"
wait "$peer2" 2>/dev/null
step "all passed"
