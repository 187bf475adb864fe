#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Build a UML kernel of make kunit and make test-kernel (uml.config, plus
# uml-NAME.config when there is one, on alldefconfig; cached in the
# version's tree as uml/, incremental, ccache) and phyllo.ko and
# phyllo_kunit.ko against it with W=1 (in BUILDDIR/kmod/uml). Prints the
# kernel's build directory.
# Usage: tests/kernel/uml-build.sh BUILDDIR [NAME]   NAME: 6.1 (default), 6.12
set -e
build=$1 name=${2:-6.1}
here=$(cd "$(dirname "$0")" && pwd)
top=$("$here/kernel-tree.sh" "$name")
uml=$top/uml
jobs=${KBUILD_JOBS:-$(nproc)}
# One configuration and build of this folder at a time (kunit and
# test-kernel of two checkouts share it); held to the end.
mkdir -p "$uml"
exec 9>"$uml.lock"
flock 9
mk() { make -C "$top/src" ARCH=um O="$uml" CC="ccache gcc" "$@"; }
frag=$(mktemp)
trap 'rm -f "$frag"' EXIT
cat "$here/uml.config" >"$frag"
[ ! -f "$here/uml-$name.config" ] || cat "$here/uml-$name.config" >>"$frag"
if ! cmp -s "$frag" "$uml/.phyllo-config"; then
	. "$here/kconfig.sh"
	kconfig_merge uml-build alldefconfig "$frag" "$top/src" "$uml" || exit 1
	cp "$frag" "$uml/.phyllo-config"
fi
# A first build says so, and how long the last first build took
# (scripts/cold.sh: uml/.phyllo-cold, also in another version's tree).
cold=
[ -x "$uml/linux" ] || cold=1
. "$here/../../scripts/cold.sh"
[ -z "$cold" ] || cold_begin "uml-build: the UML $name kernel" \
	"$uml/.phyllo-cold" "${top%/*}/linux-$name-*/uml/.phyllo-cold"
mk -j"$jobs" all >"$uml/build.log" 2>&1 || {
	tail -40 "$uml/build.log" >&2
	exit 1
}
[ -z "$cold" ] || cold_end
"$here/../../kernel/kmod.sh" "$build/kmod/uml" "$uml" ARCH=um CC="ccache gcc" \
	>"$build/kmod-uml.log" 2>&1 || { cat "$build/kmod-uml.log" >&2; exit 1; }
if grep -iE 'warning|error' "$build/kmod-uml.log" >&2; then
	echo "uml-build: warnings building phyllo.ko for UML $name" >&2
	exit 1
fi
echo "$uml"
