#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make test-qemu: each kernel's Debian image under qemu-system-x86_64
# -accel tcg with a busybox initramfs (tests/qemu/mkinitramfs.sh) holding
# phyllo.ko built against that kernel's headers (module.sh); the guest's
# ttyS1 (second -serial) is a unix socket that `phyllo peer --echo
# --connect` joins on the host. The guest attaches the line discipline
# with ldattach and sends COUNT units through /dev/phyllo0.
# Usage: tests/kernel/test-qemu.sh BUILDDIR [COUNT [KERNEL...]]
# KERNEL: names kernel-get.sh knows (6.1, 6.12, unstable); default all.
set -e
build=$1 count=${2:-1000}
shift
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- 6.1 6.12 unstable
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p "$build/host"
gcc -std=gnu11 -Wall -Wextra -Werror -Wundef -O2 -I"$repo/uapi" \
	"$here/phyllo-kclient.c" -o "$build/host/phyllo-kclient"

for name in "$@"; do
	eval "$("$here/kernel-get.sh" "$name")"
	ko=$build/kmod/$kver/phyllo.ko
	[ -f "$ko" ] || "$here/module.sh" "$build" "$name" >/dev/null
	out=$build/qemu/$kver
	mkdir -p "$out"
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
		-kernel "$vmlinuz" -initrd "$out/initramfs.cpio.gz" \
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
		echo "test-qemu: $name: FAILED, see $log and $out/peer.log" >&2
		exit 1
	}
	"$here/log-check.sh" "$log"
	echo "test-qemu: $name: $count units round-tripped through /dev/phyllo0 in a $kver guest in $(($(date +%s) - start)) s"
done
