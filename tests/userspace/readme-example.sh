#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# readme-example.sh MAKE DIR - what README.md tells a user to do with
# libphyllo, done literally: `make install` (DESTDIR=DIR/root, PREFIX=/usr),
# then the README's example program (the first C block after
# "## libphyllo") saved as DIR/ping.c and built as DIR/ping with
# `cc ping.c $(pkg-config --cflags --libs phyllo)` against that staged
# install. Used by test-install.sh and by the demo, which runs DIR/ping
# against the emulated Uno. Says which step failed on stderr, exits 1.
set -u
make=$1
d=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$d/root" "$d/ping.c" "$d/ping"
mkdir -p "$d"
fail() { echo "readme-example: $1" >&2; exit 1; }

$make -C "$top" --no-print-directory -s install DESTDIR="$d/root" PREFIX=/usr >"$d/install.log" 2>&1 ||
	{ cat "$d/install.log" >&2; fail "make install DESTDIR=$d/root PREFIX=/usr failed"; }
sed -n '/^## libphyllo/,/^## /p' "$top/README.md" | sed -n '/^```c$/,/^```$/p' | sed '1d;$d' \
	>"$d/ping.c"
[ -s "$d/ping.c" ] || fail "no C example under '## libphyllo' in README.md"
export PKG_CONFIG_SYSROOT_DIR="$d/root" PKG_CONFIG_PATH="$d/root/usr/lib/pkgconfig"
flags=$(pkg-config --cflags --libs phyllo) || fail "pkg-config phyllo failed"
# shellcheck disable=SC2086
cc -Wall -Wextra -Werror "$d/ping.c" $flags -o "$d/ping" ||
	fail "cc ping.c \$(pkg-config --cflags --libs phyllo) failed"
