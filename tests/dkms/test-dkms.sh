#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make test-dkms: the phyllo-dkms package installed as a user would, in a
# Debian 12 guest with systemd under qemu (TCG), offline:
#  1. build the .deb (scripts/deb.sh); copy the cached disk (guest-root.sh) and put
#     the .deb, guest.sh and phyllo-kclient into it (debugfs, no mount);
#  2. boot its 6.1 kernel: guest.sh installs the package (DKMS builds for
#     6.1), then the 6.12 backports kernel and headers (DKMS builds for
#     6.12), and powers off;
#  3. "reboot" into 6.12: the kernel and initramfs the guest installed are
#     read back from the disk and booted; guest.sh loads the module,
#     attaches it with ldattach to ttyS1, where `phyllo peer --echo` on the
#     host answers, moves COUNT units each way, then apt removes the
#     package and checks nothing of it is left.
# With SHORT=1 (make test-dkms-short, in make check): one boot, 6.1 alone:
# apt install (DKMS builds for 6.1), modprobe, ldattach and COUNT units on
# 6.1, apt remove; no second kernel, no reboot (dkms-short.sh checks the
# package's build against 6.12's headers on the host instead).
# Usage: [SHORT=1] tests/dkms/test-dkms.sh BUILDDIR [COUNT]
set -e
build=$1 count=${2:-1000} short=${SHORT:-0}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$repo/tests/qemu/boot.sh"
mkdir -p "$build/host"
build=$(cd "$build" && pwd)
deb=$("$repo/scripts/deb.sh" "$build")
# one path, of a file (what deb.sh or the scripts it runs print on stdout
# would otherwise become debugfs commands below)
[ -f "$deb" ] || {
	echo "test-dkms: deb.sh printed no package path but: $deb" >&2
	exit 1
}
eval "$("$here/guest-root.sh")"
gcc -std=gnu11 -Wall -Wextra -Werror -Wundef -O2 -I"$repo/uapi" \
	"$repo/tests/kernel/phyllo-kclient.c" -o "$build/host/phyllo-kclient"
out=$build/dkms/guest
rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)
cp --sparse=always "$disk" "$out/disk.img"
rc=0
debugfs -w -f - "$out/disk.img" >"$out/debugfs.log" 2>&1 <<EOC || rc=$?
cd /root
write $deb $(basename "$deb")
write $here/guest.sh phyllo-dkms-guest.sh
sif /root/phyllo-dkms-guest.sh mode 0100755
cd /usr/local/bin
write $build/host/phyllo-kclient phyllo-kclient
sif /usr/local/bin/phyllo-kclient mode 0100755
EOC
# debugfs exits 0 when a write fails, non-zero for a line it cannot parse:
# both say so here, with its log
written=$(grep -c '^Allocated inode' "$out/debugfs.log" || true)
if [ $rc != 0 ] || [ "$written" != 3 ]; then
	echo "test-dkms: debugfs (status $rc) wrote $written of 3 files into the guest's disk:" >&2
	cat "$out/debugfs.log" >&2
	exit 1
fi

# boot NAME KERNEL INITRD: one boot of the guest; guest.sh powers it off.
boot() {
	rm -f "$out/ttyS1.sock"
	qemu_link_boot 2400 "$out/$1.log" "$out/ttyS1.sock" "" "$out/$1-peer.log" "" \
		qemu-system-x86_64 -accel tcg -smp 2 -m 1536 -no-reboot \
		-display none -nic none -kernel "$2" -initrd "$3" \
		-append "root=/dev/vda rw console=ttyS0 systemd.mask=serial-getty@ttyS0.service systemd.run=/root/phyllo-dkms-guest.sh systemd.run_success_action=poweroff systemd.run_failure_action=poweroff phyllo.count=$count phyllo.short=$short" \
		-drive "file=$out/disk.img,if=virtio,format=raw,cache=unsafe" \
		-serial "file:$out/$1.log" \
		-serial "unix:$out/ttyS1.sock,server=on,wait=off"
	grep -a "phyllo-dkms:\|PHYLLO-DKMS\|kclient:\|^{\|DKMS: \|: installed" "$out/$1.log" || true
	"$repo/tests/kernel/log-check.sh" "$out/$1.log"
}

if [ "$short" = 1 ]; then
	echo "test-dkms: one boot (6.1): apt install ./$(basename "$deb"), modprobe, ldattach, $count units, apt remove"
	boot boot1 "$vmlinuz" "$initrd"
	grep -aq "PHYLLO-DKMS stage2 OK" "$out/boot1.log" || {
		echo "test-dkms: the boot failed, see $out/boot1.log and $out/boot1-peer.log" >&2
		exit 1
	}
	echo "test-dkms: phyllo-dkms built by DKMS for 6.1, $count units on it, removed cleanly, in $(($(date +%s) - start)) s"
	exit 0
fi
echo "test-dkms: first boot (6.1): apt install ./$(basename "$deb"), then the 6.12 kernel"
boot boot1 "$vmlinuz" "$initrd"
grep -aq "PHYLLO-DKMS stage1 OK" "$out/boot1.log" || {
	echo "test-dkms: the first boot failed, see $out/boot1.log" >&2
	exit 1
}
new=$(sed -n 's/.*PHYLLO-DKMS stage1 OK \([^ \r]*\).*/\1/p' "$out/boot1.log" | head -1)
for f in vmlinuz initrd.img; do
	debugfs -R "dump /boot/$f-$new $out/$f-$new" "$out/disk.img" >>"$out/debugfs.log" 2>&1
	[ -s "$out/$f-$new" ] || { echo "test-dkms: no /boot/$f-$new in the guest" >&2; exit 1; }
done
echo "test-dkms: second boot ($new): modprobe, ldattach, $count units, apt remove"
boot boot2 "$out/vmlinuz-$new" "$out/initrd.img-$new"
grep -aq "PHYLLO-DKMS stage2 OK" "$out/boot2.log" || {
	echo "test-dkms: the second boot failed, see $out/boot2.log and $out/boot2-peer.log" >&2
	exit 1
}
echo "test-dkms: phyllo-dkms built by DKMS for 6.1 and (autoinstall) $new, $count units on $new, removed cleanly, in $(($(date +%s) - start)) s"
