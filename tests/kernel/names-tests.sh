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
# Sourced by kernel-tests.sh: its fail, step and wait_for, $phyllo (the
# tool), $tmp (scratch) and $names (the libphyllo program, phyllo-names).
repo=${0%/*}/../.. ntmp=$tmp/names
name=uml-board.1
mkdir -p "$ntmp/lock"
export PHYLLO_LOCK_DIR=$ntmp/lock
export PYTHONPATH=$repo/python PHYLLO_LIBRARY=${phyllo%/*}/libphyllo.so.0
n_pids=
n_fail() {
	for f in "$ntmp"/*.out "$ntmp"/*.err; do
		[ -s "$f" ] && { echo "--- $f"; tail -8 "$f"; }
	done
	# shellcheck disable=SC2086
	kill $n_pids 2>/dev/null
	fail "names: $*"
}
# n_until CMD...: CMD every 50 ms until it succeeds, 10 s at most
n_until() {
	for _ in $(seq 200); do "$@" && return 0; sleep 0.05; done
	return 1
}
# n_has FILE TEXT [COUNT]: COUNT (1) lines of FILE hold TEXT
n_has() { [ "$(grep -c -- "$2" "$1" 2>/dev/null)" -ge "${3:-1}" ]; }
n_seen() { n_until n_has "$@"; }
n_state() { [ "$(cat /sys/class/phyllo/phyllo$nu/state 2>/dev/null)" = "$1" ]; }
n_peer() {	# N: phyllo peer --echo at the far end of pty N
	"$phyllo" peer --echo --pty "$ntmp/pty$1" >"$ntmp/peer$1.out" 2>&1 &
	eval "n_peer$1=\$!"
	wait_for -e "$ntmp/pty$1" || n_fail "phyllo peer made no pty"
}
n_attach() {	# N: phyllo attach --name on pty N; $dev: the device it printed first
	"$phyllo" attach --name "$name" "$ntmp/pty$1" >"$ntmp/attach$1.out" 2>"$ntmp/attach$1.err" ||
		n_fail "phyllo attach --name $name on pty $1"
	dev=$(head -1 "$ntmp/attach$1.out")
}
# n_all TEXT [COUNT]: each program's output holds TEXT ([COUNT] times)
n_all() {
	n_seen "$ntmp/sub.out" "$1" "${2:-1}" || n_fail "phyllo sub: no '$1'"
	n_seen "$ntmp/c.out" "$1" "${2:-1}" || n_fail "libphyllo program: no '$1'"
	n_seen "$ntmp/py.out" "$1" "${2:-1}" || n_fail "Python: no '$1'"
}
n_alive() {
	for p in $sub $cprog $py; do
		kill -0 "$p" 2>/dev/null || n_fail "a program ended ($1): pid $p"
	done
}

step "names: attach --name $name: /dev/phylloN and /dev/phyllo/$name"
n_peer 1
n_attach 1
nu=${dev#/dev/phyllo}
grep -qx "/dev/phyllo/$name" "$ntmp/attach1.out" || n_fail "attach printed no /dev/phyllo/$name"
[ "$(cat /sys/class/phyllo/phyllo$nu/name)" = "$name" ] || n_fail "sysfs name"
"$phyllo" list >"$ntmp/list1.out" || n_fail "phyllo list"
grep -q "^$dev .* up .* $name " "$ntmp/list1.out" || n_fail "list: $(cat "$ntmp/list1.out")"
n_peer 9
"$phyllo" attach --name "$name" "$ntmp/pty9" >/dev/null 2>"$ntmp/busy.err" &&
	n_fail "attach --name of a name up elsewhere succeeded"
grep -q "is up on another tty" "$ntmp/busy.err" || n_fail "EBUSY: $(cat "$ntmp/busy.err")"
kill "$n_peer9"

step "names: sub, a libphyllo program and Python on the link, one file each"
"$phyllo" sub -d "$name" '' >"$ntmp/sub.out" 2>"$ntmp/sub.err" &
sub=$!
"$names" "$dev" >"$ntmp/c.out" 2>"$ntmp/c.err" &
cprog=$!
/usr/bin/python3 "$repo/tests/kernel/phyllo-names.py" "$dev" >"$ntmp/py.out" 2>"$ntmp/py.err" &
py=$!
n_pids="$sub $cprog $py"
n_seen "$ntmp/c.out" ready && n_seen "$ntmp/py.out" ready || n_fail "the programs did not start"
sleep 0.5	# sub prints nothing when it is ready
"$phyllo" pub -d "$name" first 1 || n_fail "pub first"
n_all "first 1"

step "names: the pty hangs up: down, every program told once, none ends"
kill "$n_peer1"
wait "$n_peer1" 2>/dev/null
n_until n_state down ||
	n_fail "state after the hang-up: $(cat /sys/class/phyllo/phyllo$nu/state)"
[ -e "$dev" ] || n_fail "$dev went away"
n_seen "$ntmp/sub.err" "link down" || n_fail "phyllo sub: no 'link down'"
n_seen "$ntmp/c.out" "^down" && n_seen "$ntmp/py.out" "^down" || n_fail "no down reported"
"$phyllo" list >"$ntmp/list2.out"
grep -q "^$dev  *- .*down [0-9]*s.* $name " "$ntmp/list2.out" || n_fail "list: $(cat "$ntmp/list2.out")"
"$phyllo" pub -d "$name" while-down 2 >"$ntmp/pub.out" 2>"$ntmp/pub.err" &
pub=$!
sleep 1
kill -0 $pub 2>/dev/null || n_fail "pub did not wait while down: $(cat "$ntmp/pub.err")"
n_alive "down"

step "names: a new pty under the same name: the same $dev up, the programs go on"
n_peer 2
dev1=$dev
n_attach 2
[ "$dev" = "$dev1" ] || n_fail "the name came back as $dev, not $dev1"
n_until n_state up || n_fail "not up again"
wait_for ! -d /proc/$pub || n_fail "pub still waits after the up"
wait $pub || n_fail "pub while down: $(cat "$ntmp/pub.err")"
n_all "while-down 2"
n_seen "$ntmp/sub.err" "link up, session" || n_fail "phyllo sub: no 'link up'"
n_seen "$ntmp/c.out" "^up [0-9]" && n_seen "$ntmp/py.out" "^up [0-9]" || n_fail "no up reported"
"$phyllo" pub -d "$name" after 3 || n_fail "pub after"
n_all "after 3"
[ "$(grep -c '^down' "$ntmp/c.out")" = 1 ] && [ "$(grep -c '^down' "$ntmp/py.out")" = 1 ] &&
	[ "$(grep -c 'link down' "$ntmp/sub.err")" = 1 ] || n_fail "a down said more than once"
# the unit written while down came after the up, in every program
for f in c py; do
	awk '/^up /{u=NR} /while-down/{w=NR} END{exit !(u && w > u)}' "$ntmp/$f.out" ||
		n_fail "$f: the unit sent while down is not after the up"
done
n_alive "up"
step "names: sub, libphyllo and Python: down and up once each, units before, while down and after"

step "names: no file open, linger 0: detached, the link goes away"
kill $sub $cprog $py
wait $sub $cprog $py 2>/dev/null
n_pids=
echo 0 >/sys/class/phyllo/phyllo$nu/config/linger_ms || n_fail "config/linger_ms"
"$phyllo" detach "$name" >/dev/null || n_fail "detach $name"
wait_for ! -e "$dev" || n_fail "$dev still there with linger 0"
kill "$n_peer2"
wait "$n_peer2" 2>/dev/null
unset PHYLLO_LOCK_DIR PYTHONPATH PHYLLO_LIBRARY
step "names: all passed"
