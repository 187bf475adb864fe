#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-cli.sh - the /dev/phylloN subcommands' error paths that need no
# kernel module: each must fail and say what to do. (With the module, the
# kernel tests cover the rest: tests/kernel/.)
# Usage: test-cli.sh PHYLLO_BINARY
set -u
bin=$1
dir=$(mktemp -d)
pass=0
fail=0
peer_pid=
trap '[ -n "$peer_pid" ] && kill $peer_pid 2>/dev/null; rm -rf "$dir"' EXIT

expect_err() {
	name=$1 want=$2
	shift 2
	"$bin" "$@" >"$dir/out" 2>"$dir/err" </dev/null
	rc=$?
	if [ $rc -ne 0 ] && grep -q -- "$want" "$dir/err"; then
		pass=$((pass + 1))
		echo "ok   $name"
	else
		fail=$((fail + 1))
		echo "FAIL $name (rc $rc)"
		cat "$dir/err"
	fi
}

if [ -e /sys/module/phyllo ]; then
	echo "test-cli.sh: the phyllo module is loaded here; these tests need it absent"
	echo "0 passed, 1 failed"
	exit 1
fi
expect_err "stats: module not loaded" "modprobe phyllo" stats
expect_err "list: module not loaded" "modprobe phyllo" list
expect_err "echo: module not loaded" "modprobe phyllo" echo -n 1
expect_err "sub: module not loaded" "modprobe phyllo" sub -d /dev/phyllo7 x
expect_err "pub: no such file" "modprobe phyllo" pub -d /dev/phyllo3 blink true
expect_err "pub: wrong file" "not a phyllo device" pub -d /dev/null blink true
expect_err "stats: wrong file" "not a phyllo device" stats -d /dev/null
expect_err "pub: missing value" "usage" pub blink
expect_err "sub: topic too long" "longer than 15" sub 0123456789abcdef
expect_err "echo: bad payload" "is not small" echo --payload hex:00
expect_err "echo: bad window" "not a number" echo -w 0
expect_err "attach: no tty" "name one serial port" attach
expect_err "attach: no such tty" "cannot open /dev/nonexistent" attach /dev/nonexistent
expect_err "attach: not a tty" "not a tty" attach /dev/null
# --name is checked before anything is opened, each rule said
expect_err "attach: name with a space" "byte 2 (0x20)" attach --name "a b" /dev/null
expect_err "attach: name of udev's" "udev's" attach -n by-tty /dev/null
expect_err "attach: name too long" "1 to 31 bytes" attach -n 12345678901234567890123456789012 /dev/null
expect_err "attach: name's first byte" "starts with a letter or a digit" attach -n _x /dev/null
# A real pty, but no line discipline 29 registered on this kernel.
"$bin" peer --echo --pty "$dir/pty" >/dev/null 2>&1 &
peer_pid=$!
i=0
while [ ! -e "$dir/pty" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
expect_err "attach: module not loaded" "modprobe phyllo" attach "$dir/pty" -f
expect_err "attach: bad preset" "not one of minimal" attach "$dir/pty" -p big
for cmd in attach list pub sub echo stats peer; do
	if "$bin" $cmd --help | grep -q "usage: phyllo $cmd"; then
		pass=$((pass + 1)); echo "ok   $cmd --help"
	else
		fail=$((fail + 1)); echo "FAIL $cmd --help"
	fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
