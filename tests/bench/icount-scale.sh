#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# The scaling series of the deterministic bench: runs inside the qemu guest
# of icount.sh (BENCH_RUN=scale), both ends in the guest on pty pairs, the
# far ends on the masters: `bench-app feed` (libphyllo) streaming, `phyllo
# peer --echo` echoing, as in icount-guest.sh.
#   links-N:   N links at once, every far end streaming pub-sub units
#              (a 6-byte document, topic "echo") at line rate. Sub-run
#              "stream": an application sinks each link; "rtt": link 0's
#              far end echoes instead and its application times stop-and-
#              wait round trips while the other N-1 links stream.
#   readers-R: one link streaming, R readers with the overlapping
#              subscriptions of bench-app's mix (all, type 0x60, topic
#              "ec", topic "echo": each unit matches every reader).
# Paths: kernel (the line discipline; one bench-app per link, or per
# reader, on /dev/phylloN), user (one libphyllo process per link on the
# tty; for readers one router process on the tty handing units to R
# reader processes over SOCK_SEQPACKET pairs, bench-app route).
# Every figure is taken in one window of phyllo.win ms (default 500) of
# virtual time, opened once every link and application is up: CPU time of every
# task but the far ends (/proc/*/task/*/schedstat, as icount-guest.sh),
# the units the applications read in it, link 0's ACK service (pty_write
# kprobe, link 0's two tty_structs told apart by the pointer), link 0's
# round trips, and /proc/meminfo's Slab beside its value before the links
# were set up. phyllo.links=, phyllo.readers= (comma lists; "none" skips),
# phyllo.paths= narrow it. Results on ttyS1: "RESULT scale/NAME/PATH {json}",
# "SAMPLES scale/NAME/PATH ack|rtt v..." (link 0's ACK service in every
# sub-run; in "rtt" its far end's writes are echoes), "LINKSTATS ...".
set -u
arg() { sed -n "s/.*phyllo\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
links=$(arg links | tr , ' ')
links=${links:-1 4 16 32}
readers=$(arg readers | tr , ' ')
readers=${readers:-1 4 16 32}
paths=$(arg paths | tr , ' ')
paths=${paths:-kernel user}
win=$(arg win)
win=${win:-500}
out=/dev/ttyS1
stty -F $out raw -echo
# The script sets every link up at nice -20, ahead of the links already
# streaming; each application it starts runs at nice 0, each streaming
# far end at nice 19 (link_up), an echoing one at nice 0.
renice -20 -p $$ >/dev/null
# The far end's first getrandom() waits for the kernel's CRNG, which a
# fresh guest under icount takes seconds to seed: wait for it here.
head -c 1 /dev/random >/dev/null
echo 1024 >/proc/sys/net/unix/max_dgram_qlen

tr=/sys/kernel/tracing
[ -e $tr/trace ] || mount -t tracefs tracefs $tr
echo mono >$tr/trace_clock
echo 'p:pbench/w pty_write t=%di:x64 b0=+0(%si):u8' >>$tr/kprobe_events
echo 16384 >$tr/buffer_size_kb

slab_kb() { awk '/^Slab:/ { print $2 }' /proc/meminfo; }

# Run time (ns) of every task but the far ends, and how many times they
# were switched in (schedstat's third field).
cpu_ns() {
	awk -v skip=" $* " '{ split(FILENAME, p, "/")
		if (index(skip, " " p[3] " ") == 0) { s += $1; n += $3 } }
		END { printf "%.0f %.0f\n", s, n }' \
		/proc/[0-9]*/task/[0-9]*/schedstat 2>/dev/null
}

# tty_of PID: the tty_struct pointer of PID's first pty_write in the trace.
tty_of() {
	awk -v pid="$1" '/ w: / { match($0, /-[0-9]+ +\[/)
		if (substr($0, RSTART + 1, RLENGTH - 1) + 0 != pid) next
		match($0, / t=0x[0-9a-f]+/); print substr($0, RSTART + 3, RLENGTH - 3); exit }' $tr/trace
}

# tty_not PID: the pointer of the first pty_write by anyone else.
tty_not() {
	awk -v pid="$1" '/ w: / { match($0, /-[0-9]+ +\[/)
		if (substr($0, RSTART + 1, RLENGTH - 1) + 0 == pid) next
		match($0, / t=0x[0-9a-f]+/); print substr($0, RSTART + 3, RLENGTH - 3); exit }' $tr/trace
}

