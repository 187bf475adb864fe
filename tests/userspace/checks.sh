# SPDX-License-Identifier: GPL-2.0-only OR MIT
# shellcheck shell=sh
#
# checks.sh - sourced by the host test scripts of tests/userspace/ after
# `set -u`: a scratch folder $dir, removed at exit with the processes
# listed in $pids killed; ok and bad count the checks (bad shows what the
# command under test left in $dir/err and $dir/out); checks_done prints
# the count and is the script's status; run NAME WANT CMD... is one
# check that CMD succeeds (stdin empty) and, unless WANT is empty, prints
# WANT.
dir=$(mktemp -d)
pass=0
fail=0
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$dir"' EXIT

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() {
	fail=$((fail + 1))
	echo "FAIL $1"
	for f in "$dir/err" "$dir/out"; do
		[ -f "$f" ] && sed 's/^/     /' "$f" | head -20
	done
	return 0
}
run() {
	name=$1 want=$2
	shift 2
	if "$@" >"$dir/out" 2>"$dir/err" </dev/null &&
	   { [ -z "$want" ] || grep -q -- "$want" "$dir/out"; }; then
		ok "$name"
	else
		bad "$name (rc $?)"
	fi
}
checks_done() {
	echo "$pass passed, $fail failed"
	[ $fail -eq 0 ]
}
