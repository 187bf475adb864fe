#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# stage.sh DEST - lay out the Arduino library as the zip carries it:
#   DEST/library.properties, keywords.txt, README.md, LICENSE (both texts
#   of GPL-2.0-only OR MIT), examples/ and src/. Fails when
#   library.properties' version is not the project's (debian/changelog's,
#   without a Debian revision). $PHYLLO_URL, when set, becomes its url=.
# In the repository, src/ holds forwarders for the files it shares with
# the firmware (a core source or the node: one line that includes the
# file itself by a relative path), so the library builds straight from a
# clone with one copy of the core. Here each forwarder is replaced by the
# file it names, and every core header is added, unchanged.
# Fails when the forwarders and core/ disagree (a core source without a
# forwarder, a forwarder to a missing or differently named file), so the
# library from a clone cannot go stale unnoticed. The IDE passes no -D
# flags to a library: the core picks up src/phyllo_config.h by itself.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
lib=$top/firmware/arduino
dest=$1
fail() { echo "stage.sh: $*" >&2; exit 1; }

# one version: the library's is the project's (debian/changelog)
version=$(sed -n '1s/^[^(]*(\([^)-]*\).*/\1/p' "$top/debian/changelog")
grep -qx "version=$version" "$lib/library.properties" ||
	fail "library.properties says $(grep '^version=' "$lib/library.properties"), the project $version"
rm -rf "$dest"
mkdir -p "$dest/src"
cp "$lib/library.properties" "$lib/keywords.txt" "$lib/README.md" "$dest/"
# url=, the page the IDE links as "More info": the project's public
# address, which only its publisher knows (PHYLLO_URL, make arduino-zip
# PHYLLO_URL=...); without it the tree's placeholder stays, and is said.
if [ -n "${PHYLLO_URL:-}" ]; then
	sed -i "s|^url=.*|url=$PHYLLO_URL|" "$dest/library.properties"
elif grep -q '^url=.*\.invalid' "$dest/library.properties"; then
	echo "stage.sh: library.properties' url= is a placeholder; give the library's" \
		"public page with PHYLLO_URL=... (make arduino-zip PHYLLO_URL=...)" >&2
fi
# the licence, both texts
{
	echo "The Phyllo Arduino library is licensed GPL-2.0-only OR MIT, at your choice."
	echo
	echo "==== MIT ===="
	cat "$top/LICENSES/MIT.txt"
	echo
	echo "==== GPL-2.0-only ===="
	cat "$top/LICENSES/GPL-2.0-only.txt"
} >"$dest/LICENSE"
cp -r "$lib/examples" "$dest/"
for f in "$lib"/src/*; do
	name=$(basename "$f")
	target=$(sed -n 's|^#include "\(\.\./[^"]*\)"$|\1|p' "$f")
	if [ -z "$target" ]; then
		cp "$f" "$dest/src/"
		continue
	fi
	real=$lib/src/$target
	[ -f "$real" ] || fail "src/$name forwards to $target, which does not exist"
	[ "$(basename "$target")" = "$name" ] || fail "src/$name forwards to $target (another name)"
	cp "$real" "$dest/src/$name"
done
for f in "$top"/core/phyllo_*.h; do
	cp "$f" "$dest/src/"
done
for f in "$top"/core/phyllo_*.c; do
	case $f in *_test.c) continue ;; esac
	[ -f "$lib/src/$(basename "$f")" ] ||
		fail "core/$(basename "$f") has no forwarder in firmware/arduino/src"
done
