#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# icount.sh OUT.txt - the deterministic bench of `make bench`: one qemu
# guest (Debian's kernel, 2 vCPUs) with both ends inside it (see
# icount-guest.sh), under `-icount shift=$SHIFT,sleep=off`: virtual time
# advances by 2^SHIFT ns per guest instruction and an idle guest jumps to
# its next timer, so no host time enters the figures and a rerun repeats
# them. icount runs every vCPU in one TCG thread, in turn. Writes the
# guest's result lines to OUT.txt; its console goes to OUT.console.
# BENCH_N (units per run, default 400), BENCH_NHOG (with the hogs, 200),
# BENCH_SCEN, BENCH_PATHS (comma lists) narrow it; BENCH_TRACE (0, 1, 3:
# icount-guest.sh) adds counters and traces. BENCH_RUN=scale runs the
# scaling series instead (icount-scale.sh; BENCH_LINKS, BENCH_READERS:
# comma lists of points, "none" for no series; BENCH_WIN: its window in
# virtual ms; BENCH_PATHS).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
out=$1
shift=${SHIFT:-2}
kver=$("$top/tests/qemu/kver.sh")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$top/tests/qemu/mkinitramfs.sh" "$work/initrd.gz" "$top/tests/qemu/guest-init.sh" \
	"$build/kmod/$kver/phyllo.ko:/lib/phyllo.ko" "$build/host/phyllo:/bin/phyllo" \
	"$build/host/bench-app:/bin/bench-app" "$top/tests/bench/icount-guest.sh:/bench.sh" \
	"$top/tests/bench/icount-scale.sh:/scale.sh"
run=/bench.sh
extra=""
if [ "${BENCH_RUN:-}" = scale ]; then
	run=/scale.sh
	[ -z "${BENCH_LINKS:-}" ] || extra="$extra phyllo.links=$BENCH_LINKS"
	[ -z "${BENCH_READERS:-}" ] || extra="$extra phyllo.readers=$BENCH_READERS"
	[ -z "${BENCH_WIN:-}" ] || extra="$extra phyllo.win=$BENCH_WIN"
fi
[ -z "${BENCH_SCEN:-}" ] || extra="$extra phyllo.scen=$BENCH_SCEN"
[ -z "${BENCH_PATHS:-}" ] || extra="$extra phyllo.paths=$BENCH_PATHS"
[ -z "${BENCH_TRACE:-}" ] || extra="$extra phyllo.trace=$BENCH_TRACE"
echo "bench: booting Linux $kver (1 vCPU, TCG, -icount shift=$shift,sleep=off)"
mkdir -p "$(dirname "$out")"
: >"$out"
qemu-system-x86_64 -accel tcg -icount "shift=$shift,sleep=off" -m 512M -smp 1 \
	-rtc base=2026-01-01T00:00:00,clock=vm \
	-display none -no-reboot -kernel "/boot/vmlinuz-$kver" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 panic=-1 quiet nokaslr norandmaps phyllo.run=$run phyllo.n=${BENCH_N:-400} phyllo.nhog=${BENCH_NHOG:-200}$extra" \
	-serial "file:$out.console" -serial "file:$out" </dev/null >"$work/qemu.log" 2>&1 ||
	{ cat "$work/qemu.log"; exit 1; }
grep -q '^BENCH-DONE' "$out" || {
	echo "bench: the guest did not finish"; cat "$out.console"; exit 1; }
if tr -d '\r' <"$out.console" | grep '^bench: ' | grep -v ' done$'; then
	echo "bench: a run failed (above)"; exit 1
fi
