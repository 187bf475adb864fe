#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# build-examples.sh LIBS OUT CACHE BOARD... - compile every example of the
# library LIBS/Phyllo for each board (uno, micro) with arduino-builder, the
# Arduino IDE's own build engine, against Debian's arduino-core-avr, with
# the IDE's "all" warnings (-Wall -Wextra) and ours on top. Fails on any
# warning outside the Arduino core's own files (/usr/share/arduino).
# LIBS is a libraries folder as the IDE's sketchbook has one (Phyllo may be
# a symlink to a clone's firmware/arduino). Each example's ELF is copied to
# OUT/BOARD/NAME.elf and its avr-size printed: flash is .text + .data,
# static RAM .data + .bss. CACHE keeps the compiled Arduino core.
# SKETCHES (sketch folders, each ending in /) replaces the examples.
set -e
libs=$(cd "$1" && pwd)
out=$2
cache=$3
shift 3
hw=/usr/share/arduino/hardware
mkdir -p "$out" "$cache"
out=$(cd "$out" && pwd)
cache=$(cd "$cache" && pwd)
# Debian's arduino-core-avr 1.8.7 WString.cpp wants DECIMAL_DIG, which the
# <float.h> of avr-gcc 5.4 defines for C99 but not for C++11: give it the
# compiler's own value. The other flags are the project's warnings.
cflags="-Wundef -Wshadow -Wstrict-prototypes"
cxxflags="-DDECIMAL_DIG=__DECIMAL_DIG__ -Wundef -Wshadow"

failed=0
for board in "$@"; do
	mkdir -p "$out/$board"
	for d in ${SKETCHES:-"$libs"/Phyllo/examples/*/}; do
		name=$(basename "$d")
		bp=$out/$board/$name.build
		log=$out/$board/$name.log
		# A fresh build path, so every file of ours is compiled (and
		# its warnings seen) each time; the core comes from CACHE.
		rm -rf "$bp"
		mkdir -p "$bp"
		if ! arduino-builder -compile -fqbn "arduino:avr:$board" \
			-hardware "$hw" -hardware /usr/share/arduino-builder \
			-tools /usr/share/arduino-builder \
			-libraries "$libs" -build-path "$bp" -build-cache "$cache" \
			-warnings all \
			-prefs "compiler.c.extra_flags=$cflags" \
			-prefs "compiler.cpp.extra_flags=$cxxflags" \
			"$d$name.ino" >"$log" 2>&1; then
			echo "  $board $name: arduino-builder failed:" >&2
			grep -E 'error|warning' "$log" | head -40 >&2
			failed=1
			continue
		fi
		if grep 'warning:' "$log" | grep -v "^$hw/" >"$log.ours"; then
			echo "  $board $name: warnings in our code:" >&2
			cat "$log.ours" >&2
			failed=1
		fi
		cp "$bp/$name.ino.elf" "$out/$board/$name.elf"
		avr-size -A "$out/$board/$name.elf" | awk -v n="$name" -v bd="$board" '
			$1 == ".text" { t = $2 } $1 == ".data" { d = $2 }
			$1 == ".bss" { s = $2 } $1 == ".noinit" { z = $2 }
			END { printf "  %-6s %-8s flash %6d  static RAM %5d\n", bd, n, t + d, d + s + z }'
	done
done
exit $failed
