#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# arm-userland.sh DEBARCH - the Debian 12 userland the ARM guests of
# make test-qemu need, for DEBARCH (arm64 or armhf), and print the folder
# it is unpacked in (a sysroot): busybox-static (the initramfs), util-linux
# (ldattach) and libc6 (ldattach's libraries), and on arm64 libjansson-dev
# and libjansson4 (the static phyllo tool links libjansson.a). Fetched with
# apt-get download through arm-apt.sh and unpacked with dpkg-deb -x into
# ~/.cache/phyllo/debian/userland-DEBARCH-<key>/root, the key naming the
# package files, so a new version is fetched once and a cached one never
# again. Nothing is installed.
set -e
here=$(cd "$(dirname "$0")" && pwd)
cache=${PHYLLO_KCACHE:-$HOME/.cache/phyllo}
arch=$1
case $arch in
arm64) pkgs="busybox-static util-linux libc6 libjansson4 libjansson-dev" ;;
armhf) pkgs="busybox-static util-linux libc6" ;;
*) echo "arm-userland: DEBARCH is arm64 or armhf, not '$arch'" >&2; exit 2 ;;
esac
q=""
for p in $pkgs; do q="$q $p:$arch"; done
# shellcheck disable=SC2086
uris=$("$here/arm-apt.sh" bookworm apt-get download -q --print-uris $q | awk '{print $2}')
[ -n "$uris" ] || { echo "arm-userland: no $pkgs for $arch in bookworm" >&2; exit 1; }
d=$cache/debian/userland-$arch-$(echo "$uris" | md5sum | cut -c1-12)
# Two runs sharing the cache fetch it once.
mkdir -p "${d%/*}"
exec 9>"$d.lock"
flock 9
if [ ! -f "$d/.phyllo-unpacked" ]; then
	# It says so, and how long the last fetch for DEBARCH took (cold.sh).
	. "$here/../../scripts/cold.sh"
	cold_begin "arm-userland: the $arch userland" "$d/.phyllo-cold" \
		"$cache/debian/userland-$arch-*/.phyllo-cold"
	echo "arm-userland: fetching$q" >&2
	rm -rf "$d.tmp"
	mkdir -p "$d.tmp/debs" "$d.tmp/root"
	# shellcheck disable=SC2086
	(cd "$d.tmp/debs" && "$here/arm-apt.sh" bookworm apt-get download -q $q >&2)
	for deb in "$d.tmp/debs"/*.deb; do
		dpkg-deb -x "$deb" "$d.tmp/root"
	done
	rm -rf "$d.tmp/debs" "$d"
	touch "$d.tmp/.phyllo-unpacked"
	mv "$d.tmp" "$d"
	cold_end
fi
echo "$d/root"
