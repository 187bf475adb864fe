#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# flash.sh BOARD HEX PORT [BOOT_PORT] - write HEX to an AVR board with
# avrdude alone (what `make flash` runs):
#   uno, nano    optiboot at 115200 on PORT (opening it resets the board)
#   nano-old     a Nano with the old bootloader (ATmegaBOOT, the IDE's
#                "ATmega328P (Old Bootloader)"): 57600
#   micro        Caterina: opening PORT at 1200 baud and closing it resets
#                the board into its bootloader, which comes up as a USB
#                serial port of its own, often another ttyACM: BOOT_PORT if
#                given, else the ttyACM that appears (or PORT, once it has
#                gone and come back) within 8 s, else PORT; avr109 at 57600
# PORT must be a serial port (a character device): a regular file is
# refused before anything is written. DRY=1 prints the commands instead.
set -eu
board=$1 hex=$2 port=$3 boot=${4:-}
run() {
	if [ "${DRY:-}" = 1 ]; then echo "$*"; else "$@"; fi
}

case $board in
uno|nano) args="-p atmega328p -c arduino -b 115200" ;;
nano-old) args="-p atmega328p -c arduino -b 57600" ;;
micro) args="-p atmega32u4 -c avr109 -b 57600" ;;
*)
	echo "flash.sh: BOARD=$board: boards are uno, nano, nano-old (57600, the old" \
		"bootloader), micro" >&2
	exit 2 ;;
esac
if [ ! -c "$port" ]; then
	echo "flash.sh: PORT=$port is not a serial port (a character device such as" \
		"/dev/ttyACM0 or /dev/ttyUSB0); nothing was written" >&2
	exit 2
fi
[ -f "$hex" ] || { echo "flash.sh: no $hex" >&2; exit 2; }

if [ "$board" = micro ]; then
	before=$(ls /dev/ttyACM* 2>/dev/null || true)
	run stty -F "$port" 1200
	if [ -z "$boot" ] && [ "${DRY:-}" = 1 ]; then
		boot="(the ttyACM that appears, else $port)"
	fi
	i=0 gone=
	while [ -z "$boot" ] && [ $i -lt 80 ]; do
		sleep 0.1
		i=$((i + 1))
		# PORT itself went away and came back: the bootloader took its name
		if [ ! -c "$port" ]; then
			gone=1
		elif [ -n "$gone" ]; then
			boot=$port
		fi
		for p in /dev/ttyACM*; do
			[ -c "$p" ] || continue
			echo "$before" | grep -qx "$p" || { boot=$p; break; }
		done
	done
	boot=${boot:-$port}
	echo "flash.sh: the Micro's bootloader on $boot"
	port=$boot
fi
# shellcheck disable=SC2086
run avrdude $args -P "$port" -D -U "flash:w:$hex:i"
