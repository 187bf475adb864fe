#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# guest-hotplug.sh - runs at boot (systemd.run=) in the Debian 12 guest of
# test-hotplug.sh, with systemd and udev. The host put `make install`
# (PREFIX=/usr/local: the tool, 70-phyllo.rules, phyllo-attach@.service,
# the example rule) and phyllo.ko (/lib/modules/KVER/extra/) into the disk.
# The far end of the USB serial adapter is `phyllo peer --echo` on the host.
#  1. depmod; a user `maker` in dialout; 71-phyllo-attach.rules made from
#     the example as phyllo(1) says (vendor and product of QEMU's
#     usb-serial, an FTDI FT232: 0403:6001), udevadm control --reload;
#  2. asks the host to plug the adapter in; then, with nothing run by hand:
#     /dev/phyllo0 (dialout, 0660), /dev/phyllo/by-tty/ttyUSB0, the unit
#     active with phyllo attach as its main process (phyllo list, the
#     lock), COUNT echoes as maker;
#  3. CYCLES times: asks for an unplug (attach ends, the by-tty name and
#     the lock go, the unit is inactive, not failed; the link, named after
#     the adapter's serial number by the unit, stays down, or goes if the
#     adapter has none) and a plug (2. again, the same /dev/phyllo0);
#  4. systemctl stop detaches the link (the tty stays); systemctl start
#     attaches it again (a board plugged in before the rule was there);
#  5. the bridge as its unit runs it (`make install-bridge`, also in the
#     disk): Debian's mosquitto started, local.conf as
#     /etc/phyllo/bridge.conf (root, 0600), phyllo-bridge@NAME started
#     (NAME: the link's): it runs as a dynamic user (not root), its status
#     online under the link's name, BRIDGED commands published with mosquitto_pub
#     each echoed back through it, its counters at stop; then
#     systemd-analyze security of both units (at most 2.0), and of the
#     units of the revision the host staged as phyllo-*-base@ (the units
#     before their hardening) if it did.
# The host asks are "HOTPLUG-HOST plug|unplug N" lines on ttyS1, with the
# results ("ok ..." or "FAIL ...") and last "HOTPLUG-DONE <failures>".
exec >/dev/ttyS1 2>&1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export SYSTEMD_COLORS=0 SYSTEMD_URLIFY=0 SYSTEMD_PAGER=
cycles=$(sed -n 's/.*phyllo\.cycles=\([0-9]*\).*/\1/p' /proc/cmdline)
count=$(sed -n 's/.*phyllo\.count=\([0-9]*\).*/\1/p' /proc/cmdline)
bridged=$(sed -n 's/.*phyllo\.bridged=\([0-9]*\).*/\1/p' /proc/cmdline)
user=maker
tty=ttyUSB0
unit=phyllo-attach@$tty.service
bunit=phyllo-bridge@NAME.service	# the link's name, once it has one (bridge())
dev=/dev/phyllo0
pass=0
fail=0
: >/tmp/err

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() {
	fail=$((fail + 1))
	echo "FAIL $1"
	[ -s /tmp/err ] && sed 's/^/     /' /tmp/err
	: >/tmp/err
}
host() { echo "HOTPLUG-HOST $1 $2"; }
# until_true SECONDS CMD...: CMD every 0.2 s until it succeeds or time is up
until_true() {
	n=$(($1 * 5))
	shift
	while ! "$@"; do
		n=$((n - 1))
		[ $n -le 0 ] && return 1
		sleep 0.2
	done
}
as_user() { runuser -u "$user" -- "$@"; }
is_state() { [ "$(systemctl is-active "$unit")" = "$1" ]; }
is_state_of() { [ "$(systemctl is-active "$1")" = "$2" ]; }
is_up() { is_state_of "$1" active; }
link_up() { as_user phyllo list 2>/dev/null | grep -q "^$dev  *$tty  *up "; }
# the link's name (phyllo-attach@ names it after the adapter's serial
# number, @serial; "" when it has none): a named link stays, down, where
# an unnamed one goes
lname=
on_tty() { [ -c $dev ] && [ "$(cat /sys/class/phyllo/phyllo0/tty 2>/dev/null)" = "$tty" ]; }
link_name() { lname=$(cat /sys/class/phyllo/phyllo0/name 2>/dev/null); }
link_away() {
	if [ -n "$lname" ]; then
		[ "$(cat /sys/class/phyllo/phyllo0/state 2>/dev/null)" = down ]
	else
		[ ! -e $dev ]
	fi
}
gone() { ! kill -0 "$1" 2>/dev/null && link_away && [ ! -e /dev/$tty ]; }
journal_count() {	# journal_count TEXT: lines of the unit's journal with TEXT
	journalctl -q -b -u "$unit" -o cat | grep -c -F "$1"
}
journal_has() { [ "$(journal_count "$1")" -ge "$2" ]; }

