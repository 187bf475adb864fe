#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# stage.sh DEST - lay out the Arduino library as the IDE installs it:
#   DEST/library.properties, DEST/src/ (Phyllo.h, the node, the protocol
#   core), DEST/examples/. The repository keeps one copy of the core; it is
#   copied here unchanged. The IDE passes no -D flags to a library: the
#   core picks up src/phyllo_config.h (the Uno's window) by itself.
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
