#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make module: phyllo.ko against each kernel of the matrix with W=1 and no
# warning allowed, and no 64-bit division helper left for the kernel to
# resolve (the core has no 64-bit division; on 32-bit ARM gcc turns one
# into __aeabi_uldivmod, which armmp does not export, so modpost fails
# the build naming it: modpost's output is checked for the helpers, and
# `nm -u` of every .ko, whatever its architecture, too); the
# uapi header standalone with -Wall -Werror; sparse (C=2) on Debian 12's
# kernel; the newest kernel tree's checkpatch on every glue file.
# Usage: kernel/module.sh BUILDDIR [KERNEL...]
# KERNEL is a name tests/kernel/kernel-get.sh knows: 6.1 (Debian 12), 6.12
# (bookworm-backports), unstable (the newest, built in the unstable
# chroot), and Debian's ARM flavours arm64-6.1, armmp-6.1,
# armmp-lpae-6.1, arm64-6.12, armmp-6.12, armmp-lpae-6.12 (cross-built
# with gcc-aarch64-linux-gnu, gcc-arm-linux-gnueabihf); default all.
# Each .ko lands in BUILDDIR/kmod/<release>/; each build's time is printed.
set -e
build=$1
shift
[ $# -gt 0 ] || set -- 6.1 6.12 unstable arm64-6.1 arm64-6.12 armmp-6.1 armmp-6.12 \
	armmp-lpae-6.1 armmp-lpae-6.12
divhelpers='__aeabi_uldivmod|__aeabi_ldivmod|__udivdi3|__divdi3|__umoddi3|__moddi3'
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
# the kernels of the test matrix: fetched, unpacked and cached by tests/kernel/
kernels=$repo/tests/kernel
mkdir -p "$build"
build=$(cd "$build" && pwd)

# divhelpers_check CROSS OBJ LOG: 1 if OBJ needs (CROSS's nm -u), or LOG
# (modpost's output) names, a 64-bit division helper; 2 if nm fails.
# Either may be "".
divhelpers_check() {
	found=""
	if [ -n "$2" ]; then
		syms=$("${1}nm" -u "$2") || return 2
		found=$(printf '%s\n' "$syms" | grep -wE "$divhelpers" || true)
	fi
	[ -z "$3" ] || found="$found$(grep -wE "$divhelpers" "$3" || true)"
	[ -z "$found" ] && return 0
	echo "module: ${2:-the build} needs a 64-bit division helper: $found" >&2
	return 1
}
# The check itself, once for 32-bit ARM: an object that divides a u64 must
# be caught.
for name in "$@"; do
	case $name in armmp*)
		printf 'unsigned long long f(unsigned long long a, unsigned long long b) { return a / b; }\n' \
			>"$build/divhelper.c"
		arm-linux-gnueabihf-gcc -O2 -c "$build/divhelper.c" -o "$build/divhelper.o"
		rc=0
		divhelpers_check arm-linux-gnueabihf- "$build/divhelper.o" "" 2>/dev/null || rc=$?
		[ $rc = 1 ] || {
			echo "module: the division-helper check missed __aeabi_uldivmod (rc $rc)" >&2
			exit 1
		}
		break ;;
	esac
done

for name in "$@"; do
	t0=$(date +%s)
	eval "$("$kernels/kernel-get.sh" "$name")"
	t1=$(date +%s)
	out=$build/kmod/$kver
	log=$build/kmod-$kver.log
	if [ -n "$chroot" ]; then
		"$kernels/unstable-chroot.sh" run "$repo" "$out" \
			sh /phyllo/kernel/kmod.sh /out "$kdir" >"$log" 2>&1
	elif [ -n "$kcross" ]; then
		"$here/kmod.sh" "$out" "$kdir" CROSS_COMPILE="$kcross" >"$log" 2>&1
	else
		"$here/kmod.sh" "$out" "$kdir" >"$log" 2>&1
	fi || {
		cat "$log" >&2
		divhelpers_check "$kcross" "" "$log" || true
		echo "module: building against $kver failed" >&2
		exit 1
	}
	if grep -iE 'warning|error' "$log" | grep -v 'Skipping BTF generation'; then
		echo "module: warnings building against $kver (see $log)" >&2
		exit 1
	fi
	modinfo "$out/phyllo.ko" | grep -q "vermagic: *$kver " || {
		echo "module: $out/phyllo.ko is not built for $kver" >&2
		exit 1
	}
	divhelpers_check "$kcross" "$out/phyllo.ko" "$log"
	echo "module: $name: phyllo.ko for $kver ($kdebarch), W=1 clean, no 64-bit division helper" \
		"(fetch $((t1 - t0)) s, build $(($(date +%s) - t1)) s)"
