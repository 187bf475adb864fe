#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# mkinitramfs.sh OUT.cpio.gz INIT [SRC:DEST ...] - a busybox initramfs for
# the qemu guests: busybox (static) with its applets, INIT as /init, and each
# extra file SRC copied to DEST. Dynamically linked programs (ldattach, the
# phyllo tool) bring the shared libraries ldd names.
# With PHYLLO_SYSROOT=DIR (a foreign architecture's unpacked Debian
# userland, tests/kernel/arm-userland.sh) busybox is DIR's, and a dynamic
# program brings its interpreter and the libraries it NEEDs (readelf, then
# theirs), found in DIR's library folders; the applet names are the host
# busybox's (the same Debian version).
set -eu
out=$1
init=$2
shift 2
sysroot=${PHYLLO_SYSROOT:-}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

# sysroot_libs ELF: copy ELF's interpreter and needed libraries from the
# sysroot to the same paths in the initramfs, recursively, each once.
sysroot_libs() {
	interp=$(readelf -l "$1" 2>/dev/null | sed -n 's/.*program interpreter: \(.*\)]$/\1/p')
	if [ -n "$interp" ] && [ ! -e "$root$interp" ]; then
		mkdir -p "$root$(dirname "$interp")"
		cp -L "$sysroot$interp" "$root$interp"
	fi
	for lib in $(readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		found=""
		for dir in $(cd "$sysroot" && ls -d lib/*-linux-gnu* usr/lib/*-linux-gnu* lib usr/lib 2>/dev/null); do
			[ -e "$sysroot/$dir/$lib" ] && { found=/$dir/$lib; break; }
		done
		[ -n "$found" ] || { echo "mkinitramfs: $lib (needed by $1) not in $sysroot" >&2; exit 1; }
		[ -e "$root$found" ] && continue
		mkdir -p "$root$(dirname "$found")"
		cp -L "$sysroot$found" "$root$found"
		sysroot_libs "$sysroot$found"
	done
}

mkdir -p "$root/bin" "$root/sbin" "$root/lib" "$root/dev" "$root/proc" "$root/sys" \
	"$root/tmp" "$root/etc"
chmod 755 "$root"
chmod 1777 "$root/tmp"
cp "$sysroot/bin/busybox" "$root/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
cp "$init" "$root/init"
chmod +x "$root/init"
echo 'root:x:0:0:root:/:/bin/sh' >"$root/etc/passwd"
echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>"$root/etc/passwd"
echo 'root:x:0:' >"$root/etc/group"

for spec in "$@"; do
	src=${spec%%:*}
	dest=${spec#*:}
	mkdir -p "$root$(dirname "$dest")"
	cp "$src" "$root$dest"
	# the libraries of a dynamic executable, at the same paths
	if [ -n "$sysroot" ]; then
		sysroot_libs "$src"
	elif [ -x "$src" ] && ldd "$src" >/dev/null 2>&1; then
		for lib in $(ldd "$src" | grep -o '/[^ ]*'); do
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	fi
done
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
