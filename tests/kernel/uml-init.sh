#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# init of the UML guest of make test-kernel: the host's / is the root
# (hostfs), the arguments come as environment variables from the kernel
# command line. Mounts what the tests need, runs kernel-tests.sh, prints
# PHYLLO-UML-EXIT <status>, powers off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# UML 6.1 saves only the FXSAVE part of userspace FP state on this host
# (tests/kernel/patches/uml-xstate-fallback.patch): keep glibc's string
# functions off the AVX registers it would not preserve.
export GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX,-AVX2,-AVX512F,-AVX512BW,-AVX512CD,-AVX512DQ,-AVX512VL,-AVX_Fast_Unaligned_Load,-FMA
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts
mount -t devpts -o ptmxmode=0666 devpts /dev/pts
ln -sf pts/ptmx /dev/ptmx
sh "$PHYLLO_TESTS/kernel-tests.sh" "$PHYLLO_KO" "$PHYLLO_TOOL" "$PHYLLO_KCLIENT" \
	"$PHYLLO_SCRATCH" "$PHYLLO_COUNT" "$PHYLLO_CYCLES" "$PHYLLO_HOSTILE" \
	"$PHYLLO_SHARE" "$PHYLLO_NAMES"
echo "PHYLLO-UML-EXIT $?"
echo o >/proc/sysrq-trigger
sleep 10