setup() {
	kver=$(uname -r)
	depmod -a 2>/tmp/err && modinfo -F vermagic phyllo 2>>/tmp/err | grep -q "^$kver " &&
		ok "phyllo.ko installed for $kver (depmod)" || bad "phyllo.ko for $kver"
	v=$(phyllo --version 2>/tmp/err) && ok "make install's tool runs: $v" || bad "phyllo --version"
	useradd -m -G dialout "$user" 2>/tmp/err && [ "$(id -u "$user")" -ne 0 ] &&
		id -nG "$user" | grep -qw dialout && ok "user $user: $(id "$user")" || bad "useradd $user"
	# what phyllo(1) says to do, with this board's vendor and product
	cp /usr/local/share/doc/phyllo/71-phyllo-attach.rules.example \
		/etc/udev/rules.d/71-phyllo-attach.rules 2>/tmp/err &&
		sed -i -e 's/ATTRS{idVendor}=="2341"/ATTRS{idVendor}=="0403"/' \
			-e 's/ATTRS{idProduct}=="0043"/ATTRS{idProduct}=="6001"/' \
			/etc/udev/rules.d/71-phyllo-attach.rules &&
		grep -q 'ATTRS{idVendor}=="0403", ATTRS{idProduct}=="6001"' \
			/etc/udev/rules.d/71-phyllo-attach.rules && udevadm control --reload 2>>/tmp/err &&
		ok "71-phyllo-attach.rules from the example for 0403:6001, udevadm control --reload" ||
		bad "71-phyllo-attach.rules"
	[ -f /etc/udev/rules.d/70-phyllo.rules ] && [ -f /etc/systemd/system/phyllo-attach@.service ] &&
		grep -q '^ExecStart=/usr/local/bin/phyllo attach' /etc/systemd/system/phyllo-attach@.service &&
		ok "make install put 70-phyllo.rules and phyllo-attach@.service (/usr/local/bin)" ||
		bad "the installed rule or unit"
	grep -q '^ExecStart=/usr/local/bin/phyllo-bridge ' /etc/systemd/system/phyllo-bridge@.service &&
		phyllo-bridge --help 2>/tmp/err | grep -q '^usage: phyllo-bridge' &&
		ok "make install-bridge put phyllo-bridge@.service (/usr/local/bin); the bridge runs" ||
		bad "the installed bridge or its unit"
	udevadm settle --timeout=120
	until_true 120 test -e /sys/bus/usb/devices/usb1 &&
		[ ! -e /dev/$tty ] && [ ! -e $dev ] &&
		ok "a USB controller, nothing plugged in yet" || bad "no USB controller, or $tty already there"
}

