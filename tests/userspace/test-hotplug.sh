#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# make test-hotplug: a USB serial adapter unplugged and plugged again, in a
# Debian 12 guest with systemd and udev under qemu (TCG), the link coming
# back by itself each time:
#  1. the cached disk of make test-dkms (tests/dkms/guest-root.sh) is
#     copied; phyllo.ko is built against that disk's own kernel headers
#     (read out of it with debugfs, kept in BUILD/hotplug/); `make install`
#     and `make install-bridge` (PREFIX=/usr/local), the module and
#     guest-hotplug.sh go into the copy (debugfs, no mount), and, in a git
#     checkout, the two units as they were at $PHYLLO_SECURITY_BASE
#     (default 0077e21, before their hardening) as phyllo-attach-base@ and
#     phyllo-bridge-base@, for systemd-analyze security's figures before;
#  2. its kernel boots with a USB controller (qemu-xhci), a chardev socket
#     that `phyllo peer --echo` answers, and a QMP socket;
#  3. guest-hotplug.sh asks for each plug and unplug on its report port;
#     this script does them: device_add usb-serial (QEMU's FTDI FT232,
#     0403:6001, ftdi_sio: ttyUSB0) on that chardev, device_del.
#  4. at the end the guest runs phyllo-bridge@ttyUSB0 on its own mosquitto
#     (the disk has Debian's): BRIDGED commands through it to the peer and
#     back, and systemd-analyze security of both units.
# Exits 0 only if the guest reports every check passed; qemu is stopped
# after $PHYLLO_HOTPLUG_TIMEOUT seconds (default 2400) whatever the guest
# does. Works in a mktemp folder under BUILD/hotplug/, removed when the
# test passes (else its logs are kept; the disk copy never is).
# Usage: test-hotplug.sh BUILD MAKE [CYCLES [COUNT [BRIDGED]]]
set -eu
build=$1 make=$2 cycles=${3:-2} count=${4:-200} bridged=${5:-20}
base=${PHYLLO_SECURITY_BASE:-0077e21}
timeout_s=${PHYLLO_HOTPLUG_TIMEOUT:-2400}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
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
for u in phyllo-attach phyllo-bridge; do
	git -C "$top" show "$base:userspace/system/$u@.service.in" 2>/dev/null |
		sed 's|@BINDIR@|/usr/local/bin|' >"$work/$u-base@.service" &&
		[ -s "$work/$u-base@.service" ] &&
		install -m 644 "$work/$u-base@.service" "$root/etc/systemd/system/" ||
		echo "test-hotplug: no $u@ unit at $base (not a git checkout?): no figure before"
done
# The tools' shared libraries that the disk lacks (libjansson, say).
for lib in $(for t in phyllo phyllo-bridge; do ldd "$build/host/$t"; done | grep -o '/[^ ]*' | sort -u); do
	debugfs -R "stat $lib" "$disk" 2>/dev/null | grep -q '^Inode:' ||
		install -D -m 644 "$(readlink -f "$lib")" "$root$lib"
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

echo "test-hotplug: Linux $kver (systemd, udev) in qemu (TCG): $cycles unplug/plug cycles, $count echoes each, then the bridge"
timeout "$timeout_s" qemu-system-x86_64 -accel tcg -smp 1 -m 1024 -no-reboot -display none -nic none \
	-kernel "$vmlinuz" -initrd "$initrd" \
	-append "root=/dev/vda rw console=ttyS0 systemd.mask=serial-getty@ttyS0.service systemd.run=/root/phyllo-hotplug-guest.sh systemd.run_success_action=poweroff systemd.run_failure_action=poweroff phyllo.cycles=$cycles phyllo.count=$count phyllo.bridged=$bridged" \
	-drive "file=$work/disk.img,if=virtio,format=raw,cache=unsafe" \
	-serial "file:$work/console.log" -serial "file:$work/report.log" \
	-device qemu-xhci,id=xhci \
	-chardev "socket,id=c0,path=$work/ser.sock,server=on,wait=off" \
	-qmp "unix:$work/qmp.sock,server=on,wait=off" &
qemu=$!
"$build/host/phyllo" peer --echo --connect "unix:$work/ser.sock" >"$work/peer.log" 2>&1 &
peer=$!

# asked WHAT: wait for the guest to ask for WHAT; false if qemu ended first.
asked() {
	until [ -f "$work/report.log" ] && tr -d '\r' <"$work/report.log" | grep -aqx "HOTPLUG-HOST $1"; do
		kill -0 "$qemu" 2>/dev/null || return 1
		sleep 1
	done
}
qmp() { /usr/bin/python3 "$here/qmp.py" "$work/qmp.sock" "$@" | sed 's/^/test-hotplug: /'; }
r=0
while asked "plug $r"; do
	qmp device_add driver=usb-serial chardev=c0 id=ser0 serial=PHYLLOHP0001
	[ $r -lt "$cycles" ] || break
	r=$((r + 1))
	asked "unplug $r" || break
	qmp device_del id=ser0
done
wait "$qemu" || echo "test-hotplug: qemu ended with status $? (124: timed out after $timeout_s s)"
qemu=
touch "$work/report.log"
tr -d '\r' <"$work/report.log" >"$work/report.txt"
grep -a -e '^ok' -e '^FAIL' -e '^     ' -e '^guest' "$work/report.txt" || true
"$top/tests/kernel/log-check.sh" "$work/console.log" || exit 1
grep -aqx 'HOTPLUG-DONE 0' "$work/report.txt" || {
	sed -n '/^----/,$p' "$work/report.txt"
	echo "test-hotplug: FAILED; the guest's report: $work/report.txt, console: $work/console.log" >&2
	exit 1
}
passed=1
echo "test-hotplug: passed in $(($(date +%s) - start)) s"
