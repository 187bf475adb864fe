#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernel-get.sh NAME - make one kernel of the test matrix ready, all from
# Debian's archive, and print its facts as shell assignments (for eval):
#   kver=     the release (uname -r) of Debian's amd64 flavour
#   kdir=     its headers' build directory (inside chroot= when set)
#   vmlinuz=  its Debian image, for qemu
#   source=   the linux-source tarball (6.1 and 6.12 only), for UML
#   chroot=   the root to build in (unstable only), else empty
#   pkgver=   the Debian version of the source (or headers) package
# NAME:
#   6.1       Debian 12's own kernel, installed on the host by
#             scripts/deps.sh (linux-headers-amd64, linux-image-amd64,
#             linux-source-6.1)
#   6.12      bookworm-backports: image, headers, kbuild and source
#             unpacked (dpkg-deb -x, not installed) into
#             ~/.cache/phyllo/debian/6.12-<version>/root
#   unstable  the newest kernel: headers installed in the cached unstable
#             chroot (unstable-chroot.sh), since they need unstable's
#             compiler; the image unpacked beside it
#   arm64-6.1, armmp-6.1, armmp-lpae-6.1, arm64-6.12, armmp-6.12,
#   armmp-lpae-6.12
#             Debian's ARM flavours (arm64; armhf armmp and armmp-lpae) of
#             6.1 (bookworm) and 6.12 (bookworm-backports): the flavour's
#             headers, the common headers and the image's /boot fetched
#             through arm-apt.sh and unpacked into
#             ~/.cache/phyllo/debian/NAME-<release>-<version>/root, with the
#             amd64 linux-kbuild of the same version (the flavour headers
#             carry no host binaries); built with the Debian cross compiler
# and, for every NAME, the target's facts:
#   kdebarch= its Debian architecture (amd64, arm64, armhf)
#   kcross=   the CROSS_COMPILE prefix to build for it (empty on amd64)
# Everything is keyed by package version; a cached kernel is not fetched
# again. Packages come through debian-apt.sh (private apt configuration).
set -e
here=$(cd "$(dirname "$0")" && pwd)
cache=${PHYLLO_KCACHE:-$HOME/.cache/phyllo}
name=$1
. "$here/../../scripts/cold.sh"

# unpack DIR CMD...: run CMD in a fresh download folder (it fetches .debs),
# then dpkg-deb -x each into DIR/root; once per DIR.
# A first fetch says so, and how long the last one of NAME took
# (scripts/cold.sh).
unpack() {
	d=$1
	shift
	[ -f "$d/.phyllo-unpacked" ] && return 0
	cold_begin "kernel-get: the packages of $name" "$d/.phyllo-cold" \
		"${d%/*}/$name-*/.phyllo-cold"
	rm -rf "$d.tmp"
	mkdir -p "$d.tmp/debs" "$d.tmp/root"
	(cd "$d.tmp/debs" && "$@")
	for deb in "$d.tmp/debs"/*.deb; do
		dpkg-deb -x "$deb" "$d.tmp/root"
	done
	rm -rf "$d.tmp/debs" "$d"
	touch "$d.tmp/.phyllo-unpacked"
	mv "$d.tmp" "$d"
	cold_end
}

# The facts every name shares; the ARM case overrides them.
kdebarch=amd64 kcross=
case $name in
arm64-6.1 | armmp-6.1 | armmp-lpae-6.1 | arm64-6.12 | armmp-6.12 | armmp-lpae-6.12)
	flavour=${name%-*} series=${name##*-}
	case $flavour in
	arm64) kdebarch=arm64 kcross=aarch64-linux-gnu- ;;
	*) kdebarch=armhf kcross=arm-linux-gnueabihf- ;;
	esac
	suite=bookworm
	[ "$series" = 6.12 ] && suite=bookworm-backports
	apt() { "$here/arm-apt.sh" "$suite" "$@"; }
	# depends PKG: the names PKG depends on, architecture qualifiers dropped
	depends() { apt apt-cache depends "$1" | sed -n 's/^ *Depends: <\{0,1\}\([^ <>:]*\).*/\1/p'; }
	hdr=$(depends "linux-headers-$flavour:$kdebarch" | grep "^linux-headers-$series" | head -1)
	[ -n "$hdr" ] || { echo "kernel-get: no $series $flavour headers in $suite" >&2; exit 1; }
	kver=${hdr#linux-headers-}
	pkgver=$(apt apt-cache show "$hdr:$kdebarch" | sed -n 's/^Version: //p' | sort -V | tail -1)
	d=$cache/debian/$name-$kver-$pkgver
	# Run by unpack in its download folder: the headers as .debs, and only
	# /boot of the image (its modules are not needed), straight into root.
	fetch_arm() {
		apt apt-get download -q "$hdr:$kdebarch=$pkgver" "$common=$pkgver" \
			"$kbuild:amd64=$pkgver" "linux-image-$kver:$kdebarch=$pkgver" >&2
		dpkg-deb --fsys-tarfile linux-image-*.deb | tar -x -C ../root ./boot
		rm linux-image-*.deb
	}
	# Two runs sharing the cache (two checkouts' make check) fetch it once.
	mkdir -p "${d%/*}"
	exec 9>"$d.lock"
	flock 9
	if [ ! -f "$d/.phyllo-unpacked" ]; then
		common=$(depends "$hdr:$kdebarch" | grep '^linux-headers-.*-common')
		kbuild=$(depends "$hdr:$kdebarch" | grep '^linux-kbuild-')
		echo "kernel-get: fetching Linux $kver ($kdebarch) from $suite" >&2
		unpack "$d" fetch_arm
	fi
	sed -i "s|^include /usr/src/|include $d/root/usr/src/|" \
		"$d/root/usr/src/linux-headers-$kver/Makefile"
	echo "kver=$kver"
	echo "kdir=$d/root/usr/src/linux-headers-$kver"
	echo "vmlinuz=$d/root/boot/vmlinuz-$kver"
	echo "source="
	echo "chroot="
	echo "pkgver=$pkgver"
	;;
6.1)
	# The installed metapackage's dependency, not the archive's newest.
	kver=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
		grep -o 'linux-headers-[^ ,]*' | sed 's/^linux-headers-//' | head -1)
	[ -n "$kver" ] || { echo "kernel-get: linux-headers-amd64 is not installed" >&2; exit 1; }
	echo "kver=$kver"
	echo "kdir=/lib/modules/$kver/build"
	echo "vmlinuz=/boot/vmlinuz-$kver"
	echo "source=/usr/src/linux-source-6.1.tar.xz"
	echo "chroot="
	echo "pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null)"
	;;
