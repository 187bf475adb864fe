#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# demo.sh COUNT [CLI] - the end-to-end demo. A Linux guest (Debian's
# linux-image-amd64 under qemu-system-x86_64, TCG) loads phyllo.ko and
# attaches the line discipline to its ttyS1, which is wired to the board:
# by default the Arduino Uno firmware running on a simulated ATmega328P
# (simavr, real baud timing); with CM set (cm-an500, cm-an385, cm-an386,
# cm-microbit: `make demo-cortexm`), the Cortex-M firmware on
# qemu-system-arm (tests/cortexm/qemu-pty.sh: its UART0 on a pty). The
# guest talks pub-sub to the board and runs the echo benchmark; see
# guest-demo.sh. CLI=1 also runs the CLI error-path tests in the guest.
# Exits 0 only if the guest says every step passed.
#
# Expects what `make demo` builds: build/host/phyllo, build/host/phyllo-simavr,
# the board's firmware, phyllo.ko for the installed kernel (in
# BUILD/kmod/KVER) and the README's libphyllo example (BUILD/demo/example:
# readme-example.sh).
set -eu
count=${1:-200}
cli=${2:-0}
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/qemu/boot.sh"
build=${BUILD:-$top/build}
kver=$("$top/tests/qemu/kver.sh")
work=$(mktemp -d)
board_pid=
trap '[ -z "$board_pid" ] || { kill $board_pid 2>/dev/null; wait $board_pid 2>/dev/null || true; }; rm -rf "$work"' EXIT

ex=$build/demo/example
echo "demo: [1/3] initramfs: busybox, phyllo.ko ($kver), ldattach, the phyllo tool, the README's example"
"$top/tests/qemu/mkinitramfs.sh" "$work/initrd.gz" "$top/tests/qemu/guest-init.sh" \
	"$build/kmod/$kver/phyllo.ko:/lib/phyllo.ko" "$build/host/phyllo:/bin/phyllo" \
	"$(command -v ldattach):/sbin/ldattach" "$top/tests/demo/guest-demo.sh:/demo.sh" \
	"$top/tests/demo/guest-cli.sh:/cli.sh" "$ex/ping:/bin/ping-example" \
	"$ex/root/usr/lib/libphyllo.so.0:/usr/lib/libphyllo.so.0"

if [ -n "${CM:-}" ]; then
	case $CM in
	cm-microbit) machine=microbit ;;
	*) machine=mps2-${CM#cm-} ;;
	esac
	fw=$build/firmware/$CM/phyllo-$CM.elf
	echo "demo: [2/3] the board: $fw on qemu-system-arm $machine"
	"$top/tests/cortexm/qemu-pty.sh" "$machine" "$fw" "$work/board" >"$work/board.log" 2>&1 &
else
	fw=$build/firmware/uno-standard/phyllo-uno-standard.elf
	echo "demo: [2/3] the Uno: $fw on simavr at 115200 baud"
	"$build/host/phyllo-simavr" --pty --link "$work/board" --seconds 3600 "$fw" \
		>"$work/board.log" 2>&1 &
fi
board_pid=$!
i=0
while [ ! -e "$work/board" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
[ -e "$work/board" ] || { echo "demo: the board did not start"; cat "$work/board.log"; exit 1; }

echo "demo: [3/3] booting Linux $kver in qemu (TCG, about 10 s), ttyS1 = the board"
qemu_console_boot demo 900 "$work" '!^\[ *[0-9.]*\]|^$' \
	"phyllo.run=/demo.sh phyllo.count=$count phyllo.cli=$cli" \
	-chardev "serial,id=board,path=$work/board" -serial chardev:board
echo "demo: passed${CM:+ ($CM)}"
