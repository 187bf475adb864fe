#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# scripts/deb.sh BUILDDIR - make deb: build every binary package of
# debian/ (phyllo-dkms, phyllo, phyllo-bridge, libphyllo0, libphyllo-dev,
# python3-phyllolink) with the standard tools (dpkg-buildpackage -b,
# debhelper, dh-dkms, pybuild) from a copy of the files they are made
# of, so nothing is written into the checkout.
# The copy is BUILDDIR/deb/phyllo-<version>/; the .debs land beside it
# (BUILDDIR/deb/*.deb), the log in BUILDDIR/deb/build.log. Lists every
# package built on stderr, and prints the phyllo-dkms .deb's path on
# stdout (what test-dkms and dkms-short install). No
# -dbgsym packages, so that `apt install ./build/deb/*.deb` is all a user needs.
set -e
build=$1
repo=$(cd "$(dirname "$0")/.." && pwd)
# stdout is the one path; anything the install prints goes to stderr
"$repo/scripts/deps.sh" deb >&2
ver=$(cd "$repo" && dpkg-parsechangelog -SVersion)
out=$build/deb
src=$out/phyllo-$ver
rm -rf "$src" "$out"/*.deb "$out"/phyllo_*.buildinfo "$out"/phyllo_*.changes
mkdir -p "$src"
# the whole tree but build/ and .git (the Makefile's fragments are many)
(cd "$repo" && tar --exclude=./build --exclude=./.git -cf - .) | tar -xf - -C "$src"
# Debian's own tools only (pybuild must find /usr/bin/python3, not a
# python3 earlier in PATH).
(cd "$src" && PATH=/usr/sbin:/usr/bin:/sbin:/bin DEB_BUILD_OPTIONS=noautodbgsym \
	dpkg-buildpackage -b -us -uc) \
	>"$out/build.log" 2>&1 || {
	tail -60 "$out/build.log" >&2
	exit 1
}
# all of them, for the user of `make deb`; stdout stays the one path
n=$(ls "$out"/*.deb | wc -l)
echo "deb.sh: $n packages in $out/ (apt install $out/*.deb):" >&2
ls "$out"/*.deb | sed 's|^|    |' >&2
ls "$out"/phyllo-dkms_"$ver"_all.deb
