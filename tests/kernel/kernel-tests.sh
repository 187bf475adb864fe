#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The scenarios of make test-kernel, run as root on the kernel under test
# (the UML guest boots into uml-init.sh, which runs this).
# Usage: kernel-tests.sh PHYLLO_KO PHYLLO_TOOL KCLIENT SCRATCH [COUNT] [CYCLES] [HOSTILE] [SHARE]
#        [NAMES]
#  1. per preset: phyllo peer --echo on a pty, ldattach 29 on its slave,
#     COUNT units each way through /dev/phyllo0, none lost/dup/reordered;
#  2. standard with the peer dropping 10% and corrupting 5% of frames:
#     still exact, and the kernel's error counters equal the injector's;
#  3. hangup with a reader and a writer blocked: EOF, EIO, POLLHUP;
#  4. CYCLES detach/re-attach cycles;
#  0. module parameters out of range refuse the
#     load with the parameter named in the log; parameters are read-only;
#  5. per-link settings in sysfs (checked, a receive policy change keeps
#     the session); an open /dev/phyllo0 holds the module through its cdev;
#     rmmod refused while attached, fine after; an unprivileged attach
#     refused;
#  6. the phyllo trace events of a short lossy session, counted against
#     the link's counters; an idle attached link (standard, minimal) whose
#     timer expires not once in 10 s (timer:hrtimer_expire_entry);
#  7. hostile peers (phyllo-hostile): a flood of CRC-valid session control,
#     1 MiB without a delimiter, a unit flood while the only reader does
#     not read: no amplification, no cut frame, memory within the bounds,
#     and a normal session afterwards;
#  9. one link shared (phyllo-share): a prompt root reader beside
#     unprivileged readers that stop at staggered fill levels, fill the
#     link's budget, read one unit every 2 s, or take every slot they
#     may: the root reader loses nothing, the link is held at most
#     rxq_stall_ms (plus one resend) in each run, root's open succeeds,
#     and every unit the others lost is counted and reported to them;
# 10. named links (names-tests.sh, NAMES: the libphyllo program): a pty
#     hung up under phyllo sub, libphyllo and Python, a new pty under the
#     same name; each reports the down and the up, keeps its one file and
#     gets the units sent before, while down and after;
#  8. the KUnit suites as their own module (phyllo_kunit.ko beside
#     phyllo.ko, built when the kernel has KUnit): they run on load, every
#     suite started passes, the module pins phyllo while loaded
#     and both unload.
set -u
ko=$1 phyllo=$2 kclient=$3 tmp=$4 count=${5:-10000} cycles=${6:-100}
hostile=${7:-}
share=${8:-}
names=${9:-}
mkdir -p "$tmp"
pty=$tmp/phyllo-pty
kc() { timeout 900 "$kclient" "$@"; }	# never hang the whole boot
fail() {
	echo "test-kernel: FAIL: $*"
	dmesg | tail -20
	exit 1
}
step() { echo "test-kernel: $*"; }

# wait_for EXPR...: up to 10 s for `test EXPR...`.
wait_for() {
	tries=0
	while ! test "$@"; do
		tries=$((tries + 1))
		[ $tries -gt 200 ] && return 1
		sleep 0.05
	done
}

start_peer() {	# preset [fault options...]
	preset=$1
	shift
	rm -f "$pty" $tmp/peer.json
	"$phyllo" peer --echo --preset "$preset" --pty "$pty" \
		--stats $tmp/peer.json "$@" &
	peer=$!
	wait_for -e "$pty" || fail "phyllo peer made no pty"
}

stop_peer() {
	kill "$peer" 2>/dev/null
	wait "$peer"
}

attach() {
	ldattach -d 29 "$pty" 2>$tmp/ldattach.err &
	lda=$!
	wait_for -e /dev/phyllo0 || fail "no /dev/phyllo0 after ldattach 29 $pty"
}

# The peer keeps the pty slave open, so detaching is setting N_TTY back.
detach() {
	[ -e /dev/phyllo0 ] && kc ldisc "$pty" 0
	kill "$lda"
	wait "$lda" 2>/dev/null
	wait_for ! -e /dev/phyllo0 || fail "/dev/phyllo0 still there after detach"
}

