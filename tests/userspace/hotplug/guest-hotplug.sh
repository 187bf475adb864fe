#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# guest-hotplug.sh - runs at boot (systemd.run=) in the Debian 12 guest of
# test-hotplug.sh, with systemd and udev. The host put `make install` and
# `make install-bridge` (PREFIX=/usr/local), phyllo.ko, the Python package
# (/usr/local/lib/python3/dist-packages, with Debian's python3 and the
# modules it imports), hotplug-client (libphyllo) and hotplug-client.py
# into the disk.
#
# Two boards, each with its own USB serial number and its own far end
# (`phyllo peer --echo`), each named after that number by the hot-plug
# rule and phyllo-attach@ (--name @serial: /dev/phyllo/SERIAL):
#   acm   a USB CDC ACM device as an Arduino Uno presents itself
#         (2341:0043, serial PHYLLOACM0001): a configfs gadget (function
#         acm.usb0) on dummy_hcd, so the guest's cdc-acm gives it a real
#         /dev/ttyACMx; its far end runs here on the gadget's /dev/ttyGSx.
#         Plugged by writing a UDC's name to the gadget's UDC file (its far
#         end started just before: the board boots as it is powered),
#         unplugged by writing an empty line there (its far end killed).
#   ftdi  QEMU's usb-serial (an FTDI FT232, 0403:6001, serial from the
#         host: phyllo.ftdi=) on qemu-xhci, its far end on the host at the
#         chardev; the host plugs it (device_add, on the xhci port asked),
#         unplugs it (device_del) and resets it (kills its peer and starts
#         another) when this script asks on its report port:
#         "HOTPLUG-HOST SEQ plug|unplug|reset-stop|reset-start [PORT]".
#
#  1. setup: depmod, ldconfig, a user `maker` in dialout,
#     71-phyllo-attach.rules made from the example as phyllo(1) says (its
#     Uno lines, the bridge's line uncommented, and the same for 0403:6001),
#     mosquitto started, /etc/phyllo/bridge.conf; dummy_hcd (num=2: two
#     UDCs, two buses) and the gadgets: the board, and a decoy (1d6b:0104,
#     no rule) that takes ttyACM0 in cycle 2.
#  2. plug 0: both boards in; for each, with nothing run by hand: the
#     attach unit of its tty, /dev/phyllo/SERIAL (dialout, 0660), by-tty,
#     list, the lock, the link up, COUNT echoes as maker, and
#     phyllo-bridge@SERIAL started by the rule.
#  3. per board, each on ONE open file of /dev/phyllo/SERIAL kept to the
#     end: `phyllo sub ''` as maker, hotplug-client (libphyllo) as maker,
#     hotplug-client.py (the package) as maker, and the bridge's unit;
#     outside, mosquitto_sub on phyllo/# counts what the bridges publish.
#     Every line they print is stamped with CLOCK_MONOTONIC.
#  4. CYCLES unplug/plug cycles (make test-hotplug's 2; make
#     test-hotplug-short's 1, which is a swap), then a reset; before
#     each, UNITS units published (phyllo pub, acknowledged) to each board:
#       odd  unplug: both unplugged, both plugged in again (acm, then ftdi);
#       even swap:   both unplugged; plugged in the opposite order, each on
#                    another port: ftdi on xhci port 2 (it was on 1), the
#                    decoy gadget bound to dummy_udc.0 first so the Uno
#                    comes back as ttyACM1 on dummy_udc.1, another bus.
#                    (The two boards are of different kinds on different
#                    controllers, so neither can take the other's own port
#                    or tty name: each moves to a new port and the order
#                    they come back in is reversed.)
#       last reset:  no unplug: both far ends killed and, 2 s later,
#                    started again (the link stays up, a new session);
#     while each board is away (1, 2): the link is down (the attach unit
#     ended, result success; tty, by-tty and lock gone, /dev/phyllo/SERIAL
#     kept, `phyllo list` says down), each program reports the down once,
#     a `phyllo pub` and a command through the bridge (mosquitto_pub
#     .../cmd/hpc) are written and wait; after the plug each program
#     reports the up, the units written while down come after it, and
#     UNITS more are published. In the reset, a pub written while the far
#     ends are dead is either acknowledged (then delivered) or reported
#     lost. Each value published must reach each observer exactly once.
#     Per board and cycle a line "timing" gives, in ms from the kernel's
#     uevent of the board's new tty (udevadm monitor's stamp), the up and
#     the first unit delivered to sub, hotplug-client, Python and
#     mosquitto_sub (for the reset: from the far end's start); for a
#     plug a line "timing steps" says where that time went: udev done
#     with the uevent, the attach unit's start job and its exec, the tty
#     attached (attach's journal line), the kernel's session open (the
#     phyllo_session trace event), all on CLOCK_MONOTONIC.
#  5. systemctl stop of the ftdi's attach unit: a detach (another down for
#     the programs); start: up again.
#  6. each program still runs, with the same one open file of its link
#     as at the start, and said every down, up and reset once; then the
#     ACM board's bridge: its dynamic user, BRIDGED commands through it,
#     stopped (offline, its counters); systemd-analyze security of both
#     units (at most 2.0), before their hardening beside them if the host
#     staged the units of that revision as phyllo-*-base@.
# Results are "ok ..." or "FAIL ..." lines on ttyS1, with "timing" lines,
# last "HOTPLUG-DONE <failures>".
exec >/dev/ttyS1 2>&1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export SYSTEMD_COLORS=0 SYSTEMD_URLIFY=0 SYSTEMD_PAGER=
arg() { sed -n "s/.*phyllo\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
cycles=$(arg cycles) count=$(arg count) bridged=$(arg bridged) units=$(arg units)
ftdi_serial=$(arg ftdi)
acm_serial=PHYLLOACM0001
user=maker
boards="acm ftdi"
o=/tmp/hp
G=/sys/kernel/config/usb_gadget
py="env PYTHONPATH=/usr/local/lib/python3/dist-packages:/usr/lib/python3/dist-packages python3 -S"
pyclient=/usr/local/libexec/phyllo-hotplug/hotplug-client.py
pass=0 fail=0 seq=0 downs=0 resets=0
mkdir -p $o
: >/tmp/err

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() {
	fail=$((fail + 1))
	echo "FAIL $1"
	[ -s /tmp/err ] && sed 's/^/     /' /tmp/err
	: >/tmp/err
}
host() { seq=$((seq + 1)); echo "HOTPLUG-HOST $seq $*"; }
# until_true SECONDS CMD...: CMD every 0.2 s until it succeeds or SECONDS
# have passed on the guest's clock (a count of tries would stretch with
# the time CMD itself takes under load); its variables are its own
uptime_s() { cut -d. -f1 /proc/uptime; }
until_true() {
	ut_end=$(($(uptime_s) + $1))
	shift
	while ! "$@"; do
		[ "$(uptime_s)" -ge "$ut_end" ] && return 1
		sleep 0.2
	done
}
as_user() { runuser -u "$user" -- "$@"; }
# a long-lived program as maker: setpriv execs it (runuser would stay as
# its parent), so $! and pgrep see the program itself
as_maker() { setpriv --reuid="$user" --regid="$user" --init-groups -- "$@"; }
is_state_of() { [ "$(systemctl is-active "$1")" = "$2" ]; }
now() { echo | hotplug-client -s | cut -d' ' -f1; }

# A board's facts, by its short name (acm, ftdi).
serial() { if [ "$1" = acm ]; then echo "$acm_serial"; else echo "$ftdi_serial"; fi; }
ldev() { readlink -f "/dev/phyllo/$(serial "$1")"; }
lsys() { echo "/sys/class/phyllo/$(basename "$(ldev "$1")")"; }
lstate() { cat "$(lsys "$1")/state" 2>/dev/null; }
is_lstate() { [ "$(lstate "$1")" = "$2" ]; }
# the board's tty now (its /dev/serial/by-id link), or nothing
btty() {
	for l in /dev/serial/by-id/*"$(serial "$1")"*; do
		[ -e "$l" ] && basename "$(readlink -f "$l")" && return 0
	done
	return 1
}
has_tty() { btty "$1" >/dev/null; }
no_tty() { ! btty "$1" >/dev/null && [ ! -e "/dev/$2" ]; }
aunit() { echo "phyllo-attach@$1.service"; }
bunit() { echo "phyllo-bridge@$(serial "$1").service"; }
journal_count() { journalctl -q -b -u "$1" -o cat | grep -c -F "$2"; }

# The ACM board: a configfs gadget; NAME VID PID SERIAL PRODUCT FUNCTION
gadget() {
	g=$G/$1
	mkdir "$g" && echo "$2" >"$g/idVendor" && echo "$3" >"$g/idProduct" &&
		echo 0x0200 >"$g/bcdUSB" && echo 0x0100 >"$g/bcdDevice" &&
		echo 0x02 >"$g/bDeviceClass" && mkdir "$g/strings/0x409" &&
		echo "$4" >"$g/strings/0x409/serialnumber" &&
		echo "Arduino (www.arduino.cc)" >"$g/strings/0x409/manufacturer" &&
		echo "$5" >"$g/strings/0x409/product" && mkdir "$g/configs/c.1" &&
		echo 100 >"$g/configs/c.1/MaxPower" && mkdir "$g/functions/$6" &&
		ln -s "$g/functions/$6" "$g/configs/c.1/"
}
acm_peer=''
acm_boot() {	# the Uno's far end on the gadget's tty, before it is bound
	phyllo peer --echo -d "$gs" >>$o/peer-acm.log 2>&1 &
	acm_peer=$!
	acm_boot_t=$(now)
}
acm_dead() {	# its power cut: nothing more from it
	[ -n "$acm_peer" ] && kill -9 "$acm_peer" 2>/dev/null
	wait "$acm_peer" 2>/dev/null
	acm_peer=''
}
decoy_there() { for l in /dev/serial/by-id/*DECOYACM0001*; do [ -e "$l" ] && return 0; done; return 1; }
acm_plug() { acm_boot && echo "$1" >$G/board/UDC; }
acm_unplug() {	# and the decoy, if a swap had bound it
	echo "" >$G/board/UDC
	[ -n "$(cat $G/decoy/UDC)" ] && echo "" >$G/decoy/UDC
	acm_dead
}

setup() {
	kver=$(uname -r)
	depmod -a 2>/tmp/err && ldconfig 2>>/tmp/err && modinfo -F vermagic phyllo 2>>/tmp/err |
		grep -q "^$kver " && ok "phyllo.ko installed for $kver (depmod)" || bad "phyllo.ko for $kver"
	v=$(phyllo --version 2>/tmp/err) && ok "make install's tool runs: $v" || bad "phyllo --version"
	useradd -m -G dialout "$user" 2>/tmp/err && [ "$(id -u "$user")" -ne 0 ] &&
		id -nG "$user" | grep -qw dialout && ok "user $user: $(id "$user")" || bad "useradd $user"
	# what phyllo(1) says to do: the example, its bridge line on, and
	# the same for the FTDI adapter's vendor and product
	r=/etc/udev/rules.d/71-phyllo-attach.rules
	sed -e 's/^#ACTION/ACTION/' -e 's/^#\t/\t/' \
		/usr/local/share/doc/phyllo/71-phyllo-attach.rules.example >$r 2>/tmp/err &&
		grep -v '^#' $r | sed -e 's/=="2341"/=="0403"/' -e 's/=="0043"/=="6001"/' >/tmp/ftdi.rules &&
		cat /tmp/ftdi.rules >>$r &&
		[ "$(grep -c 'SYSTEMD_WANTS.*phyllo-bridge@$env{ID_SERIAL_SHORT}' $r)" = 2 ] &&
		[ "$(grep -c 'SYSTEMD_WANTS.*phyllo-attach@%k' $r)" = 2 ] &&
		grep -q 'ATTRS{idVendor}=="0403", ATTRS{idProduct}=="6001"' $r &&
		udevadm control --reload 2>>/tmp/err &&
		ok "71-phyllo-attach.rules from the example: attach and bridge for 2341:0043 and 0403:6001" ||
		{ cat $r >>/tmp/err; bad "71-phyllo-attach.rules"; }
	[ -f /etc/udev/rules.d/70-phyllo.rules ] && [ -f /etc/systemd/system/phyllo-attach@.service ] &&
		grep -q '^ExecStart=/usr/local/bin/phyllo attach .*--name=' /etc/systemd/system/phyllo-attach@.service &&
		ok "make install put 70-phyllo.rules and phyllo-attach@.service (/usr/local/bin, --name)" ||
		bad "the installed rule or unit"
	grep -q '^ExecStart=/usr/local/bin/phyllo-bridge ' /etc/systemd/system/phyllo-bridge@.service &&
		phyllo-bridge --help 2>/tmp/err | grep -q '^usage: phyllo-bridge' &&
		ok "make install-bridge put phyllo-bridge@.service (/usr/local/bin); the bridge runs" ||
		bad "the installed bridge or its unit"
	$py -c 'import phyllolink, sys; print(phyllolink.version(), sys.version.split()[0])' \
		>/tmp/out 2>/tmp/err && ok "Python $(cut -d' ' -f2 /tmp/out), phyllolink, libphyllo $(cut -d' ' -f1 /tmp/out)" ||
		bad "python3 with phyllolink"
	systemctl start mosquitto 2>/tmp/err && until_true 30 is_state_of mosquitto active &&
		install -D -m 600 /usr/local/share/doc/phyllo-bridge/examples/local.conf \
			/etc/phyllo/bridge.conf 2>>/tmp/err &&
		[ "$(stat -c '%U %a' /etc/phyllo/bridge.conf)" = "root 600" ] &&
		ok "Debian's mosquitto started; /etc/phyllo/bridge.conf: local.conf, root, 0600" ||
		bad "mosquitto or bridge.conf"
	udevadm settle --timeout=120
	until_true 120 test -e /sys/bus/usb/devices/usb1 && ! ls /dev/ttyUSB* /dev/ttyACM* >/dev/null 2>&1 &&
		ok "a USB controller, nothing plugged in yet" || bad "no USB controller, or a tty already there"
	if ! modinfo dummy_hcd >/tmp/out 2>/tmp/err; then
		bad "Debian's $kver has no dummy_hcd: no ACM gadget board"
		return 1
	fi
	modprobe dummy_hcd num=2 2>/tmp/err && modprobe libcomposite 2>>/tmp/err &&
		{ mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config; } &&
		gadget board 0x2341 0x0043 "$acm_serial" "Arduino Uno" acm.usb0 2>>/tmp/err &&
		gadget decoy 0x1d6b 0x0104 DECOYACM0001 "another CDC ACM device" acm.usb1 2>>/tmp/err &&
		gs=/dev/ttyGS$(cat $G/board/functions/acm.usb0/port_num) && [ -c "$gs" ] &&
		[ "$(ls /sys/class/udc | tr '\n' ' ')" = "dummy_udc.0 dummy_udc.1 " ] &&
		ok "dummy_hcd (num=2: $(ls /sys/class/udc | tr '\n' ' ')), libcomposite: gadgets 2341:0043 $acm_serial (far end $gs) and a decoy" ||
		{ bad "the ACM gadget"; return 1; }
	stdbuf -oL udevadm monitor --kernel --udev --subsystem-match=tty >$o/udev.mon 2>&1 &
}

# plugged B N: board B was plugged in; its link must come up by itself.
plugged() {
	b=$1 name=$(serial "$1")
	if ! until_true 180 has_tty "$b"; then
		bad "plug $2: no tty for $b ($name) after 180 s"
		return 1
	fi
	tty=$(btty "$b")
	unit=$(aunit "$tty")
	if ! until_true 120 is_lstate "$b" up; then
		bad "plug $2: $b: /dev/phyllo/$name is not up on $tty ($unit: $(systemctl is-active "$unit"))"
		return 1
	fi
	dev=$(ldev "$b")
	ok "plug $2: $b on $tty: /dev/phyllo/$name -> $dev up by itself"
	eval "${b}_tty=$tty ${b}_dev=$dev"
	udevadm settle --timeout=60
	perm=$(stat -c '%G %a' "$dev")
	[ "$perm" = "dialout 660" ] && [ "$(readlink -f /dev/phyllo/by-tty/"$tty")" = "$dev" ] &&
		ok "plug $2: $b: $dev is group dialout, mode 0660; /dev/phyllo/by-tty/$tty -> $dev" ||
		bad "plug $2: $b: $dev is '$perm', by-tty $(readlink -f /dev/phyllo/by-tty/"$tty")"
	pid=$(systemctl show -p MainPID --value "$unit")
	eval "${b}_pid=$pid"
	is_state_of "$unit" active && [ "$pid" -gt 0 ] && [ "$(cat /proc/"$pid"/comm)" = phyllo ] &&
		[ "$(tr -d ' \n' </run/lock/LCK.."$tty")" = "$pid" ] &&
		ok "plug $2: $b: $unit active, phyllo attach ($pid) its main process, /run/lock/LCK..$tty names it" ||
		bad "plug $2: $b: $unit is $(systemctl is-active "$unit"), main pid '$pid', lock '$(cat /run/lock/LCK.."$tty")'"
	as_user phyllo list >/tmp/list 2>/tmp/err && grep -q "^$dev  *$tty  *up .* $name  *$pid\$" /tmp/list &&
		ok "plug $2: $b: phyllo list (as $user): $(grep "^$dev " /tmp/list | tr -s ' ')" ||
		{ cat /tmp/list >>/tmp/err; bad "plug $2: $b: phyllo list"; }
	as_user phyllo stats -d /dev/phyllo/by-tty/"$tty" --json >/tmp/out 2>/tmp/err &&
		grep -q '"sessions":' /tmp/out && ok "plug $2: $b: phyllo stats (as $user) by the by-tty name" ||
		bad "plug $2: $b: stats by the by-tty name"
}

# echoes B: COUNT echoes as maker through /dev/phyllo/SERIAL
echoes() {
	as_user phyllo echo -d "/dev/phyllo/$(serial "$1")" -n "$count" --payload counter --json \
		>/tmp/out 2>/tmp/err && grep -q "\"received\":$count," /tmp/out &&
		ok "$1: $count echoes through /dev/phyllo/$(serial "$1") as $user" ||
		{ cat /tmp/out >>/tmp/err; bad "$1: echo as $user"; }
}

# unplugged B N TTY PID: board B (on TTY, attach PID) went away: the link
# must go down, not away, and the attach unit end by itself.
unplugged() {
	# shellcheck disable=SC2034 # gone_tty: in the eval below
	b=$1 name=$(serial "$1") unit=$(aunit "$3") gone_tty=$3
	until_true 120 is_lstate "$b" down && until_true 60 no_tty "$b" "$3" &&
		until_true 30 eval "! kill -0 $4 2>/dev/null" &&
		ok "unplug $2: $b: $3 gone, phyllo attach ($4) ended, /dev/phyllo/$name -> $(ldev "$b") down" ||
		bad "unplug $2: $b: state '$(lstate "$b")', $(ls /dev/"$3" 2>&1)"
	[ ! -e /dev/phyllo/by-tty/"$3" ] && [ ! -e /run/lock/LCK.."$3" ] &&
		ok "unplug $2: $b: the by-tty name and the lock are gone" || bad "unplug $2: $b: name or lock left"
	until_true 60 eval '[ "$(journal_count "$unit" "$gone_tty hung up (unplugged?)")" -ge 1 ]' &&
		until_true 60 is_state_of "$unit" inactive &&
		[ "$(systemctl show -p Result --value "$unit")" = success ] &&
		ok "unplug $2: $b: attach logged the hang-up; $unit inactive, result success" ||
		{ journalctl -q -b -u "$unit" -o cat | tail -5 >/tmp/err
		  bad "unplug $2: $b: $unit is $(systemctl is-active "$unit"), $(systemctl show -p Result "$unit")"; }
	as_user phyllo list >/tmp/list 2>/tmp/err &&
		grep -q "^$(ldev "$b")  *- .*down [0-9ms]*.* $name  *-\$" /tmp/list &&
		ok "unplug $2: $b: phyllo list: $(grep "^$(ldev "$b") " /tmp/list | tr -s ' ')" ||
		{ cat /tmp/list >>/tmp/err; bad "unplug $2: $b: phyllo list while down"; }
}

# The observers' files: o/B.sub, B.c, B.py (per board), o/mqtt (both).
# pat B KIND: a line of KIND (down, up, reset, unit) in each observer's
# output, as an extended regex after the stamp.
pat() {
	case $2 in
	sub.down) echo 'link down \(its board went away\)' ;;
	sub.up) echo 'link up, session [0-9]+$' ;;
	sub.reset) echo 'session reset \(the far end restarted\)' ;;
	sub.unit) echo ' hpc? [0-9]+$' ;;
	c.down | py.down) echo ' down$' ;;
	c.up | py.up) echo ' up [0-9]+$' ;;
	c.reset | py.reset) echo ' reset [0-9]+$' ;;
	c.unit | py.unit) echo ' unit hpc? [0-9]+$' ;;
	mqtt.down) echo " phyllo/$(serial "$1")/bridge/link down$" ;;
	mqtt.up) echo " phyllo/$(serial "$1")/bridge/link up$" ;;
	mqtt.reset) echo " phyllo/$(serial "$1")/bridge/event .*link-reset" ;;
	mqtt.unit) echo " phyllo/$(serial "$1")/hpc? [0-9]+$" ;;
	esac
}
ofile() { if [ "$2" = mqtt ]; then echo $o/mqtt; else echo "$o/$1.$2"; fi; }
observers="sub c py mqtt"
# count_of B OBS KIND: lines of that kind so far (mosquitto_sub's first
# "up" is the state the bridge had when it subscribed: not counted)
count_of() {
	c=$(grep -c -E "$(pat "$1" "$2.$3")" "$(ofile "$1" "$2")")
	[ "$2.$3" = mqtt.up ] && c=$((c - 1))
	echo "$c"
}
# vpat B OBS V: a line carrying the value V (topic hp or hpc)
vpat() {
	if [ "$2" = mqtt ]; then
		echo " phyllo/$(serial "$1")/hpc? $3\$"
	else
		echo " (unit )?hpc? $3\$"
	fi
}
value_count() { grep -c -E "$(vpat "$@")" "$(ofile "$1" "$2")"; }
# seen_all B V...: every observer of board B has each value
seen_all() {
	b=$1
	shift
	for v; do
		for x in $observers; do
			[ "$(value_count "$b" "$x" "$v")" -ge 1 ] || return 1
		done
	done
}
# missing B V...: which observer lacks which value, the link's counters
# and each observer's last lines, for a failure's report
missing() {
	b=$1
	shift
	for x in $observers; do
		printf '%s lacks:' "$x"
		for v; do [ "$(value_count "$b" "$x" "$v")" -ge 1 ] || printf ' %s' "$v"; done
		echo
	done
	phyllo stats -d "/dev/phyllo/$(serial "$b")" --json 2>&1
	for x in $observers; do echo "-- $x"; tail -8 "$(ofile "$b" "$x")"; done
}
# events_all B KIND N: every observer of B has N lines of that kind
events_all() {
	for x in $observers; do
		[ "$(count_of "$1" "$x" "$2")" -eq "$3" ] || return 1
	done
}
events_said() {
	for x in $observers; do
		printf '%s %s: %s; ' "$x" "$2" "$(count_of "$1" "$x" "$2")"
	done
}

# start_observers: per board sub, hotplug-client, hotplug-client.py as
# maker and (already running, from the rule) the bridge; mosquitto_sub.
start_observers() {
	stdbuf -oL mosquitto_sub -h 127.0.0.1 -q 1 -v -t 'phyllo/#' 2>&1 | hotplug-client -s >$o/mqtt &
	for b in $boards; do
		l=/dev/phyllo/$(serial "$b")
		as_maker phyllo sub -d "$l" '' 2>&1 | hotplug-client -s >"$o/$b.sub" &
		as_maker hotplug-client "$l" >"$o/$b.c" 2>&1 &
		# shellcheck disable=SC2086
		as_maker $py "$pyclient" "$l" >"$o/$b.py" 2>&1 &
	done
	for b in $boards; do
		l=/dev/phyllo/$(serial "$b")
		bu=$(bunit "$b")
		until_true 60 is_state_of "$bu" active &&
			until_true 60 grep -q " phyllo/$(serial "$b")/bridge/link up$" $o/mqtt &&
			until_true 60 grep -q ' ready$' "$o/$b.c" && until_true 60 grep -q ' ready$' "$o/$b.py" ||
			{ tail -3 "$o/$b.c" "$o/$b.py" $o/mqtt >/tmp/err; journalctl -q -b -u "$bu" -o cat | tail -5 >>/tmp/err
			  bad "$b: the programs or the bridge did not start"; return 1; }
		# the probe: every observer has it (sub prints nothing when ready)
		as_user phyllo pub -d "$l" hp 1 2>/tmp/err && until_true 60 seen_all "$b" 1 ||
			{ bad "$b: the first unit did not reach every observer"; return 1; }
		pids=''
		for p in "phyllo sub -d $l( |\$)" "hotplug-client $l\$" "hotplug-client.py $l\$"; do
			pids="$pids $(pgrep -u "$user" -f -- "$p")"
		done
		pids="$pids $(systemctl show -p MainPID --value "$bu")"
		eval "${b}_pids='$pids' ${b}_fds='$(open_files $pids)'"
		ok "$b: phyllo sub, hotplug-client, hotplug-client.py (as $user) and $bu on $l, pids$pids: one open file each ($(open_files $pids)); mosquitto_sub counting"
	done
}
# open_files PID...: for each, its one open file of a phyllo link (fd ->
# device), or "PID:none"/"PID:N-files"
open_files() {
	for p; do
		f=$(ls -l /proc/"$p"/fd 2>/dev/null | grep -E -- '-> /dev/phyllo[0-9]+$' | sed 's/.* \([0-9]*\) -> /\1->/')
		case $(echo "$f" | grep -c .) in
		1) printf '%s ' "$f" ;;
		0) printf '%s:none ' "$p" ;;
		*) printf '%s:%s-files ' "$p" "$(echo "$f" | grep -c .)" ;;
		esac
	done
}

# pub_all PHASE N: UNITS units to each board, each acknowledged
pub_all() {
	for b in $boards; do
		l=/dev/phyllo/$(serial "$b")
		i=1
		while [ $i -le "$units" ]; do
			as_user phyllo pub -d "$l" hp $(($2 * 100 + $1 * 10 + i)) 2>>/tmp/err ||
				bad "$b: phyllo pub hp $(($2 * 100 + $1 * 10 + i)) not acknowledged"
			i=$((i + 1))
		done
	done
}
values() {	# values PHASE N: the values pub_all sends
	i=1
	while [ $i -le "$units" ]; do
		printf '%s ' $(($2 * 100 + $1 * 10 + i))
		i=$((i + 1))
	done
}

# mark: each observer's line count, where this cycle's part begins
mark() {
	for b in $boards; do
		for x in sub c py; do eval "m_${b}_$x=$(wc -l <"$o/$b.$x")"; done
	done
	m_mqtt=$(wc -l <$o/mqtt)
}
since() {	# since B OBS: that observer's lines since the mark
	if [ "$2" = mqtt ]; then m=$m_mqtt; else eval "m=\$m_${1}_$2"; fi
	sed -n "$((m + 1)),\$p" "$(ofile "$1" "$2")"
}
# timing B OBS T0 EVENT: ms from T0 to the first EVENT line (up or reset)
# since the mark, and to the first unit after it: "UP/UNIT"
timing() {
	since "$1" "$2" | awk -v t0="$3" -v ev="$(pat "$1" "$2.$4")" -v un="$(pat "$1" "$2.unit")" '
		!u && $0 ~ ev { u = $1 }
		u && !f && $0 ~ un { f = $1 }
		END { printf "%s/%s", u ? int((u - t0) * 1000) : "-", f ? int((f - t0) * 1000) : "-" }'
}
# order B OBS EVENT V...: in the cycle's lines each value comes once,
# after the EVENT line
order() {
	since "$1" "$2" >/tmp/since
	e=$(grep -n -E "$(pat "$1" "$2.$3")" /tmp/since | head -1 | cut -d: -f1)
	ob=$1 ox=$2
	shift 3
	[ -n "$e" ] || return 1
	for v; do
		l=$(grep -n -E "$(vpat "$ob" "$ox" "$v")" /tmp/since | cut -d: -f1)
		[ "$(echo "$l" | grep -c .)" = 1 ] && [ "$l" -gt "$e" ] || return 1
	done
}

# cycle N KIND: KIND unplug, swap or reset (see the head of the file)
cycle() {
	n=$1 kind=$2
	echo "guest hotplug: cycle $n: $kind"
	mark
	pub_all 1 "$n"
	pre=$(values 1 "$n")
	for b in $boards; do
		# shellcheck disable=SC2086
		until_true 60 seen_all "$b" $pre || bad "cycle $n: $b: the units before did not all arrive"
		eval "was_tty_$b=\$${b}_tty was_pid_$b=\$${b}_pid"
	done
	if [ "$kind" = reset ]; then
		acm_dead
		host reset-stop "$n"
		sleep 2
	else
		acm_unplug
		host unplug "$n"
		downs=$((downs + 1))
		for b in $boards; do
			eval "unplugged $b $n \$was_tty_$b \$was_pid_$b"
			until_true 60 events_all "$b" down $downs &&
				ok "unplug $n: $b: each program said down once (sub, hotplug-client, Python, the bridge's retained link state)" ||
				{ events_said "$b" down >/tmp/err; bad "unplug $n: $b: the downs said"; }
		done
	fi
	# written while the board is away: one pub each, one bridge command
	for b in $boards; do
		as_user phyllo pub -t 120 -d "/dev/phyllo/$(serial "$b")" hp $((n * 100 + 21)) \
			>"$o/pub-$b.$n" 2>&1 &
		eval "pub_$b=\$!"
		if [ "$kind" != reset ]; then
			mosquitto_pub -h 127.0.0.1 -q 1 -t "phyllo/$(serial "$b")/cmd/hpc" -m $((n * 100 + 29)) 2>>/tmp/err
		fi
	done
	sleep 1
	for b in $boards; do
		eval "p=\$pub_$b"
		kill -0 "$p" 2>/dev/null && ok "cycle $n: $b: phyllo pub written while away waits" ||
			bad "cycle $n: $b: the pub written while away did not wait: $(cat "$o/pub-$b.$n")"
	done
	case $kind in
	unplug)
		acm_plug dummy_udc.0
		until_true 120 has_tty acm
		host plug "$n" 1
		;;
	swap)
		host plug "$n" 2
		until_true 120 has_tty ftdi
		echo dummy_udc.0 >$G/decoy/UDC
		until_true 60 decoy_there
		acm_plug dummy_udc.1
		;;
	reset)
		acm_boot
		host reset-start "$n"
		reset_t=$(now)
		;;
	esac
	for b in $boards; do
		if [ "$kind" = reset ]; then
			until_true 120 events_all "$b" reset $((resets + 1)) &&
				ok "reset $n: $b: each program said the reset once (sub, hotplug-client, Python, the bridge's event)" ||
				{ events_said "$b" reset >/tmp/err; bad "reset $n: $b: the resets said"; }
			eval "p=\$was_pid_$b t=\$was_tty_$b"
			is_lstate "$b" up && [ "$(systemctl show -p MainPID --value "$(aunit "$t")")" = "$p" ] &&
				ok "reset $n: $b: the link stayed up on $t, the same phyllo attach ($p)" ||
				bad "reset $n: $b: state $(lstate "$b"), attach $(systemctl show -p MainPID --value "$(aunit "$t")")"
		else
			plugged "$b" "$n"
			until_true 60 events_all "$b" up $downs &&
				ok "plug $n: $b: each program said up once, on the same open file" ||
				{ events_said "$b" up >/tmp/err; bad "plug $n: $b: the ups said"; }
		fi
	done
	[ "$kind" = reset ] && resets=$((resets + 1))
	for b in $boards; do
		eval "p=\$pub_$b"
		if wait "$p"; then
			eval "${b}_late='$((n * 100 + 21))'"
			ok "cycle $n: $b: the pub written while away was acknowledged"
		elif [ "$kind" = reset ]; then
			eval "${b}_late=''"
			ok "cycle $n: $b: the pub written while the far end was dead was reported lost, not acknowledged: $(tail -1 "$o/pub-$b.$n")"
		else
			eval "${b}_late='$((n * 100 + 21))'"
			bad "cycle $n: $b: the pub written while away: $(cat "$o/pub-$b.$n")"
		fi
	done
	pub_all 3 "$n"
	post=$(values 3 "$n")
	for b in $boards; do
		eval "late=\$${b}_late"
		[ "$kind" = reset ] || late="$late $((n * 100 + 29))"
		# shellcheck disable=SC2086
		until_true 60 seen_all "$b" $pre $late $post ||
			{ missing "$b" $pre $late $post >/tmp/err; bad "cycle $n: $b: not every unit arrived"; }
		ev=up
		[ "$kind" = reset ] && ev=reset
		bad_obs=''
		for x in $observers; do
			# shellcheck disable=SC2086
			order "$b" "$x" "$ev" $late $post || bad_obs="$bad_obs $x"
			for v in $pre $late $post; do
				[ "$(value_count "$b" "$x" "$v")" = 1 ] || bad_obs="$bad_obs $x:$v"
			done
		done
		[ -z "$bad_obs" ] &&
			ok "cycle $n: $b: each of $pre${late:+ $late }$post reached each program and mqtt once, those written while away after the $ev" ||
			bad "cycle $n: $b: missing, repeated or out of order:$bad_obs"
		# the time from the tty (or the far end's start) to the up and the first unit
		if [ "$kind" = reset ]; then
			t0=$reset_t
			[ "$b" = acm ] && t0=$acm_boot_t
			from="far end restarted"
			[ "$b" = ftdi ] && from="restart asked"
		else
			eval "t=\$${b}_tty"
			t0=$(sed -n "s|^KERNEL\[\([0-9.]*\)\] add .*/tty/$t (tty)\$|\1|p" $o/udev.mon | tail -1)
			from="$t appeared (uevent)"
		fi
		line="timing cycle $n $kind $b: from $from, ms to up/first unit:"
		for x in $observers; do
			line="$line $x $(timing "$b" "$x" "${t0:-0}" "$ev")"
		done
		echo "$line"
		[ "$kind" = reset ] || steps "$b" "$t" "$t0"
	done
}

# trace_on: the kernel's session events and its frames out and in (the
# module is loaded by now), stamped with CLOCK_MONOTONIC, for the timing
# steps; a buffer large enough for a whole run's frames
trace_on() {
	tr=/sys/kernel/tracing
	mountpoint -q $tr || mount -t tracefs none $tr 2>/dev/null
	echo 8192 >$tr/buffer_size_kb
	echo mono >$tr/trace_clock && echo 1 >$tr/events/phyllo/phyllo_session/enable &&
		echo 1 >$tr/events/phyllo/phyllo_tx_frame/enable &&
		echo 1 >$tr/events/phyllo/phyllo_rx_frame/enable &&
		echo 1 >$tr/events/sched/sched_process_exec/enable ||
		echo "guest hotplug: no phyllo trace events: no kernel steps in the timing lines"
}
# trace_first T0 UNIT EVENT PATTERN: the stamp of the first EVENT of
# phyllo UNIT at or after T0 whose text matches PATTERN
trace_first() {
	grep -a ": phyllo$3: $2 $4" /sys/kernel/tracing/trace 2>/dev/null |
		sed 's/.* \([0-9]*\.[0-9]*\): phyllo_.*/\1/' |
		awk -v t0="$1" '$1 >= t0 { print; exit }'
}
# steps B TTY T0: where the time from the tty's uevent to the session
# went, in ms from T0: udev done with the event, the attach unit's start
# job begun, its process forked by PID1 and exec'd (the sandbox is set
# up between; trace event sched_process_exec), the link's first frame
# out (its SYN: attach's name ioctl ended its quiet start) and first
# frame in (the board's answer), the kernel's session open (trace event
# phyllo_session), attach's journal line (journald's stamp: it may come
# after the others)
steps() {
	u=$(aunit "$2")
	ud=$(sed -n "s|^UDEV *\[\([0-9.]*\)\] add .*/tty/$2 (tty)\$|\1|p" $o/udev.mon | tail -1)
	job=$(systemctl show -p InactiveExitTimestampMonotonic --value "$u")
	ex=$(systemctl show -p ExecMainStartTimestampMonotonic --value "$u")
	mp=$(systemctl show -p ExecMainStartTimestampMonotonic --value modprobe@phyllo.service)
	mx=$(systemctl show -p ExecMainExitTimestampMonotonic --value modprobe@phyllo.service)
	at=$(journalctl -q -b -u "$u" -o short-monotonic | grep " is /dev/phyllo" | tail -1 |
		sed 's/^\[ *\([0-9.]*\)\].*/\1/')
	un=$(basename "$(ldev "$1")")
	pid=$(systemctl show -p ExecMainPID --value "$u")
	pe=$(grep -a "sched_process_exec: .* pid=$pid " /sys/kernel/tracing/trace 2>/dev/null |
		sed 's/.* \([0-9]*\.[0-9]*\): sched_process_exec.*/\1/' | tail -1)
	tx=$(trace_first "$3" "$un" _tx_frame "bytes=")
	rx=$(trace_first "$3" "$un" _rx_frame "len=")
	op=$(trace_first "$3" "$un" _session "open session=")
	awk -v t0="$3" -v ud="$ud" -v job="$job" -v ex="$ex" -v at="$at" -v op="$op" -v b="$1" \
		-v mp="$mp" -v mx="$mx" -v pe="$pe" -v tx="$tx" -v rx="$rx" '
		function d(t) { return t == "" || t == 0 ? "-" : int((t - t0) * 1000) }
		BEGIN { m = mp / 1e6 < t0 ? "not run (loaded)" : d(mp / 1e6) " to " d(mx / 1e6)
			printf "timing steps %s: udev %s, modprobe@phyllo %s, unit job %s, forked %s, exec %s, first frame out %s, first frame in %s, session open %s, attach logged %s\n",
			b, d(ud), m, d(job / 1e6), d(ex / 1e6), d(pe), d(tx), d(rx), d(op), d(at) }'
}

# stopped: systemctl stop detaches the ftdi's link (down, not gone);
# start attaches it again under its name (up).
stopped() {
	b=ftdi tty=$ftdi_tty unit=$(aunit "$ftdi_tty")
	mark
	systemctl stop "$unit" 2>/tmp/err
	downs=$((downs + 1))
	until_true 60 is_lstate $b down && [ -e /dev/"$tty" ] && [ ! -e /run/lock/LCK.."$tty" ] &&
		is_state_of "$unit" inactive && [ "$(systemctl show -p Result --value "$unit")" = success ] &&
		ok "systemctl stop: $(ldev $b) down, $tty kept and unlocked, $unit inactive (success)" ||
		bad "systemctl stop: $(lstate $b), $(systemctl is-active "$unit")"
	until_true 60 eval '[ "$(journal_count "$unit" "detached $ftdi_dev from /dev/$tty (the named link is down")" -ge 1 ]' &&
		ok "systemctl stop: attach logged the detach, the named link down" || bad "systemctl stop: the journal"
	until_true 60 events_all $b down $downs && ok "systemctl stop: each program said down" ||
		{ events_said $b down >/tmp/err; bad "systemctl stop: the downs said"; }
	systemctl start "$unit" 2>/tmp/err && until_true 120 is_lstate $b up &&
		until_true 60 events_all $b up $downs &&
		ok "systemctl start: $(ldev $b) up on $tty again, each program said up" ||
		{ events_said $b up >/tmp/err; bad "systemctl start"; }
	for u in $(aunit "$acm_tty") "$unit"; do
		[ "$(journal_count "$u" "Failed with result")" -eq 0 ] &&
			[ "$(journal_count "$u" "Scheduled restart")" -eq 0 ] ||
			{ journalctl -q -b -u "$u" -o cat >/tmp/err; bad "$u failed or restarted"; }
	done
}

# exposure UNIT: systemd-analyze security's overall figure for UNIT ("1.6 OK")
exposure() {
	systemd-analyze security --no-pager "$1" 2>>/tmp/err |
		sed -n 's/.*Overall exposure level for [^ ]*: \([0-9.]* [A-Z]*\).*/\1/p'
}
# at_most A B: the decimal A is B or less
at_most() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }
mqtt_has() { [ "$(grep -c -E " $1\$" $o/mqtt)" -ge "$2" ]; }

