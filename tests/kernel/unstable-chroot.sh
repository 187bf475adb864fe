#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# unstable-chroot.sh - the cached Debian unstable chroot in which phyllo.ko
# is built against the newest kernel (its headers need unstable's
# compiler). Prints the chroot's root.
# Usage: tests/kernel/unstable-chroot.sh
#          make it ready: debootstrap (minbase, from the archive the host's
#          apt uses, debian-apt.sh --mirror), then gcc, make, kmod and
#          linux-headers-amd64; once a day the headers are brought to the
#          newest in unstable. Lives in ~/.cache/phyllo/unstable/root.
#        tests/kernel/unstable-chroot.sh run SRC OUT CMD...
#          run CMD in the chroot with SRC bound read-only at /phyllo and
#          OUT (made if missing) at /out, in a private mount namespace, so
#          nothing stays mounted on the host.
set -e
here=$(cd "$(dirname "$0")" && pwd)
top=${PHYLLO_KCACHE:-$HOME/.cache/phyllo}/unstable
root=$top/root

# in_root CMD...: CMD in the chroot with /proc and /dev, mounts private.
in_root() {
	unshare -m --propagation private sh -c '
		r=$1; shift
		mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" &&
		exec chroot "$r" "$@"' sh "$root" "$@"
}

if [ "$1" = run ]; then
	src=$2 out=$3
	shift 3
	mkdir -p "$out" "$root/phyllo" "$root/out"
	exec unshare -m --propagation private sh -c '
		r=$1 src=$2 out=$3; shift 3
		mount --bind "$src" "$r/phyllo" && mount -o remount,bind,ro "$r/phyllo" &&
		mount --bind "$out" "$r/out" &&
		mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" &&
		exec chroot "$r" "$@"' sh "$root" "$src" "$out" "$@"
fi

apt_in() {
	DEBIAN_FRONTEND=noninteractive in_root apt-get -q -o DPkg::Lock::Timeout=900 "$@"
}

if [ ! -f "$root/.phyllo-debootstrapped" ]; then
	mirror=$("$here/debian-apt.sh" --mirror)
	echo "unstable-chroot: debootstrap sid from $mirror into $root" >&2
	rm -rf "$root"
	mkdir -p "$top"
	debootstrap --variant=minbase sid "$root" "$mirror" >"$top/debootstrap.log" 2>&1 || {
		tail -20 "$top/debootstrap.log" >&2
		exit 1
	}
	touch "$root/.phyllo-debootstrapped"
fi
stamp=$root/.phyllo-ready
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mtime +0)" ]; then
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	# Judge the archive's Release files as the host's apt does (a mirror
	# that serves a frozen archive turns validity checks off).
	apt-config dump | grep -E '^Acquire::Check-(Valid-Until|Date) ' \
		>"$root/etc/apt/apt.conf.d/99phyllo-host" || true
	echo "unstable-chroot: bringing linux-headers-amd64 to the newest in unstable" >&2
	apt_in update >"$top/apt.log" 2>&1 &&
		apt_in install -y --no-install-recommends gcc make libc6-dev kmod \
			linux-headers-amd64 >>"$top/apt.log" 2>&1 &&
		apt_in autoremove -y --purge >>"$top/apt.log" 2>&1 &&
		apt_in clean >>"$top/apt.log" 2>&1 || {
		tail -20 "$top/apt.log" >&2
		exit 1
	}
	touch "$stamp"
fi
echo "$root"
