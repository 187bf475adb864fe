#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make upstream: lay phyllo into a copy of Debian's linux-source-6.12 as it
# would be submitted, and build it there, W=1, as a module and built in.
# Usage: tests/kernel/upstream.sh BUILDDIR   (KBUILD_JOBS=N, default 2)
# Contract:
#  1. The tree is extracted once into ~/.cache/phyllo/upstream-6.12-<pkgver>/
#     src (kernel-get.sh's linux-source-6.12); the builds go to .../out (O=,
#     x86_64 defconfig, ccache). Each run lays the repository's files out
#     as they are now, changing only files whose content changed (rsync -c),
#     so a warm run rebuilds only what changed. One run at a time (flock).
#  2. The layout: drivers/tty/phyllo/ (kernel/*.[ch] but *_test.c, and the
#     core files of Kbuild's phyllo-y with the core headers they include),
#     a Makefile made from that object list, docs/upstream/Kconfig sourced
#     from drivers/tty/Kconfig, one line in drivers/tty/Makefile,
#     include/uapi/linux/phyllo.h, docs/upstream/phyllo.rst as
#     Documentation/driver-api/tty/phyllo.rst (in that index's toctree) and
#     docs/upstream/sysfs-class-phyllo in Documentation/ABI/testing/.
#     The glue's #include "phyllo.h" becomes <linux/phyllo.h>, as in-tree
#     code includes a uapi header; nothing else in the copies changes.
#  3. It fails on: a build error, any line with "warning" (gcc, kernel-doc,
#     objtool, modpost) in the module or built-in build of
#     drivers/tty/phyllo/ or the uapi header's install and standalone
#     compile, a global symbol of the built-in objects without a phyllo
#     prefix, an RST or ABI file docutils, get_abi.pl or the tree's own
#     htmldocs (SPHINXDIRS=driver-api/tty, Debian's Sphinx) warns about, a
#     sysfs file of the glue missing from the ABI file (or one there that
#     the glue lacks), an ioctl or setting the RST page does not name, and
#     kernel-doc -Wall on any laid-out file. checkpatch --strict on the
#     patch is counted, not failed on. BUILDDIR/upstream/ gets the logs,
#     phyllo.patch, the checkpatch report and the rendered phyllo.html.
#  4. modpost has no vmlinux here (building one is half an hour on two
#     cores), so its "undefined!" reports for kernel symbols are expected
#     and filtered; every other modpost message fails the run. Symbol
#     resolution is checked by make module against Debian's own headers.
set -e
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${1:?usage: upstream.sh BUILDDIR}
mkdir -p "$build/upstream"
logs=$(cd "$build/upstream" && pwd)
eval "$("$here/kernel-get.sh" 6.12)"
top=${PHYLLO_KCACHE:-$HOME/.cache/phyllo}/upstream-6.12-$pkgver
src=$top/src
out=$top/out
mkdir -p "$top"
exec 9>"$top/lock"
flock 9
t0=$(date +%s)
times=""
lap() {	# lap NAME: the seconds since the last lap, kept for the summary
	now=$(date +%s)
	times="$times$1 $((now - ${tl:-$t0})) s; "
	tl=$now
}

# The pristine tree, once; the files the layout edits are kept as they
# came, in .../orig, so each layout starts again from them.
edited="drivers/tty/Kconfig drivers/tty/Makefile Documentation/driver-api/tty/index.rst"
if [ ! -f "$src/.phyllo-extracted" ]; then
	echo "upstream: extracting linux-source-6.12 $pkgver into $src" >&2
	rm -rf "$src" "$src.tmp" "$top/orig" "$out" "$top/docs-out"
	mkdir -p "$src.tmp"
	tar -xf "$source" -C "$src.tmp" --strip-components=1
	for f in $edited; do
		mkdir -p "$top/orig/${f%/*}"
		cp "$src.tmp/$f" "$top/orig/$f"
	done
	touch "$src.tmp/.phyllo-extracted"
	mv "$src.tmp" "$src"
fi
lap extract

# --- the layout, staged in .../stage.tmp, then synced into the tree ---
st=$top/stage.tmp
rm -rf "$st"
d=$st/drivers/tty/phyllo
mkdir -p "$d" "$st/include/uapi/linux" "$st/Documentation/ABI/testing" \
	"$st/Documentation/driver-api/tty"
