#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Fail if a kernel log holds a report of a kernel bug: BUG:, WARNING:,
# lockdep, KASAN, UBSAN, kmemleak, soft lockup or hung task.
# Usage: tests/kernel/log-check.sh LOG...
pattern='BUG:|WARNING:|INFO: trying to register|DEBUG_LOCKS_WARN_ON|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|UBSAN:|KASAN:|unreferenced object|suspected memory leak|soft lockup|blocked for more than|Kernel panic|Oops'
bad=0
for log in "$@"; do
	if grep -qE "$pattern" "$log"; then
		echo "log-check: kernel bug report in $log:" >&2
		grep -n -E -A20 "$pattern" "$log" | head -80 >&2
		bad=1
	fi
done
exit $bad
