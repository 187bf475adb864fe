#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-bridge-deb.sh BUILDDIR MAKE - phyllo-bridge as a package (make
# test-bridge-deb, in make check):
#  1. make install-bridge into a DESTDIR (PREFIX /usr/local and /usr), then
#     make uninstall: nothing left;
#  2. every binary package of debian/ built with dpkg-buildpackage
#     (scripts/deb.sh, into BUILDDIR/bridge-deb/deb/): phyllo-bridge holds
#     the binary, its man page, phyllo-bridge@.service and the examples,
#     depends on libmosquitto1, and lintian says nothing about it;
#  3. in a fresh copy (overlayfs, thrown away) of a cached Debian 12 chroot
#     with Debian's mosquitto (scripts/debian-chroot.sh bookworm-bridge),
#     apt installs phyllo-bridge, phyllo and libphyllo0 from the .debs; a
#     mosquitto of the test's own on a free port, `phyllo peer --echo` on a
#     pty, the shipped starter configuration copied to
#     /etc/phyllo/bridge.conf (its port changed to the test's), and
#     `phyllo bridge` carries a command to the board and its answer back;
#     apt purge leaves none of its files.
set -u
build=$1
mk=${2:-make}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p "$build/bridge-deb"
build=$(cd "$build/bridge-deb" && pwd)
. "$repo/tests/userspace/checks.sh"
. "$here/lib.sh"

# 1. install-bridge, uninstall
for prefix in /usr/local /usr; do
	st=$dir/stage$(echo $prefix | tr / _)
	if (cd "$repo" && $mk -s install-bridge DESTDIR="$st" PREFIX=$prefix) >"$dir/out" 2>"$dir/err" &&
	   [ -x "$st$prefix/bin/phyllo-bridge" ] &&
	   [ -f "$st$prefix/share/doc/phyllo-bridge/examples/local.conf" ] &&
	   (cd "$repo" && $mk -s uninstall DESTDIR="$st" PREFIX=$prefix) >"$dir/out" 2>"$dir/err" &&
	   [ -z "$(find "$st" -type f)" ]; then
		ok "PREFIX=$prefix: make uninstall removes all that make install-bridge put there"
	else
		find "$st" -type f >>"$dir/err" 2>/dev/null
		bad "PREFIX=$prefix: install-bridge, uninstall"
	fi
done
rm -f "$dir/out" "$dir/err"

# 2. the packages
if ! "$repo/scripts/deb.sh" "$build" >"$dir/out" 2>"$dir/err"; then
	bad "building the packages (scripts/deb.sh)"
	checks_done
	exit 1
fi
deb=$(ls "$build"/deb/phyllo-bridge_*.deb 2>/dev/null)
[ -n "$deb" ] && ok "dpkg-buildpackage -b: $(basename "$deb")" || bad "no phyllo-bridge package"
dpkg-deb -c "$deb" | awk '{ print $6 }' | grep -v '/$' | sort >"$dir/files"
cat >"$dir/want" <<EOF
./usr/bin/phyllo-bridge
./usr/lib/systemd/system/phyllo-bridge@.service
./usr/share/doc/phyllo-bridge/changelog.gz
./usr/share/doc/phyllo-bridge/copyright
./usr/share/doc/phyllo-bridge/examples/local.conf
./usr/share/doc/phyllo-bridge/examples/tls.conf
./usr/share/man/man1/phyllo-bridge.1.gz
EOF
diff "$dir/want" "$dir/files" >"$dir/out" &&
	ok "phyllo-bridge holds the binary, phyllo-bridge(1), phyllo-bridge@.service and the two examples" ||
	bad "phyllo-bridge's files"
dpkg-deb -f "$deb" Depends | grep -q 'libmosquitto1' && ok "it depends on libmosquitto1 ($(dpkg-deb -f "$deb" Depends))" ||
	bad "Depends: $(dpkg-deb -f "$deb" Depends)"
lintian --tag-display-limit 0 "$deb" 2>&1 | grep -v '^running with root privileges' >"$dir/out"
[ ! -s "$dir/out" ] && ok "lintian on phyllo-bridge: not a word" || bad "lintian on phyllo-bridge"
rm -f "$dir/out" "$dir/err"

