#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# size-table.sh ELF... - one line per firmware build: flash (text + data)
# and static RAM (data + bss), the two numbers the Uno's budget is about.
set -e
printf '%-22s %8s %8s %8s %10s %10s\n' build text data bss flash static-ram
for elf in "$@"; do
	name=$(basename "$elf" .elf)
	avr-size -A "$elf" | awk -v n="${name#phyllo-}" '
		$1 == ".text" { t = $2 } $1 == ".data" { d = $2 } $1 == ".bss" { b = $2 }
		END { printf "%-22s %8d %8d %8d %10d %10d\n", n, t, d, b, t + d, d + b }'
done
