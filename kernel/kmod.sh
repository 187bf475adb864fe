#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Build phyllo.ko out of tree without writing into the source checkout.
# Usage: kernel/kmod.sh OUTDIR KDIR [make arguments...]
# OUTDIR gets symlinks to Kbuild, kernel/, core/ and uapi/ sources, so the
# objects of each target kernel land in their own directory (6.1 has no
# separate output directory for M= builds). Against a kernel with KUnit
# the suites are built too, as phyllo_kunit.ko (Kbuild): their sources
# (core/tests/, tests/vectors/, tests/kernel/shim/) are linked in as well.
set -e
out=$1 kdir=$2
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
dirs="kernel core uapi core/tests tests/vectors tests/kernel/shim"
for d in $dirs; do
	mkdir -p "$out/$d"
done
out=$(cd "$out" && pwd)
# One build per OUTDIR at a time (several targets of make check build
# the same kernel's module); make inherits the lock and holds it.
exec 9>"$out/.phyllo-lock"
flock 9
ln -sf "$src/Kbuild" "$out/Kbuild"
for d in $dirs; do
	# Drop links to files that are gone, then link every source.
	find "$out/$d" -maxdepth 1 -type l ! -exec test -e {} \; -delete
	for f in "$src/$d"/*.[ch] "$src/$d"/*.mk; do
		[ -e "$f" ] && ln -sf "$f" "$out/$d/"
	done
done
exec make -C "$kdir" M="$out" W=1 "$@" modules