# json FILE KEY: the first number after "KEY": in FILE
json() { grep -o "\"$2\":[0-9]*" "$1" | head -1 | cut -d: -f2; }
# stat0 NAME: a counter of /dev/phyllo0 from sysfs
stat0() { cat /sys/class/phyllo/phyllo0/statistics/$1; }
# settle: until no frame of /dev/phyllo0 moves for half a second
settle() {
	prev=
	now="$(stat0 rx_frames)/$(stat0 tx_frames)"
	while [ "$prev" != "$now" ]; do
		prev=$now
		sleep 0.5
		now="$(stat0 rx_frames)/$(stat0 tx_frames)"
	done
}

step "module parameters: checked at load, read-only"
# insmod_refused PARAMS MESSAGE: the load fails and the log says why
insmod_refused() {
	kc insmod "$ko" "$1" 2>/dev/null && fail "insmod $1 loaded"
	dmesg | tail -5 | grep -q "$2" || fail "insmod $1: no '$2' in the log"
}
insmod_refused window=9 "module parameter window out of range"
insmod_refused rxq_stall_ms=4294967295 "module parameter rxq_stall_ms out of range"
insmod_refused rxq_link_bytes=1000 "module parameter rxq_link_bytes out of range"
insmod_refused quiet_ms=60001 "module parameter quiet_ms out of range"
grep -q "^phyllo " /proc/tty/ldiscs && fail "a refused load registered a line discipline"

n=0
for preset in minimal reduced standard; do
	kc insmod "$ko" preset=$n || fail "insmod $ko preset=$n"
	[ -e /sys/module/phyllo/parameters/ldisc ] && fail "an ldisc parameter (there is one number, 29)"
	grep -q "^phyllo  *29$" /proc/tty/ldiscs || fail "phyllo is not line discipline 29"
	[ "$(cat /sys/module/phyllo/parameters/preset)" = $n ] || fail "preset parameter"
	echo 1 2>/dev/null >/sys/module/phyllo/parameters/window &&
		fail "a module parameter is writable"
	n=$((n + 1))
	start_peer $preset
	attach
	# tty_name() of /dev/pts/N is ptsN
	[ "$(cat /sys/class/phyllo/phyllo0/tty)" = "pts$(basename "$(readlink "$pty")")" ] ||
		fail "sysfs tty attribute: $(cat /sys/class/phyllo/phyllo0/tty)"
	[ "$(kc unit "$pty")" = 0 ] || fail "PHYLLO_IOC_TTY_UNIT"
	step "$preset: $count units each way"
	kc echo /dev/phyllo0 "$count" "$peer" || fail "$preset echo"
	wait "$peer"
	detach
	kc rmmod phyllo || fail "rmmod after the $preset run"
done
kc insmod "$ko" || fail "insmod $ko"

step "standard, peer drops 10% and corrupts 5% of frames: $count units each way"
start_peer standard --drop 10 --corrupt 5 --seed 12345
attach
kc echo /dev/phyllo0 "$count" "$peer" >$tmp/lossy.json || {
	cat $tmp/lossy.json
	fail "lossy echo"
}
wait "$peer"
detach
cat $tmp/lossy.json $tmp/peer.json
kerr=0
for c in rx_framing rx_length rx_crc rx_type rx_overflow rx_flags; do
	kerr=$((kerr + $(json $tmp/lossy.json $c)))
done
# The injector's counts of frames it sent corrupted (its "tx" side).
pcorrupt=$(grep -o '"tx":{[^}]*}' $tmp/peer.json | grep -o '"corrupted":[0-9]*' | cut -d: -f2)
pdrop=$(grep -o '"tx":{[^}]*}' $tmp/peer.json | grep -o '"dropped":[0-9]*' | cut -d: -f2)
step "kernel counted $kerr bad frames; the peer corrupted $pcorrupt and dropped $pdrop"
[ -n "$pcorrupt" ] && [ "$pcorrupt" -gt 0 ] || fail "no corruption injected"
[ "$kerr" -eq "$pcorrupt" ] || fail "kernel error counters ($kerr) != injected corruptions ($pcorrupt)"