# src=. as kbuild would set it: Kbuild includes kernel/phyllo_compat.mk
# from $(src).
objs=$(make -s --no-print-directory -C "$repo" -f - src=. <<'EOF'
include Kbuild
all:
	@echo $(phyllo-y)
EOF
)
[ -n "$objs" ] || { echo "upstream: no phyllo-y in Kbuild" >&2; exit 1; }
srcs=""
for o in $objs; do
	srcs="$srcs ${o%.o}.c"
done
for f in "$repo"/kernel/*.h; do
	srcs="$srcs kernel/${f##*/}"
done
srcs="$srcs kernel/phyllo_compat.mk"
# The core headers: those the chosen files include, to a fixed point.
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
	case $f in *_test.c) continue ;; esac
	# One flat directory: a name in both kernel/ and core/ cannot go in.
	[ ! -e "$d/${f##*/}" ] || { echo "upstream: two files named ${f##*/}" >&2; exit 1; }
	sed 's|^#include "phyllo\.h"|#include <linux/phyllo.h>|' "$repo/$f" >"$d/${f##*/}"
done
if grep -l '^#include "phyllo\.h"' "$d"/*; then
	echo "upstream: an include of the uapi header was not rewritten" >&2
	exit 1
fi
cp "$repo/uapi/phyllo.h" "$st/include/uapi/linux/phyllo.h"
tp=$(grep -l '^#define CREATE_TRACE_POINTS' "$d"/*.c || true)
[ "$(echo "$tp" | wc -w)" -eq 1 ] ||
	{ echo "upstream: not one file defines CREATE_TRACE_POINTS: $tp" >&2; exit 1; }
{
	echo '# SPDX-License-Identifier: GPL-2.0-only'
	echo '#'
	echo '# The phyllo line discipline: its tty glue and the protocol core it runs.'
	echo
	echo 'obj-$(CONFIG_PHYLLO)	+= phyllo.o'
	echo
	printf 'phyllo-y := '
	n=0
	for o in $objs; do
		[ $n -gt 0 ] && [ $((n % 3)) -eq 0 ] && printf ' \\\n\t    '
		[ $((n % 3)) -ne 0 ] && printf ' '
		printf '%s' "${o##*/}"
		n=$((n + 1))
	done
	echo
	echo
	echo '# The core reaches the trace events through this header (phyllo_trace.h).'
	echo "ccflags-y += -DPHYLLO_TRACE_HEADER='\"phyllo_trace_hook.h\"'"
	echo '# The core exports to the KUnit suites through this one (phyllo_types.h).'
	echo "ccflags-y += -DPHYLLO_EXPORT_HEADER='\"phyllo_compat.h\"'"
	echo '# The kernel API its headers have (phyllo_compat.h).'
	echo 'include $(srctree)/drivers/tty/phyllo/phyllo_compat.mk'
	echo '# define_trace.h includes phyllo_events.h by its path from here.'
	echo "CFLAGS_${tp##*/}" | sed 's/\.c$/.o := -I$(src)/'
} >"$d/Makefile"
# docs/upstream/: the SPDX line stays, the comment after it says where
# the file goes and is the repository's only (it ends at a blank line).
sed '2,/^$/{/^#/d}' "$repo/docs/upstream/Kconfig" >"$d/Kconfig"
sed '/^\.\.$/,/^$/d' "$repo/docs/upstream/phyllo.rst" \
	>"$st/Documentation/driver-api/tty/phyllo.rst"
# The repository's copy opens with comment lines and a blank line; ABI
# files have none.
sed '1,/^$/{/^#/d;/^$/d}' "$repo/docs/upstream/sysfs-class-phyllo" \
	>"$st/Documentation/ABI/testing/sysfs-class-phyllo"
# The three edits of the tree's own files, each checked to have happened.
sed '/^endif # TTY$/i source "drivers/tty/phyllo/Kconfig"\n' \
	"$top/orig/drivers/tty/Kconfig" >"$st/drivers/tty/Kconfig"
