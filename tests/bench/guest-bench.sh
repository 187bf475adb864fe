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
# libphyllo's cost per message against bare read/write on the same link
n4=$(sed -n 's/.*phyllo\.n4=\([0-9]*\).*/\1/p' /proc/cmdline)
lib-overhead "$dev" "${n4:-1000}" >/tmp/r; result lib-overhead
kill $attach_pid; sleep 0.5
stty -F /dev/ttyS1 raw -echo 115200
phyllo peer --client -d /dev/ttyS1 -n "$n1" -w 1 >/tmp/r; result rtt-user-idle
load_start
phyllo peer --client -d /dev/ttyS1 -n "$n1" -w 1 >/tmp/r; result rtt-user-load
load_stop

# 2. Link service while the application is slow: the far end streams, we
#    read in bursts with $pause ms between them.
dev=$(phyllo attach /dev/ttyS2 -b 115200)
apid=$(pidof phyllo)
echo "BENCH-START stream2"
phyllo drain -d "$dev" -n "$n2" --pause-ms $pause -t 120 >/tmp/r; result drain-kernel
kill $apid	# section 3 attaches ttyS2 again
sleep 0.5
echo "BENCH-START stream3"
phyllo peer --sink -d /dev/ttyS3 -n "$n2" --pause-ms $pause -v --timeout 120 2>/tmp/r
result drain-user
# 3. ACK service time at the tty layer, so the emulated serial port's own
#    delay is outside the figure: from data bytes reaching the tty layer
#    (kprobe on tty_port_default_receive_buf) to the next frame leaving
#    through tty->ops->write (kprobe on uart_write, frames only: their
#    first byte is the 0x00 delimiter). Measured as the wait of the first
#    bytes that arrived since the last frame went out. The far end streams
#    one unit every 5 ms; our application reads promptly, or sleeps 50 ms
#    between reads.
tr=/sys/kernel/tracing
mountpoint -q $tr || mount -t tracefs tracefs $tr
echo 'p:pbench/rx tty_port_default_receive_buf' >>$tr/kprobe_events
echo 'p:pbench/tx uart_write b0=+0(%si):u8' >>$tr/kprobe_events
echo 16384 >$tr/buffer_size_kb
n3=$(sed -n 's/.*phyllo\.n3=\([0-9]*\).*/\1/p' /proc/cmdline)
n3=${n3:-400}

# ack_run NAME PORT COMMAND...: trace while COMMAND runs against a streamer
# the host starts on PORT; one BENCH-RESULT line with n, p50, p99, max (us).
ack_run() {
	name=$1 port=$2
	shift 2
	echo >$tr/trace
	echo 1 >$tr/events/pbench/enable
	echo 1 >$tr/tracing_on
	echo "BENCH-START $name $port"
	"$@" >/tmp/ack-out 2>&1 || { echo "bench: $name: $* failed:"; cat /tmp/ack-out; }
	echo 0 >$tr/tracing_on
	echo 0 >$tr/events/pbench/enable
	awk '/ rx: / { if (!p) { p = 1; t0 = $0 } }
	     / tx: .*b0=0$/ { if (p) { p = 0; print us($0) - us(t0) } }
	     function us(l) { match(l, /[0-9]+\.[0-9]+: /)
			      return int(substr(l, RSTART, RLENGTH - 2) * 1000000) }' \
		$tr/trace | sort -n >/tmp/ack
	awk -v name="$name" '{ v[NR] = $1 } END {
		p50 = v[int((NR + 1) * 0.50)]; p99 = v[int(NR * 0.99 + 0.99)];
		printf "BENCH-RESULT %s {\"n\":%d,\"p50_us\":%d,\"p99_us\":%d,\"max_us\":%d}\n",
			name, NR, p50, p99, v[NR] }' /tmp/ack
}

for pause in 0 50; do
	dev=$(phyllo attach /dev/ttyS2 -b 115200) || echo "bench: attach /dev/ttyS2 failed"
	apid=$(pidof phyllo)
	ack_run ack-kernel-$pause s2 phyllo drain -d "$dev" -n "$n3" --pause-ms $pause -t 120
	kill $apid
	sleep 0.5
	stty -F /dev/ttyS3 raw -echo 115200
	ack_run ack-user-$pause s3 phyllo peer --sink -d /dev/ttyS3 -n "$n3" \
		--pause-ms $pause --timeout 120
done
# The same sleeping application on the line discipline with no pure-ACK
# delay (ack_delay_ms 0; default 4, which waits for a unit to carry the
# ACK): the service time without that deliberate wait.
dev=$(phyllo attach /dev/ttyS2 -b 115200) || echo "bench: attach /dev/ttyS2 failed"
apid=$(pidof phyllo)
echo 0 >"/sys/class/phyllo/${dev##*/}/config/ack_delay_ms" ||
	echo "bench: setting ack_delay_ms 0 failed"
ack_run ack-kernel_nodelay-50 s2 phyllo drain -d "$dev" -n "$n3" --pause-ms 50 -t 120
kill $apid
echo "BENCH-DONE"
