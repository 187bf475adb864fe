#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# guest.sh - runs at boot in the Debian 12 guest of make test-dkms
# (systemd.run= on the kernel command line; test-dkms.sh copies this file,
# the package and phyllo-kclient into the disk). What a user does, offline
# (guest-root.sh cached every package in the disk):
#  on 6.1 (first boot):
#   1. apt install ./phyllo-dkms_*.deb: DKMS builds and installs phyllo.ko
#      for the running kernel; the uapi header is /usr/include/linux/;
#      modprobe phyllo loads it;
#   2. apt install -t bookworm-backports linux-image-amd64
#      linux-headers-amd64: DKMS builds it for 6.12 too (autoinstall);
#  on 6.12 (after the host reboots the guest into it):
#   3. modprobe phyllo, ldattach on ttyS1 (a `phyllo peer --echo` on the
#      host) and COUNT units each way through /dev/phyllo0;
#   4. apt remove phyllo-dkms: no module left for either kernel, no header.
# With phyllo.short=1 on the command line (make test-dkms-short) it does
# 1, then 3 and 4 on 6.1, in one boot: no second kernel, no reboot.
# Prints "PHYLLO-DKMS <stage> OK" or "PHYLLO-DKMS FAIL: why" on ttyS0.
exec >/dev/ttyS0 2>&1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export DEBIAN_FRONTEND=noninteractive
count=$(sed -n 's/.*phyllo\.count=\([0-9]*\).*/\1/p' /proc/cmdline)
short=$(sed -n 's/.*phyllo\.short=\([01]\).*/\1/p' /proc/cmdline)
kver=$(uname -r)
fail() {
	echo "PHYLLO-DKMS FAIL: $*"
	dkms status
	exit 1
}
step() { echo "phyllo-dkms: $kver: $*"; }
apt_get() { apt-get -q -y -o DPkg::Lock::Timeout=600 "$@"; }
installed() { dkms status -k "$1" phyllo | grep -q ": installed"; }

stage1() {
	step "apt install ./phyllo-dkms_*.deb"
	cd /root && apt_get install ./phyllo-dkms_*.deb || fail "installing phyllo-dkms"
	installed "$kver" || fail "DKMS did not install phyllo for $kver"
	modinfo -F vermagic phyllo | grep -q "^$kver " || fail "modinfo phyllo: $(modinfo -F vermagic phyllo)"
	[ -f /usr/include/linux/phyllo.h ] || fail "no /usr/include/linux/phyllo.h"
	modprobe phyllo || fail "modprobe phyllo on $kver"
	rmmod phyllo || fail "rmmod phyllo"
	[ "$short" = 1 ] && return
	step "apt install -t bookworm-backports linux-image-amd64 linux-headers-amd64"
	# (--no-install-recommends: the cached packages are exactly these)
	apt_get install --no-install-recommends -t bookworm-backports \
		linux-image-amd64 linux-headers-amd64 ||
		fail "installing the backports kernel"
	new=$(ls /lib/modules | grep '^6\.12' | head -1)
	[ -n "$new" ] || fail "no 6.12 kernel installed"
	installed "$new" || fail "DKMS did not build phyllo for $new"
	dkms status
	echo "PHYLLO-DKMS stage1 OK $new"
}

stage2() {
	installed "$kver" || fail "phyllo is not installed for $kver"
	modprobe phyllo || fail "modprobe phyllo on $kver"
	ldattach -d 29 /dev/ttyS1 &
	lda=$!
	# Up to 60 s: under TCG on a loaded host the guest can be starved for
	# seconds between ldattach's open and its TIOCSETD (a 10 s bound failed
	# once at a host load of 9, and passed on the rerun). An ldattach that
	# died is reported at once, with its status.
	i=0
	while [ ! -e /dev/phyllo0 ]; do
		if ! kill -0 $lda 2>/dev/null; then
			wait $lda
			fail "ldattach 29 /dev/ttyS1 exited ($?) with no /dev/phyllo0"
		fi
		i=$((i + 1))
		[ $i -gt 600 ] && fail "no /dev/phyllo0 60 s after ldattach 29 /dev/ttyS1 (still running)"
		sleep 0.1
	done
	step "$count units each way through /dev/phyllo0 ($(cat /sys/class/phyllo/phyllo0/tty))"
	phyllo-kclient echo /dev/phyllo0 "$count" || fail "echo through /dev/phyllo0"
	kill $lda
	wait $lda
	i=0
	while lsmod | grep -q '^phyllo ' && ! rmmod phyllo 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 100 ] && fail "rmmod phyllo"
		sleep 0.1
	done
	step "apt remove phyllo-dkms"
	apt_get remove phyllo-dkms || fail "apt remove phyllo-dkms"
	for k in $(ls /lib/modules); do
		modinfo -k "$k" phyllo >/dev/null 2>&1 && fail "phyllo.ko still there for $k"
	done
	dkms status | grep -q phyllo && fail "DKMS still lists phyllo"
	[ -e /usr/include/linux/phyllo.h ] && fail "the uapi header is still there"
	echo "PHYLLO-DKMS stage2 OK"
}

case $kver in
6.1.*) if [ "$short" = 1 ]; then stage1 && stage2; else stage1; fi ;;
6.12.*) stage2 ;;
*) fail "unexpected kernel $kver" ;;
esac
