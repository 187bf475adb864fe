#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-bridge-walk.sh BUILD_HOST_DIR - the commands of docs/bridge.md's
# "From nothing to a working bridge", taken from the page (its ```sh
# blocks, in order) and run as written, with only what a test must change:
#   /etc/...              $dir/etc/...
#   /usr/share/doc/phyllo-bridge/examples/  userspace/bridge/examples/
#   /dev/ttyACM0          a pty of `phyllo peer --echo` (the echo board)
#   1883, 8883            free ports; broker.example.net: localhost
# and these commands standing in for the system's: sudo runs its command;
# apt does nothing (scripts/deps.sh mqtt installed mosquitto); chown does
# nothing (the broker runs as root here, `user root`); systemctl restart
# mosquitto starts a mosquitto of the test's own on the files of
# $dir/etc/mosquitto/conf.d (and a database in $dir); mosquitto_passwd is
# given the password the page calls change-me; mosquitto_pub waits 1 s
# after too, for the answer; install of the starter to
# bridge.conf gives it the first port in place of 1883; mosquitto_pub waits 2 s
# first (a reader of the page takes longer than that to type it);
# mosquitto_sub and _pub without -p get the first port. The page's
# background jobs run in a process group that is ended at the close.
set -u
H=$1
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$repo/tests/userspace/checks.sh"
. "$here/lib.sh"
port=$(free_port)
tport=$(free_port)
ETC=$dir/etc
mkdir -p "$ETC/mosquitto/conf.d" "$dir/dev" "$dir/db" "$dir/bin"
ln -s "$H/phyllo-san" "$dir/bin/phyllo"
ln -s "$H/phyllo-bridge" "$dir/bin/phyllo-bridge"

sed -n '/^## From nothing to a working bridge$/,/^## Topics$/p' "$repo/docs/bridge.md" |
	awk '/^```sh$/ { on = 1; next } /^```$/ { on = 0; next } on' >"$dir/page.sh"
[ "$(grep -c . "$dir/page.sh")" -ge 40 ] && ok "docs/bridge.md: $(grep -c . "$dir/page.sh") lines of commands under 'From nothing to a working bridge'" ||
	bad "docs/bridge.md: no commands found"
sed -e "s|/etc/|$ETC/|g" -e "s|/usr/share/doc/phyllo-bridge/examples/|$repo/userspace/bridge/examples/|g" \
	-e "s|/dev/ttyACM0|$dir/dev/ttyACM0|g" -e "s|\\b1883\\b|$port|g" -e "s|\\b8883\\b|$tport|g" \
	-e "s|broker\\.example\\.net|localhost|g" "$dir/page.sh" >"$dir/walk.sh"
cat >"$dir/prelude.sh" <<EOF
export PATH="$dir/bin:\$PATH"
sudo() { "\$@"; }
apt() { :; }
chown() { :; }
install() {
	command install "\$@" || return
	for a; do :; done
	case "\$a" in */phyllo/bridge.conf) sed -i "s/^port = 1883\\\$/port = $port/" "\$a";; esac
}
mosquitto_passwd() { command mosquitto_passwd -b "\$@" change-me; }
with_port() { case " \$* " in *" -p "*) echo "";; *) echo "-p $port";; esac; }
mosquitto_sub() { command mosquitto_sub \$(with_port "\$@") "\$@"; }
# The reader's pauses: the page starts the bridge and a subscriber in the
# background and publishes at once, as a reader would a few seconds later;
# the walk has no handle on those jobs to wait for, so a pause before and
# after each publish stands for the reader's (a stimulus, not a wait)
mosquitto_pub() { sleep 2; command mosquitto_pub \$(with_port "\$@") "\$@"; r=\$?; sleep 1; return \$r; }
systemctl() {
	[ "\$1 \$2" = "restart mosquitto" ] || { echo "walk: systemctl \$*?" >&2; return 1; }
	if [ -f "$dir/broker.pid" ]; then	# the old broker gone (5 s at most)
		b=\$(cat "$dir/broker.pid") i=0
		kill \$b
		while kill -0 \$b 2>/dev/null && [ \$i -lt 50 ]; do sleep 0.1; i=\$((i + 1)); done
		rm -f "$dir/broker.pid"
	fi
	{ cat "$ETC"/mosquitto/conf.d/*.conf; echo user root; echo persistence true
	  echo "persistence_location $dir/db/"; echo "log_dest file $dir/broker.log"
	  echo "pid_file $dir/broker.pid"; } >"$dir/broker.conf"
	# a daemon, as the system's: no job of the page's shell (its kill %1)
	command mosquitto -d -c "$dir/broker.conf" 2>>"$dir/broker.err"
	p=\$(sed -n 's/^listener \\([0-9]*\\).*/\\1/p' "$dir/broker.conf" | head -1)
	i=0
	until ss -Hltn "sport = :\$p" | grep -q LISTEN || [ \$i -gt 100 ]; do sleep 0.1; i=\$((i + 1)); done
}
EOF
"$H/phyllo-san" peer --echo --pty "$dir/dev/ttyACM0" 2>"$dir/peer.err" &
pids="$pids $!"
i=0
while [ ! -L "$dir/dev/ttyACM0" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

# bash: the page's `kill %1 %2` needs job ids, which dash's kill lacks
# without job control
(cd "$dir" && exec setsid bash -c ". ./prelude.sh; . ./walk.sh; sleep 2" >"$dir/walk.out" 2>"$dir/walk.err") &
walk=$!
pids="$pids $walk"
i=0
while kill -0 $walk 2>/dev/null && [ $i -lt 900 ]; do sleep 0.1; i=$((i + 1)); done
# what the page left running in the background: its process group (setsid
# made the walk's shell, $walk, its leader), and the broker, a daemon
kill -- -$walk 2>/dev/null
[ -f "$dir/broker.pid" ] && kill "$(cat "$dir/broker.pid")" 2>/dev/null

cp "$dir/walk.out" "$dir/out"
cp "$dir/walk.err" "$dir/err"
grep -q "^out .*phyllo/ttyACM0/T" "$dir/walk.out" &&
	ok "step 2: --dry-run on the starter configuration prints the mapping" || bad "step 2: --dry-run"
grep -q "^phyllo/ttyACM0/status online" "$dir/walk.out" && grep -q "^phyllo/ttyACM0/servo 90$" "$dir/walk.out" &&
	ok "step 2: the bridge on a local broker: status online, the board's answer phyllo/ttyACM0/servo 90" ||
	bad "step 2: no answer from the board"
grep -q "^tls .*CA .*broker-ca.crt.*verified" "$dir/walk.out" && grep -q "^login  *bridge-ttyACM0, password set" "$dir/walk.out" &&
	ok "step 4: --dry-run: TLS verified with the page's CA, user bridge-ttyACM0 and its password" || bad "step 4: --dry-run"
grep -q "^phyllo/ttyACM0/servo 45$" "$dir/walk.out" &&
	ok "step 4: over TLS with passwords and the ACL: the dashboard's command answered, phyllo/ttyACM0/servo 45" ||
	bad "step 4: no answer over TLS"
[ "$(grep -c "connected to localhost:$tport" "$dir/walk.err")" -eq 1 ] && ! grep -q "refused" "$dir/walk.err" &&
	ok "step 4: the bridge connected as the page's user, nothing refused" || bad "step 4: the bridge's log"
checks_done
