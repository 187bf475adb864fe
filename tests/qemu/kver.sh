#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# kver.sh - the kernel version the qemu guests boot: an installed
# /boot/vmlinuz-V (Debian's linux-image-amd64) whose headers
# (/lib/modules/V/build, linux-headers-amd64) are installed too. The newest.
for build in $(ls -d /lib/modules/*/build 2>/dev/null | sort -rV); do
	v=$(basename "$(dirname "$build")")
	if [ -e "/boot/vmlinuz-$v" ]; then
		echo "$v"
		exit 0
	fi
done
echo "kver.sh: no kernel with headers: apt-get install linux-image-amd64 linux-headers-amd64" >&2
exit 1
