#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-install.sh - `make install` into a DESTDIR: the tool, libphyllo
# (shared with its soname, and static), the header, phyllo.pc and the man
# pages; then the README's example program, taken from README.md, built
# with `cc $(pkg-config --cflags --libs phyllo)` against that staged
# install (shared and static) and run against `phyllo peer --echo` on a pty.
# Usage: test-install.sh MAKE PHYLLO_BINARY
set -u
make=$1
bin=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
d=$(mktemp -d)
pass=0
fail=0
board=
trap '[ -n "$board" ] && kill $board 2>/dev/null; rm -rf "$d"' EXIT

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f "$d/err" ] && sed 's/^/     /' "$d/err"; }

# make install, the example taken from README.md and built with pkg-config
"$top/tests/userspace/readme-example.sh" "$make" "$d" 2>"$d/err" &&
	ok "make install DESTDIR=... PREFIX=/usr; README example ($(wc -l <"$d/ping.c") lines) built with cc \$(pkg-config --cflags --libs phyllo)" ||
	bad "make install, or the README example's build"
r=$d/root/usr
for f in bin/phyllo share/man/man1/phyllo.1 share/man/man4/phyllo.4 include/libphyllo.h \
	lib/libphyllo.a lib/libphyllo.so lib/libphyllo.so.0 lib/pkgconfig/phyllo.pc \
	share/man/man3/libphyllo.3 share/man/man3/phyllo_open.3 share/man/man3/phyllo_recv.3; do
	[ -e "$r/$f" ] && ok "installed $f" || bad "missing $f"
done
objdump -p "$r/lib/libphyllo.so" | grep -q "SONAME *libphyllo.so.0$" && ok "soname libphyllo.so.0" ||
	bad "soname"
# only the API is exported: no core or helper symbols
extra=$(nm -D --defined-only "$r/lib/libphyllo.so" | awk '{print $3}' | grep -v '^phyllo_' || true)
core=$(nm -D --defined-only "$r/lib/libphyllo.so" | awk '{print $3}' |
	grep -E '^phyllo_(stack|arq|cobs|crc|mp|pubsub|doc|datagram|validated|chunk)_' || true)
[ -z "$extra$core" ] && ok "exports only the API" || bad "exports more: $extra $core"
undocumented=
for sym in $(nm -D --defined-only "$r/lib/libphyllo.so" | awk '{print $3}'); do
	[ -f "$r/share/man/man3/$sym.3" ] || undocumented="$undocumented $sym"
done
[ -z "$undocumented" ] && ok "every exported function has a man page" ||
	bad "no man page for:$undocumented"

export PKG_CONFIG_SYSROOT_DIR="$d/root" PKG_CONFIG_PATH="$r/lib/pkgconfig"
pkg-config --modversion phyllo >"$d/ver" 2>"$d/err" && ok "pkg-config phyllo: $(cat "$d/ver")" ||
	bad "pkg-config phyllo"
# shellcheck disable=SC2046
cc -Wall -Wextra -Werror "$d/ping.c" $(pkg-config --cflags phyllo) "$r/lib/libphyllo.a" \
	$(pkg-config --static --libs-only-l phyllo | sed 's/-lphyllo//') -o "$d/ping-static" \
	2>"$d/err" && ok "the same against libphyllo.a" || bad "build (static)"

"$bin" peer --echo --pty "$d/pty" 2>/dev/null &
board=$!
i=0
while [ ! -L "$d/pty" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
LD_LIBRARY_PATH="$r/lib" "$d/ping" "$d/pty" >"$d/out" 2>"$d/err"
[ "$(cat "$d/out")" = "ping 1" ] && ok "README example on a pty: $(cat "$d/out")" ||
	bad "README example printed '$(cat "$d/out")'"
LD_LIBRARY_PATH="$r/lib" ldd "$d/ping" | grep -q "$r/lib/libphyllo.so.0" &&
	ok "it ran on the installed libphyllo.so.0" || bad "not linked to the staged library"
"$d/ping-static" "$d/pty" >"$d/out" 2>"$d/err"
[ "$(cat "$d/out")" = "ping 1" ] && ok "static build on a pty: $(cat "$d/out")" ||
	bad "static example printed '$(cat "$d/out")'"
"$d/ping-static" "$d/nothing" >"$d/out" 2>"$d/err"
grep -q "No such file" "$d/err" && ok "and says why it cannot open a path" || bad "open error"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
