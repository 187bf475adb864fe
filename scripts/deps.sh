#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# Install the Debian packages a make target needs, only those missing.
# Usage: scripts/deps.sh GROUP...   (groups: core avr kernel qemu arduino fuzz storm
#        kernels dkms python cortexm cortexm-flash megaavr capture arm mqtt mqtt-lib rabbitmq
#        deb packages bench)
set -e
pkgs="" preseed=""
for group in "$@"; do
	case "$group" in
	core)    pkgs="$pkgs gcc make libc6-dev python3 python3-msgpack libjansson-dev pkg-config" ;;
	python)  pkgs="$pkgs python3 python3-msgpack python3-pytest" ;;
	bench)   pkgs="$pkgs python3 python3-matplotlib" ;;
	rabbitmq) pkgs="$pkgs rabbitmq-server" ;;
	mqtt-lib) pkgs="$pkgs libmosquitto-dev" ;;
	mqtt)    pkgs="$pkgs libmosquitto-dev mosquitto mosquitto-clients openssl python3 python3-paho-mqtt iproute2 systemd" ;;
	avr)     pkgs="$pkgs gcc-avr avr-libc binutils-avr simavr libsimavr-dev libelf-dev pkg-config gcc libc6-dev python3" ;;
	kernel)  pkgs="$pkgs linux-source-6.1 user-mode-linux bc flex bison libssl-dev libelf-dev python3 ccache xz-utils util-linux rsync git patch gcc make libc6-dev kmod sparse" ;;
	qemu)    pkgs="$pkgs linux-image-amd64 linux-headers-amd64 qemu-system-x86 qemu-system-misc busybox-static cpio util-linux gcc libc6-dev gzip" ;;
	arduino) pkgs="$pkgs arduino-core-avr arduino-builder avrdude zip unzip g++" ;;
	storm)   pkgs="$pkgs linux-source-6.1 linux-image-amd64 linux-headers-amd64 bc flex bison libssl-dev libelf-dev ccache xz-utils rsync patch gcc make libc6-dev kmod qemu-system-x86 busybox-static cpio util-linux gzip" ;;
	fuzz)    pkgs="$pkgs clang libclang-rt-14-dev libfuzzer-14-dev make" ;;
	kernels) pkgs="$pkgs debootstrap dwarves xz-utils util-linux dpkg gcc make libc6-dev libelf1 kmod rsync" ;;
	dkms)    pkgs="$pkgs debhelper dh-dkms dpkg-dev debootstrap e2fsprogs qemu-system-x86 util-linux gcc libc6-dev" ;;
	deb)     pkgs="$pkgs debhelper dh-dkms dpkg-dev dh-python python3-all python3-setuptools pybuild-plugin-pyproject libjansson-dev libmosquitto-dev pkg-config gcc make libc6-dev" ;;
	packages) pkgs="$pkgs lintian debootstrap util-linux python3-venv python3-setuptools python3-wheel python3-msgpack" ;;
	arm)     pkgs="$pkgs gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf libc6-dev-arm64-cross libc6-dev-armhf-cross binutils-aarch64-linux-gnu binutils-arm-linux-gnueabihf qemu-system-arm dpkg apt" ;;
	cortexm) pkgs="$pkgs gcc-arm-none-eabi libnewlib-arm-none-eabi binutils-arm-none-eabi qemu-system-arm gcc libc6-dev python3" ;;
	megaavr) pkgs="$pkgs debootstrap util-linux gcc libc6-dev" ;;
	cortexm-flash) pkgs="$pkgs teensy-loader-cli bossa-cli" ;;
	flash)   pkgs="$pkgs avrdude" ;;
	# tshark asks whether non-root users may capture: no (preseeded)
	capture) pkgs="$pkgs tshark debconf"; preseed="wireshark-common wireshark-common/install-setuid boolean false" ;;
	*) echo "deps.sh: unknown group '$group'" >&2; exit 2 ;;
	esac
done
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: missing packages:$missing (run as root, or: sudo apt-get install$missing)" >&2
	exit 1
fi
# stderr, as everything here: callers capture the stdout of scripts that
# call this one (deb=$(scripts/deb.sh ...)).
echo "deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# Wait for another install (a parallel make, unattended upgrades) rather
# than fail on the dpkg lock.
lock="-o DPkg::Lock::Timeout=900"
apt-get $lock update -q >/dev/null
[ -z "$preseed" ] || echo "$preseed" | debconf-set-selections
apt-get $lock install -y -q --no-install-recommends $missing >/dev/null
