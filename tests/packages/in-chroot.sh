#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# in-chroot.sh DIR - run by test-packages.sh inside a fresh copy of a
# minimal Debian 12 chroot (minbase with gcc, libc6-dev and pkg-config: a C
# programmer's machine), as root, with DIR holding the .debs, ping.c and
# example.py (the README's C and Python examples, taken from README.md by
# test-packages.sh). What a user does: `apt install ./*.deb` (the tool,
# libphyllo0, libphyllo-dev, python3-phyllolink; apt fetches their
# dependencies from the archive), then the examples as the README says,
# against the installed `phyllo peer --echo` on a pty; then the packages
# removed, nothing of them left. Prints ok/FAIL lines and the count.
set -u
d=$1
cd "$d" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() {
	fail=$((fail + 1))
	echo "FAIL $1"
	[ -s err ] && sed 's/^/     /' err | tail -15
	return 0
}
export DEBIAN_FRONTEND=noninteractive
apt_get() { apt-get -q -o DPkg::Lock::Timeout=900 "$@"; }
debs="phyllo libphyllo0 libphyllo-dev python3-phyllolink"
files=$(for p in $debs; do ls ./"$p"_*.deb; done)

apt_get update >apt.log 2>&1 || { cat apt.log; exit 1; }
# shellcheck disable=SC2086
if apt_get install -y $files >>apt.log 2>err; then
	ok "apt install ./phyllo_*.deb ./libphyllo0_*.deb ./libphyllo-dev_*.deb ./python3-phyllolink_*.deb"
else
	cat apt.log
	bad "apt install of the packages"
	echo "$pass passed, $fail failed"
	exit 1
fi
for p in $debs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' || bad "$p not installed"
done
for f in /usr/bin/phyllo /usr/share/man/man1/phyllo.1.gz /usr/share/man/man4/phyllo.4.gz \
	/usr/share/man/man3/libphyllo.3.gz /usr/share/man/man3/phyllo_open.3.gz \
	/usr/lib/udev/rules.d/70-phyllo.rules /usr/lib/systemd/system/phyllo-attach@.service \
	/usr/include/libphyllo.h /usr/share/bash-completion/completions/phyllo \
	/usr/share/phyllo/wireshark/phyllo.lua /usr/lib/tmpfiles.d/phyllo.conf; do
	[ -e "$f" ] || bad "no $f"
done
grep -q '^ExecStart=/usr/bin/phyllo attach' /usr/lib/systemd/system/phyllo-attach@.service ||
	bad "the unit does not run /usr/bin/phyllo"
ok "the tool, its man pages, libphyllo(3), bash completion, the dissector, the udev rule, the systemd unit and tmpfiles.d's /run/phyllo are installed"
v=$(phyllo --version 2>&1 | head -1)
[ -n "$v" ] && ok "phyllo --version: $v" || bad "phyllo --version"

phyllo peer --echo --pty "$d/pty" 2>peer.log &
peer=$!
i=0
while [ ! -L "$d/pty" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -L "$d/pty" ] || bad "phyllo peer --echo made no pty"

# The C example, built as its first line says.
# shellcheck disable=SC2046
if cc ping.c $(pkg-config --cflags --libs phyllo) -o ping 2>err; then
	ok "cc ping.c \$(pkg-config --cflags --libs phyllo) -o ping"
else
	bad "the README's C example does not build"
fi
./ping "$d/pty" >out 2>err
[ "$(cat out)" = "ping 1" ] && ok "./ping PTY: $(cat out)" || bad "./ping printed '$(cat out)'"
ldd ./ping >err 2>&1
lib=$(sed -n 's/^[[:space:]]*libphyllo.so.0 => \([^ ]*\) .*/\1/p' err)
want=$(dpkg -L libphyllo0 | grep '/libphyllo\.so\.0\.[0-9.]*$')
[ -n "$lib" ] && [ "$(readlink -f "$lib")" = "$want" ] &&
	ok "ping runs on the packaged library: $lib" || bad "ping not linked to the packaged library"

# The Python example, with Debian's python3 and nothing else on its path.
python3 -c 'import phyllolink, sys; print(phyllolink.__file__, phyllolink._lib._name)' >out 2>err
[ "$(cat out)" = "/usr/lib/python3/dist-packages/phyllolink/__init__.py libphyllo.so.0" ] &&
	ok "import phyllolink: $(cat out)" || bad "import phyllolink gave '$(cat out)'"
python3 example.py >out 2>err
printf '%s\n' "ping 1" "echo [1, 2.5, 'three']" "ping 0" "ping 1" "ping 2" "0 up" >want
cmp -s out want && ok "python3 example.py: $(tr '\n' '|' <out)" ||
	bad "python3 example.py printed '$(tr '\n' '|' <out)'"
kill $peer 2>/dev/null
wait $peer 2>/dev/null

# shellcheck disable=SC2086
apt_get purge -y $debs >>apt.log 2>err && ok "apt purge $debs" || bad "apt purge"
left=
for f in /usr/bin/phyllo /usr/lib/x86_64-linux-gnu/libphyllo.so.0 /usr/include/libphyllo.h \
	/usr/lib/python3/dist-packages/phyllolink /usr/lib/udev/rules.d/70-phyllo.rules \
	/usr/lib/systemd/system/phyllo-attach@.service /usr/lib/tmpfiles.d/phyllo.conf \
	/usr/share/doc/phyllo; do
	[ -e "$f" ] && left="$left $f"
done
[ -z "$left" ] && ok "nothing of them left" || bad "left after purge:$left"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
