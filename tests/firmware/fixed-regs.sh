#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# tests/firmware/fixed-regs.sh ELF... - r4 and r5 belong to the UART
# handlers of firmware/uart.c (they save SREG in r4 and take their byte in
# r5, and push nothing else but Z). -ffixed-r4 -ffixed-r5 keeps the
# compiler off them, but not the C library's or libgcc's assembly, nor an
# object built without the flags: so the linked image is read back, and
# any instruction that names r4 or r5 outside a function that opens with
# the handlers' "in r4, SREG" fails, with its address and function. (What
# lies before __ctors_end is the vector table and flash data, not code.)
set -u
rc=0
for elf in "$@"; do
	code=$(avr-nm "$elf" | awk '$3 == "__ctors_end" { print $1 }')
	bad=$(avr-objdump -d --start-address=0x"$code" "$elf" | awk '
		/^[0-9a-f]+ <.*>:$/ { fn = $2; first = 1; next }
		/^ +[0-9a-f]+:\t/ {
			split($0, f, "\t"); ins = f[3] " " f[4]
			if (first) { isr = (ins ~ /^in[ \t]+r4, 0x3f/); first = 0; if (isr) handlers++ }
			if (!isr && ins ~ /[ \t,]r(4|5)([ \t,;]|$)/) print fn " " f[1] " " ins
		}
		END { if (handlers != 2) print "expected the 2 UART handlers, found " handlers + 0 }')
	if [ -n "$bad" ]; then
		echo "FAIL: $(basename "$elf"): r4/r5 used outside the UART handlers:"
		echo "$bad" | head -20
		rc=1
	else
		echo "ok   $(basename "$elf"): r4/r5 only in the 2 UART handlers"
	fi
done
exit $rc