# 3. installed in Debian 12, run against a local mosquitto
root=$("$repo/scripts/debian-chroot.sh" bookworm-bridge bookworm mosquitto mosquitto-clients) || {
	bad "the Debian 12 chroot (scripts/debian-chroot.sh bookworm-bridge)"
	checks_done
	exit 1
}
w=$dir/walk
mkdir -p "$w" "$dir/upper" "$dir/work" "$dir/root"
cp "$build"/deb/phyllo-bridge_*.deb "$build"/deb/phyllo_*.deb "$build"/deb/libphyllo0_*.deb "$w/"
cat >"$w/in-chroot.sh" <<'EOF'
set -u
cd /root/walk
export DEBIAN_FRONTEND=noninteractive
apt_get() { apt-get -q -o DPkg::Lock::Timeout=600 "$@"; }
port=$1
apt_get install -y --no-install-recommends ./phyllo-bridge_*.deb ./phyllo_*.deb ./libphyllo0_*.deb \
	>apt.log 2>&1 && echo "ok   apt install ./phyllo-bridge_*.deb ./phyllo_*.deb ./libphyllo0_*.deb" ||
	{ tail -20 apt.log; echo "FAIL apt install"; exit 1; }
printf 'listener %s 127.0.0.1\nallow_anonymous true\n' "$port" >mosquitto.conf
printf 'log_type %s\n' error warning notice information subscribe >>mosquitto.conf
mosquitto -c mosquitto.conf 2>broker.err &
broker=$!
phyllo peer --echo --pty /root/walk/pty 2>peer.err &
peer=$!
i=0
while [ ! -L /root/walk/pty ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
mkdir -p /etc/phyllo
install -m 600 /usr/share/doc/phyllo-bridge/examples/local.conf /etc/phyllo/bridge.conf
sed -i "s/^port = 1883\$/port = $port/" /etc/phyllo/bridge.conf
phyllo bridge -c /etc/phyllo/bridge.conf --tty /root/walk/pty --name board >bridge.out 2>bridge.err &
bridge=$!
i=0
until grep -q "connected to" bridge.err || [ $i -gt 100 ]; do sleep 0.1; i=$((i + 1)); done
mosquitto_sub -h 127.0.0.1 -p "$port" -q 1 -C 1 -W 10 -i answer -t phyllo/board/servo >answer &
sub=$!
i=0	# until the broker logs the subscription (log_type subscribe)
until grep -q ": answer [0-2] phyllo/board/servo$" broker.err || [ $i -gt 100 ]; do sleep 0.1; i=$((i + 1)); done
mosquitto_pub -h 127.0.0.1 -p "$port" -q 1 -t phyllo/board/cmd/servo -m '{"deg":90}'
wait $sub
kill -TERM $bridge
wait $bridge
rc=$?
[ "$(cat answer)" = '{"deg":90}' ] && [ $rc -eq 0 ] &&
	echo "ok   the installed phyllo bridge, on the shipped local.conf: a command to the board, its answer back, exit 0" ||
	{ cat bridge.err; echo "FAIL the installed bridge: answer '$(cat answer)', rc $rc"; }
kill $peer $broker
apt_get purge -y phyllo-bridge >>apt.log 2>&1
left=
for f in /usr/bin/phyllo-bridge /usr/share/man/man1/phyllo-bridge.1.gz \
	/usr/lib/systemd/system/phyllo-bridge@.service /usr/share/doc/phyllo-bridge; do
	[ -e "$f" ] && left="$left $f"
done
[ -z "$left" ] && echo "ok   apt purge phyllo-bridge: none of its files left" || echo "FAIL left:$left"
EOF
port=$(free_port)
unshare -m --propagation private sh -c '
	r=$1 d=$2 port=$3
	mount -t overlay overlay -o "lowerdir=$r,upperdir=$d/upper,workdir=$d/work" "$d/root" &&
	mkdir -p "$d/root/root/walk" && cp "$d"/walk/* "$d/root/root/walk/" &&
	cp /etc/resolv.conf "$d/root/etc/resolv.conf" &&
	mount -t proc proc "$d/root/proc" && mount --rbind /dev "$d/root/dev" &&
	exec chroot "$d/root" /bin/sh /root/walk/in-chroot.sh "$port"' sh "$root" "$dir" "$port" \
	>"$dir/chroot.out" 2>&1
cat "$dir/chroot.out"
pass=$((pass + $(grep -c '^ok ' "$dir/chroot.out")))
fail=$((fail + $(grep -c '^FAIL ' "$dir/chroot.out")))
[ "$(grep -c '^ok ' "$dir/chroot.out")" -eq 3 ] || bad "the chroot's run did not finish ($(grep -c '^ok ' "$dir/chroot.out") of 3)"
checks_done