6.12)
	apt() { "$here/debian-apt.sh" bookworm-backports "$@"; }
	hdr=$(apt apt-cache depends linux-headers-amd64 | sed -n 's/^ *Depends: \(linux-headers-6\.12[^ ]*\).*/\1/p' | head -1)
	[ -n "$hdr" ] || { echo "kernel-get: no 6.12 headers in bookworm-backports" >&2; exit 1; }
	kver=${hdr#linux-headers-}
	srcver=$(apt apt-cache show linux-source-6.12 | sed -n 's/^Version: //p' | sort -V | tail -1)
	d=$cache/debian/6.12-$kver-$srcver
	if [ ! -f "$d/.phyllo-unpacked" ]; then
		deps=$(apt apt-cache depends "$hdr" | sed -n 's/^ *Depends: \(linux-\(headers\|kbuild\)-[^ ]*\).*/\1/p')
		echo "kernel-get: fetching Linux $kver from bookworm-backports" >&2
		unpack "$d" "$here/debian-apt.sh" bookworm-backports apt-get download -q \
			"linux-image-$kver" "$hdr" $deps "linux-source-6.12=$srcver" >&2
	fi
	# The flavour's Makefile includes the common part by absolute path.
	sed -i "s|^include /usr/src/|include $d/root/usr/src/|" \
		"$d/root/usr/src/linux-headers-$kver/Makefile"
	echo "kver=$kver"
	echo "kdir=$d/root/usr/src/linux-headers-$kver"
	echo "vmlinuz=$d/root/boot/vmlinuz-$kver"
	echo "source=$d/root/usr/src/linux-source-6.12.tar.xz"
	echo "chroot="
	echo "pkgver=$srcver"
	;;
unstable)
	root=$("$here/unstable-chroot.sh")
	kver=$(chroot "$root" dpkg-query -W -f='${Depends}' linux-headers-amd64 |
		grep -o 'linux-headers-[^ ,]*' | sed 's/^linux-headers-//' | head -1)
	d=$cache/debian/unstable-$kver
	if [ ! -f "$d/.phyllo-unpacked" ]; then
		echo "kernel-get: fetching the image of Linux $kver from unstable" >&2
		# Newer images split the kernel binary into linux-binary-*.
		pkgs="linux-image-$kver $(chroot "$root" apt-cache depends "linux-image-$kver" |
			sed -n 's/^ *Depends: \(linux-binary-[^ ]*\).*/\1/p')"
		unpack "$d" sh -c "chroot '$root' sh -c 'mkdir -p /tmp/dl && cd /tmp/dl &&
			rm -f ./*.deb && apt-get download -q $pkgs' >&2 && mv '$root'/tmp/dl/*.deb ."
	fi
	echo "kver=$kver"
	echo "kdir=/usr/src/linux-headers-$kver"
	# /boot/vmlinuz-V, or (newer packages) /usr/lib/modules/V/vmlinuz
	for v in "$d/root/boot/vmlinuz-$kver" "$d/root/usr/lib/modules/$kver/vmlinuz"; do
		[ -f "$v" ] && break
	done
	echo "vmlinuz=$v"
	echo "source="
	echo "chroot=$root"
	echo "pkgver=$(chroot "$root" dpkg-query -W -f='${Version}' "linux-headers-$kver")"
	;;
*)
	echo "kernel-get: unknown kernel '$name' (6.1, 6.12, unstable, arm64-6.1, armmp-6.1," \
		"armmp-lpae-6.1, arm64-6.12, armmp-6.12, armmp-lpae-6.12)" >&2
	exit 2
	;;
esac
echo "kdebarch=$kdebarch"
echo "kcross=$kcross"
