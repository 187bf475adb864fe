#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# readme-sketch.sh DIR - the library's example sketch of firmware/README.md
# (the first ```cpp block under "## Arduino library"), as written there,
# into DIR/Readme/Readme.ino, for build-examples.sh to compile: a README
# sketch that does not build fails make arduino-examples.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$1/Readme"
awk '/^## Arduino library/ { lib = 1 } lib && /^```cpp$/ { on = 1; next }
	on && /^```$/ { exit } on { print }' "$top/firmware/README.md" >"$1/Readme/Readme.ino"
[ -s "$1/Readme/Readme.ino" ] || { echo "readme-sketch.sh: no sketch in firmware/README.md" >&2; exit 1; }
