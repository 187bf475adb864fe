#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# make test-storm / test-storm-short: boot the debug kernel of
# storm-kernel.sh under qemu-system-x86_64 (tcg, 4 vCPUs, 2 GiB) with a
# busybox initramfs holding phyllo.ko (built from the working tree as it is
# now), ldattach, the phyllo tool, the replug storm and the storm;
# storm-init.sh runs them.
# The firmware is qboot (it boots in a blink); its ACPI tables list every
# CPU, and the guest must report 4, and give the kernel its clocks, the
# PM timer and the HPET (storm.config says why), which the log must show.
# Passes when the guest says "STORM-RESULT: PASS", the kernel says its
# sanitizer is on, and the whole console log passes storm-check.sh (which
# must first fail on a log with a report and pass on one without);
# otherwise prints the offending lines, exit 1.
# Usage: tests/storm/test-storm.sh BUILDDIR ITERATIONS [SEED [SAN [FAILSLAB [FAILPAGE [REPLUG]]]]]
#   SAN: kasan (default) or kcsan, the kernel of storm-kernel.sh SAN;
#   FAILSLAB: percent of the scoped allocations fail_slab fails (default
#   10, 0: off); FAILPAGE: percent of the scoped page allocations of order
#   2 and up fail_page_alloc fails (default 50, 0: off; see storm.c);
#   REPLUG: cycles of the replug storm before the storm (default 300, 0:
#   none; see replug.c); with REPLUG, "replug: PASS" must be in the log.
# STORM_KDIR=DIR uses that built kernel tree instead of storm-kernel.sh's.
# Files: BUILDDIR/storm/console.log (the guest's console), kmod.log.
set -e
build=$1 iter=$2 seed=${3:-1} san=${4:-kasan} failslab=${5:-10} failpage=${6:-50}
replug=${7:-300}
here=$(cd "$(dirname "$0")" && pwd)

# The log check must see a report, and only a report.
clean=$(mktemp)
printf '[    1.0] kcsan: enabled early\n[    2.0] phyllo: loaded\n' >"$clean"
for report in 'BUG: KCSAN: data-race in phyllo_link_work / phyllo_file_read' \
	'BUG: KASAN: slab-use-after-free in phyllo_file_read+0x10/0x20' \
	'WARNING: possible circular locking dependency detected' \
	'unreferenced object 0xffff888001234000 (size 64):'; do
	{ cat "$clean"; echo "[    3.0] $report"; } >"$clean.bad"
	if "$here/storm-check.sh" "$clean.bad" >/dev/null; then
		echo "test-storm: storm-check.sh passed a log with: $report" >&2
		exit 1
	fi
done
"$here/storm-check.sh" "$clean" >/dev/null || {
	echo "test-storm: storm-check.sh failed a clean log" >&2
	exit 1
}
rm -f "$clean" "$clean.bad"

repo=$(cd "$here/../.." && pwd)
mkdir -p "$build/storm/kmod"
build=$(cd "$build" && pwd)	# kbuild wants M= absolute
out=$build/storm
start=$(date +%s)
kdir=${STORM_KDIR:-$("$here/storm-kernel.sh" "$san")}
kready=$(date +%s)

