#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# Runs inside the qemu guest of the deterministic bench (icount.sh): both
# ends in this guest, on a pty pair. The far end, a userspace `phyllo peer`
# on the master side, pinned to CPU 1; the path under test on the slave,
# its application (bench-app) pinned to CPU 0:
#   kernel:  the line discipline attached to the slave, bench-app on /dev/phylloN
#   user:    libphyllo's tty transport on the slave (n_tty), in bench-app
#   user-rt: the same in a SCHED_FIFO daemon thread of bench-app (--rt)
# Scenarios (phyllo.scen=, default all): ack-* time the ACK service (the far
# end streams one unit every 5 ms, bench-app sinks), rtt-* the round trip;
# prompt, sleep (50 ms between reads or round trips), hog1 and hog2 (one or
# two busy loops at the same nice level on each vCPU), stream (ack: the far
# end sends window-full, as fast as the pty takes; rtt: 8 in flight).
# Results go to ttyS1 as "RESULT NAME {json}" and "SAMPLES NAME v...".
# phyllo.trace= (icount.sh's BENCH_TRACE, docs/bench.md: where the time
# goes) adds, per run: 0 the kernel link's counters ("LINKSTATS NAME ...");
# 1 also the scheduler's events and kprobes on the tty's flush work, the
# line discipline's and n_tty's receive_buf ("TRACE NAME <trace line>",
# for icount-anatomy.py); 3 instead the function graph under the line
# discipline's receive_buf (its ACK samples are then not valid). Tracing
# costs guest instructions: compare its segments with each other, not
# with an untraced run.
set -u
arg() { sed -n "s/.*phyllo\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
n=$(arg n); n=${n:-400}
nhog=$(arg nhog); nhog=${nhog:-200}
scens=$(arg scen | tr , ' ')
scens=${scens:-ack-prompt ack-sleep ack-hog1 ack-hog2 ack-stream rtt-prompt rtt-sleep rtt-hog1 rtt-hog2 rtt-stream}
paths=$(arg paths | tr , ' ')
paths=${paths:-kernel user user-rt}
trace=$(arg trace)
out=/dev/ttyS1
stty -F $out raw -echo
# bench-app --rt's daemon thread hands units to the application over a
# SOCK_SEQPACKET pair, whose queue (max_dgram_qlen, 10) would block the
# daemon, and so its ACKs, behind a sleeping application
echo 1024 >/proc/sys/net/unix/max_dgram_qlen

tr=/sys/kernel/tracing
[ -e $tr/trace ] || mount -t tracefs tracefs $tr
echo mono >$tr/trace_clock
echo 'p:pbench/w pty_write b0=+0(%si):u8' >>$tr/kprobe_events
echo 16384 >$tr/buffer_size_kb

# trace_start, trace_dump NAME: the extra tracing of phyllo.trace=
trace_start() {
	case $trace in
	1)
		grep -q pbench/fl $tr/kprobe_events || {
			echo 'p:pbench/fl flush_to_ldisc' >>$tr/kprobe_events
			echo 'p:pbench/rb phyllo:phyllo_ldisc_receive_buf' >>$tr/kprobe_events
			echo 'p:pbench/nrb n_tty_receive_buf2' >>$tr/kprobe_events
		}
		echo 1 >$tr/events/pbench/enable
		echo 1 >$tr/events/sched/sched_switch/enable
		echo 1 >$tr/events/sched/sched_wakeup/enable
		echo 1 >$tr/tracing_on ;;
	3)
		echo 5 >$tr/max_graph_depth
		echo phyllo_ldisc_receive_buf >$tr/set_graph_function
		echo function_graph >$tr/current_tracer
		echo 1 >$tr/tracing_on ;;
	esac
}
trace_dump() {
	case $trace in 1 | 3)
		echo 0 >$tr/events/enable
		grep -v '^#' $tr/trace | sed "s|^|TRACE $1 |" >$out ;;
	esac
	[ "$trace" != 3 ] || echo nop >$tr/current_tracer
}

hogs=
hogs_start() {
	for i in $(seq "$1"); do
		for cpu in $(seq 0 $(($(nproc) - 1))); do
			taskset -c $cpu sh -c 'while :; do :; done' &
			hogs="$hogs $!"
		done
	done
}
hogs_stop() { [ -z "$hogs" ] || { kill $hogs; wait $hogs 2>/dev/null; hogs=; }; }

