#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# scripts/try.sh SIMAVR ELF TTY PHYLLO [SECONDS] - `make try`: a first try
# without a board. The Uno firmware (ELF) runs on a simulated ATmega328P
# (SIMAVR, phyllo-simavr: real 115200-baud byte timing), its UART a
# pseudo-terminal symlinked at the stable path TTY, in the foreground
# until Ctrl-C (or SECONDS of simulated time). Prints the path to give as
# --tty and the README's first commands against it (PHYLLO, the tool, and
# TTY shown relative to the current folder when they are under it).
set -eu
sim=$1 elf=$2 tty=$3 tool=$4 secs=${5:-}
here=$(pwd)
rel() { case $1 in "$here"/*) echo "${1#"$here"/}" ;; *) echo "$1" ;; esac; }
t=$(rel "$tty") p=$(rel "$tool")
mkdir -p "$(dirname "$tty")"
cat <<MSG
make try: the Uno firmware ($(rel "$elf")) on a simulated ATmega328P,
at 115200 baud like a real Uno, as a serial port at

    $t

Leave this running (Ctrl-C stops the board). In another terminal, from
this folder, talk to it as to a board on /dev/ttyACM0:

    $p pub --tty $t --reply ping 1       # the board answers: ping 0, 1, ...
    $p pub --tty $t blink true           # its LED (pin 13 on a real Uno)
    $p pub --tty $t --reply stats null   # its own counters, by name
    $p echo --tty $t --payload large -n 200

MSG
exec "$sim" --pty --link "$tty" ${secs:+--seconds "$secs"} "$elf"
