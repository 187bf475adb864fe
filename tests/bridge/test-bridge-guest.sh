#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-bridge-guest.sh BUILD - phyllo-bridge on /dev/phyllo0 (the kernel
# line discipline) in Debian's kernel under qemu (TCG): the busybox
# initramfs of the other guests with phyllo.ko, the tool, phyllo-bridge,
# and Debian's mosquitto, mosquitto_pub and mosquitto_sub (their shared
# libraries come along); tests/bridge/guest-bridge.sh runs inside. Exits
# 0 only if the guest says every step passed.
set -eu
build=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
kver=$("$top/tests/qemu/kver.sh")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# mosquitto looks its user up, even root
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$work/passwd"
printf 'root:x:0:\n' >"$work/group"
"$top/tests/qemu/mkinitramfs.sh" "$work/initrd.gz" "$top/tests/qemu/guest-init.sh" \
	"$build/kmod/$kver/phyllo.ko:/lib/phyllo.ko" "$build/host/phyllo:/bin/phyllo" \
	"$build/host/phyllo-bridge:/bin/phyllo-bridge" "$top/tests/bridge/guest-bridge.sh:/bridge.sh" \
	/usr/sbin/mosquitto:/usr/sbin/mosquitto /usr/bin/mosquitto_pub:/usr/bin/mosquitto_pub \
	/usr/bin/mosquitto_sub:/usr/bin/mosquitto_sub "$work/passwd:/etc/passwd" \
	"$work/group:/etc/group"
echo "test-bridge-guest: Linux $kver in qemu (TCG): phyllo-bridge on /dev/phyllo0"
timeout 300 qemu-system-x86_64 -accel tcg -m 512M -smp 1 -display none -no-reboot \
	-kernel "/boot/vmlinuz-$kver" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 panic=-1 quiet phyllo.run=/bridge.sh" -serial stdio \
	</dev/null 2>&1 | tee "$work/console.log" | grep -e '^ok' -e '^FAIL' -e '^guest' -e '^phyllo' || true
grep -q '^GUEST-EXIT 0' "$work/console.log" || {
	echo "test-bridge-guest: FAILED; the console's end:"
	tail -15 "$work/console.log"
	exit 1
}
