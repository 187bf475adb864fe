#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# Runs inside the qemu guest of test-guest.sh, with phyllo.ko loaded: the
# attach process's life (lock, list, detach, hang-up) and libphyllo on
# /dev/phylloN (the README's example, the tool, the Python package). Its far end is `phyllo
# peer --echo` on a pty. Prints "guest attach: N passed, N failed".
set -u
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f /tmp/err ] && cat /tmp/err; }
wait_gone() {	# wait_gone -p PID | -f PATH: up to 5 s
	i=0
	while [ $i -lt 50 ]; do
		case $1 in
		-p) kill -0 "$2" 2>/dev/null || return 0 ;;
		*) [ ! -e "$2" ] && return 0 ;;
		esac
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
board() {	# board PATH: an echo peer on a new pty
	phyllo peer --echo --pty "$1" >/dev/null 2>&1 &
	board_pid=$!
	i=0
	while [ ! -e "$1" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}
mkdir -p /run/lock

board /tmp/pty
name=pts$(readlink /tmp/pty | sed 's|/dev/pts/||')
dev=$(phyllo attach /tmp/pty 2>/tmp/err)
[ -c "$dev" ] && ok "attach printed $dev" || bad "attach printed '$dev'"
pid=$(cat /run/lock/LCK..$name 2>/dev/null | tr -d ' ')
[ -n "$pid" ] && kill -0 "$pid" && ok "the lock names the attach process ($pid)" ||
	bad "no lock file for $name"
phyllo list >/tmp/list 2>/tmp/err
grep -q "^$dev .* $pid\$" /tmp/list && ok "list shows its pid" || { bad "list"; cat /tmp/list; }
phyllo attach /tmp/pty -f >/dev/null 2>/tmp/err
grep -q "in use by process $pid" /tmp/err && ok "a second attach is refused, the holder named" ||
	bad "second attach"

# libphyllo over the kernel
out=$(/bin/ping-example "$dev" 2>/tmp/err)
[ "$out" = "ping 1" ] && ok "README example on $dev: $out" || bad "README example: '$out'"
out=$(phyllo pub -d "$dev" --reply servo 90 2>/tmp/err)
[ "$out" = "servo 90" ] && ok "pub --reply servo 90 on $dev: $out" || bad "pub: '$out'"
phyllo echo -d "$dev" -n 200 --payload counter --json >/tmp/out 2>/tmp/err &&
	grep -q '"received":200,' /tmp/out && ok "200 echoes on $dev through libphyllo" ||
	bad "echo on $dev"
# the Python package on the kernel transport
PHYLLO_LIBRARY=/lib/libphyllo.so.0 PYTHONPATH=/py:/usr/lib/python3/dist-packages \
	python3 -S /py/guest-python.py "$dev" >/tmp/out 2>/tmp/err &&
	grep -q "python on $dev: ok" /tmp/out && ok "$(cat /tmp/out)" || bad "python on $dev"
# a tty that carries the discipline is used through its /dev/phylloN
out=$(phyllo pub --tty /tmp/pty --reply servo 5 2>/tmp/err)
[ "$out" = "servo 5" ] && ok "--tty on the attached tty goes through $dev: $out" ||
	bad "--tty on the attached tty: '$out'"

# a dialout member, with the udev rule's permissions on the link
echo 'dialout:x:20:nobody' >>/etc/group
chgrp dialout "$dev" && chmod 0660 "$dev"
su -s /bin/sh -c "phyllo stats -d $dev --json" nobody >/tmp/out 2>/tmp/err &&
	grep -q '"sessions":' /tmp/out && ok "a dialout member reads $dev (group dialout, 0660)" ||
	bad "dialout member"
chmod 0600 "$dev"
su -s /bin/sh -c "phyllo stats -d $dev" nobody >/dev/null 2>/tmp/err
grep -q "permission denied" /tmp/err && ok "and is refused at 0600, told about the rule" ||
	bad "0600"

# detach through the lock
phyllo detach /tmp/pty >/tmp/out 2>/tmp/err && grep -q "stopped phyllo attach (pid $pid)" /tmp/out &&
	ok "detach stopped the attach process" || bad "detach: $(cat /tmp/out)"
wait_gone -p "$pid" && wait_gone -f "$dev" && ok "$dev and the process are gone" ||
	bad "$dev still there after detach"
[ ! -e /run/lock/LCK..$name ] && ok "the lock went with it" || bad "lock left after detach"

# hang-up: the board goes away; attach ends by itself and says so
phyllo attach /tmp/pty -f >/tmp/dev 2>/tmp/att.err &
att=$!
i=0
while [ ! -s /tmp/dev ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
dev=$(cat /tmp/dev)
[ -c "$dev" ] && ok "attached again: $dev" || bad "attach -f: '$dev'"
kill "$board_pid"
if wait_gone -p "$att"; then
	wait "$att"
	rc=$?
	[ $rc -eq 0 ] && grep -q "hung up (unplugged?)" /tmp/att.err &&
		ok "the tty hung up: attach said so and exited 0" || bad "attach after hang-up (rc $rc)"
else
	bad "attach still running after the hang-up"
	kill "$att"
fi
wait_gone -f "$dev" && ok "$dev is gone" || bad "$dev still there"
[ ! -e /run/lock/LCK..$name ] && ok "and so is the lock" || bad "lock left after hang-up"
phyllo detach /dev/phyllo0 >/dev/null 2>/tmp/err
grep -q "no such link" /tmp/err && ok "detach of a gone link says so" || bad "detach gone link"
echo "guest attach: $pass passed, $fail failed"
[ $fail -eq 0 ]
