#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make upstream: the driver as a patch series against Debian's
# linux-source-6.12, applied with git am one patch at a time, each patch
# built (W=1) and checkpatch'ed on its own.
# Usage: scripts/upstream.sh BUILDDIR   (KBUILD_JOBS=N, default 2)
# Contract:
#  1. The tree is extracted once into ~/.cache/phyllo/upstream-6.12-<pkgver>/
#     src (tests/kernel/kernel-get.sh's linux-source-6.12) and made a git repository
#     whose tag "pristine" is the tree as Debian ships it; the builds go to
#     .../out (O=, x86_64 defconfig, ccache). One run at a time (flock).
#  2. The series: scripts/upstream-layout.sh lays out the tree's files
#     as they are after each of the 7 patches; each patch is the
#     difference of two layouts, with its message from
#     docs/upstream/series/N-*.txt, and the cover letter from
#     docs/upstream/series/0-cover.txt (git format-patch --cover-letter,
#     into BUILDDIR/upstream/series/). Sign-offs and the From: are
#     PHYLLO_SIGNOFF ("Name <mail>", default the MAINTAINERS entry's M:).
#  3. Each run resets the tree to pristine, then for each patch: git am,
#     checkpatch --strict on the patch (0 errors and 0 warnings, or the
#     run fails; its CHECKs are counted and listed), and the builds that
#     patch makes possible, W=1, failing on any warning: 1 tty_ldisc.o
#     (N_PHYLLO), 2 the uapi header installed and compiled standalone,
#     3 the core's objects as a module and built in, 4 and 5 phyllo.ko
#     (modpost) and built in, with every global symbol phyllo-prefixed,
#     6 the KUnit suites (CONFIG_KUNIT) as a module and built in,
#     7 the docs (below). The applied tree must equal the last layout.
#  4. The docs, after patch 7: docutils (warnings as errors) on the pages,
#     the tree's own htmldocs for driver-api/tty and userspace-api
#     (Debian's Sphinx), get_abi.pl on the ABI file, every sysfs file of
#     the glue in the ABI file and no other, every ioctl and setting named
#     on both pages, kernel-doc -Wall on every laid-out C file.
#  5. modpost has no vmlinux here (building one is half an hour on two
#     cores), so its "undefined!" reports for kernel symbols are expected
#     and filtered; every other modpost message fails the run. Symbol
#     resolution is checked by make module against Debian's own headers,
#     and the series' kernel boots in make upstream-boot.
set -e
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build=${1:?usage: upstream.sh BUILDDIR}
mkdir -p "$build/upstream"
logs=$(cd "$build/upstream" && pwd)
eval "$("$repo/tests/kernel/kernel-get.sh" 6.12)"
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
# Debian's python3 and its packages, not whatever python3 is first on PATH;
# unifdef for the layout.
pkgs=""
for m in docutils:python3-docutils sphinx:python3-sphinx yaml:python3-yaml; do
	/usr/bin/python3 -c "import ${m%%:*}" 2>/dev/null || pkgs="$pkgs ${m#*:}"
done
command -v unifdef >/dev/null || pkgs="$pkgs unifdef"
if [ -n "$pkgs" ]; then
	echo "upstream: installing$pkgs" >&2
	apt-get -q -o DPkg::Lock::Timeout=900 update >/dev/null
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get -q -y -o DPkg::Lock::Timeout=900 \
		install --no-install-recommends $pkgs >/dev/null
