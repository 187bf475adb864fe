#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# size-table.sh ELF... - one line per Cortex-M build: flash (text, which
# holds the vectors and read-only data, + data) and static RAM (data + bss
# + noinit), from arm-none-eabi-size -A. The stack is the rest of RAM.
set -e
printf '%-22s %8s %8s %8s %10s %10s\n' build text data bss flash static-ram
for elf in "$@"; do
	name=$(basename "$elf" .elf)
	arm-none-eabi-size -A "$elf" | awk -v n="${name#phyllo-}" '
		$1 == ".text" || $1 == ".ARM.exidx" { t += $2 } $1 == ".data" { d = $2 }
		$1 == ".bss" || $1 == ".noinit" { b += $2 }
		END { printf "%-22s %8d %8d %8d %10d %10d\n", n, t, d, b, t + d, d + b }'
done
