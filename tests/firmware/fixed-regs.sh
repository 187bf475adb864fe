#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# tests/firmware/fixed-regs.sh ELF... - r4 to r7 belong to the UART
# handlers of firmware/uart.c: they save SREG in r4 and take their byte in
# r5, and r6 and r7 are the receive ring's head and the transmit ring's
# tail, which they write. -ffixed-r4 ... -ffixed-r7 keeps the compiler off
# them, but not the C library's or libgcc's assembly, nor an object built
# without the flags: so the linked image is read back, and outside the
# functions that open with the handlers' "in r4, SREG" it fails on any
# instruction naming r4 or r5, and on any naming r6 or r7 but the main
# loop's reads (mov rN, r6/r7) and the start-up's clearing (eor r6, r6;
# eor r7, r7), with its address and function. (What lies before
# __ctors_end is the vector table and flash data, not code.)
set -u
rc=0
for elf in "$@"; do
	code=$(avr-nm "$elf" | awk '$3 == "__ctors_end" { print $1 }')
	bad=$(avr-objdump -d --start-address=0x"$code" "$elf" | awk '
		/^[0-9a-f]+ <.*>:$/ { fn = $2; first = 1; next }
		/^ +[0-9a-f]+:\t/ {
			split($0, f, "\t"); ins = f[3] " " f[4]
			if (first) { isr = (ins ~ /^in[ \t]+r4, 0x3f/); first = 0; if (isr) handlers++ }
			if (isr)
				next
			if (ins ~ /[ \t,]r(4|5)([ \t,;]|$)/)
				print fn " " f[1] " " ins
			else if (ins ~ /[ \t,]r(6|7)([ \t,;]|$)/ &&
				 ins !~ /^mov[ \t]+r[0-9]+, r(6|7)([ \t;]|$)/ &&
				 ins !~ /^eor[ \t]+r6, r6([ \t;]|$)/ && ins !~ /^eor[ \t]+r7, r7([ \t;]|$)/)
				print fn " " f[1] " " ins
		}
		END { if (handlers != 2) print "expected the 2 UART handlers, found " handlers + 0 }')
	if [ -n "$bad" ]; then
		echo "FAIL: $(basename "$elf"): r4..r7 used outside the UART handlers:"
		echo "$bad" | head -20
		rc=1
	else
		echo "ok   $(basename "$elf"): r4..r7 only in the 2 UART handlers (r6/r7 read elsewhere)"
	fi
done
exit $rc
