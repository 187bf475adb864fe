#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# Runs inside the qemu guest of test-bridge-guest.sh, phyllo.ko loaded:
# `phyllo peer --echo` on a pty with the line discipline attached
# (/dev/phyllo0), Debian's mosquitto on the guest's 127.0.0.1, and
# phyllo-bridge on /dev/phyllo0 (the kernel transport): a command in, the
# board's answer out, the counters at SIGTERM. Prints "guest bridge: N
# passed, N failed" and exits non-zero on a failure.
set -u
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; for f in /tmp/b.err /tmp/sub; do [ -f $f ] && cat $f; done; }
wait_for() {	# FILE PATTERN: up to 20 s
	i=0
	while ! grep -q -- "$2" "$1" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 200 ] && return 1; sleep 0.1
	done
}
mkdir -p /run/lock /tmp
ip link set lo up
printf 'listener 1883 127.0.0.1\nallow_anonymous true\nuser root\npersistence false\n' >/tmp/m.conf
mosquitto -c /tmp/m.conf >/tmp/broker.log 2>&1 &
phyllo peer --echo --pty /tmp/pty >/dev/null 2>&1 &
i=0
while [ ! -e /tmp/pty ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
ptyname=$(readlink -f /tmp/pty)
dev=$(phyllo attach /tmp/pty 2>/tmp/err)
[ -c "$dev" ] && ok "attach: $dev" || bad "attach printed '$dev'"
printf 'link = %s\nhost = 127.0.0.1\nname = guest\nstats_interval = 0\n' "$dev" >/tmp/b.conf
phyllo-bridge -c /tmp/b.conf >/tmp/b.out 2>/tmp/b.err &
bridge=$!
wait_for /tmp/b.err "connected to" && ok "phyllo-bridge on $dev connects to the broker" ||
	bad "bridge connects"
mosquitto_sub -h 127.0.0.1 -q 1 -v -t 'phyllo/guest/#' >/tmp/sub 2>&1 &
wait_for /tmp/sub "^phyllo/guest/status online"
mosquitto_pub -h 127.0.0.1 -q 1 -t phyllo/guest/cmd/servo -m '{"deg":90,"f":0.5}'
wait_for /tmp/sub '^phyllo/guest/servo {"deg":90,"f":0.5}$' &&
	ok "through /dev/phyllo0: a JSON command in, the board's echo out" || bad "echo through $dev"
kill -TERM $bridge
wait $bridge
rc=$?
grep -q '^board_tx  *1$' /tmp/b.out && grep -q '^mqtt_tx  *1$' /tmp/b.out && [ $rc -eq 0 ] &&
	ok "SIGTERM: exit 0, board_tx 1, mqtt_tx 1" || bad "exit (rc $rc): $(cat /tmp/b.out)"
# the stable default name: no name configured, a by-id link (as udev
# makes for a USB serial board) to the tty under /dev/phyllo0
mkdir -p /dev/serial/by-id
ln -s "../../${ptyname#/dev/}" /dev/serial/by-id/usb-phyllo_test_board_0001-if00
printf 'link = %s\nhost = 127.0.0.1\nstats_interval = 0\n' "$dev" >/tmp/n.conf
phyllo-bridge -c /tmp/n.conf --dry-run >/tmp/n.out 2>&1
grep -q '^out .*phyllo/usb-phyllo_test_board_0001-if00/T' /tmp/n.out &&
	ok "no name configured: $dev is named after its tty's /dev/serial/by-id link" ||
	bad "by-id name: $(cat /tmp/n.out)"
echo "guest bridge: $pass passed, $fail failed"
[ $fail -eq 0 ]
