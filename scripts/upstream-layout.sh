#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# upstream-layout.sh LEVEL TREE OUT - the files of make upstream's patch
# series as they are after patch LEVEL (1 to 7), written under OUT (which
# must not exist) with their paths in the kernel tree TREE. TREE is a git
# repository whose tag "pristine" is the untouched tree: the files the
# series edits are taken from it, and its headers are what the glue's
# API probes (kernel/phyllo_compat.mk) read.
#
# Contract:
#  1. The patches, and what each adds to the one before:
#       1  N_PHYLLO in include/uapi/linux/tty.h, NR_LDISCS one more
#       2  include/uapi/linux/phyllo.h; its ioctl magic in ioctl-number.rst;
#          the MAINTAINERS entry (each patch adds the F: lines of its files)
#       3  the protocol core in drivers/tty/phyllo/, Kconfig and Makefile,
#          the lines in drivers/tty/Kconfig and drivers/tty/Makefile
#       4  the line discipline and /dev/phylloN (kernel/*.[ch])
#       5  the trace events (kernel/phyllo_events.h, phyllo_trace_hook.h)
#       6  the glue's KUnit suites (phyllo_kunit) and their Kconfig symbol
#       7  Documentation: driver-api/tty/phyllo.rst, userspace-api/phyllo.rst,
#          ABI/testing/sysfs-class-phyllo
#  2. Every C file goes through unifdef, keeping the kernel's branches
#     only: __KERNEL__ defined, __AVR__ not, PHYLLO_FAST_AVR 0, N_PHYLLO
#     defined (patch 1), PHYLLO_TRACE_HEADER defined from patch 5 on, and
#     each PHYLLO_NO_... flag of phyllo_compat.mk as the tree's headers
#     give it. Then kernelize.py (kernel integer types, the trace hook's
#     include). The series carries no compat header, no probe and no -D
#     flag.
#  3. Nothing else of the sources changes; the files are flat in
#     drivers/tty/phyllo/ (a name in both kernel/ and core/ fails).
set -e
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
level=${1:?usage: upstream-layout.sh LEVEL TREE OUT}
tree=${2:?usage: upstream-layout.sh LEVEL TREE OUT}
out=${3:?usage: upstream-layout.sh LEVEL TREE OUT}
[ ! -e "$out" ] || { echo "upstream-layout: $out exists" >&2; exit 1; }
case $level in [1-7]) ;; *) echo "upstream-layout: LEVEL is 1 to 7" >&2; exit 1 ;; esac
mkdir -p "$out"

pristine() {	# pristine PATH: the tree's own copy into OUT
	mkdir -p "$(dirname "$out/$1")"
	git -C "$tree" show "pristine:$1" >"$out/$1"
}
edited() {	# edited PATH: PATH in OUT differs from the pristine copy
	! git -C "$tree" show "pristine:$1" | cmp -s - "$out/$1" ||
		{ echo "upstream-layout: the edit of $1 did not apply" >&2; exit 1; }
}

# --- 1: the line discipline's number ---
pristine include/uapi/linux/tty.h
/usr/bin/python3 "$here/upstream-edit.py" tty "$out/include/uapi/linux/tty.h"
edited include/uapi/linux/tty.h

# --- what the tree's headers have, for unifdef (phyllo_compat.mk) ---
flags=$(make -s --no-print-directory -f - srctree="$tree" <<EOF
include $repo/kernel/phyllo_compat.mk
all:
	@echo \$(ccflags-y)
EOF
)
defs="-D__KERNEL__ -U__AVR__ -DPHYLLO_FAST_AVR=0 -DN_PHYLLO -DEXPORT_SYMBOL_IF_KUNIT"
for f in $(sed -n 's/.*-D\(PHYLLO_[A-Z0-9_]*\).*/\1/p' "$repo/kernel/phyllo_compat.mk"); do
	case " $flags " in
	*" -D$f "*) defs="$defs -D$f" ;;
	*) defs="$defs -U$f" ;;
	esac
done
if [ "$level" -ge 5 ]; then
	defs="$defs -DPHYLLO_TRACE_HEADER"
else
	defs="$defs -UPHYLLO_TRACE_HEADER"