fi
signoff=${PHYLLO_SIGNOFF:-$(sed -n 's/^M:[[:space:]]*//p' "$repo/docs/upstream/MAINTAINERS" | head -1)}
sname=${signoff% <*}
smail=${signoff##*<}
smail=${smail%>}
g() {	# g DIR GIT-ARGS...: git in DIR as the series' author
	d=$1
	shift
	git -C "$d" -c user.name="$sname" -c user.email="$smail" -c init.defaultBranch=main \
		-c core.autocrlf=false -c gc.auto=0 "$@"
}

# The pristine tree, once, as a git repository (git am needs one).
if [ ! -f "$src/.phyllo-extracted" ] || [ ! -d "$src/.git" ]; then
	last=$(cat "$top/cold-seconds" 2>/dev/null || echo "not measured")
	echo "upstream: extracting linux-source-6.12 $pkgver into $src and making it a git repository (once; last time $last s)" >&2
	# (the build directory stays: tar keeps the files' times, so it is current)
	rm -rf "$src" "$src.tmp" "$top/orig" "$top/patch" "$top/stage.tmp"
	mkdir -p "$src.tmp"
	tar -xf "$source" -C "$src.tmp" --strip-components=1
	touch "$src.tmp/.phyllo-extracted"
	g "$src.tmp" init -q
	g "$src.tmp" add -A -f
	g "$src.tmp" commit -q -m "linux-source-6.12 $pkgver"
	g "$src.tmp" tag pristine
	mv "$src.tmp" "$src"
	echo $(($(date +%s) - t0)) >"$top/cold-seconds"
fi
lap extract

# --- the series ---
g "$src" am --abort >/dev/null 2>&1 || true
g "$src" reset -q --hard pristine
g "$src" clean -fdxq
st=$top/stages
rm -rf "$st"
mkdir -p "$st"
for n in 1 2 3 4 5 6 7; do
	"$here/upstream-layout.sh" $n "$src" "$st/$n"
done
ser=$top/series.git
rm -rf "$ser" "$logs/series"
mkdir -p "$ser"
g "$ser" init -q
# the pristine copies of the files the series touches
(cd "$st/7" && find . -type f | sed 's|^\./||' | sort) >"$st/files"
while read -r f; do
	if git -C "$src" cat-file -e "pristine:$f" 2>/dev/null; then
		mkdir -p "$(dirname "$ser/$f")"
		git -C "$src" show "pristine:$f" >"$ser/$f"
	fi
done <"$st/files"
g "$ser" add -A
g "$ser" commit -q -m "linux-source-6.12 $pkgver (the files the series touches)"
g "$ser" tag pristine
for n in 1 2 3 4 5 6 7; do
	msg=$(ls "$repo/docs/upstream/series/$n-"*.txt)
	(cd "$st/$n" && tar -cf - .) | tar -xf - -C "$ser"
	g "$ser" add -A
	{ sed '/^#/d' "$msg"; echo; echo "Signed-off-by: $signoff"; } >"$st/msg"
	g "$ser" commit -q -F "$st/msg"
done
cover=$repo/docs/upstream/series/0-cover.txt
g "$ser" format-patch -q --cover-letter --no-signature --subject-prefix=PATCH \
	-o "$logs/series" pristine..HEAD
cl=$(ls "$logs/series/"0000-*.patch)
python3 - "$cl" "$cover" <<'EOF'
import sys
path, cover = sys.argv[1], sys.argv[2]
lines = [l for l in open(cover, encoding='utf-8').read().split('\n') if not l.startswith('#')]
subject, body = lines[0], '\n'.join(lines[2:]).strip('\n')
s = open(path, encoding='utf-8').read()
if '*** SUBJECT HERE ***' not in s or '*** BLURB HERE ***' not in s:
    sys.exit('upstream: format-patch gave no cover letter placeholders')
s = s.replace('*** SUBJECT HERE ***', subject).replace('*** BLURB HERE ***', body)
open(path, 'w', encoding='utf-8').write(s)
EOF
echo "upstream: the series in $logs/series/: $(ls "$logs/series" | wc -l) files ($(cat "$st/files" | wc -l) files of the tree touched)" >&2
lap series

# --- each patch: git am, checkpatch, the builds it makes possible ---
mk() { nice -n 10 make -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" W=1 "$@"; }
jobs=-j${KBUILD_JOBS:-2}
setcfg() {	# setcfg PHYLLO [PHYLLO_KUNIT_TEST]: defconfig (once) with those
	[ -f "$out/.config" ] || mk defconfig >/dev/null
	"$src/scripts/config" --file "$out/.config" --set-val PHYLLO "$1"
	if [ -n "${2:-}" ]; then
		"$src/scripts/config" --file "$out/.config" --enable KUNIT --set-val PHYLLO_KUNIT_TEST "$2"
	else
		"$src/scripts/config" --file "$out/.config" --disable PHYLLO_KUNIT_TEST --disable KUNIT
	fi
	mk olddefconfig >/dev/null
	grep -qx "CONFIG_PHYLLO=$1" "$out/.config" ||
		{ echo "upstream: CONFIG_PHYLLO=$1 did not stick" >&2; exit 1; }
	[ -z "${2:-}" ] || grep -qx "CONFIG_PHYLLO_KUNIT_TEST=$2" "$out/.config" ||
		{ echo "upstream: CONFIG_PHYLLO_KUNIT_TEST=$2 did not stick" >&2; exit 1; }
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
		grep -v -e '^WARNING: modpost: "[^"]*" \[drivers/tty/phyllo/phyllo\(_kunit\)\?\.ko\] undefined!$' \
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
symbols() {	# symbols: every global symbol of the built-in objects phyllo-prefixed
	a=$out/drivers/tty/phyllo/built-in.a
	nm "$a" | awk '$2 ~ /^[A-Z]$/ && $2 != "U" && $2 != "W" {print $3}' | sort -u >"$logs/builtin.symbols"
	if grep -v -E '^(phyllo_|__tracepoint_phyllo_|__traceiter_phyllo_|__SCK__tp_func_phyllo_|__SCT__tp_func_phyllo_|__probestub_phyllo_|__bpf_trace_tp_map_phyllo_|__event_phyllo_|__initcall|__param_|__exitcall|__UNIQUE_ID_)' \
		"$logs/builtin.symbols" >"$logs/builtin.foreign"; then
		cat "$logs/builtin.foreign" >&2
		echo "upstream: built-in objects define global symbols without the phyllo prefix" >&2
		exit 1
	fi
}
prepared=""
prepare() {	# the tree prepared for module builds, once a run
	[ -z "$prepared" ] || return 0
	[ -f "$out/.config" ] || mk defconfig >/dev/null
	mk "$jobs" modules_prepare >"$logs/prepare.log" 2>&1 || {
		tail -40 "$logs/prepare.log" >&2
		exit 1
	}
	prepared=1
}
: >"$logs/checkpatch.txt"
checks=0
n=0
fpc_note=" (every file it adds is under the MAINTAINERS entry's F: lines: FILE_PATH_CHANGES checked so)"
for p in "$logs/series/"00[0-9][1-9]-*.patch; do
	n=$((n + 1))
	g "$src" am -q "$p" || { echo "upstream: git am of ${p##*/} failed" >&2; exit 1; }
	# checkpatch reminds of MAINTAINERS whenever a patch adds a file and
	# leaves MAINTAINERS alone; where every file the patch adds is under
	# an F: line of the entry as it stands, that is checked here instead.
	ignore=""
	if ! git -C "$src" diff --name-only HEAD~1 HEAD | grep -qx MAINTAINERS; then
		title=$(sed '/^#/d' "$repo/docs/upstream/MAINTAINERS" | head -1)
		fpaths=$(sed -n "/^$title\$/,/^\$/s/^F:[[:space:]]*//p" "$src/MAINTAINERS")
		covered=1
		added=$(git -C "$src" diff --name-only --diff-filter=A HEAD~1 HEAD)
		for f in $added; do
			ok=""
			# an F: line ending in / covers what is under it, another
			# line only its own file
			for fp in $fpaths; do
				case $fp in
				*/) [ "${f#"$fp"}" = "$f" ] || ok=1 ;;
				*) [ "$f" != "$fp" ] || ok=1 ;;
				esac
			done
			[ -n "$ok" ] || { covered=""; echo "upstream: ${p##*/} adds $f, which no F: line of the MAINTAINERS entry covers" >&2; }
		done
		[ -z "$covered" ] || [ -z "$added" ] ||
			ignore="--ignore FILE_PATH_CHANGES"
	fi
	# shellcheck disable=SC2086
	(cd "$logs" && "$src/scripts/checkpatch.pl" --strict --show-types $ignore --root="$src" "$p") \
		>"$logs/checkpatch-$n.txt" 2>&1 || true
	cat "$logs/checkpatch-$n.txt" >>"$logs/checkpatch.txt"
	total=$(sed -n 's/^total: //p' "$logs/checkpatch-$n.txt")
	e=$(echo "$total" | sed -n 's/^\([0-9]*\) errors.*/\1/p')
	w=$(echo "$total" | sed -n 's/.* \([0-9]*\) warnings.*/\1/p')
	c=$(echo "$total" | sed -n 's/.* \([0-9]*\) checks.*/\1/p')
	[ -n "$e" ] && [ -n "$w" ] && [ -n "$c" ] ||
		{ cat "$logs/checkpatch-$n.txt" >&2; echo "upstream: checkpatch gave no total for ${p##*/}" >&2; exit 1; }
	checks=$((checks + c))
	echo "upstream: [$n/7] $(sed -n 's/^Subject: //p' "$p" | head -1): checkpatch --strict $e errors, $w warnings, $c checks${ignore:+$fpc_note}" >&2
	sed -n 's/^CHECK:\([A-Z_]*\):.*/\1/p' "$logs/checkpatch-$n.txt" | sort | uniq -c | sed 's/^/      CHECK /' >&2
	if [ "$e" != 0 ] || [ "$w" != 0 ]; then
		grep -A4 '^\(ERROR\|WARNING\)' "$logs/checkpatch-$n.txt" >&2
		echo "upstream: checkpatch --strict: ${p##*/} has errors or warnings (log: $logs/checkpatch-$n.txt)" >&2
		exit 1
	fi
	case $n in
	1)
		prepare
		phyllo_step patch1 drivers/tty/tty_ldisc.o
		;;
	2)
		prepare
		[ -f "$out/usr/include/linux/types.h" ] || phyllo_step headers headers
		hdr=$out/usr/include/linux/phyllo.h
		(cd "$out" && sh "$src/scripts/headers_install.sh" "$src/include/uapi/linux/phyllo.h" "$hdr") ||
			{ echo "upstream: headers_install.sh refuses linux/phyllo.h" >&2; exit 1; }
		echo '#include <linux/phyllo.h>' | gcc -x c -fsyntax-only -Wall -Wextra -Werror \
			-I"$out/usr/include" - || { echo "upstream: installed linux/phyllo.h does not compile" >&2; exit 1; }
		;;
	3)
		setcfg m
		phyllo_step patch3-m drivers/tty/phyllo/
		setcfg y
		phyllo_step patch3-y drivers/tty/phyllo/
		;;
	4 | 5)
		setcfg m
		phyllo_step patch$n-m KBUILD_MODPOST_WARN=1 drivers/tty/phyllo/phyllo.ko
		ko=$out/drivers/tty/phyllo/phyllo.ko
		modinfo "$ko" | grep -q '^license:' ||
			{ echo "upstream: phyllo.ko has no license" >&2; exit 1; }
		modinfo -F alias "$ko" | grep -qx "tty-ldisc-$(sed -n 's/^#define N_PHYLLO\t*\([0-9]*\).*/\1/p' "$src/include/uapi/linux/tty.h")" ||
			{ echo "upstream: phyllo.ko has no tty-ldisc alias of N_PHYLLO" >&2; exit 1; }
		echo "upstream: patch $n: phyllo.ko $(size "$ko" | tail -1 | awk '{print "text " $1 ", data " $2 ", bss " $3}')" >&2
		setcfg y
		phyllo_step patch$n-y drivers/tty/phyllo/
		symbols
		;;
	6)
		setcfg m m
		phyllo_step patch6-m KBUILD_MODPOST_WARN=1 drivers/tty/phyllo/phyllo.ko drivers/tty/phyllo/phyllo_kunit.ko
		setcfg y y
		phyllo_step patch6-y drivers/tty/phyllo/
		symbols
		;;
	esac
