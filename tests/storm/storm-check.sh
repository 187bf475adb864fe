#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# storm-check.sh LOG... - the pass criteria of make test-storm on a kernel
# log (the guest's dmesg and kmemleak report, or the host's copy of the
# console): no KASAN or KCSAN report, no lockdep splat, no sleeping in atomic
# context, no ODEBUG warning, no kmemleak suspect (its "unreferenced
# object" paragraph; kmemleak's count of new suspects is left out, since
# storm-init.sh sets the boot's own suspects aside), no hung task, soft
# lockup or RCU stall, no WARNING:, BUG: or Oops. Prints each offending
# line with some context and exits 1 if there is one; runs under busybox.
pattern='BUG: KASAN|BUG: KCSAN|possible recursive locking|possible circular locking'
pattern="$pattern|inconsistent lock state|WARNING: .*lock|DEBUG_LOCKS_WARN_ON"
pattern="$pattern|INFO: trying to register non-static key|suspicious RCU usage"
pattern="$pattern|BUG: sleeping function called from invalid context|ODEBUG:"
pattern="$pattern|unreferenced object|hung task"
pattern="$pattern|blocked for more than|soft lockup|detected stalls"
pattern="$pattern|WARNING:|BUG:|Oops|general protection fault|Kernel panic"
pattern="$pattern|UBSAN:|list_add corruption|list_del corruption"
bad=0
for log in "$@"; do
	if grep -aqE "$pattern" "$log"; then
		echo "storm-check: kernel reports in $log:"
		grep -anE -A12 "$pattern" "$log" | head -150
		bad=1
	fi
done
exit $bad
