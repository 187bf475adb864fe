#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# guest-root.sh - the cached Debian 12 disk of make test-dkms, and its
# first kernel, as shell assignments (for eval):
#   disk=     ext4 image (raw) of a debootstrapped bookworm with systemd,
#             dkms, linux-image-amd64 and linux-headers-amd64 (6.1)
#             installed, bookworm-backports in its sources, and in its apt
#             cache every package `apt install --no-install-recommends -t
#             bookworm-backports linux-image-amd64 linux-headers-amd64`
#             needs, so the guest needs no network. Debian's mosquitto
#             and mosquitto-clients are there for test-hotplug's bridge
#             (its guest starts the broker). dkms is installed here
#             rather than pulled in by phyllo-dkms in the guest: 100-odd
#             packages unpacked under TCG took most of the run. dpkg runs
#             with force-unsafe-io (a throw-away disk).
#   vmlinuz=, initrd=   its 6.1 kernel and initramfs, to boot it with qemu
# Made once per version of this script and of the backports kernel, in
# ~/.cache/phyllo/dkms-guest/<key>/; the archive address comes from the
# host's apt sources (tests/kernel/debian-apt.sh --mirror).
set -e
here=$(cd "$(dirname "$0")" && pwd)
kernel=$here/../kernel
eval "$("$kernel/kernel-get.sh" 6.12)"
key=$(cat "$0" | sha256sum | cut -c1-12)-$kver
dir=${PHYLLO_KCACHE:-$HOME/.cache/phyllo}/dkms-guest/$key
# One build at a time (test-dkms and test-hotplug may ask at once; the
# second waits, then finds the disk made). Beside the folder: it is
# removed and made again below.
mkdir -p "${dir%/*}"
exec 9>"$dir.lock"
flock 9

if [ ! -f "$dir/disk.img" ]; then
	mirror=$("$kernel/debian-apt.sh" --mirror)
	root=$dir/root
	log=$dir/build.log
	rm -rf "$dir"
	mkdir -p "$dir"
	# It says so, and how long the last one took (scripts/cold.sh; the
	# record of an earlier key's disk, since this key's is new).
	. "$here/../../scripts/cold.sh"
	cold_begin "guest-root: the Debian 12 guest disk (systemd, dkms, 6.1)" \
		"$dir/.phyllo-cold" "${dir%/*}/*/.phyllo-cold"
	echo "guest-root: debootstrap bookworm from $mirror into $root (log: $log)" >&2
	in_root() {
		unshare -m --propagation private sh -c '
			r=$1; shift
			mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" &&
			exec chroot "$r" "$@"' sh "$root" "$@" >>"$log" 2>&1
	}
	apt_in() {
		DEBIAN_FRONTEND=noninteractive in_root apt-get -q -y \
			-o DPkg::Lock::Timeout=900 "$@"
	}
	debootstrap --variant=minbase --include=systemd-sysv \
		bookworm "$root" "$mirror" >"$log" 2>&1 || { tail -20 "$log" >&2; exit 1; }
	cat >"$root/etc/apt/sources.list" <<-EOS
		deb $mirror bookworm main
		deb $mirror bookworm-backports main
	EOS
	# Judge the archive's Release files as the host's apt does.
	apt-config dump | grep -E '^Acquire::Check-(Valid-Until|Date) ' \
		>"$root/etc/apt/apt.conf.d/99phyllo-host" || true
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod +x "$root/usr/sbin/policy-rc.d"
	echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/phyllo-unsafe-io"
	# Whatever triggers an initramfs update goes in before the kernel, so
	# its initramfs is made once (MODULES=most: any disk driver).
	{
		apt_in update &&
			apt_in install --no-install-recommends udev kmod util-linux \
				procps initramfs-tools dkms mosquitto mosquitto-clients &&
			apt_in install --no-install-recommends linux-image-amd64 \
				linux-headers-amd64 &&
			apt_in install -d --no-install-recommends -t bookworm-backports \
				linux-image-amd64 linux-headers-amd64
	} || { tail -30 "$log" >&2; exit 1; }
	rm -f "$root/usr/sbin/policy-rc.d" "$root/etc/resolv.conf"
	echo phyllo-dkms >"$root/etc/hostname"
	echo '/dev/vda / ext4 defaults 0 1' >"$root/etc/fstab"
	# The chroot's initramfs has every driver (MODULES=most); the guest's
	# own kernel installs need only what it runs on.
	echo MODULES=dep >"$root/etc/initramfs-tools/conf.d/phyllo-guest"
	k=$(ls "$root/boot" | sed -n 's/^vmlinuz-//p' | head -1)
	cp "$root/boot/vmlinuz-$k" "$dir/vmlinuz"
	cp "$root/boot/initrd.img-$k" "$dir/initrd"
	mkfs.ext4 -q -F -L phyllo -d "$root" "$dir/disk.img.tmp" 6G >>"$log" 2>&1
	mv "$dir/disk.img.tmp" "$dir/disk.img"
	rm -rf "$root"
	cold_end
fi
echo "disk=$dir/disk.img"
echo "vmlinuz=$dir/vmlinuz"
echo "initrd=$dir/initrd"
