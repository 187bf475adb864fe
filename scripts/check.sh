#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# make check: the targets given, as a graph run by CHECK_JOBS (2) lanes.
# scripts/check-lanes says what each target costs (1 or 2 cores) and
# shares (locks, targets to wait for, shared build outputs); the order
# given (the Makefile's tiers) is the order of preference, except that a
# 2-core target (a kernel build) starts as soon as no other one runs, so
# the cold builds begin at once beside the 1-thread guests and simulators.
#  1. The prep goals the targets name (check-prep-*: build/host/phyllo,
#     the simulator, ...) are made once, make -jCHECK_JOBS.
#  2. Each target runs as `make TARGET`, its output in BUILD/check/
#     TARGET.log; one line as it starts, one as it ends, then the log's
#     last CHECK_TAIL (5) lines, or all of it when it failed.
#  3. A failure starts nothing new (CHECK_KEEP_GOING=1: it does); the
#     targets running end, then the table: each target's wall and CPU time
#     (user + sys of its whole process tree), status, and what it added to
#     the cache (~/.cache/phyllo, PHYLLO_KCACHE) while it ran: the entries
#     two levels deep that were not there before (an entry new while two
#     targets ran shows beside both). Then the totals and the load.
# Usage: scripts/check.sh TARGET... (MAKE: the make to run them with;
# BUILD: the build folder, for the logs)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/check-lib.sh"
# shellcheck disable=SC2034 # check_target runs it
make=${MAKE:-make}
jobs=${CHECK_JOBS:-2}
lanes=${CHECK_LANES:-$here/check-lanes}
logs=${BUILD:-build}/check
cache=${PHYLLO_KCACHE:-$HOME/.cache/phyllo}
tmp=$(mktemp -d)
declare -A cores locks after prep state held pid
start=$(date +%s)
n=$#
order=("$@")

while read -r t c l a p; do
	case $t in '' | '#'*) continue ;; esac
	cores[$t]=$c locks[$t]=${l#-} after[$t]=${a#-} prep[$t]=${p#-}
done <"$lanes"
goals=
for t in "${order[@]}"; do
	[ -n "${cores[$t]:-}" ] || { echo "make check: $lanes has no line for $t" >&2; exit 2; }
	state[$t]=pending
	for g in ${prep[$t]//,/ }; do
		case " $goals " in *" check-prep-$g "*) ;; *) goals="${goals:+$goals }check-prep-$g" ;; esac
	done
done
mkdir -p "$logs"

# Ctrl-C or a kill: every target running goes too (each is a process
# group of its own: set -m).
set -m
stop_all() {
	for t in "${order[@]}"; do [ "${state[$t]}" = running ] && kill -TERM -- "-${pid[$t]}" 2>/dev/null; done
	rm -rf "$tmp"
	exit 130
}
trap stop_all INT TERM
trap 'rm -rf "$tmp"' EXIT

listing() {
	if [ -d "$cache" ]; then
		find "$cache" -mindepth 1 -maxdepth 2 2>/dev/null | sed "s|^$cache/||" | sort
	fi
}

# new_in_cache T: what appeared in the cache while T ran, at the top-most
# level that is new
new_in_cache() {
	listing | comm -13 "$tmp/$1.before" - | awk -F/ '
		{ top = $1; if (!(top in seen_top) && NF == 1) { print top; seen_top[top] = 1 }
		  else if (!(top in seen_top)) { print $0 } }' | tr '\n' ' '
}

