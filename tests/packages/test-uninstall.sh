#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-uninstall.sh MAKE - `make uninstall` undoes `make install`: for
# PREFIX=/usr (udev and systemd under /usr/lib) and the default
# /usr/local (under /etc), install into an empty DESTDIR, check it put
# files there (the tool, the library, a man page, the udev rule), then
# uninstall with the same PREFIX and DESTDIR and check that no file or
# link is left (empty folders may stay, as with any make uninstall).
set -u
make=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/userspace/checks.sh"

for prefix in /usr /usr/local; do
	d=$dir/root$(echo "$prefix" | tr / -)
	mkdir -p "$d"
	if ! $make -C "$top" --no-print-directory -s install DESTDIR="$d" PREFIX="$prefix" \
		>"$dir/out" 2>"$dir/err"; then
		bad "make install PREFIX=$prefix"
		continue
	fi
	n=$(find "$d" ! -type d | wc -l)
	ok "make install PREFIX=$prefix DESTDIR=...: $n files and links"
	rm -f "$dir/err" "$dir/out"
	for f in bin/phyllo lib/libphyllo.so.0 share/man/man1/phyllo.1 include/libphyllo.h; do
		[ -e "$d$prefix/$f" ] || bad "PREFIX=$prefix: make install put no $f"
	done
	[ -n "$(find "$d" -name 70-phyllo.rules)" ] || bad "PREFIX=$prefix: no udev rule installed"
	$make -C "$top" --no-print-directory -s uninstall DESTDIR="$d" PREFIX="$prefix" \
		>"$dir/out" 2>"$dir/err" && ok "make uninstall PREFIX=$prefix DESTDIR=..." ||
		bad "make uninstall PREFIX=$prefix"
	find "$d" ! -type d | sed "s|^$d||" >"$dir/out"
	rm -f "$dir/err"
	[ ! -s "$dir/out" ] && ok "PREFIX=$prefix: make uninstall removed all $n" ||
		bad "PREFIX=$prefix: make uninstall left $(wc -l <"$dir/out") of $n"
done
checks_done
