#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# mkinitramfs.sh OUT.cpio.gz INIT [SRC:DEST ...] - a busybox initramfs for
# the qemu guests: busybox (static) with its applets, INIT as /init, and each
# extra file SRC copied to DEST. Dynamically linked programs (ldattach, the
# phyllo tool) bring the shared libraries ldd names.
set -eu
out=$1
init=$2
shift 2
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/bin" "$root/sbin" "$root/lib" "$root/dev" "$root/proc" "$root/sys" \
	"$root/tmp" "$root/etc"
chmod 755 "$root"
chmod 1777 "$root/tmp"
cp /bin/busybox "$root/bin/busybox"
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
	if [ -x "$src" ] && ldd "$src" >/dev/null 2>&1; then
		for lib in $(ldd "$src" | grep -o '/[^ ]*'); do
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	fi
done
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
