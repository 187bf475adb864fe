#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# debian-chroot.sh - the cached Debian chroots some builds need: tools of
# another release (trixie's avr-gcc for the Nano Every, unstable's
# compiler for the newest kernel's headers). One implementation for all.
# Usage:
#   scripts/debian-chroot.sh NAME SUITE [--daily] PKG...
#       make ~/.cache/phyllo/NAME/root ready and print it: debootstrap
#       --variant=minbase SUITE from the archive the host's own apt uses
#       (tests/kernel/debian-apt.sh --mirror: no host name is written in
#       the repository), then install PKG...; with --daily the packages
#       are brought to the newest in SUITE once a day, else once.
#   scripts/debian-chroot.sh NAME run SRC OUT CMD...
#       run CMD in the chroot, in /phyllo where the checkout SRC is bound
#       read-only, with OUT (made if missing) bound at /out, in a private
#       mount namespace: nothing stays mounted on the host.
set -e
here=$(cd "$(dirname "$0")" && pwd)
name=$1
shift
top=${PHYLLO_KCACHE:-$HOME/.cache/phyllo}/$name
root=$top/root

if [ "${1:-}" = run ]; then
	src=$2 out=$3
	shift 3
	mkdir -p "$out" "$root/phyllo" "$root/out"
	exec unshare -m --propagation private sh -c '
		r=$1 src=$2 out=$3; shift 3
		mount --bind "$src" "$r/phyllo" && mount -o remount,bind,ro "$r/phyllo" &&
		mount --bind "$out" "$r/out" &&
		mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" &&
		exec chroot "$r" sh -c "cd /phyllo && exec \"\$@\"" sh "$@"' sh "$root" "$src" "$out" "$@"
fi

suite=$1
shift
# One setup at a time per chroot (two targets of make check may ask at
# once; the second waits, then finds it ready).
mkdir -p "$top"
exec 9>"$top/.phyllo-lock"
flock 9
daily=
if [ "${1:-}" = --daily ]; then
	daily=1
	shift
fi

# in_root CMD...: CMD in the chroot with /proc and /dev, mounts private.
in_root() {
	unshare -m --propagation private sh -c '
		r=$1; shift
		mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" &&
		exec chroot "$r" "$@"' sh "$root" "$@"
}

apt_in() {
	DEBIAN_FRONTEND=noninteractive in_root apt-get -q -o DPkg::Lock::Timeout=900 "$@"
}

# A new chroot (debootstrap and the first install) says so, and how long
# the last new one took (cold.sh: NAME/.phyllo-cold, else another
# chroot's).
. "$here/cold.sh"
cold=
if [ ! -f "$root/.phyllo-debootstrapped" ]; then
	command -v debootstrap >/dev/null || {
		echo "debian-chroot: debootstrap missing (apt-get install debootstrap)" >&2
		exit 1
	}
	mirror=$("$here/../tests/kernel/debian-apt.sh" --mirror)
	cold=1
	cold_begin "$name: the Debian $suite chroot" "$top/.phyllo-cold" \
		"${top%/*}/*/.phyllo-cold"
	echo "$name: debootstrap $suite from the host's archive into $root" >&2
	rm -rf "$root"
	mkdir -p "$top"
	debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$top/debootstrap.log" 2>&1 || {
		tail -20 "$top/debootstrap.log" >&2
		exit 1
	}
	touch "$root/.phyllo-debootstrapped"
fi
stamp=$root/.phyllo-ready
if [ ! -f "$stamp" ] || { [ -n "$daily" ] && [ -n "$(find "$stamp" -mtime +0)" ]; }; then
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	# Judge the archive's Release files as the host's apt does (a mirror
	# that serves a frozen archive turns validity checks off).
	apt-config dump | grep -E '^Acquire::Check-(Valid-Until|Date) ' \
		>"$root/etc/apt/apt.conf.d/99phyllo-host" || true
	echo "$name: installing $* in the chroot" >&2
	apt_in update >"$top/apt.log" 2>&1 &&
		apt_in install -y --no-install-recommends "$@" >>"$top/apt.log" 2>&1 &&
		apt_in autoremove -y --purge >>"$top/apt.log" 2>&1 &&
		apt_in clean >>"$top/apt.log" 2>&1 || {
		tail -20 "$top/apt.log" >&2
		exit 1
	}
	touch "$stamp"
fi
[ -z "$cold" ] || cold_end
echo "$root"