# plugged N: the adapter was plugged in; the link must come by itself.
plugged() {
	host plug "$1"
	# (a named link's $dev stays while it is down: wait for its tty)
	if ! until_true 180 on_tty; then
		bad "plug $1: no $dev after 180 s ($unit: $(systemctl is-active "$unit"))"
		return 1
	fi
	udevadm settle --timeout=60
	link_name
	ok "plug $1: $dev appeared by itself on $(cat /sys/class/phyllo/phyllo0/tty), named '$lname'"
	perm=$(stat -c '%G %a' $dev)
	[ "$perm" = "dialout 660" ] && ok "plug $1: $dev is group dialout, mode 0660" ||
		bad "plug $1: $dev is '$perm'"
	[ "$(readlink -f /dev/phyllo/by-tty/$tty)" = $dev ] &&
		ok "plug $1: /dev/phyllo/by-tty/$tty -> $dev" || bad "plug $1: no /dev/phyllo/by-tty/$tty"
	pid=$(systemctl show -p MainPID --value "$unit")
	is_state active && [ "$pid" -gt 0 ] && [ "$(cat /proc/"$pid"/comm)" = phyllo ] &&
		ok "plug $1: $unit active, its main process phyllo attach ($pid)" ||
		bad "plug $1: $unit is $(systemctl is-active "$unit"), main pid '$pid'"
	as_user phyllo list >/tmp/list 2>/tmp/err && grep -q "^$dev  *$tty .* $pid\$" /tmp/list &&
		ok "plug $1: phyllo list (as $user) shows $tty and the attach process" ||
		{ cat /tmp/list >>/tmp/err; bad "plug $1: phyllo list"; }
	[ "$(tr -d ' \n' </run/lock/LCK..$tty)" = "$pid" ] &&
		ok "plug $1: /run/lock/LCK..$tty names it" || bad "plug $1: the lock"
	until_true 120 link_up && ok "plug $1: the link is up (the host's phyllo peer --echo)" ||
		bad "plug $1: the link did not come up"
	as_user phyllo echo -d $dev -n "$count" --payload counter --json >/tmp/out 2>/tmp/err &&
		grep -q "\"received\":$count," /tmp/out &&
		ok "plug $1: $count echoes through $dev as $user (uid $(id -u $user))" ||
		{ cat /tmp/out >>/tmp/err; bad "plug $1: echo as $user"; }
	as_user phyllo stats -d /dev/phyllo/by-tty/$tty --json >/tmp/out 2>/tmp/err &&
		grep -q '"sessions":' /tmp/out && ok "plug $1: phyllo stats (as $user) by the by-tty name" ||
		bad "plug $1: stats by the by-tty name"
}

# unplugged N: the adapter was pulled out; attach must end by itself and
# the unit stay startable.
unplugged() {
	host unplug "$1"
	until_true 120 gone "$pid" &&
		ok "unplug $1: phyllo attach ($pid) ended, $tty gone, $dev ${lname:+down, kept as /dev/phyllo/$lname}${lname:-gone}" ||
		bad "unplug $1: still there: $(ls /dev/$tty $dev 2>&1 | tr '\n' ' ')"
	[ ! -e /dev/phyllo/by-tty/$tty ] && [ ! -e /run/lock/LCK..$tty ] &&
		ok "unplug $1: the by-tty name and the lock are gone" || bad "unplug $1: name or lock left"
	until_true 60 journal_has "$tty hung up (unplugged?)" "$1" &&
		ok "unplug $1: attach logged the hang-up to the journal" ||
		{ journalctl -q -b -u "$unit" -o cat | tail -5 >/tmp/err; bad "unplug $1: the journal"; }
	until_true 60 is_state inactive && [ "$(systemctl show -p Result --value "$unit")" = success ] &&
		ok "unplug $1: $unit inactive, result success (not failed)" ||
		bad "unplug $1: $unit is $(systemctl is-active "$unit"), $(systemctl show -p Result "$unit")"
}