# may_start T: none of T's locks held, T's `after` targets ended, and no
# other 2-core target running when T takes 2
may_start() {
	local o
	[ "${cores[$1]}" = 2 ] && [ -n "${held[cores2]:-}" ] && return 1
	for o in ${after[$1]//,/ }; do
		case ${state[$o]:-absent} in pending | running) return 1 ;; esac
	done
	for o in ${locks[$1]//,/ }; do
		[ -z "${held[$o]:-}" ] || return 1
	done
	return 0
}

# next: the first 2-core target that may start, else the first other
next() {
	local t c
	for c in 2 1; do
		for t in "${order[@]}"; do
			[ "${state[$t]}" = pending ] && [ "${cores[$t]}" = $c ] && may_start "$t" &&
				{ echo "$t"; return 0; }
		done
	done
	return 1
}

i=0 nrun=0
launch() {
	local t=$1 o beside
	beside=$(for o in "${order[@]}"; do [ "${state[$o]}" = running ] && echo "$o"; done | tr '\n' ' ')
	i=$((i + 1)) nrun=$((nrun + 1))
	state[$t]=running
	for o in ${locks[$t]//,/ }; do held[$o]=$t; done
	[ "${cores[$t]}" = 2 ] && held[cores2]=$t
	listing >"$tmp/$t.before"
	printf 'make check: [%2d/%d] %s: started %s (%s core%s%s)\n' $i "$n" "$t" \
		"$(date +%H:%M:%S)" "${cores[$t]}" "$([ "${cores[$t]}" = 2 ] && echo s)" \
		"${beside:+, beside ${beside% }}"
	(check_target "$logs/$t.log" "$tmp/$t.result" "$t") &
	pid[$t]=$!
}

rows=
cpu_sum=0
failed=
finish() {
	local t=$1 rc wall cpu o cold status
	read -r rc wall cpu <"$tmp/$t.result"
	unset "pid[$t]"
	nrun=$((nrun - 1))
	for o in ${locks[$t]//,/ }; do unset "held[$o]"; done
	[ "${held[cores2]:-}" = "$t" ] && unset "held[cores2]"
	cold=$(new_in_cache "$t")
	status=ok
	[ "$rc" = 0 ] || { status=FAILED; failed="$failed $t"; }
	state[$t]=$status
	cpu_sum=$((cpu_sum + cpu))
	rows="$rows$(printf '%-27s %5s %7s %7s  %-7s %s' "$t" "${cores[$t]}" \
		"$(check_mmss "$wall")" "$(check_mmss "$cpu")" "$status" "${cold:--}")"$'\n'
	echo "make check: $t: $status in $(check_mmss "$wall") (CPU $(check_mmss "$cpu"))"
	if [ "$rc" = 0 ]; then
		tail -n "${CHECK_TAIL:-5}" "$logs/$t.log" | sed 's/^/    /'
	else
		echo "---- $logs/$t.log (status $rc) ----"
		cat "$logs/$t.log"
		echo "---- end of $logs/$t.log ----"
	fi
}

table() {
	local t
	echo
	echo "make check: where the time went ($(nproc) cores, $jobs lanes)"
	printf '%-27s %5s %7s %7s  %-7s %s\n' target cores wall CPU status "built cold (new in $cache)"
	[ -z "$prep_row" ] || echo "$prep_row"
	for t in "${order[@]}"; do
		grep "^$t " <<<"$rows" ||
			printf '%-27s %5s %7s %7s  %-7s\n' "$t" "${cores[$t]}" - - "not run"
	done
	printf '%-27s %5s %7s %7s\n' total "" "$(check_mmss $(($(date +%s) - start)))" "$(check_mmss "$cpu_sum")"
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
}

echo "make check: $n targets, $jobs at a time, logs in $logs/"
prep_row=
if [ -n "$goals" ]; then
	echo "make check: [prep] $goals: started $(date +%H:%M:%S)"
	# shellcheck disable=SC2086 # goals: one word each
	(check_target "$logs/prep.log" "$tmp/prep.result" -j"$jobs" $goals)
	read -r rc wall cpu <"$tmp/prep.result"
	cpu_sum=$cpu
	prep_row=$(printf '%-27s %5s %7s %7s  %s' "(prep)" "$jobs" "$(check_mmss "$wall")" \
		"$(check_mmss "$cpu")" "$([ "$rc" = 0 ] && echo ok || echo FAILED)")
	echo "make check: [prep]: $([ "$rc" = 0 ] && echo ok || echo FAILED) in $(check_mmss "$wall")"
	if [ "$rc" != 0 ]; then
		cat "$logs/prep.log"
		table
		echo "make check: the shared builds ($goals) failed; no target ran"
		exit 1
	fi
fi

while :; do
	if [ -z "$failed" ] || [ -n "${CHECK_KEEP_GOING:-}" ]; then
		while [ $nrun -lt "$jobs" ] && t=$(next); do
			launch "$t"
		done
	fi
	[ $nrun -gt 0 ] || break
	wait -n 2>/dev/null
	for t in "${order[@]}"; do
		if [ "${state[$t]}" != running ] || [ ! -f "$tmp/$t.result" ]; then
			continue
		fi
		wait "${pid[$t]}" 2>/dev/null
		finish "$t"
	done
done
table
if [ -n "$failed" ]; then
	echo "make check: failed:$failed (their logs above and in $logs/)"
	exit 1
fi
for t in "${order[@]}"; do
	[ "${state[$t]}" = ok ] || { echo "make check: $t never started (check $lanes)"; exit 1; }
done
echo "make check: all of [${order[*]}] passed"
