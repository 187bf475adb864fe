#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# unstable-chroot.sh - the cached Debian unstable chroot in which phyllo.ko
# is built against the newest kernel (its headers need unstable's
# compiler), ~/.cache/phyllo/unstable, made by scripts/debian-chroot.sh;
# once a day its headers are brought to the newest in unstable.
# Usage: tests/kernel/unstable-chroot.sh              make it ready, print the root
#        tests/kernel/unstable-chroot.sh run SRC OUT CMD...
#          run CMD in the chroot with SRC read-only at /phyllo and OUT at
#          /out (see scripts/debian-chroot.sh).
set -e
chroot=$(cd "$(dirname "$0")/../../scripts" && pwd)/debian-chroot.sh
if [ "${1:-}" = run ]; then
	shift
	exec "$chroot" unstable run "$@"
fi
exec "$chroot" unstable sid --daily gcc make libc6-dev kmod linux-headers-amd64
