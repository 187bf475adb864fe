#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# bench.sh - `make bench`: the host path, kernel line discipline against the
# same stack in userspace, side by side in one guest run (see guest-bench.sh
# for the workloads). The far ends are userspace peers on this machine,
# wired to the guest's serial ports by unix sockets, so the microcontroller
# is not the bottleneck. Prints the tables, writes build/bench/host.json
# and keeps the guest's console in build/bench/console.log.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
n1=${N1:-2000}
n2=${N2:-1000}
kver=$("$top/tests/qemu/kver.sh")
bin=$build/host/phyllo
work=$(mktemp -d)
pids=
trap 'kill $pids 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$build/bench"

"$top/tests/qemu/mkinitramfs.sh" "$work/initrd.gz" "$top/tests/qemu/guest-init.sh" \
	"$build/kmod/$kver/phyllo.ko:/lib/phyllo.ko" "$bin:/bin/phyllo" \
	"$top/tests/bench/guest-bench.sh:/bench.sh" "$build/host/lib-overhead:/bin/lib-overhead"
echo "bench: booting Linux $kver (2 vCPUs, TCG); $n1 round trips, $n2 streamed units per path"
qemu-system-x86_64 -accel tcg -m 512M -smp 2 -display none -no-reboot \
	-kernel "/boot/vmlinuz-$kver" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 panic=-1 quiet phyllo.run=/bench.sh phyllo.n1=$n1 phyllo.n2=$n2 phyllo.pause=${PAUSE:-50} phyllo.n3=${N3:-400} phyllo.n4=${N4:-1000}" \
	-serial "file:$work/console.log" \
	-chardev "socket,id=s1,path=$work/s1,server=on,wait=off" -serial chardev:s1 \
	-chardev "socket,id=s2,path=$work/s2,server=on,wait=off" -serial chardev:s2 \
	-chardev "socket,id=s3,path=$work/s3,server=on,wait=off" -serial chardev:s3 \
	</dev/null >"$work/qemu.log" 2>&1 &
qemu_pid=$!
pids="$qemu_pid"
"$bin" peer --echo --connect "unix:$work/s1" >/dev/null 2>&1 &
pids="$pids $!"

# A streamer per port, started when the guest has that port attached.
stream() {
	"$bin" peer --stream --connect "unix:$work/$1" -n "$n2" --payload counter \
		--interval-ms 2 --timeout 200 >"$work/$1.json" 2>&1 &
	pids="$pids $!"
}
started2= started3= acks=
touch "$work/console.log"
while kill -0 $qemu_pid 2>/dev/null; do
	if [ -z "$started2" ] && grep -q '^BENCH-START stream2' "$work/console.log"; then
		stream s2; started2=1
	fi
	if [ -z "$started3" ] && grep -q '^BENCH-START stream3' "$work/console.log"; then
		stream s3; started3=1
	fi
	# ACK service runs: "BENCH-START NAME PORT", a paced streamer each
	for tag in $(sed -n 's/^BENCH-START \(ack-[^ ]*\) \(s[0-9]\).*/\1:\2/p' \
		     "$work/console.log"); do
		case " $acks " in *" $tag "*) continue ;; esac
		acks="$acks $tag"
		"$bin" peer --stream --connect "unix:$work/${tag#*:}" -n "${N3:-400}" \
			--payload counter --interval-ms 5 --timeout 200 >/dev/null 2>&1 &
		pids="$pids $!"
	done
	sleep 0.2
done
wait 2>/dev/null || true
cp "$work/console.log" "$build/bench/console.log"
grep -q '^BENCH-DONE' "$work/console.log" || {
	echo "bench: the guest did not finish"; cat "$work/console.log"; exit 1; }
sed -n 's/^BENCH-RESULT \([^ ]*\) \(.*\)/\1 \2/p' "$work/console.log" >"$work/results"
for s in s2 s3; do echo "stream-$s $(grep '^{' "$work/$s.json")" >>"$work/results"; done
python3 "$top/tests/bench/report.py" "$work/results" "$build/bench/host.json"
