#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make test-kernel: boot the UML kernel (uml-build.sh) with the host's / as
# a hostfs root into uml-init.sh, which loads phyllo.ko and runs
# kernel-tests.sh against build/host/phyllo peer; then check the console
# log for the exit status and for kernel bug reports (lockdep included).
# Usage: tests/kernel/test-kernel.sh BUILDDIR [COUNT] [CYCLES]
set -e
build=$1 count=${2:-10000} cycles=${3:-100}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
uml=$("$here/uml-build.sh" "$build")
mkdir -p "$build/host"
gcc -std=gnu11 -Wall -Wextra -Werror -Wundef -O2 -I"$repo/uapi" \
	"$here/phyllo-kclient.c" -o "$build/host/phyllo-kclient"
gcc -std=gnu11 -Wall -Wextra -Werror -Wundef -O2 -I"$repo/core" \
	"$repo"/core/*.c "$here/phyllo-hostile.c" -o "$build/host/phyllo-hostile"
gcc -std=gnu11 -Wall -Wextra -Werror -Wundef -O2 -I"$repo/core" -I"$repo/uapi" \
	"$repo"/core/*.c "$here/phyllo-share.c" -o "$build/host/phyllo-share"
# the named-link phase: libphyllo (a program on it, and the shared
# library under the Python package)
make --no-print-directory -s -C "$repo" BUILD="$build" libphyllo
gcc -std=gnu11 -Wall -Wextra -Werror -Wundef -O2 -I"$repo/userspace/include" -I"$repo/uapi" \
	"$here/phyllo-names.c" "$build/host/libphyllo.a" -o "$build/host/phyllo-names" -ljansson -lm
log=$build/test-kernel.log
rm -rf "$build/uml-run"
start=$(date +%s)
timeout 2400 "$uml/linux" mem=512M console=tty log_buf_len=4M root=hostfs rootfstype=hostfs rootflags=/ rw \
	init="$here/uml-init.sh" PHYLLO_TESTS="$here" \
	PHYLLO_KO="$build/kmod/uml/phyllo.ko" PHYLLO_TOOL="$build/host/phyllo" \
	PHYLLO_KCLIENT="$build/host/phyllo-kclient" PHYLLO_SCRATCH="$build/uml-run" \
	PHYLLO_HOSTILE="$build/host/phyllo-hostile" \
	PHYLLO_SHARE="$build/host/phyllo-share" \
	PHYLLO_NAMES="$build/host/phyllo-names" \
	PHYLLO_COUNT="$count" \
	PHYLLO_CYCLES="$cycles" </dev/null >"$log" 2>&1 || true
grep -a "test-kernel:\|kclient:\|^{" "$log" || true
grep -aq "^PHYLLO-UML-EXIT 0" "$log" || {
	echo "test-kernel: FAILED, see $log" >&2
	exit 1
}
"$here/log-check.sh" "$log"
echo "test-kernel: all scenarios passed in $(($(date +%s) - start)) s (log: $log)"
