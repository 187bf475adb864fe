#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make kunit: the KUnit suites on UML, with KASAN, lockdep, kmemleak, UBSAN,
# on each kernel named (kernel-tree.sh: 6.1, 6.12; default 6.1).
# Usage: tests/kernel/kunit.sh [NAME...]
# 6.1 runs on the UML kernel of make test-kernel (uml-build.sh, uml.config:
# the same sanitizers), so one 6.1 kernel is built, not two: phyllo and
# its suites are modules there (phyllo.ko, phyllo_kunit.ko, built out of
# tree W=1 against it). One boot, whose init (kunit-leaks.sh) loads both
# (the suites run as phyllo_kunit loads), keeps their KTAP report,
# unloads both, then has kmemleak scan; kunit.py parse reads the report
# and prints its summary line.
# Any other kernel (6.12):
#  1. kunit.py run on the cached tree (kunitconfig, the suites built in;
#     incremental, ccache), which prints kunit.py's own summary line;
#  2. a second boot of the same kernel with a hostfs root, whose init
#     (kunit-leaks.sh) has kmemleak scan after the suites ran.
# Then both logs are searched: any BUG:, WARNING:, lockdep splat, UBSAN
# or KASAN report or kmemleak leak fails the target, not only failed
# cases.
set -e
here=$(cd "$(dirname "$0")" && pwd)
[ $# -gt 0 ] || set -- 6.1
jobs=${KUNIT_JOBS:-$(nproc)}
. "$here/../../scripts/cold.sh"

# The suites as modules on test-kernel's UML kernel. phyllo's objects go
# to this checkout's build folder (BUILD, as make passes it), never to the
# shared cache: kmod.sh links the checkout's sources and make compares
# mtimes, so objects another checkout built later were taken for current
# ones (a kernel/ edit older than a fresh clone's run was not rebuilt).
kunit_modules() {
	name=$1 top=$2 start=$3
	build=${BUILD:-$here/../../build}/kunit-$name
	mkdir -p "$build"
	build=$(cd "$build" && pwd)
	uml=$(KBUILD_JOBS=$jobs "$here/uml-build.sh" "$build")
	rm -f "$build/kunit.ktap"
	timeout 900 "$uml/linux" mem=1G console=tty kunit.enable=1 log_buf_len=4M \
		rootfstype=hostfs rootflags=/ rw init="$here/kunit-leaks.sh" \
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
	echo "kunit: $name ($(basename "$top"), modules on test-kernel's UML kernel): $(grep -o 'Ran [0-9]* tests: passed: [0-9]*' "$build/kunit-run.txt"), logs clean (KASAN, lockdep, UBSAN, kmemleak) in $(($(date +%s) - start)) s"
}

for name in "$@"; do
	top=$("$here/kernel-tree.sh" "$name")
	start=$(date +%s)
	if [ "$name" = 6.1 ]; then
		kunit_modules "$name" "$top" "$start"
		continue
	fi
	build=$top/kunit
	mkdir -p "$build"
	# one kunit.py run in this tree at a time (two checkouts' kunit)
	exec 8>"$build.lock"
	flock 8
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