# ack_samples MASTER SLAVE: from the first far-end write since the path's
# last frame to the path's next frame (us), on link 0's two ttys only.
ack_samples() {
	awk -v m="$1" -v s="$2" '/ w: / { match($0, / t=0x[0-9a-f]+/)
		tt = substr($0, RSTART + 3, RLENGTH - 3)
		match($0, /[0-9]+\.[0-9]+: /)
		t = substr($0, RSTART, RLENGTH - 2) * 1000000
		if (tt == m) { if (!p) { p = 1; t0 = t } }
		else if (tt == s && /b0=0$/ && p) { p = 0; printf " %d", t - t0 } }' $tr/trace
}

trace_on() { echo >$tr/trace; echo 1 >$tr/events/pbench/enable; echo 1 >$tr/tracing_on; }
trace_off() { echo 0 >$tr/tracing_on; echo 0 >$tr/events/pbench/enable; }

# link_up I ROLE PATH: far end I (ROLE stream or echo) on a new pty
# /tmp/linkI; on the kernel path the line discipline attached to it.
# Sets dev (what the application opens) and far (the far end's pid).
link_up() {
	rm -f /tmp/link$1
	i=$1 path=$3 nice=0
	# A streaming far end is bench-app feed (libphyllo on the master:
	# `phyllo peer --stream` spins while its window is full), at nice 19:
	# it stands for a board with its own CPU, taking what the path under
	# test leaves. The echoing far end is phyllo peer --echo, at nice 0.
	if [ "$2" = stream ]; then
		bench-app feed /tmp/link$i >/dev/null 2>/tmp/far$i.err &
		nice=19
	else
		phyllo peer --pty /tmp/link$i --echo --timeout 600 >/dev/null 2>/tmp/far$i.err &
	fi
	far=$!
	renice $nice -p $far >/dev/null
	fars="$fars $far"
	k=0
	while [ ! -e /tmp/link$i ] && [ $k -lt 3000 ]; do k=$((k + 1)); sleep 0.01; done
	[ -e /tmp/link$i ] || echo "bench: the far end made no pty: $(cat /tmp/far$i.err)"
	stty -F /tmp/link$i raw -echo
	dev=/tmp/link$i
	if [ "$path" = kernel ]; then
		dev=$(phyllo attach /tmp/link$i) || echo "bench: attach of link $i failed"
	fi
}

# wait_tty PID: until PID's first pty_write is in the trace (5 s at most).
wait_tty() {
	k=0
	while [ -z "$(tty_not "$1")" ] && [ $k -lt 500 ]; do k=$((k + 1)); sleep 0.01; done
}

# app I DEV ARGS: bench-app on DEV in the window, its output /tmp/rI.
app() {
	i=$1 d=$2
	shift 2
	bench-app "$@" --window-file /tmp/win >/tmp/r$i 2>/tmp/e$i &
	renice 0 -p $! >/dev/null
	apps="$apps $!"
	[ "$i" = 0 ] && app0=$!
}

# links_up N PATH LINK0: the N links; link 0 first, with the probe on for
# the kernel path, whose frames its workers write: their tty_struct.
links_up() {
	n=$1 path=$2 l0=$3
	trace_on
	role=stream
	[ "$l0" = rtt ] && role=echo
	link_up 0 $role $path
	dev0=$dev far0=$far devs=$dev
	s_tty=
	if [ "$path" = kernel ]; then
		wait_tty "$far0"
		s_tty=$(tty_not "$far0")
		[ -n "$s_tty" ] || echo "bench: link 0's slave wrote nothing at attach"
	fi
	trace_off
	i=1
	while [ $i -lt "$n" ]; do
		link_up $i stream $path
		devs="$devs $dev"
		i=$((i + 1))
	done
}

# apps_up NAME PATH NLINKS READERS LINK0: the applications, then the window.
apps_up() {
	name=$1 path=$2 n=$3 nr=$4 l0=$5
	rm -f /tmp/win /tmp/win.*
	apps= app0=
	if [ "$l0" = readers ] && [ "$path" = user ]; then
		app 0 "$dev0" route "$dev0" "$nr"
	elif [ "$l0" = readers ]; then
		for j in $(seq 0 $((nr - 1))); do app $j "$dev0" sink "$dev0" 1 --sub $j; done
	else
		i=0
		for d in $devs; do
			if [ $i = 0 ] && [ "$l0" = rtt ]; then
				app 0 "$d" rtt "$d" 1 --samples /tmp/samples
			else
				app $i "$d" sink "$d" 1
			fi
			i=$((i + 1))
		done
	fi
}

