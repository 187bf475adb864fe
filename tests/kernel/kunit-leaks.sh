#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# init of the KUnit kernel's second boot (kunit.sh): the suites have run
# by now; let kmemleak scan twice (objects must age 5 s) and print what it
# found, then power off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# UML 6.1 saves only the FXSAVE part of userspace FP state on this host
# (tests/kernel/patches/uml-xstate-fallback.patch): keep glibc's string
# functions off the AVX registers it would not preserve.
export GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX,-AVX2,-AVX512F,-AVX512BW,-AVX512CD,-AVX512DQ,-AVX512VL,-AVX_Fast_Unaligned_Load,-FMA
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug
echo scan > /sys/kernel/debug/kmemleak
sleep 6
echo scan > /sys/kernel/debug/kmemleak
echo "phyllo-kmemleak: report begin"
cat /sys/kernel/debug/kmemleak
echo "phyllo-kmemleak: done"
# Power off straight away: there is no init system to ask.
echo o > /proc/sysrq-trigger
sleep 10
