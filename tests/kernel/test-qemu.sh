#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make test-qemu: Debian's linux-image-amd64 under qemu-system-x86_64
# -accel tcg with a busybox initramfs (tests/qemu/mkinitramfs.sh) holding
# phyllo.ko built against linux-headers-amd64; the guest's ttyS1 (second
# -serial) is a unix socket that `phyllo peer --echo --connect` joins on
# the host. The guest sends COUNT units through /dev/phyllo0.
# Usage: tests/kernel/test-qemu.sh BUILDDIR [COUNT]
set -e
build=$1 count=${2:-1000}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
kver=$(dpkg-query -W -f='${Depends}' linux-image-amd64 |
	sed -n 's/^linux-image-\([^ ,]*\).*/\1/p')
ko=$build/kmod/$kver/phyllo.ko
[ -f "$ko" ] || "$here/module.sh" "$build" "$kver" >/dev/null
out=$build/qemu
mkdir -p "$out"
gcc -std=gnu11 -Wall -Wextra -Werror -Wundef -O2 -I"$repo/uapi" \
	"$here/phyllo-kclient.c" -o "$build/host/phyllo-kclient"
"$repo/tests/qemu/mkinitramfs.sh" "$out/initramfs.cpio.gz" \
	"$repo/tests/qemu/guest-init.sh" "$ko:/lib/phyllo.ko" \
	/usr/sbin/ldattach:/sbin/ldattach \
	"$build/host/phyllo-kclient:/bin/phyllo-kclient" \
	"$here/qemu-guest.sh:/qemu-guest.sh"
sock=$out/ttyS1.sock
log=$out/console.log
rm -f "$sock" "$log"
start=$(date +%s)
timeout 900 qemu-system-x86_64 -accel tcg -m 512 -no-reboot -display none \
	-kernel "/boot/vmlinuz-$kver" -initrd "$out/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 phyllo.run=/qemu-guest.sh phyllo.count=$count" \
	-serial "file:$log" -serial "unix:$sock,server=on,wait=off" &
qemu=$!
"$build/host/phyllo" peer --echo --connect "unix:$sock" --stats "$out/peer.json" \
	>"$out/peer.log" 2>&1 &
peer=$!
wait $qemu || true
kill $peer 2>/dev/null || true
wait $peer 2>/dev/null || true
grep -a "qemu-guest:\|kclient:\|^{\|GUEST-EXIT\|phyllo" "$log" || true
grep -aq "GUEST-EXIT 0" "$log" || {
	echo "test-qemu: FAILED, see $log and $out/peer.log" >&2
	exit 1
}
"$here/log-check.sh" "$log"
echo "test-qemu: $count units round-tripped through /dev/phyllo0 in a $kver guest in $(($(date +%s) - start)) s"
