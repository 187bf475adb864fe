#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# /init of the qemu guests: mount the basics, load phyllo.ko, run the script
# named by phyllo.run= on the kernel command line, report its exit status
# on the console, power off.
export PATH=/sbin:/bin:/usr/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts
run=$(sed -n 's/.*phyllo\.run=\([^ ]*\).*/\1/p' /proc/cmdline)
# (a kernel with the driver built in has no phyllo.ko)
if [ ! -e /lib/phyllo.ko ] && [ -d /sys/module/phyllo ]; then
	echo "qemu-guest: phyllo built in"
fi
if [ ! -e /lib/phyllo.ko ] || insmod /lib/phyllo.ko; then
	sh "$run"
	rc=$?
else
	echo "guest: insmod phyllo.ko failed"
	rc=1
fi
echo "GUEST-EXIT $rc"
poweroff -f
