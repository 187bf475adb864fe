#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# toolchain.sh - avr-gcc for the megaAVR 0-series (ATmega4809, Nano Every).
#
# Debian 12's gcc-avr 5.4 / avr-libc 2.0 predate the chip; trixie's gcc-avr
# 14 and avr-libc 2.2 know it but need trixie's C library, so they live in
# a cached trixie chroot (debootstrap --variant=minbase) under
# ~/.cache/phyllo/trixie-avr, made once from the archive the host's own apt
# uses (tests/kernel/debian-apt.sh --mirror: no host name is written here).
# Usage:
#   firmware/megaavr/toolchain.sh            make it ready, print the root
#   firmware/megaavr/toolchain.sh run SRC OUT CMD...
#       run CMD in the chroot with the checkout SRC bound read-only at
#       /phyllo (the working directory) and OUT (made if missing) at /out,
#       in a private mount namespace (nothing stays mounted on the host).
set -e
here=$(cd "$(dirname "$0")" && pwd)
top=${PHYLLO_KCACHE:-$HOME/.cache/phyllo}/trixie-avr
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

in_root() {
	unshare -m --propagation private sh -c '
		r=$1; shift
		mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" &&
		exec chroot "$r" "$@"' sh "$root" "$@"
}

if [ ! -f "$root/.phyllo-debootstrapped" ]; then
	command -v debootstrap >/dev/null || {
		echo "toolchain.sh: debootstrap missing (scripts/deps.sh megaavr)" >&2
		exit 1
	}
	mirror=$("$here/../../tests/kernel/debian-apt.sh" --mirror)
	echo "megaavr: debootstrap trixie from the host's archive into $root" >&2
	rm -rf "$root"
	mkdir -p "$top"
	debootstrap --variant=minbase trixie "$root" "$mirror" >"$top/debootstrap.log" 2>&1 || {
		tail -20 "$top/debootstrap.log" >&2
		exit 1
	}
	touch "$root/.phyllo-debootstrapped"
fi
if [ ! -f "$root/.phyllo-ready" ]; then
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	# Judge the archive's Release files as the host's apt does.
	apt-config dump | grep -E '^Acquire::Check-(Valid-Until|Date) ' \
		>"$root/etc/apt/apt.conf.d/99phyllo-host" || true
	echo "megaavr: installing gcc-avr, avr-libc, binutils-avr, make in the chroot" >&2
	{ DEBIAN_FRONTEND=noninteractive in_root apt-get -q -o DPkg::Lock::Timeout=900 update &&
	  DEBIAN_FRONTEND=noninteractive in_root apt-get -q -o DPkg::Lock::Timeout=900 install -y \
		--no-install-recommends gcc-avr avr-libc binutils-avr make &&
	  in_root apt-get clean; } >"$top/apt.log" 2>&1 || {
		tail -20 "$top/apt.log" >&2
		exit 1
	}
	touch "$root/.phyllo-ready"
fi
echo "$root"
