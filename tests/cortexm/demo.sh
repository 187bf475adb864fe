#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# tests/cortexm/demo.sh BUILD COUNT - `make demo-cortexm BOARD=cortex-mN`:
# the demo of tests/demo/ with the Cortex-M firmware in place of the
# simulated Uno. The firmware BUILD/firmware/$CM/phyllo-$CM.elf runs on
# qemu-system-arm (qemu-pty.sh: UART0 on a pty); a Linux guest (Debian's
# linux-image-amd64 under qemu-system-x86_64) loads phyllo.ko, attaches the
# line discipline to its ttyS1, wired to that pty, and runs the same guest
# script as the Uno's demo (tests/demo/guest-demo.sh: ping, blink, stats,
# the echo table). CM names the build (cm-an500, ...). Exits 0 only if the
# guest says every step passed.
set -eu
build=$1
count=${2:-200}
cm=${CM:-cm-an500}
top=$(cd "$(dirname "$0")/../.." && pwd)
kver=$("$top/tests/qemu/kver.sh")
case $cm in
cm-microbit) machine=microbit ;;
*) machine=mps2-${cm#cm-} ;;
esac
fw=$build/firmware/$cm/phyllo-$cm.elf
work=$(mktemp -d)
board_pid=
trap '[ -z "$board_pid" ] || kill $board_pid 2>/dev/null || true; wait; rm -rf "$work"' EXIT

echo "demo: [1/3] initramfs: busybox, phyllo.ko ($kver), ldattach, the phyllo tool"
"$top/tests/qemu/mkinitramfs.sh" "$work/initrd.gz" "$top/tests/qemu/guest-init.sh" \
	"$build/kmod/$kver/phyllo.ko:/lib/phyllo.ko" "$build/host/phyllo:/bin/phyllo" \
	"$(command -v ldattach):/sbin/ldattach" "$top/tests/demo/guest-demo.sh:/demo.sh" \
	"$top/tests/demo/guest-cli.sh:/cli.sh"

echo "demo: [2/3] the board: $fw on qemu-system-arm $machine"
"$top/tests/cortexm/qemu-pty.sh" "$machine" "$fw" "$work/board" >"$work/board.log" 2>&1 &
board_pid=$!
i=0
while [ ! -e "$work/board" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
[ -e "$work/board" ] || { echo "demo: the board did not start"; cat "$work/board.log"; exit 1; }

echo "demo: [3/3] booting Linux $kver in qemu (TCG), ttyS1 = the board"
timeout 900 qemu-system-x86_64 -accel tcg -m 512M -smp 1 -display none -no-reboot \
	-kernel "/boot/vmlinuz-$kver" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 panic=-1 quiet phyllo.run=/demo.sh phyllo.count=$count" \
	-serial stdio -chardev "serial,id=board,path=$work/board" -serial chardev:board \
	</dev/null 2>&1 | tee "$work/console.log" | grep -v -e '^\[ *[0-9.]*\]' -e '^$' || true
grep -q '^GUEST-EXIT 0' "$work/console.log" || { echo "demo: FAILED"; exit 1; }
echo "demo: passed ($cm)"