# window_open: once every application is up (bench-app's --window-file:
# each creates /tmp/win.ready.PID; 120 s at most), the window in 100 ms.
window_open() {
	want=$(echo $apps | wc -w) k=0
	while [ "$(ls /tmp/win.ready.* 2>/dev/null | wc -l)" -lt "$want" ] && [ $k -lt 2400 ]; do
		k=$((k + 1))
		sleep 0.05
	done
	[ $k -lt 2400 ] || echo "bench: $name $path: not every application came up"
	now=$(bench-app now)
	t0=$((now + 100)) t1=$((now + 100 + win))
	echo "$t0 $t1" >/tmp/win.new
	mv /tmp/win.new /tmp/win
}

# linkstats: the kernel links' counters summed since attach.
linkstats() {
	for d in $devs; do phyllo stats -d "$d"; done | awk '
		$1 ~ /^(rx_units|rx_dup|tx_frames|tx_acks|rx_queue_drops|rx_unclaimed|rx_evictions|tx_retransmits)$/ {
			s[$1] += $2 } END { for (k in s) printf " %s=%s", k, s[k] }'
}

# one NAME PATH NLINKS READERS LINK0: a sub-run, its lines on $out.
one() {
	name=$1 path=$2 n=$3 nr=$4 l0=$5
	fars=
	sleep 0.2
	slab0=$(slab_kb)
	links_up "$n" "$path" "$l0"
	apps_up "$@"
	window_open
	bench-app until "$t0"
	set -- $(cpu_ns $fars)
	c0=$1 sw0=$2
	trace_on
	bench-app until "$t1"
	trace_off
	set -- $(cpu_ns $fars)
	c1=$1 sw1=$2
	slab1=$(slab_kb)
	ls=
	[ "$path" = kernel ] && ls=$(linkstats)
	wait $apps
	m_tty=$(tty_of "$far0")
	[ "$path" = user ] && s_tty=$(tty_of "$app0")
	count=0 fail= cmin= cmax=0
	for i in $(seq 0 $(($(echo $apps | wc -w) - 1))); do
		c=$(sed -n 's/.*"count":\([0-9]*\).*/\1/p' /tmp/r$i)
		[ -n "$c" ] || fail="$fail $i: $(cat /tmp/e$i)"
		c=${c:-0}
		[ "$l0" = rtt ] && [ "$i" = 0 ] && continue
		count=$((count + c))
		[ -z "$cmin" ] || [ "$c" -lt "$cmin" ] && cmin=$c
		[ "$c" -gt "$cmax" ] && cmax=$c
	done
	[ -z "$fail" ] || echo "bench: $name $path: an application failed:$fail"
	extra=
	[ "$path" = user ] && [ "$l0" = readers ] &&
		extra=$(sed -n 's/.*\("router_units":[0-9]*,"router_lost":[0-9]*\).*/,\1/p' /tmp/r0)
	echo "RESULT scale/$name/$path {\"links\":$n,\"readers\":$nr,\"count\":$count,\"app_min\":${cmin:-0},\"app_max\":$cmax,\"cpu_us\":$(((c1 - c0) / 1000)),\"switches\":$((sw1 - sw0)),\"win_ms\":$win,\"slab0_kb\":$slab0,\"slab1_kb\":$slab1$extra}" >$out
	[ -n "$ls" ] && echo "LINKSTATS scale/$name/$path$ls" >$out
	[ "$l0" = rtt ] && echo "SAMPLES scale/$name/$path rtt $(tr '\n' ' ' </tmp/samples)" >$out
	echo "SAMPLES scale/$name/$path ack$(ack_samples "$m_tty" "$s_tty")" >$out
	kill $fars $(pidof phyllo) 2>/dev/null
	wait 2>/dev/null
	rm -f /tmp/samples
	echo "bench: scale $name $path done"
}

for n in $links; do
	[ "$n" = none ] && continue
	for path in $paths; do
		one "links-$n/stream" $path "$n" 1 stream
		one "links-$n/rtt" $path "$n" 1 rtt
	done
done
for r in $readers; do
	[ "$r" = none ] && continue
	for path in $paths; do
		one "readers-$r" $path 1 "$r" readers
	done
done
echo "BENCH-DONE" >$out
