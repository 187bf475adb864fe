#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# Build the x86_64 debug kernel of make test-storm and print its build
# directory. SAN picks the variant: kasan (storm.config: KASAN, the
# default) or kcsan (storm.config with storm-kcsan.config's lines in place
# of its own). Cached outside the clone, keyed by the linux-source-6.1
# package version and a hash of the fragment the variant merges:
#   $PHYLLO_KCACHE/linux-6.1-<version>/src         (tests/kernel/kernel-tree.sh)
#   $PHYLLO_KCACHE/linux-6.1-<version>/storm-<hash> O= build dir, bzImage
# (PHYLLO_KCACHE defaults to ~/.cache/phyllo). tinyconfig + the fragment,
# every option checked after olddefconfig; ccache; incremental; one build
# at a time per directory (flock). The log of the last build is
# storm-<hash>/build.log.
# Usage: tests/storm/storm-kernel.sh [SAN]       (KBUILD_JOBS=N, default 2)
set -e
san=${1:-kasan}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
frag=$(mktemp)
trap 'rm -f "$frag"' EXIT
case $san in
kasan) cp "$here/storm.config" "$frag" ;;
kcsan)
	over=$here/storm-kcsan.config
	opts=$(sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=.*/\1/p' "$over" | tr '\n' '|')
	grep -vE "^(${opts%|})=" "$here/storm.config" >"$frag"
	grep '^CONFIG_' "$over" >>"$frag"
	;;
*) echo "storm-kernel: SAN is kasan or kcsan, not $san" >&2; exit 1 ;;
esac
top=$("$repo/tests/kernel/kernel-tree.sh")
out=$top/storm-$(sha256sum "$frag" | cut -c1-12)
mkdir -p "$out"
exec 9>"$out.lock"
flock 9
mk() { nice -n 10 make -C "$top/src" ARCH=x86_64 O="$out" CC="ccache gcc" "$@"; }
if ! cmp -s "$frag" "$out/.storm-config"; then
	. "$repo/tests/kernel/kconfig.sh"
	kconfig_merge storm-kernel tinyconfig "$frag" "$top/src" "$out" || exit 1
	cp "$frag" "$out/.storm-config"
fi
# A first build says so, and how long the last first build took
# (scripts/cold.sh: storm-<hash>/.phyllo-cold, or another variant's).
cold=
[ -f "$out/arch/x86/boot/bzImage" ] || cold=1
. "$repo/scripts/cold.sh"
[ -z "$cold" ] || cold_begin "storm-kernel: the x86_64 $san debug kernel" \
	"$out/.phyllo-cold" "${top%/*}/linux-6.1-*/storm-*/.phyllo-cold"
start=$(date +%s)
mk -j"${KBUILD_JOBS:-2}" all >"$out/build.log" 2>&1 || {
	tail -40 "$out/build.log" >&2
	exit 1
}
[ -z "$cold" ] || cold_end
echo "storm-kernel: $san $out ready in $(($(date +%s) - start)) s" >&2
echo "$out"
