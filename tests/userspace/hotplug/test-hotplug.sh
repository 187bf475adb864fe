#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# make test-hotplug: boards unplugged, moved, plugged in again and reset,
# in a Debian 12 guest with systemd and udev under qemu (TCG), each link
# named after its board's USB serial number and kept, with every program's
# one open file of it, across all of that (issue 35):
#  1. the cached disk of make test-dkms (tests/dkms/guest-root.sh) is
#     copied; phyllo.ko is built against that disk's own kernel headers
#     (read out of it with debugfs, kept in BUILD/hotplug/); `make install`
#     and `make install-bridge` (PREFIX=/usr/local), the module,
#     guest-hotplug.sh, hotplug-client (hotplug-client.c linked with
#     libphyllo.a), the Python package (python/phyllolink as
#     /usr/local/lib/python3/dist-packages/phyllolink), hotplug-client.py
#     and Debian's python3 with the modules they import (the host's, a
#     Debian 12 too, those the disk lacks) go into the copy (debugfs, no
#     mount), and, in a git checkout, the two units as they were at
#     $PHYLLO_SECURITY_BASE (default 0077e21, before their hardening) as
#     phyllo-attach-base@ and phyllo-bridge-base@;
#  2. its kernel boots on $PHYLLO_HOTPLUG_SMP vCPUs (default 2: a board's
#     host has more than one core, a Raspberry Pi four; with one, the
#     guest's own checks, polling every 0.2 s, share it with udev, systemd
#     and the attach, and a plug's time to the programs was 1.5 to 2.8 s
#     in place of 0.75 to 1.0 s), with a USB controller (qemu-xhci), a
#     chardev socket that `phyllo peer --echo` answers (the far end of the
#     FTDI board),
#     and a QMP socket; the other board, a CDC ACM gadget as an Arduino
#     Uno presents itself, lives in the guest (dummy_hcd, its far end on
#     the gadget's ttyGS);
#  3. guest-hotplug.sh asks, in order, "HOTPLUG-HOST SEQ WHAT" on its
#     report port; this script does each: plug N PORT (device_add
#     usb-serial, QEMU's FTDI FT232 0403:6001, serial $ftdi, on xhci port
#     PORT, always-plugged=on), unplug N (device_del), reset-stop N (the
#     peer killed: the board's microcontroller stops; the adapter stays on
#     the bus, as an FT232's does) and reset-start N (a new peer: it boots
#     again);
#  4. the guest runs CYCLES unplug/plug cycles (the second with the boards
#     moved to other ports and back in the opposite order), then a reset;
#     `phyllo sub`, hotplug-client, hotplug-client.py (as an unprivileged
#     user) and phyllo-bridge@ (started by the rule, on the guest's
#     mosquitto, with mosquitto_sub counting) ride over all of it on one
#     open file each; every unit acknowledged, or written while a board
#     was away, reaches each of them once. Its "timing" lines: ms from the
#     board's tty appearing (its uevent) to the link up and to the first
#     unit delivered, per program. guest-hotplug.sh says it all.
# Exits 0 only if the guest reports every check passed; qemu is stopped
# after $PHYLLO_HOTPLUG_TIMEOUT seconds (default 3600) whatever the guest
# does. Works in a mktemp folder under BUILD/hotplug/, removed when the
# test passes (else its logs are kept; the disk copy never is).
# In make check; its run time and its timing figures, dated: tests/README.md
# and docs/testing.md. In the reset, a unit written while the far end is
# dead and sent into the void is lost at the new session: phyllo pub must
# say so (libphyllo's flush returns -ECONNRESET), and the test then does
# not wait for it.
# Usage: test-hotplug.sh BUILD MAKE [CYCLES [COUNT [BRIDGED [UNITS]]]]
set -eu
build=$1 make=$2 cycles=${3:-2} count=${4:-200} bridged=${5:-20} units=${6:-3}
# the FTDI board's USB serial number (the ACM board's is in the guest script)
ftdi=PHYLLOFTDI0001
base=${PHYLLO_SECURITY_BASE:-0077e21}
timeout_s=${PHYLLO_HOTPLUG_TIMEOUT:-3600}
smp=${PHYLLO_HOTPLUG_SMP:-2}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
mkdir -p "$build/hotplug"
build=$(cd "$build" && pwd)
start=$(date +%s)
disk='' vmlinuz='' initrd=''
eval "$("$top/tests/dkms/guest-root.sh")"