sed '/^obj-$(CONFIG_N_GSM)/a obj-$(CONFIG_PHYLLO)		+= phyllo/' \
	"$top/orig/drivers/tty/Makefile" >"$st/drivers/tty/Makefile"
sed '/^   n_tty$/a \   phyllo' \
	"$top/orig/Documentation/driver-api/tty/index.rst" \
	>"$st/Documentation/driver-api/tty/index.rst"
for f in $edited; do
	[ "$(diff "$top/orig/$f" "$st/$f" | grep -c '^>')" -ge 1 ] ||
		{ echo "upstream: the edit of $f did not apply" >&2; exit 1; }
done
rsync -rc --delete "$d/" "$src/drivers/tty/phyllo/"
rsync -rc --exclude drivers/tty/phyllo "$st/" "$src/"
lap layout

# --- the patch as it would be mailed, and checkpatch --strict on it ---
p=$top/patch
rm -rf "$p"
mkdir -p "$p"
g() { git -C "$p" -c user.name=phyllo -c user.email=phyllo@localhost "$@"; }
g init -q
(cd "$top/orig" && tar -cf - $edited) | tar -xf - -C "$p"
g add -A && g commit -q -m orig
(cd "$st" && tar -cf - .) | tar -xf - -C "$p"
g add -A
g diff --cached >"$logs/phyllo.patch"
# (from $logs: checkpatch leaves its CamelCase cache in the current folder)
(cd "$logs" && "$src/scripts/checkpatch.pl" --strict --show-types --no-signoff --root="$src" \
	"$logs/phyllo.patch") >"$logs/checkpatch.txt" 2>&1 || true
cp_total=$(grep '^total:' "$logs/checkpatch.txt" || echo "total: none")
echo "upstream: checkpatch --strict on phyllo.patch ($(grep -c '^+' "$logs/phyllo.patch") lines added): ${cp_total#total: }" >&2
# By file: errors, warnings, checks (a message naming no file is the patch's).
awk '/^(ERROR|WARNING|CHECK):/ { if (lvl != "") n[lvl, "(patch)"]++; lvl = $0; sub(/:.*/, "", lvl); next }
	lvl != "" && /^#[0-9]+: FILE: / { f = $3; sub(/:.*/, "", f); n[lvl, f]++; files[f] = 1; lvl = ""; next }
	lvl != "" && /^$/ { n[lvl, "(patch)"]++; files["(patch)"] = 1; lvl = "" }
	END { for (f in files) printf "  %-44s %3d errors %3d warnings %3d checks\n", f,
		n["ERROR", f], n["WARNING", f], n["CHECK", f] }' "$logs/checkpatch.txt" | sort >&2
sed -n 's/^\(ERROR\|WARNING\|CHECK\):\([A-Z_]*\):.*/  \1 \2/p' "$logs/checkpatch.txt" |
	sort | uniq -c | sort -rn >&2
lap checkpatch

# --- documentation: the RST page and the ABI file ---
# Debian's python3 and its packages, not whatever python3 is first on PATH.
pkgs=""
for m in docutils:python3-docutils sphinx:python3-sphinx yaml:python3-yaml; do
	/usr/bin/python3 -c "import ${m%%:*}" 2>/dev/null || pkgs="$pkgs ${m#*:}"
done
if [ -n "$pkgs" ]; then
	echo "upstream: installing$pkgs" >&2
	apt-get -q -o DPkg::Lock::Timeout=900 update >/dev/null
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get -q -y -o DPkg::Lock::Timeout=900 \
		install --no-install-recommends $pkgs >/dev/null