# stopped: systemctl stop detaches the link; the tty stays, unlocked.
stopped() {
	systemctl stop "$unit" 2>/tmp/err
	until_true 60 link_away && [ -e /dev/$tty ] && [ ! -e /run/lock/LCK..$tty ] &&
		is_state inactive && [ "$(systemctl show -p Result --value "$unit")" = success ] &&
		ok "systemctl stop: $dev ${lname:+down}${lname:-gone}, $tty kept and unlocked, $unit inactive (success)" ||
		bad "systemctl stop: $(ls $dev 2>&1), $(systemctl is-active "$unit")"
	until_true 60 journal_has "detached $dev from /dev/$tty" 1 &&
		ok "systemctl stop: attach logged the detach" || bad "systemctl stop: the journal"
	[ "$(journal_count "Failed with result")" -eq 0 ] && [ "$(journal_count "Scheduled restart")" -eq 0 ] &&
		ok "the unit never failed or restarted" ||
		{ journalctl -q -b -u "$unit" -o cat >/tmp/err; bad "the unit failed or restarted"; }
	systemctl start "$unit" 2>/tmp/err && until_true 120 link_up &&
		ok "systemctl start: $dev back on $tty, the link up" || bad "systemctl start"
}

# exposure UNIT: systemd-analyze security's overall figure for UNIT ("1.6 OK")
exposure() {
	systemd-analyze security --no-pager "$1" 2>>/tmp/err |
		sed -n 's/.*Overall exposure level for [^ ]*: \([0-9.]* [A-Z]*\).*/\1/p'
}
# at_most A B: the decimal A is B or less
at_most() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }
sub_has() { [ "$(grep -c -x -F "$1" /tmp/sub)" -ge "$2" ]; }
bjournal() { journalctl -q -b -u "$bunit" -o cat; }