# phyllo.ko from a snapshot of the working tree (rsync -c keeps the
# mtimes of unchanged files, so kbuild rebuilds only what changed).
snap=$(mktemp -d)
trap 'rm -rf "$snap"' EXIT
(cd "$repo" && tar -cf - Kbuild kernel/*.[ch] kernel/phyllo_compat.mk core/*.[ch] uapi/*.h) |
	tar -xf - -C "$snap"
rm -f "$snap"/kernel/*_test.c
rsync -rc --delete --filter='P *.o' --filter='P .*' --filter='P *.ko' \
	--filter='P *.mod' --filter='P *.mod.c' --filter='P Module.symvers' \
	--filter='P modules.order' "$snap/" "$out/kmod/"
nice -n 10 make -C "$kdir" M="$out/kmod" CC="ccache gcc" W=1 modules \
	>"$out/kmod.log" 2>&1 || { cat "$out/kmod.log" >&2; exit 1; }
grep -iE 'warning|error' "$out/kmod.log" >&2 || true

gcc -std=gnu11 -static -O2 -pthread -Wall -Wextra -Werror -Wundef \
	-I"$repo/uapi" "$here/storm.c" -o "$out/storm"
gcc -std=gnu11 -static -O2 -pthread -Wall -Wextra -Werror -Wundef \
	-I"$repo/uapi" "$here/paused-read.c" -o "$out/paused-read"
gcc -std=gnu11 -static -O2 -pthread -Wall -Wextra -Werror -Wundef \
	-I"$repo/uapi" "$here/replug.c" -o "$out/replug"
"$repo/tests/qemu/mkinitramfs.sh" "$out/initramfs.cpio.gz" "$here/storm-init.sh" \
	"$out/kmod/phyllo.ko:/lib/phyllo.ko" /usr/sbin/ldattach:/sbin/ldattach \
	"$build/host/phyllo:/bin/phyllo" "$out/storm:/bin/storm" \
	"$out/paused-read:/bin/paused-read" "$out/replug:/bin/replug" \
	"$here/storm-check.sh:/storm-check.sh"

log=$out/console.log
rm -f "$log"
sanargs=
[ "$san" = kasan ] && sanargs=kasan_multi_shot
# A backstop only: the storm's own watchdog names a thread that hangs.
limit=$((900 + iter / 20 + replug))
qstart=$(date +%s)
timeout "$limit" qemu-system-x86_64 -accel tcg,thread=multi -smp 4 -m 2G \
	-bios /usr/share/qemu/qboot.rom -no-reboot -display none -monitor none -serial "file:$log" \
	-kernel "$kdir/arch/x86/boot/bzImage" -initrd "$out/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 ignore_loglevel $sanargs slub_debug=A,kmalloc-* slub_max_order=1 storm.iter=$iter storm.seed=$seed storm.failslab=$failslab storm.failpage=$failpage storm.replug=$replug" ||
	echo "test-storm: qemu ended with status $? (limit $limit s)" >&2
end=$(date +%s)
grep -a "storm\|replug\|STORM-RESULT" "$log" | grep -av "^\[.*\] Command line" || true
ok=1
grep -aq "^STORM-RESULT: PASS" "$log" || ok=0
[ "$replug" = 0 ] || grep -aq "^replug: PASS: $replug cycles" "$log" ||
	{ echo "test-storm: no \"replug: PASS: $replug cycles\" in the log" >&2; ok=0; }
grep -aq "^storm-guest: 4 cpus" "$log" || { echo "test-storm: the guest did not see 4 CPUs" >&2; ok=0; }
grep -aq "ACPI: PM-Timer IO Port" "$log" ||
	{ echo "test-storm: the guest found no ACPI PM timer (its clocks would follow the vCPUs)" >&2; ok=0; }
case $san in
kasan) on='KernelAddressSanitizer initialized' ;;
*) on='kcsan: enabled early' ;;
esac
grep -aq "$on" "$log" || { echo "test-storm: no \"$on\" in the log" >&2; ok=0; }
"$here/storm-check.sh" "$log" >&2 || ok=0
if [ $ok = 0 ]; then
	echo "test-storm: FAIL ($iter iterations, $replug replug cycles, seed $seed, $san, fail_slab $failslab %, fail_page_alloc $failpage %), see $log" >&2
	exit 1
fi
echo "test-storm: PASS: $iter iterations, $replug replug cycles, seed $seed, $san, fail_slab $failslab %, fail_page_alloc $failpage %; kernel ready in $((kready - start)) s, guest ran $((end - qstart)) s (log: $log)"
