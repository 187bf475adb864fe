#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-packages.sh BUILDDIR - the Debian packages as a Debian 12 user gets
# them (make test-packages, in make check):
#  1. every binary package of debian/ built with dpkg-buildpackage
#     (scripts/deb.sh, into BUILDDIR/packages/deb/);
#  2. lintian on them: no error (the warning count is printed);
#  3. a fresh copy (overlayfs, thrown away after) of a cached minimal
#     Debian 12 chroot (scripts/debian-chroot.sh bookworm-pkgs: minbase,
#     gcc, libc6-dev, pkg-config), where in-chroot.sh installs the tool,
#     libphyllo0, libphyllo-dev and python3-phyllolink with apt from the
#     .debs and runs the README's C and Python examples, taken from
#     README.md as written (the tty's path put in), against the installed
#     `phyllo peer --echo` on a pty, then purges them. phyllo-dkms is left
#     to make test-dkms, which installs it in a guest with a kernel;
#  4. the README's venv route for other systems, on the host.
# apt's downloads are kept in ~/.cache/phyllo/bookworm-pkgs/archives.
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# a build of its own (BUILDDIR/packages/deb/), apart from test-dkms's
# BUILDDIR/deb/, so that make -j runs them side by side
mkdir -p "$build/packages"
build=$(cd "$build/packages" && pwd)
. "$repo/tests/userspace/checks.sh"

# 1. the packages
if "$repo/scripts/deb.sh" "$build" >"$dir/out" 2>"$dir/err"; then
	ok "dpkg-buildpackage -b: $(cd "$build/deb" && ls ./*.deb | grep -vc dbgsym) packages, $(cd "$build/deb" && ls ./*.deb | grep -v dbgsym | sed 's|^./||' | tr '\n' ' ')"
else
	bad "building the packages (scripts/deb.sh)"
	checks_done
	exit 1