# The trace events of one short lossy session, against the counters.
tr=/sys/kernel/tracing
mountpoint -q $tr || mount -t tracefs tracefs $tr || fail "no tracefs"
step "trace events of a lossy session (300 units each way) against the counters"
echo 0 >$tr/tracing_on
echo >$tr/trace
echo 8192 >$tr/buffer_size_kb
echo 1 >$tr/events/phyllo/enable
echo 1 >$tr/tracing_on
start_peer standard --drop 10 --corrupt 5 --seed 777
attach
kc echo /dev/phyllo0 300 >$tmp/trace-echo.json || fail "traced echo"
# The peer stays (its hangup would take the link and its counters away):
# wait until no frame moves, then events and counters are both final.
settle
echo 0 >$tr/tracing_on
echo 0 >$tr/events/phyllo/enable
cp $tr/trace $tmp/trace.txt
grep -q "LOST.*EVENTS" $tmp/trace.txt && fail "the trace buffer lost events"
# ev NAME [PATTERN]: events of that name (whose text matches PATTERN)
ev() { grep " $1: phyllo0 " $tmp/trace.txt | grep -c -- "${2:-.}"; }
# expect WHAT GOT WANT
expect() {
	[ "$2" = "$3" ] || fail "trace: $1: $2 events, counter says $3"
	echo "test-kernel:   $1: $2"
}
expect rx_frame "$(ev phyllo_rx_frame)" "$(stat0 rx_frames)"
for why in crc framing length overflow seq dup hold; do
	expect "rx_frame $why" "$(ev phyllo_rx_frame " $why\$")" "$(stat0 rx_$why)"
done
expect rx_unit "$(ev phyllo_rx_unit)" "$(stat0 rx_units)"
expect tx_frame "$(ev phyllo_tx_frame)" "$(stat0 tx_frames)"
expect "tx_control ACK" "$(ev phyllo_tx_control " ACK ")" "$(stat0 tx_acks)"
expect "tx_control NAK" "$(ev phyllo_tx_control " NAK ")" "$(stat0 tx_naks)"
expect "rx_ack NAK" "$(ev phyllo_rx_ack " NAK ")" "$(stat0 rx_naks)"
expect timeout "$(ev phyllo_timeout)" "$(stat0 tx_timeouts)"
expect "retransmitted units" "$(grep ' phyllo_retransmit: phyllo0 ' $tmp/trace.txt |
	sed 's/.*units=\([0-9]*\).*/\1/' | awk '{ s += $1 } END { print s + 0 }')" \
	"$(stat0 tx_retransmits)"
expect "session open" "$(ev phyllo_session " open ")" "$(stat0 sessions)"
[ "$(stat0 rx_crc)" -gt 0 ] && [ "$(stat0 tx_retransmits)" -gt 0 ] ||
	fail "trace: the session was not lossy enough to show anything"
grep -m1 " phyllo_rx_frame: .* crc$" $tmp/trace.txt
grep -m1 " phyllo_retransmit: " $tmp/trace.txt
stop_peer
detach

# An idle attached link arms no timer: its hrtimer runs only while the
# reliable layer has a deadline, and never on a preset without timers.
# Counted with timer:hrtimer_expire_entry, whose text names the function.
idle_wakeups() {	# PRESET CFG: the link's timer expiries in 10 idle s
	start_peer "$1"
	attach
	echo "$2" >/sys/class/phyllo/phyllo0/config/preset || fail "preset $2"
	kc echo /dev/phyllo0 20 >/dev/null || fail "$1: echo before idling"
	settle
	echo >$tr/trace
	echo 1 >$tr/events/timer/hrtimer_expire_entry/enable
	echo 1 >$tr/tracing_on
	sleep 10
	echo 0 >$tr/tracing_on
	echo 0 >$tr/events/timer/hrtimer_expire_entry/enable
	all=$(grep -c "hrtimer_expire_entry:" $tr/trace)
	ours=$(grep "hrtimer_expire_entry:" $tr/trace | grep -c "function=phyllo_link_timer")
	step "$1: idle 10 s: $ours wake-ups of the link's timer ($all hrtimer expiries in all)"
	[ "$all" -gt 0 ] || fail "the trace saw no hrtimer expire at all (not even sleep's)"
	[ "$ours" = 0 ] || fail "$1: an idle link's timer woke $ours times in 10 s"
	stop_peer
	detach
}
[ -e $tr/events/timer/hrtimer_expire_entry/enable ] || fail "no timer:hrtimer_expire_entry event"
step "idle attached links: no timer wake-ups"
idle_wakeups standard 2
idle_wakeups minimal 0

