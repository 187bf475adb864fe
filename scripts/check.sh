#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# make check: every target of CHECK_TARGETS, in order, each timed. Before
# each it says which one of how many starts; after the last (or the first
# that fails, which ends the run as before) it prints a table: each
# target's wall time, its status, and what it added to the cache
# (~/.cache/phyllo, PHYLLO_KCACHE): the entries two levels deep that were
# not there before, i.e. the kernel trees, chroots, guest disks and
# downloads it built or fetched cold. Then the total and the load.
# Usage: scripts/check.sh TARGET... (MAKE: the make to run them with)
set -u
make=${MAKE:-make}
cache=${PHYLLO_KCACHE:-$HOME/.cache/phyllo}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=$#
i=0
start=$(date +%s)

# mmss SECONDS
mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

listing() {
	if [ -d "$cache" ]; then
		find "$cache" -mindepth 1 -maxdepth 2 2>/dev/null | sed "s|^$cache/||" | sort
	fi
}

table() {
	echo
	echo "make check: where the time went ($(nproc) cores)"
	printf '%-22s %8s  %-6s  %s\n' target wall status "built cold (new in $cache)"
	cat "$tmp/rows"
	printf '%-22s %8s\n' total "$(mmss $(($(date +%s) - start)))"
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
}

: >"$tmp/rows"
for t in "$@"; do
	i=$((i + 1))
	echo "make check: [$i/$n] $t (started $(date +%H:%M:%S))"
	listing >"$tmp/before"
	t0=$(date +%s)
	rc=0
	$make --no-print-directory "$t" || rc=$?
	dt=$(($(date +%s) - t0))
	listing >"$tmp/after"
	# new entries, shown at the top-most level that is new
	cold=$(comm -13 "$tmp/before" "$tmp/after" | awk -F/ '
		{ top = $1; if (!(top in seen_top) && NF == 1) { print top; seen_top[top] = 1 }
		  else if (!(top in seen_top)) { print $0 } }' | tr '\n' ' ')
	status=ok
	[ $rc = 0 ] || status=FAILED
	printf '%-22s %8s  %-6s  %s\n' "$t" "$(mmss $dt)" "$status" "${cold:--}" >>"$tmp/rows"
	if [ $rc != 0 ]; then
		table
		echo "make check: $t failed (status $rc); the targets after it did not run"
		exit $rc
	fi
done
table
echo "make check: all of [$*] passed"
