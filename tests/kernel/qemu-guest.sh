#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Run by tests/qemu/guest-init.sh in the qemu guest of make test-qemu
# (phyllo.ko is loaded): attach the ldisc to ttyS1, which the host wired to
# `phyllo peer --echo`, and send phyllo.count= units (default 1000)
# through /dev/phyllo0, each checked on its way back. phyllo.ldisc= names
# the line discipline's number (default 29, N_DEVELOPMENT; make
# upstream-boot's kernel has its own N_PHYLLO).
count=$(sed -n 's/.*phyllo\.count=\([0-9]*\).*/\1/p' /proc/cmdline)
ldisc=$(sed -n 's/.*phyllo\.ldisc=\([0-9]*\).*/\1/p' /proc/cmdline)
ldisc=${ldisc:-29}
# Raw and without echo before the host's peer joins (it waits for the
# line below), as arm-guest.sh does and for its reason: n_tty echoing the
# peer's bytes can keep ldattach's tcsetattr(TCSAFLUSH) waiting for ever
# under load (seen once on 6.1 at a load of 11.5).
stty -F /dev/ttyS1 raw -echo || { echo "qemu-guest: stty on ttyS1 failed"; exit 1; }
echo "qemu-guest: ttyS1 raw"
echo "qemu-guest: ldattach $ldisc /dev/ttyS1"
ldattach -d "$ldisc" /dev/ttyS1 &
i=0
while [ ! -e /dev/phyllo0 ]; do
	i=$((i + 1))
	[ $i -gt 100 ] && { echo "qemu-guest: no /dev/phyllo0"; exit 1; }
	sleep 0.1
done
echo "qemu-guest: /dev/phyllo0 on $(cat /sys/class/phyllo/phyllo0/tty)"
phyllo-kclient echo /dev/phyllo0 "${count:-1000}"
