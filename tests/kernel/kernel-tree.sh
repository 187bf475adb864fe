#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Prepare the cached Linux 6.1 tree used by `make kunit` and `make
# test-kernel`, outside the repository, and print its directory:
#   ~/.cache/phyllo/linux-6.1-<package version>/src     the source (once)
#   .../kunit, .../uml                                   build directories
# The sources are staged into .../stage (rsync -c: only changed files get
# a new mtime, so rebuilds stay incremental), linked in as drivers/phyllo
# (Kbuild at its top, kernel/Kconfig sourced from drivers/Kconfig). With
# PHYLLO_CORE_REF=<git ref> the core and its tests come from that commit
# instead of the working tree (useful while the core is being edited).
# tests/kernel/patches/*.patch are applied to the tree once.
set -e
repo=$(cd "$(dirname "$0")/../.." && pwd)
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
top=${PHYLLO_KCACHE:-$HOME/.cache/phyllo}/linux-6.1-$ver
src=$top/src
if [ ! -f "$src/.phyllo-extracted" ]; then
	echo "kernel-tree: extracting linux-source-6.1 $ver into $src" >&2
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xf /usr/src/linux-source-6.1.tar.xz -C "$src.tmp" --strip-components=1
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
# Fixes the 6.1 tree needs on this host (see each patch's comment).
for p in "$repo"/tests/kernel/patches/*.patch; do
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
