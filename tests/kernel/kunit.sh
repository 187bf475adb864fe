#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make kunit: the KUnit suites on UML, with KASAN, lockdep, kmemleak, UBSAN,
# on each kernel named (kernel-tree.sh: 6.1, 6.12; default 6.1).
# Usage: tests/kernel/kunit.sh [NAME...]
# For each:
#  1. kunit.py run on the cached tree (incremental, ccache), which prints
#     kunit.py's own summary line;
#  2. a second boot of the same kernel with a hostfs root, whose init
#     (kunit-leaks.sh) has kmemleak scan after the suites ran;
#  3. both logs are searched: any BUG:, WARNING:, lockdep splat, UBSAN or
#     KASAN report or kmemleak leak fails the target, not only failed cases.
set -e
here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || set -- 6.1
jobs=${KUNIT_JOBS:-$(nproc)}
. "$here/../../scripts/cold.sh"
for name in "$@"; do
	top=$("$here/kernel-tree.sh" "$name")
	build=$top/kunit
	mkdir -p "$build"
	start=$(date +%s)
	# A kernel's own additions: kunitconfig-<name>, when there is one.
	extra=
	[ -f "$here/kunitconfig-$name" ] && extra=--kunitconfig="$here/kunitconfig-$name"
	# A first build says so, and how long the last one took (cold.sh).
	cold=
	[ -x "$build/linux" ] || cold=1
	[ -z "$cold" ] || cold_begin "kunit: the UML $name kernel, built and run" \
		"$build/.phyllo-cold" "${top%/*}/linux-$name-*/kunit/.phyllo-cold"
	(cd "$top/src" && python3 tools/testing/kunit/kunit.py run --build_dir="$build" \
		--kunitconfig="$here/kunitconfig" $extra --make_options CC="ccache gcc" \
		--jobs "$jobs" --timeout 600) | tee "$build/kunit-run.txt"
	[ -z "$cold" ] || cold_end
	grep -q "Testing complete. Ran [0-9]* tests: passed: [0-9]*$" "$build/kunit-run.txt" || {
		echo "kunit: $name: not every test passed" >&2
		exit 1
	}
	cp "$build/test.log" "$build/kunit-boot1.log"

	# Second boot: the same tests, then userspace triggers kmemleak scans.
	timeout 600 "$build/linux" mem=1G console=tty kunit.enable=1 \
		rootfstype=hostfs rootflags=/ rw init="$here/kunit-leaks.sh" \
		</dev/null >"$build/kunit-boot2.log" 2>&1 || true
	grep -q "^phyllo-kmemleak: done" "$build/kunit-boot2.log" || {
		echo "kunit: $name: the kmemleak boot did not finish, see $build/kunit-boot2.log" >&2
		exit 1
	}
	"$here/log-check.sh" "$build/kunit-boot1.log" "$build/kunit-boot2.log"
	echo "kunit: $name ($(basename "$top")): $(grep -o 'Ran [0-9]* tests: passed: [0-9]*' "$build/kunit-run.txt"), logs clean (KASAN, lockdep, UBSAN, kmemleak) in $(($(date +%s) - start)) s"
done
