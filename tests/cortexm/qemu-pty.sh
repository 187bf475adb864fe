#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# qemu-pty.sh MACHINE ELF LINK [qemu options...] - run the Cortex-M
# firmware ELF on qemu-system-arm's MACHINE (mps2-an385, mps2-an386,
# mps2-an500, microbit) with its UART0 on a new pseudo-terminal, whose
# slave is symlinked at LINK once it is ready: in raw mode without echo
# (a fresh pty echoes, which would hand the firmware its own frames back)
# and held open by this script (qemu drops what the firmware sends while no
# one has the slave open, and only looks again once a second).
# Runs until qemu exits or this script gets SIGTERM/SIGINT, which it passes
# on (qemu then exits cleanly: a plugin writes its results). Extra options
# (-icount, -plugin, -monitor) go to qemu.
set -eu
machine=$1 elf=$2 link=$3
shift 3
log=$(mktemp /tmp/phyllo-qemu.XXXXXX)
qemu=
cleanup() {
	[ -z "$qemu" ] || kill "$qemu" 2>/dev/null || true
	[ -z "$qemu" ] || wait "$qemu" 2>/dev/null || true
	rm -f "$log" "$link"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

qemu-system-arm -M "$machine" -kernel "$elf" -display none -nodefaults \
	-serial pty "$@" >"$log" 2>&1 &
qemu=$!
i=0
while ! pts=$(grep -o '/dev/pts/[0-9]*' "$log"); do
	i=$((i + 1))
	if [ $i -gt 300 ] || ! kill -0 "$qemu" 2>/dev/null; then
		echo "qemu-pty: qemu did not start" >&2
		cat "$log" >&2
		exit 1
	fi
	sleep 0.1
done
stty -F "$pts" raw -echo
exec 3<"$pts"
sleep 1.2	# qemu notices the open slave within a second
ln -sf "$pts" "$link"
wait "$qemu"
