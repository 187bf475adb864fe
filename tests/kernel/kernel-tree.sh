#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Prepare the cached Linux tree used by `make kunit` and `make test-kernel`
# (6.1, the default) or `make kunit KUNIT_KERNELS=6.12`, outside the
# repository, and print its directory:
#   ~/.cache/phyllo/linux-<name>-<package version>/src   the source (once)
#   .../kunit, .../uml                                   build directories
# Usage: tests/kernel/kernel-tree.sh [NAME]   NAME: 6.1 (default) or 6.12
# The source is Debian's linux-source-NAME (kernel-get.sh: 6.1 from the
# host's packages, 6.12 from bookworm-backports). The repository's sources
# are staged into .../stage (rsync -c: only changed files get a new mtime,
# so rebuilds stay incremental), linked in as drivers/phyllo (Kbuild at its
# top, kernel/Kconfig sourced from drivers/Kconfig). With
# PHYLLO_CORE_REF=<git ref> the core and its tests come from that commit
# instead of the working tree (useful while the core is being edited).
# Fixes the tree needs on this host are applied once: for 6.1
# tests/kernel/patches/*.patch, for another NAME tests/kernel/patches/NAME/.
set -e
name=${1:-6.1}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
eval "$("$here/kernel-get.sh" "$name")"
[ -n "$source" ] || { echo "kernel-tree: no linux-source for $name" >&2; exit 1; }
top=${PHYLLO_KCACHE:-$HOME/.cache/phyllo}/linux-$name-$pkgver
src=$top/src
# One extraction and staging at a time per tree (kunit, test-kernel and
# the storm kernel share 6.1's).
mkdir -p "$top"
exec 9>"$top/.phyllo-lock"
flock 9
if [ ! -f "$src/.phyllo-extracted" ]; then
	echo "kernel-tree: extracting linux-source-$name $pkgver into $src" >&2
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xf "$source" -C "$src.tmp" --strip-components=1
	touch "$src.tmp/.phyllo-extracted"
	mv "$src.tmp" "$src"
fi
stage=$top/stage
tmp=$top/stage.tmp
rm -rf "$tmp"
mkdir -p "$tmp" "$stage"
paths="Kbuild kernel uapi tests/kernel/shim core tests/vectors"
(cd "$repo" && tar -cf - $paths) | tar -xf - -C "$tmp"
if [ -n "$PHYLLO_CORE_REF" ]; then
	rm -rf "$tmp/core" "$tmp/tests/vectors"
	git -C "$repo" archive "$PHYLLO_CORE_REF" core tests/vectors | tar -xf - -C "$tmp"
fi
rsync -rc --delete "$tmp/" "$stage/"
rm -rf "$tmp"
ln -sfn "$stage" "$src/drivers/phyllo"
if [ "$name" = 6.1 ]; then
	patches=$repo/tests/kernel/patches
else
	patches=$repo/tests/kernel/patches/$name
fi
for p in "$patches"/*.patch; do
	[ -f "$p" ] || continue
	patch -d "$src" -p1 -R -s -f --dry-run <"$p" >/dev/null 2>&1 ||
		patch -d "$src" -p1 -s -f <"$p" >&2
done
if ! grep -q 'drivers/phyllo/kernel/Kconfig' "$src/drivers/Kconfig"; then
	# Before the closing endmenu of the Device Drivers menu.
	sed -i '$ s|^endmenu$|source "drivers/phyllo/kernel/Kconfig"\n\nendmenu|' \
		"$src/drivers/Kconfig"
	grep -q 'drivers/phyllo/kernel/Kconfig' "$src/drivers/Kconfig"
fi
grep -q 'CONFIG_PHYLLO' "$src/drivers/Makefile" ||
	echo 'obj-$(CONFIG_PHYLLO)		+= phyllo/' >> "$src/drivers/Makefile"
echo "$top"