# bridge: the ACM board's phyllo-bridge@, as the rule started it.
bridge() {
	name=$acm_serial bu=$(bunit acm)
	bpid=$(systemctl show -p MainPID --value "$bu")
	buser=$(ps -o user= -p "$bpid" | tr -d ' ')
	buid=$(ps -o uid= -p "$bpid" | tr -d ' ')
	dialout=$(getent group dialout | cut -d: -f3)
	# The disk has neither nss-systemd (ps shows the uid) nor userdbctl:
	# the name is the one PID1 gave the unit's dynamic user; the uid is
	# from its range (61184-65519) and in no passwd file.
	bname=$(systemctl show -p User --value "$bu")
	[ -n "$buid" ] && [ "$buid" -ge 61184 ] && [ "$buid" -le 65519 ] && [ "$buser" != root ] &&
		[ "$(systemctl show -p DynamicUser --value "$bu")" = yes ] && [ -n "$bname" ] &&
		! getent passwd "$buid" >/dev/null && grep -q "^Groups:.*\b$dialout\b" /proc/"$bpid"/status &&
		[ "$(cat /proc/"$bpid"/comm)" = phyllo-bridge ] &&
		ok "$bu (pid $bpid, started by the rule) runs as uid $buid (ps: '$buser', not root), dynamic user '$bname', in dialout" ||
		bad "the bridge's user: pid '$bpid', user '$buser', uid '$buid', '$bname'"
	i=1
	while [ $i -le "$bridged" ]; do
		mosquitto_pub -h 127.0.0.1 -q 1 -t "phyllo/$name/cmd/servo" -m "$i" 2>>/tmp/err
		i=$((i + 1))
	done
	until_true 60 mqtt_has "phyllo/$name/servo $bridged" 1
	got=$(grep -c -E " phyllo/$name/servo [0-9]+\$" $o/mqtt)
	[ "$got" -eq "$bridged" ] &&
		ok "mosquitto_pub: $bridged commands to phyllo/$name/cmd/servo, $got echoes back on phyllo/$name/servo" ||
		bad "$got of $bridged echoes through the bridge"
	systemctl stop "$bu" 2>/tmp/err
	until_true 30 mqtt_has "phyllo/$name/status offline" 1 && is_state_of "$bu" inactive &&
		[ "$(systemctl show -p Result --value "$bu")" = success ] &&
		ok "systemctl stop $bu: offline published, inactive (success)" ||
		bad "stop $bu: $(systemctl is-active "$bu")"
	journalctl -q -b -u "$bu" -o cat >/tmp/bj
	tx=$(sed -n 's/^board_tx  *//p' /tmp/bj | tail -1)
	mtx=$(sed -n 's/^mqtt_tx  *//p' /tmp/bj | tail -1)
	[ "$tx" = "$((bridged + acm_cmds))" ] && [ "${mtx:-0}" -ge "$bridged" ] &&
		ok "its counters at stop (journal): board_tx $tx ($bridged + $acm_cmds sent while the board was away), mqtt_tx $mtx" ||
		{ grep -E '_tx|_rx|link' /tmp/bj >/tmp/err; bad "the bridge's counters: board_tx '$tx' (not $((bridged + acm_cmds))), mqtt_tx '$mtx'"; }
}