fi
# rst_check FILE...: docutils, warnings as errors (what Sphinx reports
# for plain RST; the page uses no Sphinx-only markup)
rst_check() {
	/usr/bin/python3 - "$@" <<'EOF'
import sys, docutils.core
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        docutils.core.publish_string(f.read(), source_path=path, writer_name="null",
            settings_overrides={"halt_level": 2, "report_level": 2})
EOF
}
rst_check "$src/Documentation/driver-api/tty/phyllo.rst"
# The kernel's own htmldocs for driver-api/tty (Debian's Sphinx, the
# tree's conf.py and extensions): any warning naming the page fails (the
# index's two links out of the directory, built alone, are expected).
html=$top/docs-out/Documentation/output/driver-api/tty/phyllo.html
nice -n 10 make -C "$src" O="$top/docs-out" PYTHON3=/usr/bin/python3 \
	SPHINXBUILD=/usr/bin/sphinx-build SPHINXDIRS=driver-api/tty htmldocs \
	>"$logs/htmldocs.log" 2>&1 || {
	tail -20 "$logs/htmldocs.log" >&2
	echo "upstream: htmldocs failed (log: $logs/htmldocs.log)" >&2
	exit 1
}
# (the cache's own path, ~/.cache/phyllo, is taken off first)
if grep -i 'warning\|error' "$logs/htmldocs.log" | sed "s|$top/||g" | grep -i phyllo >&2 ||
	[ ! -f "$html" ]; then
	echo "upstream: htmldocs warns about phyllo.rst or did not build it (log: $logs/htmldocs.log)" >&2
	exit 1
fi
cp "$html" "$logs/phyllo.html"
abi=$top/abi
rm -rf "$abi"
mkdir -p "$abi"
cp "$src/Documentation/ABI/testing/sysfs-class-phyllo" "$abi/"
(cd "$src" && scripts/get_abi.pl validate --dir "$abi") >"$logs/abi.txt" 2>&1
(cd "$src" && scripts/get_abi.pl rest --dir "$abi") >"$abi/abi.rst" 2>>"$logs/abi.txt"
if [ -s "$logs/abi.txt" ]; then
	cat "$logs/abi.txt" >&2
	echo "upstream: get_abi.pl warns about sysfs-class-phyllo" >&2
	exit 1
fi
rst_check "$abi/abi.rst"
# Every sysfs file against the glue: tty, statistics/<each word of struct
# phyllo_link_stats before reserved>, config/<each word of struct
# phyllo_link_config before mask (the ioctl's own word)>, both ways.
words() {	# words STRUCT: its __u32 fields before reserved, in order
	sed -n "/^struct $1 {/,/^};/p" "$repo/uapi/phyllo.h" |
		sed -n 's/^[[:space:]]*__u32 \([a-z_0-9]*\);.*/\1/p' | grep -v '^reserved$' |
		grep -v '^mask$'
}
{
	echo /sys/class/phyllo/phylloN/tty
	for w in $(words phyllo_link_stats); do echo "/sys/class/phyllo/phylloN/statistics/$w"; done
	for w in $(words phyllo_link_config); do echo "/sys/class/phyllo/phylloN/config/$w"; done
} | sort >"$abi/want"
sed -n 's/^What:[[:space:]]*//p' "$abi/sysfs-class-phyllo" | sort >"$abi/have"
if ! cmp -s "$abi/want" "$abi/have"; then
	echo "upstream: sysfs-class-phyllo against uapi/phyllo.h (< missing, > not a sysfs file):" >&2
	diff "$abi/want" "$abi/have" | grep '^[<>]' >&2
	exit 1
fi
# The page names every ioctl of the uapi header and every setting.
for w in $(sed -n 's/^#define \(PHYLLO_IOC_[A-Z_]*\)[[:space:]]*_IO.*/\1/p' "$repo/uapi/phyllo.h") \
	$(words phyllo_link_config); do
	grep -q "\`\`$w\`\`" "$src/Documentation/driver-api/tty/phyllo.rst" ||
		{ echo "upstream: phyllo.rst does not name $w" >&2; exit 1; }