# libphyllo's system calls for a blocking phyllo_recv() on /dev/phyllo0
# (phyllo sub), under strace -c: it reads only once poll said a unit is
# there, so reads that find nothing (EAGAIN, strace's errors) stay at the
# few of its start, however many messages come.
if command -v strace >/dev/null; then
	n_sub=50
	start_peer standard
	attach
	strace -f -c -o $tmp/sub.strace "$phyllo" sub -d /dev/phyllo0 -n $n_sub -t 60 t \
		>$tmp/sub.out &
	sub=$!
	# publish until the sub has its n_sub (those sent before it listened
	# are not counted)
	i=0
	while kill -0 $sub 2>/dev/null; do
		"$phyllo" pub -d /dev/phyllo0 t $i || fail "pub $i"
		i=$((i + 1))
		[ $i -le $((n_sub * 4)) ] || fail "phyllo sub got fewer than $n_sub of $i"
	done
	wait $sub || fail "phyllo sub of $n_sub messages"
	# strace -c: % time, seconds, usecs/call, calls, errors, syscall
	calls() { awk -v s="$1" '$NF == s { print ($4 ~ /^[0-9]+$/) ? $4 : 0 }' $tmp/sub.strace; }
	errs() { awk -v s="$1" '$NF == s { print ($5 ~ /^[0-9]+$/) ? $5 : 0 }' $tmp/sub.strace; }
	reads=$(calls read) eagain=$(errs read) polls=$(calls poll) ppolls=$(calls ppoll)
	polls=$((${polls:-0} + ${ppolls:-0}))
	step "libphyllo: $n_sub messages through a blocking phyllo_recv(): ${reads:-0} reads (${eagain:-0} found nothing), $polls polls"
	[ "${eagain:-0}" -lt $((n_sub / 2)) ] ||
		fail "phyllo_recv() read an empty /dev/phyllo0 ${eagain} times for $n_sub messages"
	stop_peer
	detach
else
	step "libphyllo system calls: no strace here, skipped"
fi

step "hangup with a blocked reader and writer"
start_peer standard
attach
kc hangup /dev/phyllo0 "$peer" || fail "hangup"
wait "$peer" 2>/dev/null
detach

# hostile MODE SECONDS: phyllo-hostile on a new pty at $pty
hostile_start() {
	rm -f "$pty" $tmp/hostile.out
	"$hostile" "$pty" "$@" >$tmp/hostile.out 2>$tmp/hostile.err &
	peer=$!
	wait_for -e "$pty" || fail "phyllo-hostile made no pty"
}

# After its attack the hostile peer opens a fresh session and says so.
hostile_ready() {
	tries=0
	until grep -q "^hostile: ready" $tmp/hostile.out 2>/dev/null; do
		tries=$((tries + 1))
		[ $tries -gt 600 ] && { cat $tmp/hostile.out $tmp/hostile.err; fail "$1: never ready"; }
		sleep 0.1
	done
	head -1 $tmp/hostile.out
}

