#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make module: phyllo.ko against Debian's linux-headers-amd64 with W=1 and
# no warning allowed; the uapi header standalone with -Wall -Werror; the
# kernel's checkpatch on every glue file.
# Usage: tests/kernel/module.sh BUILDDIR [KVER]
# KVER defaults to the release linux-headers-amd64 depends on.
set -e
build=$1
kver=${2:-$(dpkg-query -W -f='${Depends}' linux-headers-amd64 |
	sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p')}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$build/kmod/$kver
log=$build/kmod-$kver.log
mkdir -p "$build"
"$here/kmod.sh" "$out" "/lib/modules/$kver/build" >"$log" 2>&1 || {
	cat "$log" >&2
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

# The uapi header on its own, as userspace sees it.
printf '#include "phyllo.h"\nint main(void) { return PHYLLO_IOC_GET_STATE != 0 ? 0 : 1; }\n' \
	>"$build/uapi-check.c"
gcc -Wall -Wextra -Werror -fsyntax-only -I"$repo/uapi" "$build/uapi-check.c"
gcc -Wall -Wextra -Werror -fsyntax-only -std=c99 -pedantic -I"$repo/uapi" "$build/uapi-check.c"

# checkpatch comes with the cached source tree.
top=$("$here/kernel-tree.sh")
"$top/src/scripts/checkpatch.pl" --no-tree --quiet --show-types \
	--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG \
	-f "$repo"/kernel/*.c "$repo"/kernel/*.h "$repo"/uapi/phyllo.h
echo "module: $out/phyllo.ko for $kver, W=1 clean; uapi standalone OK; checkpatch clean"
