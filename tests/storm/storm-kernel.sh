#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# Build the x86_64 debug kernel of make test-storm and print its build
# directory. Cached outside the clone, keyed by the linux-source-6.1
# package version and a hash of tests/storm/storm.config:
#   ~/.cache/phyllo/linux-6.1-<version>/src            (tests/kernel/kernel-tree.sh)
#   ~/.cache/phyllo/linux-6.1-<version>/storm-<hash>    O= build dir, bzImage
# tinyconfig + storm.config, every option checked after olddefconfig;
# ccache; incremental; one build at a time (flock). The log of the last
# build is storm-<hash>/build.log.
# Usage: tests/storm/storm-kernel.sh       (KBUILD_JOBS=N, default 2)
set -e
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
frag=$here/storm.config
top=$("$repo/tests/kernel/kernel-tree.sh")
out=$top/storm-$(sha256sum "$frag" | cut -c1-12)
mkdir -p "$out"
exec 9>"$out.lock"
flock 9
mk() { nice -n 10 make -C "$top/src" ARCH=x86_64 O="$out" CC="ccache gcc" "$@"; }
if ! cmp -s "$frag" "$out/.storm-config"; then
	mk tinyconfig >/dev/null
	"$top/src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
		"$frag" >/dev/null
	mk olddefconfig >/dev/null
	grep '^CONFIG_' "$frag" | while read -r opt; do
		case $opt in
		*=n) ! grep -q "^${opt%=n}=" "$out/.config" ;;
		*) grep -qx "$opt" "$out/.config" ;;
		esac || { echo "storm-kernel: $opt did not stick" >&2; exit 1; }
	done
	cp "$frag" "$out/.storm-config"
fi
start=$(date +%s)
mk -j"${KBUILD_JOBS:-2}" all >"$out/build.log" 2>&1 || {
	tail -40 "$out/build.log" >&2
	exit 1
}
echo "storm-kernel: $out ready in $(($(date +%s) - start)) s" >&2
echo "$out"
