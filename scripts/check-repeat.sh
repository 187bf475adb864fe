#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# make check-repeat TARGET=t N=10: `make t` N times in a row, as make
# check runs it (scripts/check-lib.sh), to tell a flaky target from a
# sound one. One line a run (status, wall and CPU time), then how many
# passed. The log of each failed run stays in BUILD/check/repeat/
# t.RUN.log (the passing runs' logs are removed: the last one stays as
# t.last.log); the summary line goes to BUILD/check/repeat/t.txt too.
# Usage: scripts/check-repeat.sh TARGET N (MAKE, BUILD as for check.sh)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/check-lib.sh"
# shellcheck disable=SC2034 # check_target runs it
make=${MAKE:-make}
t=$1 n=$2
dir=${BUILD:-build}/check/repeat
mkdir -p "$dir"
rm -f "$dir/$t".[0-9]*.log
pass=0 walls=
for r in $(seq 1 "$n"); do
	(check_target "$dir/$t.$r.log" "$dir/$t.result" "$t")
	read -r rc wall cpu <"$dir/$t.result"
	if [ "$rc" = 0 ]; then
		pass=$((pass + 1))
		mv "$dir/$t.$r.log" "$dir/$t.last.log"
		status=ok
	else
		status="FAILED (status $rc, log $dir/$t.$r.log)"
	fi
	walls="$walls $(check_mmss "$wall")"
	echo "check-repeat: $t run $r/$n: $status in $(check_mmss "$wall") (CPU $(check_mmss "$cpu"))"
done
rm -f "$dir/$t.result"
summary="$t: $pass of $n passed ($(date +%F), $(git -C "$here/.." rev-parse --short HEAD 2>/dev/null)$(git -C "$here/.." diff --quiet HEAD 2>/dev/null || echo +changes)); wall:$walls"
echo "check-repeat: $summary" | tee "$dir/$t.txt"
[ "$pass" = "$n" ]
