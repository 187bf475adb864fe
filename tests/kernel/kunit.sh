#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make kunit: the KUnit suites on UML, with KASAN, lockdep, kmemleak, UBSAN,
# on each kernel named (kernel-tree.sh: 6.1, 6.12; default 6.1).
# Usage: tests/kernel/kunit.sh [NAME...]
# Each runs on that version's UML kernel (uml-build.sh, uml.config: the
# sanitizers; 6.1's is also test-kernel's), so one kernel per version is
# built: phyllo and its suites are modules there (phyllo.ko,
# phyllo_kunit.ko, built out of tree W=1 against it). One boot, whose
# init (kunit-leaks.sh) loads both (the suites run as phyllo_kunit loads),
# keeps their KTAP report, unloads both, then has kmemleak scan; kunit.py
# parse reads the report and prints its summary line. Then the boot's log
# is searched: any BUG:, WARNING:, lockdep splat, UBSAN or KASAN report or
# kmemleak leak fails the target, not only failed cases.
set -e
here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || set -- 6.1
jobs=${KUNIT_JOBS:-$(nproc)}

# The suites as modules on the version's UML kernel. phyllo's objects go
# to this checkout's build folder (BUILD, as make passes it), never to the
# shared cache: kmod.sh links the checkout's sources and make compares
# mtimes, so objects another checkout built later were taken for current
# ones (a kernel/ edit older than a fresh clone's run was not rebuilt).
kunit_modules() {	# kunit_modules NAME
	name=$1 start=$(date +%s)
	top=$("$here/kernel-tree.sh" "$name")
	build=${BUILD:-$here/../../build}/kunit-$name
	mkdir -p "$build"
	build=$(cd "$build" && pwd)
	uml=$(KBUILD_JOBS=$jobs "$here/uml-build.sh" "$build" "$name")
	rm -f "$build/kunit.ktap"
	timeout 900 "$uml/linux" mem=1G console=tty kunit.enable=1 log_buf_len=4M \
		root=hostfs rootfstype=hostfs rootflags=/ rw init="$here/kunit-leaks.sh" \
		PHYLLO_KMOD="$build/kmod/uml" PHYLLO_KTAP="$build/kunit.ktap" \
		</dev/null >"$build/kunit-boot.log" 2>&1 || true
	grep -q "^phyllo-kmemleak: done" "$build/kunit-boot.log" || {
		echo "kunit: $name: the boot did not finish, see $build/kunit-boot.log" >&2
		exit 1
	}
	grep -q "^phyllo-kunit: unloaded" "$build/kunit-boot.log" || {
		echo "kunit: $name: phyllo_kunit and phyllo did not load and unload, see $build/kunit-boot.log" >&2
		exit 1
	}
	[ -s "$build/kunit.ktap" ] || {
		echo "kunit: $name: no KTAP report from phyllo_kunit, see $build/kunit-boot.log" >&2
		exit 1
	}
	# A module's suites come without the plan a boot prints first.
	suites=$(grep -c '^    # Subtest: ' "$build/kunit.ktap" || true)
	{ echo "KTAP version 1"; echo "1..$suites"; grep -v '^KTAP version\|^1\.\.' "$build/kunit.ktap"; } |
		(cd "$top/src" && python3 tools/testing/kunit/kunit.py parse) | tee "$build/kunit-run.txt"
	grep -q "Testing complete. Ran [0-9]* tests: passed: [0-9]*$" "$build/kunit-run.txt" || {
		echo "kunit: $name: not every test passed" >&2
		exit 1
	}
	"$here/log-check.sh" "$build/kunit-boot.log"
	echo "kunit: $name ($(basename "$top"), modules on its UML kernel): $(grep -o 'Ran [0-9]* tests: passed: [0-9]*' "$build/kunit-run.txt"), logs clean (KASAN, lockdep, UBSAN, kmemleak) in $(($(date +%s) - start)) s"
}

for name in "$@"; do
	kunit_modules "$name"
done