done

# sparse (C=2: every file of the module, checked or not) on Debian 12's
# kernel: no warning.
eval "$("$kernels/kernel-get.sh" 6.1)"
"$here/kmod.sh" "$build/kmod-sparse" "$kdir" C=2 >"$build/sparse.log" 2>&1 || {
	cat "$build/sparse.log" >&2
	echo "module: the sparse build failed" >&2
	exit 1
}
if grep -E 'warning:|error:' "$build/sparse.log"; then
	echo "module: sparse warnings (see $build/sparse.log)" >&2
	exit 1
fi
echo "module: sparse (C=2) clean against $kver"

# The uapi header on its own, as userspace sees it.
printf '#include "phyllo.h"\nint main(void) { return PHYLLO_IOC_GET_STATE != 0 ? 0 : 1; }\n' \
	>"$build/uapi-check.c"
gcc -Wall -Wextra -Werror -fsyntax-only -I"$repo/uapi" "$build/uapi-check.c"
gcc -Wall -Wextra -Werror -fsyntax-only -std=c99 -pedantic -I"$repo/uapi" "$build/uapi-check.c"

# checkpatch of the newest full tree the archive gives (linux-source-6.12),
# only its script and data files, cached beside the unpacked packages.
eval "$("$kernels/kernel-get.sh" 6.12)"
cp=${source%/*}/checkpatch
if [ ! -x "$cp/scripts/checkpatch.pl" ]; then
	rm -rf "$cp.tmp"
	mkdir -p "$cp.tmp"
	tar -xf "$source" -C "$cp.tmp" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
	rm -rf "$cp"
	mv "$cp.tmp" "$cp"
fi
cpl() {	# cpl ",MORE_TYPES_TO_IGNORE" FILE...
	ign=$1
	shift
	# CAMELCASE: its only hit is C11's _Alignas in phyllo_crc.c. The check
	# still seeds itself from --root's include/ (an empty one here) and
	# leaves a cache file in the current folder: the build folder.
	mkdir -p "$build/checkpatch-root/include"
	(cd "$build" && "$cp/scripts/checkpatch.pl" --no-tree --root="$build/checkpatch-root" \
		--quiet --strict --show-types \
		--ignore "FILE_PATH_CHANGES,SPDX_LICENSE_TAG,CAMELCASE$ign" -f "$@")
}
# --strict, with the CHECKs kept for a reason:
#  - phyllo_events.h: TRACE_EVENT()'s own layout (open-ended lines, the
#    argument lists aligned under TP_PROTO), as every in-tree trace header;
#  - MACRO_ARG_REUSE: the sysfs attribute tables name a field twice (its
#    file name and its offsetof), and the trace hook passes ctx to a
#    function that only reads it;
cpl ",MACRO_ARG_REUSE" $(ls "$repo"/kernel/*.c "$repo"/kernel/*.h "$repo"/uapi/phyllo.h |
	grep -v -e /phyllo_events.h)
cpl ",OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT" "$repo/kernel/phyllo_events.h"
# The core is compiled into the module too. Kept, as lib/xz keeps them:
#  - PREFER_KERNEL_TYPES: the same files build for the AVR and userspace,
#    so they use C99's types (phyllo_types.h picks the headers);
#  - MACRO_ARG_REUSE: size and line-time macros are constant expressions;
#  - phyllo_crc.c's AVR fast path (never built for a kernel): an asm
#    statement's open line.
core="$repo/core"
cpl ",PREFER_KERNEL_TYPES,MACRO_ARG_REUSE" $(ls "$core"/*.c "$core"/*.h |
	grep -v -e /phyllo_crc.c)
cpl ",PREFER_KERNEL_TYPES,MACRO_ARG_REUSE,OPEN_ENDED_LINE" "$core/phyllo_crc.c"
echo "module: uapi standalone OK; checkpatch --strict ($(basename "${source%.tar.xz}" | sed 's/linux-source-//') tree) clean on kernel/, uapi/ and core/"
