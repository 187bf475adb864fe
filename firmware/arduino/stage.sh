#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# stage.sh DEST - lay out the Arduino library as the IDE installs it:
#   DEST/library.properties, DEST/src/ (Phyllo.h, the node, the protocol
#   core), DEST/examples/. The repository keeps one copy of the core; it is
#   copied here unchanged except for one line: the packaged phyllo_arq.h
#   includes phyllo_arduino_config.h first, because the IDE passes no -D
#   flags to a library and the default window would not fit an Uno.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
dest=$1
rm -rf "$dest"
mkdir -p "$dest/src"
cp "$top/firmware/arduino/library.properties" "$dest/"
cp -r "$top/firmware/arduino/examples" "$dest/"
cp "$top/firmware/arduino/src/"* "$dest/src/"
cp "$top/firmware/phyllo_node.c" "$top/firmware/phyllo_node.h" "$dest/src/"
for f in "$top"/core/phyllo_*.c "$top"/core/phyllo_*.h; do
	cp "$f" "$dest/src/"
done
arq="$dest/src/phyllo_arq.h"
grep -q '^#ifndef PHYLLO_ARQ_WINDOW_MAX' "$arq" || {
	echo "stage.sh: phyllo_arq.h has no PHYLLO_ARQ_WINDOW_MAX default to configure" >&2
	exit 1
}
sed -i '0,/^#ifndef PHYLLO_ARQ_WINDOW_MAX/s//#include "phyllo_arduino_config.h"\n&/' "$arq"
