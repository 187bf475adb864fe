#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# arm-guest.sh - run by tests/qemu/guest-init.sh in the ARM guests of
# make test-qemu (phyllo.ko is loaded). The link is ttyS0, a PCI 16550
# (`-device pci-serial`; the console is the PL011) whose far end is
# `phyllo peer --echo` on the host, which joins once the guest has made the
# port raw. Steps, each fatal:
#   1. ldattach (this architecture's util-linux) attaches the ldisc and
#      phyllo-kclient sends phyllo.count= units (default 1000) through
#      /dev/phyllo0, each checked on its way back; ldattach is stopped and
#      /dev/phyllo0 must go.
#   2. if /bin/phyllo is there (the cross-built static tool, arm64):
#      `phyllo attach` prints the new device, `phyllo list` shows it with
#      the attach process's pid, 50 units go through it, `phyllo detach`
#      stops that process and the device goes.
# Prints "arm-guest: ..." lines; the exit status is guest-init's GUEST-EXIT.
count=$(sed -n 's/.*phyllo\.count=\([0-9]*\).*/\1/p' /proc/cmdline)
fail() { echo "arm-guest: FAIL $*"; exit 1; }
# TCG on a loaded 2-core host can starve the guest for seconds, hence 30.
wait_for() {	# wait_for TEST...: until `test TEST...` holds, up to 30 s
	i=0
	until test "$@"; do
		i=$((i + 1))
		[ $i -gt 300 ] && return 1
		sleep 0.1
	done
}
echo "arm-guest: $(uname -m) $(uname -r)"
[ -c /dev/ttyS0 ] || fail "no /dev/ttyS0 (the PCI 16550)"
# Raw and without echo before the peer joins (the host waits for the line
# below; the settings stay with the port across opens). Otherwise n_tty,
# which the port opens with, echoes what the peer sends (tried: with only
# `cat` reading, 168 bytes in and 211 out in 3 s), ldattach's
# tcsetattr(TCSAFLUSH) waits for that output to drain, and under load it
# was seen stuck there: 10 s once, the whole 30 s once (and the amd64
# guest's once), never attaching.
stty -F /dev/ttyS0 raw -echo || fail "stty on ttyS0"
echo "arm-guest: ttyS0 raw"
ldattach -d 29 /dev/ttyS0 &
ld=$!
wait_for -e /dev/phyllo0 || fail "no /dev/phyllo0 after ldattach"
echo "arm-guest: ldattach: /dev/phyllo0 on $(cat /sys/class/phyllo/phyllo0/tty)"
phyllo-kclient echo /dev/phyllo0 "${count:-1000}" || fail "units through ldattach's link"
kill "$ld"
wait "$ld" 2>/dev/null
wait_for ! -e /dev/phyllo0 || fail "/dev/phyllo0 still there after ldattach ended"
[ -x /bin/phyllo ] || exit 0

mkdir -p /run/lock
dev=$(phyllo attach /dev/ttyS0 2>/tmp/err) || fail "phyllo attach: $(cat /tmp/err)"
[ -c "$dev" ] || fail "phyllo attach printed '$dev'"
pid=$(tr -d ' ' </run/lock/LCK..ttyS0)
phyllo list >/tmp/list || fail "phyllo list"
grep -q "^$dev .*ttyS0.* $pid\$" /tmp/list || fail "phyllo list: $(cat /tmp/list)"
echo "arm-guest: phyllo attach: $dev, listed with pid $pid"
phyllo-kclient echo "$dev" 50 || fail "units through phyllo attach's link"
phyllo detach /dev/ttyS0 >/tmp/out 2>/tmp/err || fail "phyllo detach: $(cat /tmp/err)"
grep -q "stopped phyllo attach (pid $pid)" /tmp/out || fail "phyllo detach said: $(cat /tmp/out)"
wait_for ! -e "$dev" || fail "$dev still there after phyllo detach"
kill -0 "$pid" 2>/dev/null && fail "the attach process $pid outlived detach"
echo "arm-guest: phyllo detach: $dev gone"