# Run time (ns) of every task but the far end and the hogs: the kernel's
# threads and the attach process; bench-app adds its own (getrusage).
cpu_ns() {
	awk -v skip=" $* " '{ split(FILENAME, p, "/")
		if (index(skip, " " p[3] " ") == 0) s += $1 } END { printf "%.0f\n", s }' \
		/proc/[0-9]*/task/[0-9]*/schedstat 2>/dev/null
}

# ack_samples FAR_PID: from the trace, the wait of the first far-end bytes
# written since the path's last frame to the path's next frame (us).
ack_samples() {
	awk -v far="$1" '/ w: / { match($0, /-[0-9]+ +\[/)
		pid = substr($0, RSTART + 1, RLENGTH - 1) + 0
		match($0, /[0-9]+\.[0-9]+: /)
		t = substr($0, RSTART, RLENGTH - 2) * 1000000
		if (pid == far) { if (!p) { p = 1; t0 = t } }
		else if (/b0=0$/ && p) { p = 0; printf " %d", t - t0 } }' $tr/trace
}

# far_start SCEN COUNT: the far end on a new pty, /tmp/link its slave. A
# streamer sends more than the sink reads (at line rate, without end): the
# line discipline takes (and acks) units before bench-app opens
# /dev/phylloN, which then never sees them, and the bench ends when
# bench-app has its COUNT.
far_start() {
	rm -f /tmp/link
	case $1 in
	ack-stream) set -- --stream -n 1000000 --payload counter ;;
	ack-*) set -- --stream -n $(($2 + 1000)) --payload counter --interval-ms 5 ;;
	*) set -- --echo ;;
	esac
	phyllo peer --pty /tmp/link "$@" --timeout 600 >/dev/null 2>/tmp/far.err &
	far=$!
	i=0
	while [ ! -e /tmp/link ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.1; done
	[ -e /tmp/link ] || echo "bench: the far end made no pty: $(cat /tmp/far.err)"
}

# one PATH SCEN: a run; its RESULT line (and SAMPLES) on $out.
one() {
	path=$1 scen=$2 count=$n
	case $scen in *hog*) count=$nhog ;; esac
	far_start "$scen" "$count"
	dev=/tmp/link opts= attach=
	stty -F /tmp/link raw -echo
	if [ "$path" = kernel ]; then
		dev=$(phyllo attach /tmp/link) || echo "bench: attach failed"
		attach=$(pidof phyllo | tr ' ' '\n' | grep -v "^$far\$" | head -1)
	fi
	[ "$path" = user-rt ] && opts="$opts --rt"
	case $scen in
	*-sleep) opts="$opts --pause-ms 50" ;;
	*-hog1) hogs_start 1 ;;
	*-hog2) hogs_start 2 ;;
	rtt-stream) opts="$opts --window 8" ;;
	esac
	mode=rtt
	case $scen in ack-*) mode=sink ;; esac
	echo >$tr/trace
	[ $mode = sink ] && { echo 1 >$tr/events/pbench/enable; echo 1 >$tr/tracing_on; }
	trace_start
	c0=$(cpu_ns $far $hogs)
	bench-app $mode "$dev" "$count" $opts --samples /tmp/samples >/tmp/r 2>/tmp/e ||
		echo "bench: $path $scen: $(cat /tmp/e)"
	c1=$(cpu_ns $far $hogs)
	echo 0 >$tr/tracing_on
	echo 0 >$tr/events/pbench/enable
	trace_dump "$path/$scen"
	[ -n "$trace" ] && [ "$path" = kernel ] &&
		echo "LINKSTATS $path/$scen $(phyllo stats -d "$dev" | awk '$1 ~ /^(rx_units|tx_units|tx_frames|tx_acks|tx_retransmits|tx_timeouts)$/ { printf " %s=%s", $1, $2 }')" >$out
	hogs_stop
	r=$(cat /tmp/r)
	echo "RESULT $path/$scen ${r%\}},\"other_cpu_us\":$(((c1 - c0) / 1000))}" >$out
	if [ $mode = sink ]; then
		echo "SAMPLES $path/$scen$(ack_samples $far)" >$out
	else
		echo "SAMPLES $path/$scen $(tr '\n' ' ' </tmp/samples)" >$out
	fi
	[ -n "$attach" ] && kill "$attach"
	kill $far 2>/dev/null
	wait 2>/dev/null
	echo "bench: $path $scen done"
}

for scen in $scens; do
	for path in $paths; do
		one "$path" "$scen"
	done
done
echo "BENCH-DONE" >$out
