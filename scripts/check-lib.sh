# SPDX-License-Identifier: GPL-2.0-only OR MIT
# shellcheck shell=bash
# check-lib.sh - sourced by scripts/check.sh and scripts/check-repeat.sh:
# one target run the same way by both.
#   check_mmss SECONDS           9:04
#   check_target LOG RESULT MAKE-ARGUMENT...
#       $make MAKE-ARGUMENT... (make unless $make is set: a target, or
#       -j2 and several goals), all its output in LOG,
#       stdin closed; then "STATUS WALL CPU" in RESULT (seconds). Run it
#       in a subshell of its own: CPU is what bash's `times` gives for
#       the subshell's children, user + sys of make and of every process
#       it waited for, i.e. the target's whole tree (a daemon that
#       double-forked out of it is not counted).

check_mmss() {
	printf '%d:%02d' $(($1 / 60)) $(($1 % 60))
}

# user + sys of the children so far, rounded seconds, from `times`
# ("1m2.5s 0m0.4s" on its second line) on stdin: `times` itself must run
# in the shell whose children count, not in a $(...) of it
check_cpu() {
	awk 'NR == 2 {
		s = 0
		for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); s += a[1] * 60 + a[2] }
		printf "%d\n", s + 0.5 }'
}

check_target() {
	local t0 rc
	t0=$(date +%s)
	local log=$1 result=$2
	shift 2
	# shellcheck disable=SC2086 # $make may hold options: make -f FILE
	${make:-make} --no-print-directory "$@" >"$log" 2>&1 </dev/null
	rc=$?
	times >"$result.times"
	echo "$rc $(($(date +%s) - t0)) $(check_cpu <"$result.times")" >"$result"
	rm -f "$result.times"
}
