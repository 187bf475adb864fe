#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# /init of the make test-storm guest. Mounts the basics and debugfs, sets
# kmemleak's boot-time suspects aside, loads phyllo.ko, starts the echo
# link (phyllo peer --echo on a pty, ldattach 29 on its slave), runs
# paused-read (a reader paused in its copy by userfaultfd), the replug
# storm (storm.replug= cycles, 0: none), then the storm (storm.iter=,
# storm.seed=, storm.failslab= and storm.failpage= from the kernel command
# line, the last three for the replug storm too; with failslab, the
# kmalloc caches must carry slub_debug's failslab flag; with failpage,
# fail_page_alloc must be in debugfs), then checks: both storms passed,
# the module is gone, kmemleak finds nothing after two scans, dmesg holds
# no report (storm-check.sh). The last line is "STORM-RESULT: PASS" or
# "STORM-RESULT: FAIL: why"; then it reboots, which ends qemu
# (-no-reboot).
export PATH=/sbin:/bin:/usr/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/pts
mount -t devpts devpts /dev/pts
mount -t debugfs debugfs /sys/kernel/debug
arg() { sed -n "s/.*storm\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
iter=$(arg iter)
seed=$(arg seed)
failslab=$(arg failslab)
failpage=$(arg failpage)
replug=$(arg replug)
km=/sys/kernel/debug/kmemleak
why=""
result() {
	[ -z "$why" ] && echo "STORM-RESULT: PASS" || echo "STORM-RESULT: FAIL:$why"
	sync
	reboot -f
	sleep 60
}
wait_for() {	# up to 30 s for `test EXPR...`
	n=0
	while ! test "$@"; do
		n=$((n + 1))
		[ $n -gt 300 ] && return 1
		sleep 0.1
	done
}

echo "storm-guest: $(nproc) cpus, $(sed -n 's/MemTotal: *//p' /proc/meminfo), kernel $(uname -r)"
# Suspects older than the storm are not ours: report them now, set aside.
# Objects the boot allocated can also be found unreferenced only later
# (ACPI, whose interpreter cannot start without PCI, destroys its caches
# at boot, and kmemleak suspects them once the stale references to them
# are overwritten), so the final report counts only the objects allocated
# from here on: kmemleak gives each one's allocation time in jiffies.
sleep 5
echo scan >$km
echo clear >$km
jiffies0=$(sed -n 's/^jiffies: //p' /proc/timer_list | head -1)
[ -n "$jiffies0" ] || { why=" no-jiffies"; result; }
if ! insmod /lib/phyllo.ko; then
	why=" insmod phyllo.ko"
	result
fi
phyllo peer --echo --pty /tmp/echo0 >/tmp/peer.log 2>&1 &
peer=$!
wait_for -e /tmp/echo0 || why="$why no echo pty"
ldattach -d 29 /tmp/echo0 >/tmp/ldattach.log 2>&1 &
lda=$!
wait_for -e /dev/phyllo0 || why="$why no /dev/phyllo0"
if [ "${failslab:-0}" != 0 ] &&
	[ "$(cat /sys/kernel/slab/kmalloc-64/failslab)" != 1 ]; then
	why="$why kmalloc-caches-not-failslab"
fi
if [ "${failpage:-0}" != 0 ] && [ ! -d /sys/kernel/debug/fail_page_alloc ]; then
	why="$why no-fail_page_alloc"
fi
# A reader paused in its copy (userfaultfd) while the link takes units
# back from its queue, resets, is reconfigured, and a file closes.
if [ -z "$why" ]; then
	paused-read /dev/phyllo0 || why="$why paused-read"
fi
# A named link unplugged and plugged again under its open files.
if [ -z "$why" ] && [ "${replug:-0}" != 0 ]; then
	replug --cycles "$replug" --seed "${seed:-1}" --failslab "${failslab:-0}" \
		--failpage "${failpage:-0}" || why="$why replug"
fi
if [ -z "$why" ]; then
	storm --echo /tmp/echo0 --iter "${iter:-3000}" --seed "${seed:-1}" \
		--failslab "${failslab:-0}" --failpage "${failpage:-0}" || why="$why storm"
fi
kill $lda $peer 2>/dev/null
wait
[ -e /sys/module/phyllo ] && why="$why module-still-loaded"
# kmemleak reports objects unreferenced for 5 s, over two scans.
sleep 6
echo scan >$km
echo scan >$km
# Each suspect is a paragraph that opens with "unreferenced object" and
# says "jiffies N" on its next line: those allocated before $jiffies0 go
# to /tmp/kmemleak-boot, shown renamed (the log checks stay blind to them).
: >/tmp/kmemleak-boot
awk -v j0="$jiffies0" '
	function out() { if (j >= 0 && j < j0) printf "%s", rec >"/tmp/kmemleak-boot"; else printf "%s", rec }
	BEGIN { j = -1 }
	/^unreferenced object/ { if (rec != "") out(); rec = ""; j = -1 }
	{ rec = rec $0 "\n" }
	j < 0 && match($0, /jiffies [0-9]+/) { j = substr($0, RSTART + 8, RLENGTH - 8) + 0 }
	END { if (rec != "") out() }' $km >/tmp/kmemleak
echo "storm-guest: kmemleak: $(grep -c '^unreferenced object' /tmp/kmemleak) suspects allocated since phyllo.ko was loaded (jiffies $jiffies0), $(grep -c '^unreferenced object' /tmp/kmemleak-boot) before, set aside"
cat /tmp/kmemleak
sed -n 's/^unreferenced object/storm-guest: set aside: boot-time object/p' /tmp/kmemleak-boot
# kmemleak's own line on a scan that finds suspects counts both kinds;
# the suspects themselves are judged above.
dmesg | grep -v 'kmemleak: [0-9]* new suspected memory leaks' >/tmp/dmesg
sh /storm-check.sh /tmp/dmesg /tmp/kmemleak || why="$why kernel-reports"
result