done
[ $n = 7 ] || { echo "upstream: the series has $n patches, not 7" >&2; exit 1; }
# the applied tree is the last layout
(cd "$st/7" && find . -type f) | while read -r f; do
	cmp -s "$st/7/$f" "$src/$f" || { echo "upstream: $f after git am differs from the layout" >&2; exit 1; }
done
echo "upstream: the series applies with git am to linux-source-6.12 $pkgver; checkpatch --strict: 0 errors, 0 warnings, $checks checks in all (each listed in $logs/checkpatch.txt)" >&2
lap patches

# --- documentation: the RST page and the ABI file ---
# rst_check FILE...: docutils, warnings as errors (what Sphinx reports
# for plain RST; the page uses no Sphinx-only markup)
rst_check() {
	/usr/bin/python3 - "$@" <<'EOF'
import sys, docutils.core
from docutils import nodes
from docutils.parsers.rst import roles
# Sphinx's cross-reference role (get_abi.pl's output uses it); docutils
# alone checks the rest
roles.register_generic_role('ref', nodes.emphasis)
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        docutils.core.publish_string(f.read(), source_path=path, writer_name="null",
            settings_overrides={"halt_level": 2, "report_level": 2})
EOF
}
pages="Documentation/driver-api/tty/phyllo.rst Documentation/userspace-api/phyllo.rst"
for f in $pages; do rst_check "$src/$f"; done
# The kernel's own htmldocs for driver-api/tty and userspace-api (Debian's
# Sphinx, the tree's conf.py and extensions): any warning naming a page
# fails (the indexes' links out of their directories, built alone, are
# expected).
html=$top/docs-out/Documentation/output/driver-api/tty/phyllo.html
uhtml=$top/docs-out/Documentation/output/userspace-api/phyllo.html
nice -n 10 make -C "$src" O="$top/docs-out" PYTHON3=/usr/bin/python3 \
	SPHINXBUILD=/usr/bin/sphinx-build SPHINXDIRS="driver-api/tty userspace-api" htmldocs \
	>"$logs/htmldocs.log" 2>&1 || {
	tail -20 "$logs/htmldocs.log" >&2
	echo "upstream: htmldocs failed (log: $logs/htmldocs.log)" >&2
	exit 1
}
# (the cache's own path, ~/.cache/phyllo, is taken off first)
if grep -i 'warning\|error' "$logs/htmldocs.log" | sed "s|$top/||g" | grep -i phyllo >&2 ||
	[ ! -f "$html" ] || [ ! -f "$uhtml" ]; then
	echo "upstream: htmldocs warns about a phyllo page or did not build it (log: $logs/htmldocs.log)" >&2
	exit 1
