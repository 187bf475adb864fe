#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make module: phyllo.ko against each kernel of the matrix with W=1 and no
# warning allowed; the uapi header standalone with -Wall -Werror; the
# newest kernel tree's checkpatch on every glue file.
# Usage: tests/kernel/module.sh BUILDDIR [KERNEL...]
# KERNEL is a name kernel-get.sh knows: 6.1 (Debian 12), 6.12
# (bookworm-backports), unstable (the newest, built in the unstable
# chroot); default all three. Each .ko lands in BUILDDIR/kmod/<release>/.
set -e
build=$1
shift
[ $# -gt 0 ] || set -- 6.1 6.12 unstable
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p "$build"
build=$(cd "$build" && pwd)

for name in "$@"; do
	eval "$("$here/kernel-get.sh" "$name")"
	out=$build/kmod/$kver
	log=$build/kmod-$kver.log
	if [ -n "$chroot" ]; then
		"$here/unstable-chroot.sh" run "$repo" "$out" \
			sh /phyllo/tests/kernel/kmod.sh /out "$kdir" >"$log" 2>&1
	else
		"$here/kmod.sh" "$out" "$kdir" >"$log" 2>&1
	fi || {
		cat "$log" >&2
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
	echo "module: $name: phyllo.ko for $kver, W=1 clean"
done

# The uapi header on its own, as userspace sees it.
printf '#include "phyllo.h"\nint main(void) { return PHYLLO_IOC_GET_STATE != 0 ? 0 : 1; }\n' \
	>"$build/uapi-check.c"
gcc -Wall -Wextra -Werror -fsyntax-only -I"$repo/uapi" "$build/uapi-check.c"
gcc -Wall -Wextra -Werror -fsyntax-only -std=c99 -pedantic -I"$repo/uapi" "$build/uapi-check.c"

# checkpatch of the newest full tree the archive gives (linux-source-6.12),
# only its script and data files, cached beside the unpacked packages.
eval "$("$here/kernel-get.sh" 6.12)"
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
	"$cp/scripts/checkpatch.pl" --no-tree --quiet --show-types \
		--ignore "FILE_PATH_CHANGES,SPDX_LICENSE_TAG$ign" -f "$@"
}
# The compat header exists to test LINUX_VERSION_CODE, which checkpatch
# (written for in-tree code) flags, and reads it as a constant on the left.
cpl "" $(ls "$repo"/kernel/*.c "$repo"/kernel/*.h "$repo"/uapi/phyllo.h |
	grep -v /phyllo_compat.h)
cpl ",LINUX_VERSION_CODE,CONSTANT_COMPARISON" "$repo/kernel/phyllo_compat.h"
echo "module: uapi standalone OK; checkpatch ($(basename "${source%.tar.xz}" | sed 's/linux-source-//') tree) clean on kernel/ and uapi/"