# The disk's kernel, from its image's version string.
kver=$(strings "$vmlinuz" | sed -n 's/^\([0-9][^ ]*\) (.*#[0-9].*/\1/p' | head -1)
debugfs -R "stat /usr/src/linux-headers-$kver" "$disk" 2>/dev/null | grep -q 'Type: directory' || {
	echo "test-hotplug: no headers for '$kver' in $disk" >&2
	exit 1
}
# Its headers (the flavour's, the common part, kbuild), once per kernel.
hdr=$build/hotplug/linux-$kver
if [ ! -f "$hdr/.phyllo-extracted" ]; then
	rm -rf "$hdr"
	mkdir -p "$hdr/usr/src" "$hdr/usr/lib"
	debugfs -R "rdump /usr/src/linux-headers-$kver /usr/src/linux-headers-${kver%-*}-common $hdr/usr/src" \
		"$disk" >/dev/null 2>&1
	debugfs -R "rdump /usr/lib/linux-kbuild-$(echo "$kver" | cut -d. -f1,2) $hdr/usr/lib" \
		"$disk" >/dev/null 2>&1
	# The flavour's Makefile includes the common part by absolute path.
	sed -i "s|^include /usr/src/|include $hdr/usr/src/|" "$hdr/usr/src/linux-headers-$kver/Makefile"
	touch "$hdr/.phyllo-extracted"
fi
kmod=$build/hotplug/kmod-$kver
echo "test-hotplug: phyllo.ko for the guest's $kver"
"$top/kernel/kmod.sh" "$kmod" "$hdr/usr/src/linux-headers-$kver" >"$build/hotplug/kmod.log" 2>&1 || {
	tail -20 "$build/hotplug/kmod.log" >&2
	exit 1
}
modinfo -F vermagic "$kmod/phyllo.ko" | grep -q "^$kver " || {
	echo "test-hotplug: $kmod/phyllo.ko is not for $kver" >&2
	exit 1
}