fi
n=$(cd "$build/deb" && ls ./*.deb | wc -l)
[ "$(grep -c '^    .*\.deb$' "$dir/err")" -eq "$n" ] && grep -q "^deb.sh: $n packages in" "$dir/err" &&
	ok "make deb names every package it built ($n), not only phyllo-dkms" ||
	bad "make deb's list of packages: $(cat "$dir/err")"
rm -f "$dir/err" "$dir/out"

# 2. lintian
ver=$(cd "$repo" && dpkg-parsechangelog -SVersion)
changes=$build/deb/phyllo_${ver}_$(dpkg --print-architecture).changes
lintian --tag-display-limit 0 "$changes" >"$dir/lintian" 2>&1
e=$(grep -c '^E: ' "$dir/lintian")
w=$(grep -c '^W: ' "$dir/lintian")
cp "$dir/lintian" "$build/deb/lintian.txt"
[ "$e" -eq 0 ] && ok "lintian: $e errors, $w warnings ($build/deb/lintian.txt)" || {
	grep '^[EW]: ' "$dir/lintian" | head -20
	bad "lintian: $e errors, $w warnings"
}

# 3. the examples from README.md, for in-chroot.sh
w=$dir/walk
mkdir -p "$w"
sed -n '/^## libphyllo/,/^## /p' "$repo/README.md" | sed -n '/^```c$/,/^```$/p' | sed '1d;$d' \
	>"$w/ping.c"
sed -n '/^## Python$/,/^## /p' "$repo/README.md" |
	awk '/^```python$/ { n++; next } /^```$/ && n == 1 { exit } n == 1' |
	sed 's|"/dev/ttyACM0"|"/root/walk/pty"|' >"$w/example.py"
[ -s "$w/ping.c" ] || bad "no C example under '## libphyllo' in README.md"
grep -q '"/root/walk/pty"' "$w/example.py" ||
	bad "no Python example opening \"/dev/ttyACM0\" under '## Python' in README.md"
cp "$build"/deb/*.deb "$here/in-chroot.sh" "$w/"
rm -f "$w"/*-dbgsym_*.deb "$w"/phyllo-dkms_*.deb

root=$("$repo/scripts/debian-chroot.sh" bookworm-pkgs bookworm gcc libc6-dev pkg-config) || {
	bad "the Debian 12 chroot (scripts/debian-chroot.sh bookworm-pkgs)"
	checks_done
	exit 1
}
cache=${PHYLLO_KCACHE:-$HOME/.cache/phyllo}/bookworm-pkgs/archives
mkdir -p "$cache/partial" "$dir/upper" "$dir/work" "$dir/root"
unshare -m --propagation private sh -c '
	r=$1 d=$2 cache=$3
	mount -t overlay overlay -o "lowerdir=$r,upperdir=$d/upper,workdir=$d/work" "$d/root" &&
	mkdir -p "$d/root/root/walk" && cp "$d"/walk/* "$d/root/root/walk/" &&
	cp /etc/resolv.conf "$d/root/etc/resolv.conf" &&
	mount -t proc proc "$d/root/proc" && mount --rbind /dev "$d/root/dev" &&
	mount --bind "$cache" "$d/root/var/cache/apt/archives" &&
	exec chroot "$d/root" /bin/sh /root/walk/in-chroot.sh /root/walk' sh "$root" "$dir" "$cache" \
	>"$dir/chroot.out" 2>&1
grep -v '^[0-9]* passed, [0-9]* failed$' "$dir/chroot.out"
n=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$dir/chroot.out")
[ -n "$n" ] || n="0 1"
pass=$((pass + ${n% *}))
fail=$((fail + ${n#* }))

# 4. the README's venv route (other systems), here on the host with
# Debian's python3: a venv that sees python3-msgpack, pip from a copy of
# python/ (offline), the library of step 1 named by PHYLLO_LIBRARY, and the
# same example against that build's `phyllo peer --echo`.
v=$dir/venv
hb=$build/deb/phyllo-$ver/debian/build/host
cp -r "$repo/python" "$dir/pysrc"
rm -rf "$dir/pysrc/build" "$dir"/pysrc/*.egg-info
if /usr/bin/python3 -m venv --system-site-packages "$v" >"$dir/out" 2>"$dir/err" &&
	"$v/bin/pip" install -q --no-build-isolation --no-index "$dir/pysrc" >"$dir/out" 2>"$dir/err"; then
	ok "venv --system-site-packages, pip install --no-build-isolation ./python"
else
	bad "the venv route"
fi
rm -f "$dir/err" "$dir/out"
"$hb/phyllo" peer --echo --pty "$dir/vpty" 2>/dev/null &
pids="$pids $!"
i=0
while [ ! -L "$dir/vpty" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sed "s|\"/root/walk/pty\"|\"$dir/vpty\"|" "$w/example.py" >"$dir/vexample.py"
(cd "$dir" && PHYLLO_LIBRARY=$hb/libphyllo.so.0 "$v/bin/python3" -c \
	'import phyllolink, sys; print(phyllolink.__file__.startswith(sys.prefix + "/lib/"))' \
	>"$dir/out" 2>"$dir/err") && [ "$(cat "$dir/out")" = True ] &&
	ok "the venv imports its own phyllolink" || bad "the venv's phyllolink is not its own"
(cd "$dir" && PHYLLO_LIBRARY=$hb/libphyllo.so.0 "$v/bin/python3" vexample.py) >"$dir/out" 2>"$dir/err"
printf '%s\n' "ping 1" "echo [1, 2.5, 'three']" "ping 0" "ping 1" "ping 2" "0 up" >"$dir/want"
cmp -s "$dir/out" "$dir/want" && ok "the README's Python example in the venv: $(tr '\n' '|' <"$dir/out")" ||
	bad "in the venv the example printed '$(tr '\n' '|' <"$dir/out")'"
checks_done
