#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# run-avr.sh ELF OUT.json [OTHER.elf] - run the AVR core benchmark under
# simavr and print its exact cycle counts as a table; write them as JSON
# too. OTHER.elf, the same benchmark built another way, adds a line of its
# tuple totals for comparison.
set -eu
elf=$1
json=$2
other=${3:-}
run() { timeout 120 simavr -m atmega328p -f 16000000 "$1" 2>&1 | sed 's/\x1b\[[0-9;]*m//g; s/\.$//' |
	grep -E '^[a-z_0-9]+ [0-9]+$'; }
raw=$(run "$elf")
get() { echo "$raw" | awk -v k="$1" '$1 == k { print $2 }'; }
[ "$(get done)" = 1 ] || { echo "run-avr.sh: benchmark did not finish"; echo "$raw"; exit 1; }
x100() { v=$(get "$1"); printf '%d.%02d' $((v / 100)) $((v % 100)); }

echo "AVR ATmega328P @ 16 MHz under simavr (exact cycles)"
printf '  CRC-32 (Ray32sub8) table   %s cycles/byte, tables %s bytes of RAM + %s of flash (bitwise: %s)\n' \
	"$(x100 crc_cycles_x100_per_byte)" "$(get crc_table_ram_bytes)" "$(get crc_table_flash_bytes)" \
	"$(x100 crc_bitwise_cycles_x100_per_byte)"
printf '  COBS encode                %s cycles/byte\n' "$(x100 cobs_encode_cycles_x100_per_byte)"
printf '  COBS decode (in place)     %s cycles/byte\n' "$(x100 cobs_decode_cycles_x100_per_byte)"
echo "  tuple through standard + pub-sub (cycles):"
printf '  %-10s %5s %7s %7s %8s %7s %8s\n' tuple wire build send receive parse total
for t in small large very_large; do
	printf '  %-10s %5s %7s %7s %8s %7s %8s\n' "$t" "$(get tuple_${t}_wire_bytes)" \
		"$(get tuple_${t}_build_cycles)" "$(get tuple_${t}_send_cycles)" \
		"$(get tuple_${t}_receive_cycles)" "$(get tuple_${t}_parse_cycles)" \
		"$(get tuple_${t}_total_cycles)"
	[ "$(get tuple_${t}_ok)" = 1 ] || { echo "run-avr.sh: $t did not round-trip"; exit 1; }
done
printf '  struct phyllo_stack with a 2-unit window: %s bytes\n' "$(get stack_struct_bytes)"
if [ -n "$other" ]; then
	o=$(run "$other")
	oget() { echo "$o" | awk -v k="$1" '$1 == k { print $2 }'; }
	printf '  the same built file by file (no -flto): totals %s / %s / %s\n' \
		"$(oget tuple_small_total_cycles)" "$(oget tuple_large_total_cycles)" \
		"$(oget tuple_very_large_total_cycles)"
fi
# The targets, each printed with its verdict.
target() { # what measured limit
	if [ "$2" -le "$3" ]; then v=met; else v=MISSED; fi
	printf '  target %-44s %8s <= %-6s %s\n' "$1" "$2" "$3" "$v"
}
echo "targets:"
target "CRC cycles/byte x100" "$(get crc_cycles_x100_per_byte)" 4000
target "CRC table RAM, bytes" "$(get crc_table_ram_bytes)" 64
target "small tuple encode + decode, cycles" "$(get tuple_small_total_cycles)" 6000
echo "$raw" | awk 'BEGIN { printf "{" } { printf "%s\"%s\":%s", (NR > 1 ? "," : ""), $1, $2 } END { print "}" }' >"$json"
