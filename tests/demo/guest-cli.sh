#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# Runs inside the demo guest before the demo (make demo-short): the CLI's
# error paths that need the module loaded. Prints "N passed, N failed".
set -u
pass=0
fail=0
expect_err() {
	name=$1 want=$2
	shift 2
	"$@" >/tmp/out 2>/tmp/err </dev/null
	rc=$?
	if [ $rc -ne 0 ] && grep -q -- "$want" /tmp/err; then
		pass=$((pass + 1)); echo "ok   $name"
	else
		fail=$((fail + 1)); echo "FAIL $name (rc $rc)"; cat /tmp/err
	fi
}
# busybox su (no setpriv --reuid here); nobody's shell is /bin/sh
nobody() { su -s /bin/sh -c "$*" nobody; }

# A pty whose far end is the userspace stack, echoing: a link to attach to.
phyllo peer --echo --pty /tmp/pty >/dev/null 2>&1 &
peer=$!
i=0
while [ ! -e /tmp/pty ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
chmod 666 "$(readlink /tmp/pty)"

expect_err "stats: no such link" "attach a serial port first" phyllo stats -d /dev/phyllo9
expect_err "list: no link is fine, wrong option is not" "usage" phyllo list --bogus
expect_err "attach: unprivileged" "permission denied" nobody phyllo attach /tmp/pty -f
dev=$(phyllo attach /tmp/pty)
if [ -c "$dev" ]; then
	pass=$((pass + 1)); echo "ok   attach printed $dev"
else
	fail=$((fail + 1)); echo "FAIL attach printed '$dev'"
fi
chmod 600 "$dev"
expect_err "stats: unprivileged" "permission denied" nobody phyllo stats -d "$dev"
expect_err "pub: topic too long" "longer than 15" phyllo pub -d "$dev" 0123456789abcdef 1
expect_err "pub: bad JSON" "not a JSON value" phyllo pub -d "$dev" blink '{oops'
expect_err "sub: nothing arrives" "no message within 1 s" phyllo sub -d "$dev" -t 1 nothing
if phyllo echo -d "$dev" -n 100 --json >/dev/null; then
	pass=$((pass + 1)); echo "ok   100 echoes through the guest's own userspace peer"
else
	fail=$((fail + 1)); echo "FAIL echo through the guest's userspace peer"
fi
# the pty's far end goes away mid-run: a hangup, seen by the reader
phyllo echo -d "$dev" -n 1000000 -t 30 --json >/dev/null 2>/tmp/err &
echo_pid=$!
sleep 1	# the stimulus: the far end goes away a second into the run
kill $peer
wait $echo_pid
rc=$?
if [ $rc -ne 0 ] && grep -q "detached or hung up" /tmp/err; then
	pass=$((pass + 1)); echo "ok   echo: the far end hung up mid-run"
else
	fail=$((fail + 1)); echo "FAIL echo: far end hung up (rc $rc)"; cat /tmp/err
fi
kill $(pidof phyllo) 2>/dev/null
i=0	# until the detach has removed it (5 s at most)
while [ -e "$dev" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -e "$dev" ] && { fail=$((fail + 1)); echo "FAIL $dev still there after detach"; } ||
	{ pass=$((pass + 1)); echo "ok   detach removed $dev"; }
echo "guest cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