work=$(mktemp -d "$build/hotplug/run.XXXXXX")
qemu='' peer='' passed=''
cleanup() {
	set +e
	[ -n "$qemu" ] && kill "$qemu" 2>/dev/null && wait "$qemu" 2>/dev/null
	[ -n "$peer" ] && kill "$peer" 2>/dev/null && wait "$peer" 2>/dev/null
	rm -rf "$work/disk.img" "$work/root"
	if [ -n "$passed" ]; then
		rm -rf "$work"
	else
		echo "test-hotplug: logs kept in $work" >&2
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# What goes into the disk: make install and install-bridge, the module,
# the guest script, the units before their hardening.
root=$work/root
$make -C "$top" --no-print-directory -s install install-bridge DESTDIR="$root" PREFIX=/usr/local \
	>"$work/install.log" 2>&1 || {
	cat "$work/install.log" >&2
	exit 1
}
install -D -m 644 "$kmod/phyllo.ko" "$root/usr/lib/modules/$kver/extra/phyllo.ko"
install -D -m 755 "$here/guest-hotplug.sh" "$root/root/phyllo-hotplug-guest.sh"
cc -Wall -Wextra -Werror -I"$top/userspace/include" "$here/hotplug-client.c" \
	"$build/host/libphyllo.a" -ljansson -lm -o "$work/hotplug-client"
install -D -m 755 "$work/hotplug-client" "$root/usr/local/bin/hotplug-client"
install -D -m 644 "$here/hotplug-client.py" "$root/usr/local/libexec/phyllo-hotplug/hotplug-client.py"
install -D -m 644 "$top/python/phyllolink/__init__.py" \
	"$root/usr/local/lib/python3/dist-packages/phyllolink/__init__.py"
# Debian's python3 with just the modules the package and the program
# import (found by importing them here; the host is a Debian 12 too),
# where the disk has none of its own.
py=$(readlink -f /usr/bin/python3)
pyfiles=$(/usr/bin/python3 -S -c 'import sys; sys.path[:0] = sys.argv[1:]
import os; os.environ["PHYLLO_LIBRARY"] = sys.argv[2]
import phyllolink, msgpack, json, errno, select, time, ctypes, collections
print(" ".join(sorted({m.__file__ for m in list(sys.modules.values())
      if getattr(m, "__file__", "") and m.__file__.startswith("/usr/")})))' \
	"$top/python" "$build/host/libphyllo.so.0" /usr/lib/python3/dist-packages)
on_disk() { debugfs -R "stat $1" "$disk" 2>/dev/null | grep -q '^Inode:'; }
for f in "$py" $pyfiles; do
	on_disk "$f" || install -D -m 644 "$f" "$root$f"
done
chmod 755 "$root$py" 2>/dev/null || true
on_disk /usr/bin/python3 || ln -s "${py##*/}" "$root/usr/bin/python3"
for u in phyllo-attach phyllo-bridge; do
	git -C "$top" show "$base:userspace/system/$u@.service.in" 2>/dev/null |
		sed 's|@BINDIR@|/usr/local/bin|' >"$work/$u-base@.service" &&
		[ -s "$work/$u-base@.service" ] &&
		install -m 644 "$work/$u-base@.service" "$root/etc/systemd/system/" ||
		echo "test-hotplug: no $u@ unit at $base (not a git checkout?): no figure before"
done
# The tools' shared libraries that the disk lacks (libjansson, say).
for lib in $(for t in "$build/host/phyllo" "$build/host/phyllo-bridge" "$work/hotplug-client" \
	"$py" $(echo "$pyfiles" | tr ' ' '\n' | grep '\.so$'); do ldd "$t"; done |
	grep -o '/[^ ]*' | sort -u); do
	on_disk "$lib" || [ -e "$root$lib" ] || install -D -m 644 "$(readlink -f "$lib")" "$root$lib"
done
# Each made in its directory (debugfs's mkdir of "/usr" would make one in
# the current directory); a directory the disk has already is left as is.
(cd "$root" && find . -mindepth 1 | sort) | while read -r p; do
	p=${p#.}
	echo "cd $(dirname "$p")"
	if [ -L "$root$p" ]; then
		echo "symlink $(basename "$p") $(readlink "$root$p")"
	elif [ -d "$root$p" ]; then
		echo "mkdir $(basename "$p")"
	else
		echo "write $root$p $(basename "$p")"
	fi
done >"$work/debugfs.cmd"
files=$(find "$root" -type f | wc -l)
cp --sparse=always "$disk" "$work/disk.img"
debugfs -w -f "$work/debugfs.cmd" "$work/disk.img" >"$work/debugfs.log" 2>&1
written=$(grep -c '^Allocated inode' "$work/debugfs.log" || true)
[ "$written" -eq "$files" ] || {
	echo "test-hotplug: debugfs wrote $written of $files files, see $work/debugfs.log" >&2
	exit 1
}

echo "test-hotplug: Linux $kver (systemd, udev) in qemu (TCG, $smp vCPUs): two boards, $cycles unplug/plug cycles and a reset, then the bridge"
timeout "$timeout_s" qemu-system-x86_64 -accel tcg -smp "$smp" -m 1024 -no-reboot -display none -nic none \
	-kernel "$vmlinuz" -initrd "$initrd" \
	-append "root=/dev/vda rw console=ttyS0 systemd.mask=serial-getty@ttyS0.service systemd.run=/root/phyllo-hotplug-guest.sh systemd.run_success_action=poweroff systemd.run_failure_action=poweroff systemd.default_timeout_start_sec=600 phyllo.cycles=$cycles phyllo.count=$count phyllo.bridged=$bridged phyllo.units=$units phyllo.ftdi=$ftdi" \
	-drive "file=$work/disk.img,if=virtio,format=raw,cache=unsafe" \
	-serial "file:$work/console.log" -serial "file:$work/report.log" \
	-device qemu-xhci,id=xhci \
	-chardev "socket,id=c0,path=$work/ser.sock,server=on,wait=off" \
	-qmp "unix:$work/qmp.sock,server=on,wait=off" &
qemu=$!

# running: qemu (its timeout) runs; kill -0 alone says yes to the zombie
# it leaves until this script waits for it.
running() {
	s=$(ps -o stat= -p "$qemu" 2>/dev/null)
	[ -n "$s" ] && [ "${s#Z}" = "$s" ]
}
# ask SEQ: the guest's SEQth ask ("plug 1 2"), once it has made it;
# false if qemu ended first.
ask() {
	while :; do
		if [ -f "$work/report.log" ]; then
			a=$(tr -d '\r' <"$work/report.log" | sed -n "s/^HOTPLUG-HOST $1 //p" | head -1)
			[ -n "$a" ] && echo "$a" && return 0
		fi
		running || return 1
		sleep 0.2
	done
}
qmp() { /usr/bin/python3 "$here/../qmp.py" "$work/qmp.sock" "$@" | sed 's/^/test-hotplug: /'; }
peer_start() {
	"$build/host/phyllo" peer --echo --connect "unix:$work/ser.sock" >>"$work/peer.log" 2>&1 &
	peer=$!
}
peer_start
n=1
while a=$(ask $n); do
	# shellcheck disable=SC2086
	set -- $a
	case $1 in
	# always-plugged: the adapter stays on the bus when its chardev's
	# client goes (by default QEMU unplugs it then), as an FTDI board's
	# USB chip stays when its microcontroller is reset
	plug) qmp device_add driver=usb-serial chardev=c0 id=ser0 "serial=$ftdi" bus=xhci.0 "port=$3" \
		always-plugged=on ;;
	unplug) qmp device_del id=ser0 ;;
	reset-stop)
		kill -9 "$peer" 2>/dev/null
		# its status is 137: under set -e a bare wait would end this script
		wait "$peer" 2>/dev/null || true
		echo "test-hotplug: reset $2: the FTDI board's far end killed"
		;;
	reset-start)
		peer_start
		echo "test-hotplug: reset $2: its far end started again"
		;;
	esac
	n=$((n + 1))
done
wait "$qemu" || echo "test-hotplug: qemu ended with status $? (124: timed out after $timeout_s s)"
qemu=
touch "$work/report.log"
tr -d '\r' <"$work/report.log" >"$work/report.txt"
grep -a -e '^ok' -e '^FAIL' -e '^     ' -e '^guest' -e '^timing' "$work/report.txt" || true
"$top/tests/kernel/log-check.sh" "$work/console.log" || exit 1
grep -aqx 'HOTPLUG-DONE 0' "$work/report.txt" || {
	sed -n '/^----/,$p' "$work/report.txt"
	echo "test-hotplug: FAILED; the guest's report: $work/report.txt, console: $work/console.log" >&2
	exit 1
}
passed=1
echo "test-hotplug: passed in $(($(date +%s) - start)) s"
