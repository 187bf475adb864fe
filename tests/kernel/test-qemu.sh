#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make test-qemu: each kernel's Debian image under qemu-system-x86_64
# -accel tcg with a busybox initramfs (tests/qemu/mkinitramfs.sh) holding
# phyllo.ko built against that kernel's headers (kernel/module.sh); the guest's
# ttyS1 (second -serial) is a unix socket that `phyllo peer --echo
# --connect` joins on the host. The guest attaches the line discipline
# with ldattach and sends COUNT units through /dev/phyllo0.
# The ARM kernels (arm64-*, armmp-*, armmp-lpae-*) boot under
# qemu-system-aarch64 -M virt -cpu cortex-a53 or qemu-system-arm -M
# virt,highmem=off (cortex-a7; cortex-a15 for LPAE; without highmem=off
# armmp's PCI host fails to probe): the link is a `-device pci-serial`
# 16550 (ttyS0), the console the PL011; the initramfs is that
# architecture's busybox, ldattach and libc (arm-userland.sh) with a
# static cross-built phyllo-kclient; the peer joins once the guest has
# made its port raw, and arm-guest.sh runs COUNT units
# through ldattach's link, then on arm64 the cross-built static phyllo
# tool (BUILDDIR/arm64/phyllo, kernel.mk) attaches, lists and detaches.
# Usage: tests/kernel/test-qemu.sh BUILDDIR [COUNT [KERNEL...]]
# KERNEL: names kernel-get.sh knows (6.1, 6.12, unstable and the ARM
# ones); default all.
set -e
build=$1 count=${2:-1000}
shift
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- 6.1 6.12 unstable arm64-6.1 arm64-6.12 armmp-6.1 armmp-6.12 \
	armmp-lpae-6.1 armmp-lpae-6.12
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$repo/tests/qemu/boot.sh"
mkdir -p "$build/host"
gcc -std=gnu11 -Wall -Wextra -Werror -Wundef -O2 -I"$repo/uapi" \
	"$here/phyllo-kclient.c" -o "$build/host/phyllo-kclient"

# arm_boot: the initramfs and the qemu of an ARM kernel (kernel-get.sh's
# facts are set), with the peer.
arm_boot() {
	sysroot=$("$here/arm-userland.sh" "$kdebarch")
	kc=$build/$kdebarch/phyllo-kclient
	mkdir -p "$build/$kdebarch"
	"${kcross}gcc" -std=gnu11 -Wall -Wextra -Werror -Wundef -O2 -static -I"$repo/uapi" \
		"$here/phyllo-kclient.c" -o "$kc"
	tool=""
	if [ "$kdebarch" = arm64 ]; then
		[ -x "$build/arm64/phyllo" ] || {
			echo "test-qemu: no $build/arm64/phyllo (make test-qemu builds it)" >&2
			exit 1
		}
		tool=$build/arm64/phyllo:/bin/phyllo
	fi
	PHYLLO_SYSROOT=$sysroot "$repo/tests/qemu/mkinitramfs.sh" "$out/initramfs.cpio.gz" \
		"$repo/tests/qemu/guest-init.sh" "$ko:/lib/phyllo.ko" \
		"$sysroot/usr/sbin/ldattach:/sbin/ldattach" "$kc:/bin/phyllo-kclient" \
		"$here/arm-guest.sh:/arm-guest.sh" $tool
	case $name in
	arm64-*) set -- qemu-system-aarch64 -M virt -cpu cortex-a53 ;;
	armmp-lpae-*) set -- qemu-system-arm -M virt,highmem=off -cpu cortex-a15 ;;
	*) set -- qemu-system-arm -M virt,highmem=off -cpu cortex-a7 ;;
	esac
	qemu_link_boot 900 "$log" "$sock" "^arm-guest: ttyS0 raw" "$out/peer.log" "$out/peer.json" \
		"$@" -m 512 -no-reboot -display none \
		-kernel "$vmlinuz" -initrd "$out/initramfs.cpio.gz" \
		-append "console=ttyAMA0 panic=-1 phyllo.run=/arm-guest.sh phyllo.count=$count" \
		-serial "file:$log" -chardev "socket,id=link,path=$sock,server=on,wait=off" \
		-device pci-serial,chardev=link -nic none
}

for name in "$@"; do
	eval "$("$here/kernel-get.sh" "$name")"
	ko=$build/kmod/$kver/phyllo.ko
	[ -f "$ko" ] || "$repo/kernel/module.sh" "$build" "$name" >/dev/null
	out=$build/qemu/$kver
	mkdir -p "$out"
	sock=$out/ttyS1.sock
	log=$out/console.log
	rm -f "$sock" "$log"
	start=$(date +%s)
	if [ "$kdebarch" = amd64 ]; then
		"$repo/tests/qemu/mkinitramfs.sh" "$out/initramfs.cpio.gz" \
			"$repo/tests/qemu/guest-init.sh" "$ko:/lib/phyllo.ko" \
			/usr/sbin/ldattach:/sbin/ldattach \
			"$build/host/phyllo-kclient:/bin/phyllo-kclient" \
			"$here/qemu-guest.sh:/qemu-guest.sh"
		# The guest makes its port raw first, then says so: the peer
		# joins after that (arm-guest.sh says why).
		qemu_link_boot 900 "$log" "$sock" "^qemu-guest: ttyS1 raw" "$out/peer.log" \
			"$out/peer.json" qemu-system-x86_64 -accel tcg -m 512 -no-reboot -display none \
			-kernel "$vmlinuz" -initrd "$out/initramfs.cpio.gz" \
			-append "console=ttyS0 panic=-1 phyllo.run=/qemu-guest.sh phyllo.count=$count" \
			-serial "file:$log" -serial "unix:$sock,server=on,wait=off"
	else
		arm_boot
	fi
	grep -a "qemu-guest:\|arm-guest:\|kclient:\|^{\|GUEST-EXIT\|phyllo" "$log" || true
	grep -aq "GUEST-EXIT 0" "$log" || {
		echo "test-qemu: $name: FAILED, see $log and $out/peer.log" >&2
		exit 1
	}
	"$here/log-check.sh" "$log"
	echo "test-qemu: $name: $count units round-tripped through /dev/phyllo0 in a $kver guest in $(($(date +%s) - start)) s"
	if [ "$kdebarch" = arm64 ]; then
		echo "test-qemu: $name: the static aarch64 phyllo tool attached, listed and detached"
	fi
done