# survivors: each program still runs on the same one open file, and said
# each down, up and reset once.
survivors() {
	for b in $boards; do
		eval "pids=\$${b}_pids fds=\$${b}_fds"
		# shellcheck disable=SC2086
		now_fds=$(open_files $pids)
		[ "$now_fds" = "$fds" ] && ! echo "$fds" | grep -q ':' &&
			ok "$b: every program ran to the end on its one open file ($now_fds)" ||
			bad "$b: the programs' files: at the start '$fds', now '$now_fds'"
		for x in sub c py; do
			[ "$(count_of "$b" "$x" down)" = "$(count_of "$b" "$x" up)" ] &&
				[ "$(grep -c -E '^[0-9.]+ end |^Traceback' "$o/$b.$x")" = 0 ] || bad "$b: $x: $(tail -3 "$o/$b.$x")"
		done
		d=$downs
		[ "$b" = acm ] && d=$((downs - 1))
		events_all "$b" down "$d" && events_all "$b" up "$d" && events_all "$b" reset "$resets" &&
			ok "$b: sub, hotplug-client, Python and the bridge each said $d downs, $d ups and $resets resets" ||
			{ events_said "$b" down >/tmp/err; events_said "$b" up >>/tmp/err; events_said "$b" reset >>/tmp/err
			  bad "$b: the events said"; }
	done
}

