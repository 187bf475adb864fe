#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# init of a KUnit boot of kunit.sh: the suites have run by now (built in)
# or, with PHYLLO_KMOD=DIR, run as DIR's phyllo_kunit.ko loads beside its
# phyllo.ko, their KTAP report saved to PHYLLO_KTAP, and both are
# unloaded; then let kmemleak scan twice (objects must age 5 s) and print
# what it found, then power off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# UML 6.1 saves only the FXSAVE part of userspace FP state on this host
# (tests/kernel/patches/uml-xstate-fallback.patch): keep glibc's string
# functions off the AVX registers it would not preserve.
export GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX,-AVX2,-AVX512F,-AVX512BW,-AVX512CD,-AVX512DQ,-AVX512VL,-AVX_Fast_Unaligned_Load,-FMA
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug
if [ -n "$PHYLLO_KMOD" ]; then
	dmesg -C
	insmod "$PHYLLO_KMOD/phyllo.ko" && insmod "$PHYLLO_KMOD/phyllo_kunit.ko" ||
		echo "phyllo-kunit: insmod failed"
	dmesg | sed 's/^\[[^]]*\] //' >"$PHYLLO_KTAP"
	rmmod phyllo_kunit && rmmod phyllo && echo "phyllo-kunit: unloaded"
fi
echo scan > /sys/kernel/debug/kmemleak
sleep 6
echo scan > /sys/kernel/debug/kmemleak
echo "phyllo-kmemleak: report begin"
cat /sys/kernel/debug/kmemleak
echo "phyllo-kmemleak: done"
# Power off straight away: there is no init system to ask.
echo o > /proc/sysrq-trigger
sleep 10