fi
cp "$html" "$logs/phyllo.html"
cp "$uhtml" "$logs/phyllo-uapi.html"
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
# Every sysfs file against the glue: tty, name, state, down_ms,
# statistics/<each word of struct
# phyllo_link_stats before reserved>, config/<each word of struct
# phyllo_link_config before mask (the ioctl's own word)>, both ways.
words() {	# words STRUCT: its __u32 fields before reserved, in order
	sed -n "/^struct $1 {/,/^};/p" "$repo/uapi/phyllo.h" |
		sed -n 's/^[[:space:]]*__u32 \([a-z_0-9]*\);.*/\1/p' | grep -v '^reserved$' |
		grep -v '^mask$'
}
{
	for w in tty name state down_ms; do echo "/sys/class/phyllo/phylloN/$w"; done
	for w in $(words phyllo_link_stats); do echo "/sys/class/phyllo/phylloN/statistics/$w"; done
	for w in $(words phyllo_link_config); do echo "/sys/class/phyllo/phylloN/config/$w"; done
} | sort >"$abi/want"
sed -n 's/^What:[[:space:]]*//p' "$abi/sysfs-class-phyllo" | sort >"$abi/have"
if ! cmp -s "$abi/want" "$abi/have"; then
	echo "upstream: sysfs-class-phyllo against uapi/phyllo.h (< missing, > not a sysfs file):" >&2
	diff "$abi/want" "$abi/have" | grep '^[<>]' >&2
	exit 1
fi
# Both pages name every ioctl of the uapi header and every setting.
for w in $(sed -n 's/^#define \(PHYLLO_IOC_[A-Z_]*\)[[:space:]]*_IO.*/\1/p' "$repo/uapi/phyllo.h") \
	$(words phyllo_link_config); do
	for f in $pages; do
		grep -q "\`\`$w\`\`" "$src/$f" ||
			{ echo "upstream: $f does not name $w" >&2; exit 1; }
	done
done
# kernel-doc -Wall on every file (W=1 runs it without -Wall on the .c files).
(cd "$src" && scripts/kernel-doc -none -Wall drivers/tty/phyllo/*.[ch]) >"$logs/kernel-doc.txt" 2>&1
if grep -qi 'warning\|error' "$logs/kernel-doc.txt"; then
	cat "$logs/kernel-doc.txt" >&2
	exit 1
fi
echo "upstream: the two pages (docutils, htmldocs) and sysfs-class-phyllo (get_abi.pl, $(wc -l <"$abi/want") sysfs files) clean, kernel-doc -Wall clean" >&2
lap docs

echo "upstream: 6.12 ($pkgver) tree: 7 patches applied, each built W=1 clean and checkpatch --strict clean; $times total $(($(date +%s) - t0)) s" >&2
