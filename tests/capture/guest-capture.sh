#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# Runs inside the qemu guest of test-capture-kernel.sh, phyllo.ko loaded:
# a lossy echo peer on a pty (faults both ways), the discipline attached to
# it, then `phyllo capture --device` around `phyllo echo` on /dev/phylloN.
# The link's counters before and after, the capture and its stats go to
# the console between markers (base64), for tshark on the host.
set -u
mkdir -p /run/lock
phyllo peer --echo --pty /tmp/pty --drop 5 --corrupt 6 --seed 5 >/dev/null 2>&1 &
i=0
while [ ! -e /tmp/pty ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
dev=$(phyllo attach /tmp/pty 2>/tmp/err) || { echo "FAIL attach: $(cat /tmp/err)"; exit 1; }
phyllo echo -d "$dev" -n 5 >/dev/null 2>&1	# the session is open
sleep 0.5
# The counters are read inside the capture with the link quiet, so that
# the events between them are exactly what the capture holds: quiet is no
# counter moving for 1.2 s, longer than the largest retransmit timeout
# (1 s), so that neither side still has a unit to resend.
cat >/tmp/run.sh <<EOS
quiet() {
	phyllo stats -d $dev --json >/tmp/q1
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		sleep 1.2
		phyllo stats -d $dev --json >/tmp/q2
		cmp -s /tmp/q1 /tmp/q2 && break
		mv /tmp/q2 /tmp/q1
	done
	mv /tmp/q2 "\$1"
}
quiet /tmp/before.json
phyllo echo -d $dev -n ${PHYLLO_COUNT:-300} --payload small >/tmp/echo.out || exit 1
quiet /tmp/after.json
EOS
phyllo capture -w /tmp/k.pcapng --device "$dev" -- sh /tmp/run.sh 2>/tmp/err
rc=$?
echo "guest capture: echo status $rc, $(cat /tmp/err | tail -1)"
# tracefs instances left behind?
if ls /sys/kernel/tracing/instances/ | grep -q phyllo-capture; then
	echo "FAIL a trace instance is left"
	rc=1
else
	echo "ok   the trace instance is gone"
fi
for f in before.json after.json; do
	echo "BEGIN $f"
	cat /tmp/$f
	echo "END $f"
done
echo "BEGIN k.pcapng"
base64 /tmp/k.pcapng
echo "END k.pcapng"
[ $rc = 0 ]
