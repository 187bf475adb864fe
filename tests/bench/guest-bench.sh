#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# Runs inside the qemu guest for `make bench` (see bench.sh). The far ends
# are userspace `phyllo peer` processes on the host, one per serial port:
#   ttyS1: an echo server;  ttyS2, ttyS3: streamers started on our signal.
# Results go to the console as "BENCH-RESULT NAME {json}".
set -u
n1=$(sed -n 's/.*phyllo\.n1=\([0-9]*\).*/\1/p' /proc/cmdline)
n2=$(sed -n 's/.*phyllo\.n2=\([0-9]*\).*/\1/p' /proc/cmdline)
pause=$(sed -n 's/.*phyllo\.pause=\([0-9]*\).*/\1/p' /proc/cmdline)
pause=${pause:-50}
for t in /dev/ttyS1 /dev/ttyS2 /dev/ttyS3; do stty -F $t raw -echo 115200; done

load_pids=
load_start() {
	for i in $(seq "$(nproc)"); do
		sh -c 'while :; do :; done' &
		load_pids="$load_pids $!"
	done
}
load_stop() { kill $load_pids; wait $load_pids 2>/dev/null; load_pids=; }
result() { echo "BENCH-RESULT $1 $(cat /tmp/r)"; }

# 1. Application round trip (stop-and-wait small tuples), (a) the line
#    discipline and /dev/phylloN, (b) the same stack in userspace on the tty.
dev=$(phyllo attach /dev/ttyS1 -b 115200)
attach_pid=$(pidof phyllo)
phyllo echo -d "$dev" -n "$n1" -w 1 --json >/tmp/r; result rtt-kernel-idle
load_start
phyllo echo -d "$dev" -n "$n1" -w 1 --json >/tmp/r; result rtt-kernel-load
load_stop
kill $attach_pid; sleep 0.5
stty -F /dev/ttyS1 raw -echo 115200
phyllo peer --client -d /dev/ttyS1 -n "$n1" -w 1 >/tmp/r; result rtt-user-idle
load_start
phyllo peer --client -d /dev/ttyS1 -n "$n1" -w 1 >/tmp/r; result rtt-user-load
load_stop

# 2. Link service while the application is slow: the far end streams, we
#    read in bursts with $pause ms between them.
dev=$(phyllo attach /dev/ttyS2 -b 115200)
echo "BENCH-START stream2"
phyllo drain -d "$dev" -n "$n2" --pause-ms $pause -t 120 >/tmp/r; result drain-kernel
echo "BENCH-START stream3"
phyllo peer --sink -d /dev/ttyS3 -n "$n2" --pause-ms $pause -v --timeout 120 2>/tmp/r
result drain-user
echo "BENCH-DONE"
