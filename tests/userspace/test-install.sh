#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-install.sh - `make install` into a DESTDIR: the tool, libphyllo
# (shared with its soname, and static), the header, phyllo.pc, the man
# pages and the tmpfiles.d entry for /run/phyllo; then the README's example program, taken from README.md, built
# with `cc $(pkg-config --cflags --libs phyllo)` against that staged
# install (shared and static) and run against `phyllo peer --echo` on a pty.
# Usage: test-install.sh MAKE PHYLLO_BINARY
set -u
make=$1
bin=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/checks.sh"

# make install, the example taken from README.md and built with pkg-config
"$top/tests/userspace/readme-example.sh" "$make" "$dir" 2>"$dir/err" &&
	ok "make install DESTDIR=... PREFIX=/usr; README example ($(wc -l <"$dir/ping.c") lines) built with cc \$(pkg-config --cflags --libs phyllo)" ||
	bad "make install, or the README example's build"
r=$dir/root/usr
for f in bin/phyllo share/man/man1/phyllo.1 share/man/man4/phyllo.4 include/libphyllo.h \
	lib/libphyllo.a lib/libphyllo.so lib/libphyllo.so.0 lib/pkgconfig/phyllo.pc \
	share/man/man3/libphyllo.3 share/man/man3/phyllo_open.3 share/man/man3/phyllo_recv.3 \
	share/bash-completion/completions/phyllo lib/tmpfiles.d/phyllo.conf; do
	[ -e "$r/$f" ] && ok "installed $f" || bad "missing $f"
done
# issue 27, 4: /run/phyllo, where --tty programs report for stats --tty
grep -q '^d /run/phyllo 0755 root root -$' "$r/lib/tmpfiles.d/phyllo.conf" &&
	ok "4: tmpfiles.d makes /run/phyllo at boot" || bad "4: tmpfiles.d/phyllo.conf"
# issue 27, 8: capture --help names the dissector as installed, beside the tool
"$r/bin/phyllo" capture --help >"$dir/out" 2>"$dir/err"
grep -qx "$r/share/phyllo/wireshark/phyllo.lua" "$dir/out" &&
	ok "8: capture --help names the installed dissector" || bad "8: capture --help's dissector"
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

export PKG_CONFIG_SYSROOT_DIR="$dir/root" PKG_CONFIG_PATH="$r/lib/pkgconfig"
pkg-config --modversion phyllo >"$dir/ver" 2>"$dir/err" && ok "pkg-config phyllo: $(cat "$dir/ver")" ||
	bad "pkg-config phyllo"
# shellcheck disable=SC2046
cc -Wall -Wextra -Werror "$dir/ping.c" $(pkg-config --cflags phyllo) "$r/lib/libphyllo.a" \
	$(pkg-config --static --libs-only-l phyllo | sed 's/-lphyllo//') -o "$dir/ping-static" \
	2>"$dir/err" && ok "the same against libphyllo.a" || bad "build (static)"

"$bin" peer --echo --pty "$dir/pty" 2>/dev/null &
board=$!
pids=$board
i=0
while [ ! -L "$dir/pty" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
# as a freshly plugged ttyACM is: 9600 baud; the example passes no options
stty -F "$dir/pty" 9600
LD_LIBRARY_PATH="$r/lib" "$dir/ping" "$dir/pty" >"$dir/out" 2>"$dir/err"
[ "$(cat "$dir/out")" = "ping 1" ] && ok "README example on a pty: $(cat "$dir/out")" ||
	bad "README example printed '$(cat "$dir/out")'"
stty -F "$dir/pty" speed >"$dir/speed"
[ "$(cat "$dir/speed")" = 115200 ] && ok "it set the port to 115200 (the firmware's), not 9600" ||
	bad "the example left the port at $(cat "$dir/speed") baud"
LD_LIBRARY_PATH="$r/lib" ldd "$dir/ping" | grep -q "$r/lib/libphyllo.so.0" &&
	ok "it ran on the installed libphyllo.so.0" || bad "not linked to the staged library"
"$dir/ping-static" "$dir/pty" >"$dir/out" 2>"$dir/err"
[ "$(cat "$dir/out")" = "ping 1" ] && ok "static build on a pty: $(cat "$dir/out")" ||
	bad "static example printed '$(cat "$dir/out")'"
"$dir/ping-static" "$dir/nothing" >"$dir/out" 2>"$dir/err"
grep -q "No such file" "$dir/err" && ok "and says why it cannot open a path" || bad "open error"
# issue 27, 6: with no argument and no module, it says to name the tty
if [ ! -e /dev/phyllo0 ]; then
	"$dir/ping-static" >"$dir/out" 2>"$dir/err"
	grep -q "^/dev/phyllo0: No such file" "$dir/err" &&
		grep -q "without the phyllo module, name the board's tty: .*ping-static /dev/ttyACM0" "$dir/err" &&
		ok "6: with no argument and no /dev/phyllo0: name the tty, without the module" ||
		bad "6: the README example with no argument"
fi
checks_done
