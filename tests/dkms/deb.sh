#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# deb.sh BUILDDIR - build the phyllo-dkms package with the standard tools
# (dpkg-buildpackage -b, debhelper, dh-dkms) from a copy of the files it
# ships, so nothing is written into the checkout; prints the .deb's path.
# The copy is BUILDDIR/dkms/phyllo-<version>/; the .deb lands beside it.
set -e
build=$1
repo=$(cd "$(dirname "$0")/../.." && pwd)
ver=$(cd "$repo" && dpkg-parsechangelog -SVersion)
out=$build/dkms
src=$out/phyllo-$ver
rm -rf "$src" "$out"/phyllo-dkms_*.deb "$out"/phyllo_*.buildinfo "$out"/phyllo_*.changes
mkdir -p "$src"
(cd "$repo" && tar -cf - Kbuild dkms.conf kernel core uapi debian LICENSES) | tar -xf - -C "$src"
(cd "$src" && dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1 || {
	cat "$out/build.log" >&2
	exit 1
}
ls "$out"/phyllo-dkms_"$ver"_all.deb
