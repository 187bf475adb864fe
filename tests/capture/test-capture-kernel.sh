#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-capture-kernel.sh BUILD LUA - `phyllo capture --device /dev/phylloN`
# in Debian's kernel under qemu (TCG) with phyllo.ko: guest-capture.sh
# records the trace events of an echo run on a lossy link; here tshark with
# the dissector counts them against the link's counters read before and
# after, inside the capture (check.py kernel).
set -eu
build=$1 lua=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/qemu/boot.sh"
kver=$("$top/tests/qemu/kver.sh")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$top/tests/qemu/mkinitramfs.sh" "$work/initrd.gz" "$top/tests/qemu/guest-init.sh" \
	"$build/kmod/$kver/phyllo.ko:/lib/phyllo.ko" "$build/host/phyllo:/bin/phyllo" \
	"$top/tests/capture/guest-capture.sh:/capture.sh"
echo "test-capture-kernel: Linux $kver in qemu (TCG): phyllo capture --device /dev/phyllo0"
qemu_console_boot test-capture-kernel 600 "$work" '^(ok|FAIL|guest)' phyllo.run=/capture.sh
tr -d '\r' <"$work/console.log" >"$work/console.txt"
# section NAME: the lines between BEGIN NAME and END NAME
section() { sed -n "/^BEGIN $1\$/,/^END $1\$/p" "$work/console.txt" | sed '1d;$d'; }
section before.json >"$work/before.json"
section after.json >"$work/after.json"
section k.pcapng | base64 -d >"$work/k.pcapng" || true
python3 "$top/tests/capture/check.py" kernel "$lua" "$work/k.pcapng" "$work/before.json" \
	"$work/after.json"
