#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# build-examples.sh LIBDIR OUTDIR BOARD... - compile every example of the
# staged library for each board (uno, micro) the way the Arduino IDE does,
# against Debian's arduino-core-avr: the Arduino core with its own flags,
# the library and the sketch with ours (-Wall -Wextra -Werror), LTO link.
# Prints avr-size per sketch and board.
set -e
lib=$(cd "$1" && pwd)
out=$2
shift 2
ard=/usr/share/arduino/hardware/arduino/avr
common="-DF_CPU=16000000L -DARDUINO=10807 -DARDUINO_ARCH_AVR -Os -g -flto -ffunction-sections -fdata-sections"
cxx="-std=gnu++11 -fno-exceptions -fno-threadsafe-statics -fpermissive"
ours="-Wall -Wextra -Werror"

for board in "$@"; do
	case $board in
	uno)   mcu=atmega328p variant=standard defs="-DARDUINO_AVR_UNO" ;;
	micro) mcu=atmega32u4 variant=micro
	       defs="-DARDUINO_AVR_MICRO -DUSB_VID=0x2341 -DUSB_PID=0x8037 -DUSB_MANUFACTURER=\"Unknown\" -DUSB_PRODUCT=\"Arduino_Micro\"" ;;
	*) echo "build-examples.sh: unknown board $board" >&2; exit 2 ;;
	esac
	b="$out/$board"
	inc="-I$ard/cores/arduino -I$ard/variants/$variant"
	flags="-mmcu=$mcu $common $defs $inc"
	mkdir -p "$b/core" "$b/lib"
	# The Arduino core: not ours, built as the IDE builds it (-w). Debian's
	# arduino-core-avr 1.8.7 WString.cpp wants DECIMAL_DIG, which the
	# <float.h> of avr-gcc 5.4 does not define; 17 is the C value for a
	# 64-bit double, more than enough for the AVR's 32-bit one.
	if [ ! -f "$b/core.a" ]; then
		for f in "$ard"/cores/arduino/*.c "$ard"/cores/arduino/*.cpp "$ard"/cores/arduino/*.S; do
			o="$b/core/$(basename "$f").o"
			case $f in
			*.c)   avr-gcc $flags -std=gnu11 -w -c "$f" -o "$o" ;;
			*.cpp) avr-g++ $flags $cxx -w -DDECIMAL_DIG=17 -c "$f" -o "$o" ;;
			*.S)   avr-gcc $flags -x assembler-with-cpp -c "$f" -o "$o" ;;
			esac
		done
		avr-gcc-ar rcs "$b/core.a" "$b"/core/*.o
	fi
	for f in "$lib"/src/*.c; do
		avr-gcc $flags -std=gnu11 $ours -I"$lib/src" -c "$f" -o "$b/lib/$(basename "$f").o"
	done
	for d in "$lib"/examples/*/; do
		name=$(basename "$d")
		{ echo "#include <Arduino.h>"; echo "#line 1 \"$name.ino\""; cat "$d/$name.ino"; } \
			> "$b/$name.cpp"
		avr-g++ $flags $cxx $ours -I"$lib/src" -c "$b/$name.cpp" -o "$b/$name.o"
		avr-gcc -mmcu=$mcu -Os -flto -fuse-linker-plugin -Wl,--gc-sections \
			-o "$b/$name.elf" "$b/$name.o" "$b"/lib/*.o "$b/core.a" -lm
		avr-size -A "$b/$name.elf" | awk -v n="$name" -v bd="$board" '
			$1 == ".text" { t = $2 } $1 == ".data" { d = $2 } $1 == ".bss" { s = $2 }
			END { printf "  %-6s %-8s flash %6d  static RAM %5d\n", bd, n, t + d, d + s }'
	done
done
