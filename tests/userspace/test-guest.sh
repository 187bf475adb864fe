#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-guest.sh BUILD - the pieces that need the kernel module, in Debian's
# kernel under qemu (TCG): guest-attach.sh with phyllo.ko, the phyllo tool,
# the README's example program linked with libphyllo.a, and the Python
# package (guest-python.py) on Debian's python3 with the modules it needs.
# Exits 0 only if the guest says every step passed.
set -eu
build=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/qemu/boot.sh"
kver=$("$top/tests/qemu/kver.sh")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sed -n '/^## libphyllo/,/^## /p' "$top/README.md" | sed -n '/^```c$/,/^```$/p' | sed '1d;$d' \
	>"$work/ping.c"
cc -Wall -Wextra -Werror -I"$top/userspace/include" "$work/ping.c" "$build/host/libphyllo.a" \
	-ljansson -lm -o "$work/ping-example"
# Debian's python3 with just the modules the package imports (found by
# importing it here), the package, libphyllo.so.0 and the libraries of it all
py=$(/usr/bin/python3 -S -c 'import sys; sys.path[:0] = sys.argv[1:]
import os; os.environ["PHYLLO_LIBRARY"] = sys.argv[1] + "/../build/host/libphyllo.so.0"
import phyllolink, msgpack, errno, select, time, ctypes
print(" ".join(sorted({m.__file__ for m in list(sys.modules.values())
      if getattr(m, "__file__", "") and m.__file__.startswith("/usr/")})))' \
	"$top/python" /usr/lib/python3/dist-packages)
pyspec=""
for f in $py; do
	pyspec="$pyspec $f:$f"
	case $f in *.so) for l in $(ldd "$f" | grep -o '/[^ ]*'); do pyspec="$pyspec $l:$l"; done ;; esac
done
# shellcheck disable=SC2086
"$top/tests/qemu/mkinitramfs.sh" "$work/initrd.gz" "$top/tests/qemu/guest-init.sh" \
	"$build/kmod/$kver/phyllo.ko:/lib/phyllo.ko" "$build/host/phyllo:/bin/phyllo" \
	"$work/ping-example:/bin/ping-example" "$top/tests/userspace/guest-attach.sh:/attach.sh" \
	"$build/host/libphyllo.so.0.1.0:/lib/libphyllo.so.0" \
	"$(readlink -f /usr/bin/python3):/usr/bin/python3" \
	"$top/python/phyllolink/__init__.py:/py/phyllolink/__init__.py" \
	"$top/tests/userspace/guest-python.py:/py/guest-python.py" $pyspec
echo "test-guest: Linux $kver in qemu (TCG): attach, detach, hang-up, libphyllo on /dev/phyllo0"
qemu_console_boot test-guest 600 "$work" '^(ok|FAIL|guest|     )' phyllo.run=/attach.sh