if [ -n "$hostile" ]; then
	for mode in control nodelim; do
		step "hostile peer: $mode, then a normal session"
		hostile_start $mode 5
		attach
		hostile_ready $mode
		kc echo /dev/phyllo0 200 >$tmp/after.json || {
			cat $tmp/after.json $tmp/hostile.err
			fail "no normal session after the $mode attack"
		}
		[ "$(stat0 tx_overruns)" = 0 ] || fail "$mode: a frame was cut (tx_overruns)"
		step "$mode: rx_ctrl_stale $(stat0 rx_ctrl_stale), rx_overflow $(stat0 rx_overflow), peer_resets $(stat0 peer_resets), sessions $(stat0 sessions)"
		[ $mode = nodelim ] && { [ "$(stat0 rx_overflow)" -gt 0 ] || fail "nodelim: no rx_overflow"; }
		stop_peer
		detach
	done
	step "hostile peer floods units while the only reader does not read"
	hostile_start flood 12
	attach
	kc stall /dev/phyllo0 60000 hold >$tmp/stall.json || fail "stall reader"
	cat $tmp/stall.json
	q=$(json $tmp/stall.json rx_queued)
	qb=$(json $tmp/stall.json rx_queued_bytes)
	[ "$q" -le "$(cat /sys/class/phyllo/phyllo0/config/rxq_units)" ] &&
		[ "$qb" -le "$(cat /sys/class/phyllo/phyllo0/config/rxq_bytes)" ] ||
		fail "flood: queue beyond its bounds ($q units, $qb bytes)"
	[ "$(stat0 rx_hold)" -gt 0 ] || fail "flood: the link never held"
	[ "$(json $tmp/stall.json rx_drops)" -gt 0 ] || fail "flood: a stalled reader held the link for good"
	# told at its first read, and again for what it lost while it drained
	[ "$(json $tmp/stall.json enobufs)" -ge 1 ] || fail "flood: the stalled reader was not told of its losses"
	[ "$(stat0 rx_hold_ms)" -le $(($(cat /sys/class/phyllo/phyllo0/config/rxq_stall_ms) + 200)) ] ||
		fail "flood: held $(stat0 rx_hold_ms) ms, beyond rxq_stall_ms and a resend"
	hostile_ready flood
	kc echo /dev/phyllo0 200 >$tmp/after.json || fail "no normal session after the flood"
	[ "$(stat0 tx_overruns)" = 0 ] || fail "flood: a frame was cut (tx_overruns)"
	stop_peer
	detach
fi

if [ -n "$share" ]; then
	step "one link shared: a prompt root reader beside stopped, slow and crowding unprivileged readers"
	timeout 600 "$share" || fail "phyllo-share"
fi

if [ -n "$names" ]; then
	step "named links: sub, libphyllo and Python ride over a hang-up and a new tty"
	[ -e /sys/module/phyllo ] || kc insmod "$ko" || fail "insmod $ko for the named links"
	. "${0%/*}/names-tests.sh"
fi

step "$cycles detach/re-attach cycles"
start_peer standard
i=0
while [ $i -lt "$cycles" ]; do
	attach
	if [ $((i % 25)) -eq 0 ]; then
		kc echo /dev/phyllo0 10 >/dev/null || fail "echo in cycle $i"
	fi
	detach
	i=$((i + 1))
done

step "per-link settings in sysfs; an open /dev/phyllo0 pins the module"
attach
kc echo /dev/phyllo0 10 >/dev/null || fail "echo before the settings"
cfg=/sys/class/phyllo/phyllo0/config
[ "$(cat $cfg/window)" = 4 ] || fail "config/window: $(cat $cfg/window)"
echo 9 2>/dev/null >$cfg/window && fail "config/window took 9"
[ "$(cat $cfg/window)" = 4 ] || fail "a refused config/window changed it"
sessions=$(stat0 sessions)
echo 100 >$cfg/rxq_units || fail "config/rxq_units"
[ "$(cat $cfg/rxq_units)" = 100 ] || fail "config/rxq_units: $(cat $cfg/rxq_units)"
echo 0 2>/dev/null >$cfg/rxq_units && fail "config/rxq_units took 0"
[ "$(cat $cfg/rxq_units)" = 100 ] || fail "a refused 0 changed config/rxq_units"
[ "$(stat0 sessions)" = "$sessions" ] || fail "a receive policy change reset the session"
# chrdev_open() takes the cdev's owner and then the fops' owner: two
# references while the file is open (one before cdev.owner was set).
refs=$(cat /sys/module/phyllo/refcnt)
exec 3</dev/phyllo0
[ "$(cat /sys/module/phyllo/refcnt)" = $((refs + 2)) ] ||
	fail "open /dev/phyllo0: module refcnt $refs -> $(cat /sys/module/phyllo/refcnt)"