# security: systemd-analyze security of both units here, at most 2.0; the
# units before their hardening beside them when the host staged them.
security() {
	for u in "phyllo-bridge@$acm_serial" "phyllo-attach@$acm_tty"; do
		e=$(exposure "$u.service")
		was=''
		b=${u%%@*}
		[ -f /etc/systemd/system/$b-base@.service ] &&
			was=" (before: $(exposure "$b-base@${u#*@}.service"))"
		[ -n "$e" ] && at_most "${e% *}" 2.0 &&
			ok "systemd-analyze security $u.service: $e$was" ||
			bad "systemd-analyze security $u.service: '$e'$was"
	done
}

if setup; then
	acm_plug dummy_udc.0
	until_true 120 has_tty acm
	host plug 0 1
	acm_cmds=0
	if plugged acm 0 && plugged ftdi 0; then
		for b in $boards; do echoes "$b"; done
		trace_on
		if start_observers; then
			c=1
			while [ $c -le "$cycles" ]; do
				if [ $((c % 2)) = 0 ] || [ "$cycles" = 1 ]; then
					cycle $c swap
				else
					cycle $c unplug
				fi
				acm_cmds=$((acm_cmds + 1))
				c=$((c + 1))
			done
			cycle $c reset
			stopped
			survivors
			bridge
			security
		fi
	fi
fi
if [ $fail -ne 0 ]; then
	echo "---- systemctl status; journal; devices; the observers' ends"
	systemctl status --no-pager 'phyllo-*' 2>&1 | head -60
	journalctl -q -b --no-pager -u 'phyllo-*' -u mosquitto | tail -80
	ls -l /dev/phyllo* /dev/ttyUSB* /dev/ttyACM* /dev/phyllo/ /dev/serial/by-id 2>&1
	as_user phyllo list
	for f in $o/*; do echo "-- $f"; tail -12 "$f"; done
fi
echo "guest hotplug: $pass passed, $fail failed"
echo "HOTPLUG-DONE $fail"
[ $fail -eq 0 ]