fi
# lay SRC DEST: one repository file into the tree, kernel branches only
lay() {
	mkdir -p "$(dirname "$out/$2")"
	sed 's|^#include "phyllo\.h"|#include <linux/phyllo.h>|' "$repo/$1" >"$out/$2.in"
	# shellcheck disable=SC2086
	rc=0
	unifdef $defs -o "$out/$2" "$out/$2.in" || rc=$?
	[ $rc -le 1 ] || { echo "upstream-layout: unifdef failed on $1" >&2; exit 1; }
	rm -f "$out/$2.in"
}
# kbuild_list VAR [CONFIG_KUNIT=y]: a list of Kbuild's objects
kbuild_list() {
	make -s --no-print-directory -C "$repo" -f - src=. ${2:+"$2"} <<EOF
include Kbuild
all:
	@echo \$($1)
EOF
}

# kernelize: the second step on every C file laid out, once, at the end
kernelize() {
	[ ! -d "$out/drivers" ] ||
		find "$out/drivers" -name '*.[ch]' -exec /usr/bin/python3 "$here/kernelize.py" {} +
}
[ "$level" -ge 2 ] || { kernelize; exit 0; }
# --- 2: the uapi header, its ioctl magic, the maintainers ---
mkdir -p "$out/include/uapi/linux"
cp "$repo/uapi/phyllo.h" "$out/include/uapi/linux/phyllo.h"
f=Documentation/userspace-api/ioctl/ioctl-number.rst
pristine $f
magic=$(sed -n 's/^#define PHYLLO_IOC_MAGIC[[:space:]]*\(0x[0-9A-Fa-f]*\).*/\1/p' "$repo/uapi/phyllo.h")
last=$(sed -n 's/^#define PHYLLO_IOC_[A-Z_]*[[:space:]]*_IO[RW]*(PHYLLO_IOC_MAGIC, \([0-9]*\),.*/\1/p' "$repo/uapi/phyllo.h" | sort -n | tail -1)
/usr/bin/python3 "$here/upstream-edit.py" ioctl "$out/$f" "$magic" "$last"
edited $f
# MAINTAINERS: one entry, its F: lines those of the files present so far
f=MAINTAINERS
pristine $f
files="include/uapi/linux/phyllo.h"
[ "$level" -lt 3 ] || files="$files drivers/tty/phyllo/"
[ "$level" -lt 7 ] || files="$files Documentation/ABI/testing/sysfs-class-phyllo
	Documentation/driver-api/tty/phyllo.rst Documentation/userspace-api/phyllo.rst"
# shellcheck disable=SC2086
/usr/bin/python3 "$here/upstream-edit.py" maintainers "$out/$f" "$repo/docs/upstream/MAINTAINERS" $files
edited $f

[ "$level" -ge 3 ] || { kernelize; exit 0; }
# --- 3: the core, and the build's hooks ---
d=drivers/tty/phyllo
objs=$(kbuild_list phyllo-y)
glue="" core=""
for o in $objs; do
	case $o in kernel/*) glue="$glue ${o##*/}" ;; core/*) core="$core ${o##*/}" ;; esac
done
srcs=""
for o in $objs; do srcs="$srcs ${o%.o}.c"; done
[ "$level" -lt 4 ] || for f in "$repo"/kernel/*.h; do
	case ${f##*/} in phyllo_events.h | phyllo_trace_hook.h) [ "$level" -ge 5 ] || continue ;; esac
	srcs="$srcs kernel/${f##*/}"
done
[ "$level" -ge 4 ] || srcs=$(for s in $srcs; do case $s in core/*) echo "$s" ;; esac; done)
# The core headers the chosen files include, to a fixed point.
while :; do
	more=""
	for f in $srcs; do
		for h in $(sed -n 's/^#include "\(phyllo_[a-z_]*\.h\)".*/\1/p' "$repo/$f"); do
			[ -f "$repo/core/$h" ] || continue
			case " $srcs $more " in *" core/$h "*) ;; *) more="$more core/$h" ;; esac
		done
	done
	[ -n "$more" ] || break
	srcs="$srcs$more"
done
for f in $srcs; do
	[ ! -e "$out/$d/${f##*/}" ] || { echo "upstream-layout: two files named ${f##*/}" >&2; exit 1; }
	lay "$f" "$d/${f##*/}"