done
# kernel-doc -Wall on every file (W=1 runs it without -Wall on the .c files).
(cd "$src" && scripts/kernel-doc -none -Wall drivers/tty/phyllo/*.[ch]) >"$logs/kernel-doc.txt" 2>&1
if grep -qi 'warning\|error' "$logs/kernel-doc.txt"; then
	cat "$logs/kernel-doc.txt" >&2
	exit 1
fi
echo "upstream: phyllo.rst (docutils, htmldocs) and sysfs-class-phyllo (get_abi.pl, $(wc -l <"$abi/want") sysfs files) clean, kernel-doc -Wall clean" >&2
lap docs

# --- the builds ---
mk() { nice -n 10 make -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" W=1 "$@"; }
jobs=-j${KBUILD_JOBS:-2}
setcfg() {	# setcfg m|y: defconfig (once) with CONFIG_PHYLLO=$1
	[ -f "$out/.config" ] || mk defconfig >/dev/null
	"$src/scripts/config" --file "$out/.config" --set-val PHYLLO "$1"
	mk olddefconfig >/dev/null
	grep -qx "CONFIG_PHYLLO=$1" "$out/.config" ||
		{ echo "upstream: CONFIG_PHYLLO=$1 did not stick" >&2; exit 1; }
}
# phyllo_step NAME TARGET...: build, keep the log, fail on any warning
# but modpost's expected reports about the missing vmlinux.
phyllo_step() {
	name=$1
	shift
	mk "$jobs" "$@" >"$logs/$name.log" 2>&1 || {
		tail -40 "$logs/$name.log" >&2
		echo "upstream: $name failed (log: $logs/$name.log)" >&2
		exit 1
	}
	grep -i 'warning' "$logs/$name.log" |
		grep -v -e '^WARNING: modpost: "[^"]*" \[drivers/tty/phyllo/phyllo\.ko\] undefined!$' \
			-e '^WARNING: vmlinux.o is missing\.$' \
			-e '^WARNING: modpost: suppressed [0-9]* unresolved symbol warnings because there were too many)$' \
			-e 'KBUILD_MODPOST_WARN=1 to turn errors into warning' \
			>"$logs/$name.warnings" || true
	if [ -s "$logs/$name.warnings" ]; then
		cat "$logs/$name.warnings" >&2
		echo "upstream: $name has warnings (log: $logs/$name.log)" >&2
		exit 1
	fi
}
setcfg m
mk "$jobs" modules_prepare >"$logs/prepare.log" 2>&1 || {
	tail -40 "$logs/prepare.log" >&2
	exit 1
}
lap prepare
phyllo_step module KBUILD_MODPOST_WARN=1 drivers/tty/phyllo/phyllo.ko
ko=$out/drivers/tty/phyllo/phyllo.ko
modinfo "$ko" | grep -q '^license:' ||
	{ echo "upstream: phyllo.ko has no license" >&2; exit 1; }
echo "upstream: module: $(size "$ko" | tail -1 | awk '{print "text " $1 ", data " $2 ", bss " $3}')" >&2
lap module
setcfg y
phyllo_step builtin drivers/tty/phyllo/
a=$out/drivers/tty/phyllo/built-in.a
nm "$a" | awk '$2 ~ /^[A-Z]$/ && $2 != "U" && $2 != "W" {print $3}' | sort -u >"$logs/builtin.symbols"
if grep -v -E '^(phyllo_|__tracepoint_phyllo_|__traceiter_phyllo_|__SCK__tp_func_phyllo_|__SCT__tp_func_phyllo_|__probestub_phyllo_|__bpf_trace_tp_map_phyllo_|__event_phyllo_|__initcall|__param_|__exitcall)' \
	"$logs/builtin.symbols" >"$logs/builtin.foreign"; then
	cat "$logs/builtin.foreign" >&2
	echo "upstream: built-in objects define global symbols without the phyllo prefix" >&2
	exit 1
fi
echo "upstream: built-in: $(wc -l <"$logs/builtin.symbols") global symbols, all phyllo_-prefixed" >&2
lap builtin
# The uapi header as userspace gets it: headers_install's checks, then a
# standalone compile.
# make headers once (the tree's other uapi headers do not change), then
# ours through headers_install.sh on every run.
[ -f "$out/usr/include/linux/types.h" ] || phyllo_step headers headers
hdr=$out/usr/include/linux/phyllo.h
(cd "$out" && sh "$src/scripts/headers_install.sh" "$src/include/uapi/linux/phyllo.h" "$hdr") ||
	{ echo "upstream: headers_install.sh refuses linux/phyllo.h" >&2; exit 1; }
echo '#include <linux/phyllo.h>' | gcc -x c -fsyntax-only -Wall -Wextra -Werror \
	-I"$out/usr/include" - || { echo "upstream: installed linux/phyllo.h does not compile" >&2; exit 1; }
lap headers
echo "upstream: 6.12 ($pkgver) tree: module and built-in W=1 clean; $times total $(($(date +%s) - t0)) s" >&2
