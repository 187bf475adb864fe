#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# toolchain.sh - avr-gcc for the megaAVR 0-series (ATmega4809, Nano Every).
#
# Debian 12's gcc-avr 5.4 / avr-libc 2.0 predate the chip; trixie's gcc-avr
# 14 and avr-libc 2.2 know it but need trixie's C library, so they live in
# a cached trixie chroot, ~/.cache/phyllo/trixie-avr, made once by
# scripts/debian-chroot.sh (from the archive the host's own apt uses).
# Usage:
#   firmware/megaavr/toolchain.sh            make it ready, print the root
#   firmware/megaavr/toolchain.sh run SRC OUT CMD...
#       run CMD in the chroot, in /phyllo (the checkout SRC, read-only),
#       with OUT at /out (see scripts/debian-chroot.sh).
set -e
chroot=$(cd "$(dirname "$0")/../../scripts" && pwd)/debian-chroot.sh
if [ "${1:-}" = run ]; then
	shift
	exec "$chroot" trixie-avr run "$@"
fi
exec "$chroot" trixie-avr trixie gcc-avr avr-libc binutils-avr make
