#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# Run one libFuzzer target of tests/fuzz/: first its regression inputs,
# then fuzz from the committed seeds, and print libFuzzer's coverage lines
# and final statistics.
#
# Usage: run.sh BIN STRICT NAME WORKDIR LOG -- LIBFUZZER-FLAGS...
#   BIN      the target that fuzzes (build/fuzz/fuzz_NAME)
#   STRICT   the same with every check on; differs from BIN only while a
#            core bug the target found is open (FUZZ_OPEN_CFLAGS_NAME in
#            tests/fuzz/fuzz.mk turns off the one check it trips)
#   NAME     cobs, datagram, msgpack, pubsub or stack
#   WORKDIR  a corpus folder of its own (new inputs land there, never in
#            the committed tests/fuzz/corpus/fuzz_NAME)
#   LOG      libFuzzer's full output goes here
# Regression inputs (tests/fuzz/regress/fuzz_NAME/) must pass under STRICT,
# except those named open-*: the reproducers of open core bugs, which must
# still fail under STRICT (once one passes, the bug is fixed: drop the
# prefix, and the FUZZ_OPEN_CFLAGS if it had some).
# Exits non-zero on any crash or broken invariant; libFuzzer names the
# input it saved (see -artifact_prefix).
set -e
bin=$1 strict=$2 name=$3 work=$4 log=$5
shift 5
[ "$1" = "--" ] && shift
here=$(dirname "$0")
regress=$here/regress/fuzz_$name
seeds=$here/corpus/fuzz_$name
mkdir -p "$work" "$(dirname "$log")"

fail() {
	grep -v '^INFO' "$1" | grep -v '^#' | head -40
	echo "fuzz_$name: $2 (log: $1)"
	exit 1
}

if [ -d "$regress" ]; then
	for f in "$regress"/*; do
		[ -f "$f" ] || continue
		case $(basename "$f") in
		open-*)
			"$strict" "$f" >"$log.regress" 2>&1 &&
				fail "$log.regress" "$f passes now: the bug is fixed, drop open- (and FUZZ_OPEN_CFLAGS_$name if set)"
			echo "fuzz_$name: $(basename "$f") still fails as expected (open core bug)" ;;
		*)
			"$strict" "$f" >"$log.regress" 2>&1 || fail "$log.regress" "regression $f fails" ;;
		esac
	done
	echo "fuzz_$name: regression inputs done"
fi

start=$(date +%s)
"$bin" "$@" -print_final_stats=1 "$work" "$seeds" >"$log" 2>&1 || fail "$log" "FAILED"
echo "fuzz_$name: $(($(date +%s) - start)) s (wall clock, for the record only)"
# The coverage as it grew (a few lines), the last line, the totals.
grep -E '^#[0-9]+' "$log" | grep -E 'INITED|pulse|DONE' | tail -4
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log"