done
# Kconfig: docs/upstream/Kconfig, its KUnit symbol from patch 6 on.
if [ "$level" -ge 6 ]; then
	sed '2,/^$/{/^#/d}' "$repo/docs/upstream/Kconfig" >"$out/$d/Kconfig"
else
	sed '2,/^$/{/^#/d}' "$repo/docs/upstream/Kconfig" | sed '/^config PHYLLO_KUNIT_TEST$/,$d' |
		sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$out/$d/Kconfig"
fi
mkobjs() {	# mkobjs VAR OBJ...: a make assignment, three objects a line
	printf '%s :=' "$1"
	shift
	n=0
	for o in "$@"; do
		[ $n -gt 0 ] && [ $((n % 3)) -eq 0 ] && printf ' \\\n\t   '
		printf ' %s' "$o"
		n=$((n + 1))
	done
	echo
}
{
	echo '# SPDX-License-Identifier: GPL-2.0-only'
	echo '#'
	echo '# The phyllo line discipline: its tty glue and the protocol core it runs.'
	echo
	echo 'obj-$(CONFIG_PHYLLO)	+= phyllo.o'
	echo
	if [ "$level" -ge 4 ]; then
		# shellcheck disable=SC2086
		mkobjs phyllo-y $glue $core
	else
		# shellcheck disable=SC2086
		mkobjs phyllo-y $core
	fi
	if [ "$level" -ge 5 ]; then
		echo
		echo '# define_trace.h includes phyllo_events.h by its path from here.'
		echo 'CFLAGS_phyllo_link.o := -I$(src)'
	fi
} >"$out/$d/Makefile"
f=drivers/tty/Kconfig
pristine $f
sed -i '/^endif # TTY$/i source "drivers/tty/phyllo/Kconfig"\n' "$out/$f"
edited $f
f=drivers/tty/Makefile
pristine $f
sed -i '/^obj-$(CONFIG_N_GSM)/a obj-$(CONFIG_PHYLLO)		+= phyllo/' "$out/$f"
edited $f

[ "$level" -ge 6 ] || { kernelize; exit 0; }
# --- 6: the KUnit suites of the glue ---
# (The core's portable suites, which make kunit runs through a KUnit-backed
# runner, kernel/phyllo_core_test.c, are not in the series: their shared
# vector tables use initializer macros checkpatch rejects, COMPLEX_MACRO.)
lay kernel/phyllo_glue_test.c "$d/phyllo_glue_test.c"
{
	echo
	echo '# The KUnit suites, in their own module: phyllo exports what they call'
	echo '# only when KUnit is on (EXPORT_SYMBOL_IF_KUNIT).'
	echo 'obj-$(CONFIG_PHYLLO_KUNIT_TEST)	+= phyllo_kunit.o'
	echo 'phyllo_kunit-y := phyllo_glue_test.o'
} >>"$out/$d/Makefile"

[ "$level" -ge 7 ] || { kernelize; exit 0; }
# --- 7: the documentation ---
mkdir -p "$out/Documentation/ABI/testing" "$out/Documentation/driver-api/tty"
sed '/^\.\.$/,/^$/d' "$repo/docs/upstream/phyllo.rst" >"$out/Documentation/driver-api/tty/phyllo.rst"
sed '/^\.\.$/,/^$/d' "$repo/docs/upstream/phyllo-uapi.rst" >"$out/Documentation/userspace-api/phyllo.rst"
# KernelVersion: the release after the tree's, the first the series can be in
next=$(sed -n 's/^VERSION = //p;s/^PATCHLEVEL = //p' "$tree/Makefile" | paste -sd' ' | awk '{print $1 "." $2 + 1}')
sed '1,/^$/{/^#/d;/^$/d}' "$repo/docs/upstream/sysfs-class-phyllo" |
	sed "s/^KernelVersion:.*/KernelVersion:\t$next/" >"$out/Documentation/ABI/testing/sysfs-class-phyllo"
f=Documentation/driver-api/tty/index.rst
pristine $f
/usr/bin/python3 "$here/upstream-edit.py" toctree "$out/$f" after:n_tty phyllo
edited $f
f=Documentation/userspace-api/index.rst
pristine $f
/usr/bin/python3 "$here/upstream-edit.py" toctree "$out/$f" sorted:iommufd phyllo
edited $f
kernelize
