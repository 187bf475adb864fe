#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# dkms-short.sh BUILDDIR [KERNEL...] - the host half of make
# test-dkms-short (in make check; its guest half is test-dkms.sh with
# SHORT=1): build phyllo-dkms (scripts/deb.sh) and check, without a guest, that
#  1. it ships dkms.conf with the version filled in, the module's sources
#     under /usr/src/phyllo-<version>/ and /usr/include/linux/phyllo.h;
#  2. dkms.conf's MAKE line, run as DKMS runs it (the sources copied to
#     <dkms_tree>/phyllo/<version>/build), builds BUILT_MODULE_NAME.ko for
#     each KERNEL (kernel-get.sh names; default 6.1 and 6.12).
# Nothing is installed; the unpacked package lives in BUILDDIR/dkms/short.
# bash: dkms.conf is bash (arrays), as dkms sources it.
set -e
build=$1
shift
[ $# -gt 0 ] || set -- 6.1 6.12
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$build"
build=$(cd "$build" && pwd)
deb=$("$here/../../scripts/deb.sh" "$build")
t=$build/dkms/short
rm -rf "$t"
mkdir -p "$t"
dpkg-deb -x "$deb" "$t/root"
ver=$(dpkg-deb -f "$deb" Version)
src=$t/root/usr/src/phyllo-$ver
for f in dkms.conf Kbuild kernel/phyllo_ldisc.c kernel/phyllo_compat.mk core/phyllo_stack.c uapi/phyllo.h; do
	[ -f "$src/$f" ] || { echo "dkms-short: the package has no $f" >&2; exit 1; }
done
[ -f "$t/root/usr/include/linux/phyllo.h" ] || { echo "dkms-short: no /usr/include/linux/phyllo.h" >&2; exit 1; }
ls "$src/kernel" | grep -q _test.c && { echo "dkms-short: KUnit suites shipped" >&2; exit 1; }
grep -qx "PACKAGE_VERSION=\"$ver\"" "$src/dkms.conf" ||
	{ echo "dkms-short: dkms.conf's PACKAGE_VERSION is not $ver" >&2; exit 1; }
dpkg-deb -f "$deb" Depends | grep -q dkms || { echo "dkms-short: no dependency on dkms" >&2; exit 1; }

for name in "$@"; do
	eval "$("$here/../kernel/kernel-get.sh" "$name")"
	[ -z "$chroot" ] || { echo "dkms-short: $name builds in a chroot; not here" >&2; exit 1; }
	(
		# What dkms does: source dkms.conf with its variables set, then
		# run MAKE[0] in a copy of the sources.
		kernel_source_dir=$kdir kernelver=$kver dkms_tree=$t/dkms-$kver
		. "$src/dkms.conf"
		b=$dkms_tree/$PACKAGE_NAME/$PACKAGE_VERSION/build
		mkdir -p "$b"
		cp -r "$src/." "$b/"
		cd "$b"
		eval "${MAKE[0]}" >"$t/make-$kver.log" 2>&1 || { cat "$t/make-$kver.log" >&2; exit 1; }
		modinfo -F vermagic "$b/$BUILT_MODULE_NAME.ko" | grep -q "^$kver " ||
			{ echo "dkms-short: $BUILT_MODULE_NAME.ko is not for $kver" >&2; exit 1; }
	)
	echo "dkms-short: $(basename "$deb"): dkms.conf builds phyllo.ko for $kver"
done