# bridge: phyllo-bridge@ as installed, on the link and the guest's mosquitto.
bridge() {
	systemctl start mosquitto 2>/tmp/err && until_true 30 is_up mosquitto &&
		ok "Debian's mosquitto started (systemctl start mosquitto)" || bad "mosquitto"
	install -D -m 600 /usr/local/share/doc/phyllo-bridge/examples/local.conf \
		/etc/phyllo/bridge.conf 2>/tmp/err &&
		[ "$(stat -c '%U %a' /etc/phyllo/bridge.conf)" = "root 600" ] &&
		ok "/etc/phyllo/bridge.conf: local.conf, root, mode 0600" || bad "bridge.conf"
	# the unit follows the link's name (the adapter's serial number), and
	# so does the name of its topics
	name=$lname
	bunit=phyllo-bridge@$lname.service
	[ -n "$lname" ] && ok "the link is named '$lname' (@serial): the bridge's unit is $bunit" ||
		bad "the link has no name: the adapter has no serial number for phyllo-bridge@ to follow"
	mosquitto_sub -h 127.0.0.1 -q 1 -v -t 'phyllo/#' >/tmp/sub 2>&1 &
	sub=$!
	systemctl start "$bunit" 2>/tmp/err && until_true 60 sub_has "phyllo/$name/status online" 1 &&
		is_up "$bunit" && ok "systemctl start $bunit: active, phyllo/$name/status online" ||
		{ bjournal >>/tmp/err; bad "$bunit did not come up ($(systemctl is-active "$bunit"))"; }
	bpid=$(systemctl show -p MainPID --value "$bunit")
	buser=$(ps -o user= -p "$bpid" | tr -d ' ')
	buid=$(ps -o uid= -p "$bpid" | tr -d ' ')
	dialout=$(getent group dialout | cut -d: -f3)
	# The disk has neither nss-systemd (ps shows the uid) nor userdbctl:
	# the name is the one PID1 gave the unit's dynamic user; the uid is
	# from its range (61184-65519) and in no passwd file.
	bname=$(systemctl show -p User --value "$bunit")
	[ -n "$buid" ] && [ "$buid" -ge 61184 ] && [ "$buid" -le 65519 ] && [ "$buser" != root ] &&
		[ "$(systemctl show -p DynamicUser --value "$bunit")" = yes ] && [ -n "$bname" ] &&
		! getent passwd "$buid" >/dev/null && grep -q "^Groups:.*\b$dialout\b" /proc/"$bpid"/status &&
		[ "$(cat /proc/"$bpid"/comm)" = phyllo-bridge ] &&
		ok "the bridge (pid $bpid) runs as uid $buid (ps: '$buser', not root), dynamic user '$bname', in dialout" ||
		bad "the bridge's user: pid '$bpid', user '$buser', uid '$buid', '$bname'"
	i=1
	while [ $i -le "$bridged" ]; do
		mosquitto_pub -h 127.0.0.1 -q 1 -t "phyllo/$name/cmd/servo" -m "$i" 2>>/tmp/err
		i=$((i + 1))
	done
	until_true 60 sub_has "phyllo/$name/servo $bridged" 1
	got=$(grep -c -x "phyllo/$name/servo [0-9]*" /tmp/sub)
	[ "$got" -eq "$bridged" ] &&
		ok "mosquitto_pub: $bridged commands to phyllo/$name/cmd/servo, $got echoes back on phyllo/$name/servo" ||
		{ cat /tmp/sub >>/tmp/err; bad "$got of $bridged echoes through the bridge"; }
	systemctl stop "$bunit" 2>/tmp/err
	until_true 30 sub_has "phyllo/$name/status offline" 1 && is_state_of "$bunit" inactive &&
		[ "$(systemctl show -p Result --value "$bunit")" = success ] &&
		ok "systemctl stop $bunit: offline published, inactive (success)" ||
		bad "stop $bunit: $(systemctl is-active "$bunit")"
	kill "$sub"
	bjournal >/tmp/bj
	tx=$(sed -n 's/^board_tx  *//p' /tmp/bj | tail -1)
	mtx=$(sed -n 's/^mqtt_tx  *//p' /tmp/bj | tail -1)
	[ "$tx" = "$bridged" ] && [ "${mtx:-0}" -ge "$bridged" ] &&
		ok "its counters at stop (journal): board_tx $tx, mqtt_tx $mtx" ||
		{ cat /tmp/bj >/tmp/err; bad "the bridge's counters: board_tx '$tx', mqtt_tx '$mtx'"; }
	security
}

# security: systemd-analyze security of both units here, at most 2.0; the
# units before their hardening beside them when the host staged them.
security() {
	for u in phyllo-bridge@$lname phyllo-attach@$tty; do
		e=$(exposure "$u.service")
		was=''
		[ -f /etc/systemd/system/${u%@*}-base@.service ] &&
			was=" (before: $(exposure "${u%@*}-base@${u#*@}.service"))"
		[ -n "$e" ] && at_most "${e% *}" 2.0 &&
			ok "systemd-analyze security $u.service: $e$was" ||
			bad "systemd-analyze security $u.service: '$e'$was"
	done
}

setup
r=0
if plugged $r; then
	while [ $r -lt "$cycles" ]; do
		r=$((r + 1))
		unplugged $r
		plugged $r || break
	done
	stopped
	bridge
fi
if [ $fail -ne 0 ]; then
	echo "---- systemctl status $unit $bunit; journal; devices"
	systemctl status --no-pager "$unit" "$bunit"
	journalctl -q -b --no-pager -u "$unit" -u "$bunit" -u mosquitto -u systemd-udevd
	ls -l /dev/phyllo* /dev/ttyUSB* /dev/phyllo/by-tty 2>&1
	udevadm info -q property /dev/$tty 2>&1 | grep -E 'ID_(VENDOR|MODEL)_ID|TAGS|SYSTEMD_WANTS'
fi
echo "guest hotplug: $pass passed, $fail failed"
echo "HOTPLUG-DONE $fail"
[ $fail -eq 0 ]
