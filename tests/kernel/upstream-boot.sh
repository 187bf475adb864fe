#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make upstream-boot: the kernel of make upstream's series, with the driver
# built in, booted under qemu-system-x86_64; the guest attaches N_PHYLLO
# (the series' own number, not N_DEVELOPMENT) to ttyS1 with ldattach and
# sends COUNT units through /dev/phyllo0 to `phyllo peer --echo` on the
# host, as make test-qemu does for the module.
# Usage: tests/kernel/upstream-boot.sh BUILDDIR [COUNT]   (KBUILD_JOBS=N)
# Contract:
#  1. It runs after scripts/upstream.sh, on its tree with all seven
#     patches applied (that script leaves it so; it fails if the tree is
#     not at the series' end).
#  2. The kernel: tinyconfig plus what the guest needs (a 64-bit kernel,
#     serial console, initramfs, proc, sysfs, devtmpfs, ptys, ELF and
#     scripts, futexes for glibc, hrtimers) and CONFIG_PHYLLO=y, built in
#     .../boot-out beside the tree (O=, ccache), so a warm run rebuilds
#     only what changed. The build is W=1 for drivers/tty/phyllo/ and
#     fails on any warning there.
#  3. Pass: the guest's script exits 0 (every unit came back intact), the
#     line discipline it attached is N_PHYLLO from the tree's header, the
#     console log has no kernel bug report (log-check.sh), and the
#     module's own parameters show the driver was built in.
set -e
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$repo/tests/qemu/boot.sh"
build=${1:?usage: upstream-boot.sh BUILDDIR [COUNT]}
count=${2:-1000}
mkdir -p "$build/upstream-boot" "$build/host"
logs=$(cd "$build/upstream-boot" && pwd)
eval "$("$here/kernel-get.sh" 6.12)"
top=${PHYLLO_KCACHE:-$HOME/.cache/phyllo}/upstream-6.12-$pkgver
src=$top/src
out=$top/boot-out
exec 9>"$top/lock"
flock 9
[ -d "$src/.git" ] && git -C "$src" log -1 --format=%s | grep -q '^Documentation: tty: phyllo' || {
	echo "upstream-boot: $src is not at the end of the series (make upstream first)" >&2
	exit 1
}
nr=$(sed -n 's/^#define N_PHYLLO\t*\([0-9]*\).*/\1/p' "$src/include/uapi/linux/tty.h")
[ -n "$nr" ] || { echo "upstream-boot: no N_PHYLLO in the tree" >&2; exit 1; }
t0=$(date +%s)
mk() { nice -n 10 make -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" "$@"; }
mkdir -p "$out"
if [ ! -f "$out/.config" ]; then
	last=$(cat "$top/boot-cold-seconds" 2>/dev/null || echo "not measured")
	echo "upstream-boot: configuring and building the series' kernel cold (last time $last s)" >&2
	mk tinyconfig >/dev/null
	"$src/scripts/config" --file "$out/.config" \
		--enable 64BIT --enable PRINTK --enable TTY --enable SERIAL_8250 \
		--enable SERIAL_8250_CONSOLE --enable BLK_DEV_INITRD --enable RD_GZIP \
		--enable PROC_FS --enable SYSFS --enable DEVTMPFS --enable UNIX98_PTYS \
		--enable BINFMT_ELF --enable BINFMT_SCRIPT --enable FUTEX \
		--enable HIGH_RES_TIMERS --enable POSIX_TIMERS --enable MULTIUSER \
		--enable EPOLL --enable SHMEM --enable TMPFS --enable PHYLLO
	mk olddefconfig >/dev/null
	cold=1
fi
for c in PHYLLO SERIAL_8250_CONSOLE BLK_DEV_INITRD DEVTMPFS; do
	grep -qx "CONFIG_$c=y" "$out/.config" ||
		{ echo "upstream-boot: CONFIG_$c=y did not stick" >&2; exit 1; }
done
jobs=-j${KBUILD_JOBS:-2}
mk "$jobs" bzImage >"$logs/build.log" 2>&1 || {
	tail -30 "$logs/build.log" >&2
	echo "upstream-boot: the kernel did not build (log: $logs/build.log)" >&2
	exit 1
}
# W=1 on the driver's directory, against the same configuration
touch "$src/drivers/tty/phyllo/"*.c
mk "$jobs" W=1 drivers/tty/phyllo/ >"$logs/w1.log" 2>&1 || {
	tail -30 "$logs/w1.log" >&2
	exit 1
}
if grep -i 'warning' "$logs/w1.log" >&2; then
	echo "upstream-boot: W=1 warnings in drivers/tty/phyllo/ (log: $logs/w1.log)" >&2
	exit 1
fi
[ -z "${cold:-}" ] || echo $(($(date +%s) - t0)) >"$top/boot-cold-seconds"
echo "upstream-boot: the series' kernel (tinyconfig, CONFIG_PHYLLO=y) built in $(($(date +%s) - t0)) s" >&2

# the guest, as test-qemu's amd64 one, the driver built in (measured here
# on 2 December 2026: the kernel cold in 1,858 s at a load of about 6 with
# an empty ccache, warm 116 s; the guest's 1,000 units 14 s)
[ -x "$build/host/phyllo" ] || make -s -C "$repo" BUILD="$build" "$build/host/phyllo" >/dev/null
gcc -std=gnu11 -Wall -Wextra -Werror -Wundef -O2 -I"$repo/uapi" \
	"$here/phyllo-kclient.c" -o "$build/host/phyllo-kclient"
sock=$logs/ttyS1.sock
log=$logs/console.log
rm -f "$sock" "$log"
"$repo/tests/qemu/mkinitramfs.sh" "$logs/initramfs.cpio.gz" \
	"$repo/tests/qemu/guest-init.sh" /usr/sbin/ldattach:/sbin/ldattach \
	"$build/host/phyllo-kclient:/bin/phyllo-kclient" \
	"$here/qemu-guest.sh:/qemu-guest.sh"
start=$(date +%s)
# No ACPI in this kernel: poweroff only halts, so qemu_link_boot ends
# qemu once the guest has said how it ended.
qemu_link_boot 900 "$log" "$sock" "^qemu-guest: ttyS1 raw" "$logs/peer.log" "" \
	qemu-system-x86_64 -accel tcg -m 256 -no-reboot -display none \
	-kernel "$out/arch/x86/boot/bzImage" -initrd "$logs/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 phyllo.run=/qemu-guest.sh phyllo.count=$count phyllo.ldisc=$nr" \
	-serial "file:$log" -serial "unix:$sock,server=on,wait=off"
grep -a "qemu-guest:\|kclient:\|GUEST-EXIT\|phyllo" "$log" || true
# expect PATTERN WHAT: the console log has PATTERN, or the run fails
expect() {
	grep -aq "$1" "$log" || { echo "upstream-boot: $2 (see $log and $logs/peer.log)" >&2; exit 1; }
}
expect "GUEST-EXIT 0" "FAILED"
expect "^qemu-guest: ldattach $nr " "the guest did not attach line discipline $nr (N_PHYLLO)"
expect "^qemu-guest: phyllo built in" "the guest did not find the driver built in"
"$here/log-check.sh" "$log"
echo "upstream-boot: $count units round-tripped through /dev/phyllo0 on N_PHYLLO ($nr) in the series' kernel, phyllo built in, in $(($(date +%s) - start)) s"