exec 3<&-
[ "$(cat /sys/module/phyllo/refcnt)" = "$refs" ] || fail "close /dev/phyllo0 kept a module reference"

step "rmmod refused while attached, fine after"
kc rmmod phyllo 2>/dev/null && fail "rmmod succeeded while attached"
kc echo /dev/phyllo0 10 >/dev/null || fail "echo after refused rmmod"
[ "$(cat /sys/class/phyllo/phyllo0/statistics/rx_units)" -ge 10 ] ||
	fail "sysfs statistics/rx_units"
if [ -n "$names" ]; then
	# The far end stopped: the unit stays unacknowledged until a new
	# window starts a new session and loses it, before the flush looks.
	step "phyllo_flush() after a reset that lost the unit: ECONNRESET, not 0"
	kill -STOP "$peer"
	"$names" --flush-lost /dev/phyllo0 $cfg/window 3 >$tmp/flush.out 2>&1
	r=$?
	kill -CONT "$peer"
	step "$(cat $tmp/flush.out)"
	[ $r = 0 ] || fail "phyllo_flush after the unit was lost"
	echo 4 >$cfg/window || fail "config/window back to 4"
	kc echo /dev/phyllo0 10 >/dev/null || fail "echo after the lost unit"
fi
detach

step "an unprivileged user may not attach"
ptsdev=$(readlink -f "$pty")
chown 65534:65534 "$ptsdev"	# nobody owns the tty: only the ldisc refuses
if timeout 10 setpriv --reuid=65534 --regid=65534 --clear-groups \
	ldattach -d 29 "$ptsdev" 2>$tmp/unpriv.err; then
	fail "unprivileged ldattach succeeded"
fi
grep -q "Operation not permitted" $tmp/unpriv.err ||
	fail "unprivileged ldattach: $(cat $tmp/unpriv.err)"
[ -e /dev/phyllo0 ] && fail "/dev/phyllo0 appeared for an unprivileged user"
stop_peer
kc rmmod phyllo || fail "rmmod after detach"

kunit=${ko%/*}/phyllo_kunit.ko
step "the KUnit suites as their own module: ${kunit##*/}"
[ -f "$kunit" ] || fail "$kunit was not built (the UML kernel needs CONFIG_KUNIT)"
kc insmod "$ko" || fail "insmod $ko for the suites"
dmesg -C
kc insmod "$kunit" || fail "insmod $kunit"
# The suites ran while it loaded; their KTAP report is in the log.
dmesg | sed 's/^\[[^]]*\] //' >$tmp/kunit.ktap
# 6.1 prints no plan for a module's suites: each suite starts with
# "# Subtest: NAME" and ends in one top-level "ok N NAME" line. A later
# kernel's plan line, when there is one, must count the same suites.
started=$(grep -c '^    # Subtest: phyllo_' $tmp/kunit.ktap)
suites=$(grep -c '^ok [0-9][0-9]* phyllo_' $tmp/kunit.ktap)
plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' $tmp/kunit.ktap | head -1)
cases=$(grep -Ec '^ +ok [0-9]+ ' $tmp/kunit.ktap)
if grep -q 'not ok' $tmp/kunit.ktap || [ "$started" -eq 0 ] ||
	[ "$suites" != "$started" ] || [ "${plan:-$suites}" != "$suites" ]; then
	grep -E 'not ok|^1\.\.|# Subtest' $tmp/kunit.ktap | head -30
	fail "phyllo_kunit: $started suites started, $suites ok, plan ${plan:-none}"
fi
step "phyllo_kunit: $suites of $started suites ok ($cases cases and parameters)"
kc rmmod phyllo 2>/dev/null && fail "rmmod phyllo succeeded while phyllo_kunit uses it"
kc rmmod phyllo_kunit || fail "rmmod phyllo_kunit"
kc rmmod phyllo || fail "rmmod phyllo after phyllo_kunit"
step "all scenarios passed"
