#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-flash.sh - `make flash` and firmware/flash.sh without a board
# (issue 17, finding 10): what each BOARD would run (DRY=1, or make -n):
# the Nano's rule and the old bootloader's 57600, avrdude without
# arduino-builder, the Micro flashed with its USB serial build by default
# and its bootloader's port apart; a regular file refused as PORT.
# Usage: test-flash.sh MAKE
set -u
make=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/checks.sh"
flash=$top/firmware/flash.sh
hex=$dir/fw.hex
echo ':00000001FF' >"$hex"
python3 -c 'import os, pty, time, sys
m, s = pty.openpty(); os.symlink(os.ttyname(s), sys.argv[1]); time.sleep(60)' "$dir/port" &
pids=$!
i=0
while [ ! -L "$dir/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done

expect() {
	name=$1 want=$2
	shift 2
	if "$@" >"$dir/out" 2>"$dir/err" && grep -q -- "$want" "$dir/out"; then ok "$name"; else bad "$name"; fi
}
expect "nano: optiboot at 115200" "^avrdude -p atmega328p -c arduino -b 115200 -P $dir/port -D -U flash:w:$hex:i$" \
	env DRY=1 "$flash" nano "$hex" "$dir/port"
expect "nano-old: the old bootloader's 57600" "^avrdude -p atmega328p -c arduino -b 57600 " \
	env DRY=1 "$flash" nano-old "$hex" "$dir/port"
expect "micro: the 1200-baud touch on the sketch's port" "^stty -F $dir/port 1200$" \
	env DRY=1 "$flash" micro "$hex" "$dir/port" /dev/ttyACM7
grep -q "^avrdude -p atmega32u4 -c avr109 -b 57600 -P /dev/ttyACM7 " "$dir/out" &&
	ok "micro: avrdude on the bootloader's own port" || bad "micro: bootloader port"
printf 'keep\n' >"$dir/file"
DRY=1 "$flash" uno "$hex" "$dir/file" >"$dir/out" 2>"$dir/err"
rc=$?
[ $rc -eq 2 ] && grep -q "not a serial port" "$dir/err" && [ "$(cat "$dir/file")" = keep ] &&
	ok "a regular file as PORT is refused, unchanged" || bad "regular file as PORT (rc $rc)"
DRY=1 "$flash" leonardo "$hex" "$dir/port" >"$dir/out" 2>"$dir/err"
[ $? -eq 2 ] && grep -q "boards are uno, nano, nano-old" "$dir/err" && ok "an unknown board: the list" ||
	bad "unknown board"
cd "$top" || exit 1
$make -n flash BOARD=nano PORT="$dir/port" >"$dir/out" 2>"$dir/err"
grep -q "flash.sh nano .*/uno-standard/phyllo-uno-standard.hex $dir/port" "$dir/out" &&
	ok "make flash BOARD=nano: the Uno's build" || bad "make flash BOARD=nano"
grep -q "deps.sh flash" "$dir/out" && ! grep -q "deps.sh arduino" "$dir/out" &&
	ok "make flash: avrdude alone, no arduino-builder" || bad "make flash pulls in: $(grep deps.sh "$dir/out")"
$make -n flash BOARD=micro >"$dir/out" 2>"$dir/err"
grep -q "flash.sh micro .*/arduino/out/micro/Echo.hex" "$dir/out" &&
	ok "make flash BOARD=micro: the USB serial build by default" || bad "micro default build"
$make -n flash BOARD=micro FIRMWARE=standard BOOT_PORT=/dev/ttyACM1 >"$dir/out" 2>"$dir/err"
grep -q "flash.sh micro .*/micro-standard/phyllo-micro-standard.hex /dev/ttyACM0 /dev/ttyACM1" "$dir/out" &&
	ok "FIRMWARE=standard: the UART build; BOOT_PORT passed" || bad "micro UART build"
# the Arduino library's zip: its README and licence, one version
zip=$top/build/Phyllo.zip
if [ -f "$zip" ]; then
	unzip -l "$zip" >"$dir/out"
	grep -q " Phyllo/README.md$" "$dir/out" && grep -q " Phyllo/LICENSE$" "$dir/out" &&
		ok "the zip has the library's README.md and LICENSE" || bad "the zip lacks README/LICENSE"
	unzip -p "$zip" Phyllo/library.properties >"$dir/props"
	v=$(sed -n 's/^PHYLLO_VERSION := //p' "$top/userspace/userspace.mk")
	grep -qx "version=$v" "$dir/props" && ok "library.properties: version=$v, the project's" ||
		bad "library.properties: $(grep version= "$dir/props"), the project $v"
else
	bad "no $zip (make arduino-zip)"
fi
# url=: the publisher's address when given (PHYLLO_URL), else the
# placeholder, said
PHYLLO_URL=file:///srv/phyllo "$top/firmware/arduino/stage.sh" "$dir/stage" >"$dir/out" 2>"$dir/err" &&
	grep -qx 'url=file:///srv/phyllo' "$dir/stage/library.properties" &&
	ok "arduino-zip PHYLLO_URL=...: library.properties' url=" || bad "PHYLLO_URL not in url="
PHYLLO_URL= "$top/firmware/arduino/stage.sh" "$dir/stage" >"$dir/out" 2>"$dir/err" &&
	grep -q "url= is a placeholder" "$dir/err" &&
	ok "without PHYLLO_URL the placeholder url= is said" || bad "placeholder url= not said"
checks_done
