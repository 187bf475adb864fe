#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-attach.sh - what of attach, detach and hot-plug runs without the
# module or a VM (the attach itself needs the line discipline: the kernel
# tests do that): the tty lock (a live holder refused and named, a stale
# lock file taken over, a flock honoured), detach's refusals and its stop
# of the process a lock names, and the installed udev rule and systemd
# unit (systemd-analyze verify).
# Usage: test-attach.sh PHYLLO_BINARY
set -u
bin=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/checks.sh"
export PHYLLO_LOCK_DIR="$dir/lock"
mkdir "$PHYLLO_LOCK_DIR"
fails() {
	name=$1 want=$2
	shift 2
	timeout 30 "$@" >"$dir/out" 2>"$dir/err" </dev/null
	rc=$?
	if [ $rc -ne 0 ] && grep -q -- "$want" "$dir/err"; then ok "$name"; else bad "$name (rc $rc)"; fi
}

if [ -e /sys/module/phyllo ]; then
	echo "test-attach.sh: the phyllo module is loaded here; these tests need it absent"
	echo "0 passed, 1 failed"
	exit 1
fi

# a pty to attach to (its far end: an echo peer)
"$bin" peer --echo --pty "$dir/pty" 2>/dev/null &
pids="$pids $!"
i=0
while [ ! -L "$dir/pty" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
name=pts$(readlink "$dir/pty" | sed 's|/dev/pts/||')
lock=$PHYLLO_LOCK_DIR/LCK..$name

# a live holder named in the lock file (it has the tty open: a lock naming
# a process that does not is stale)
sleep 60 <"$dir/pty" &
holder=$!
pids="$pids $holder"
printf '%10d\n' $holder >"$lock"
fails "attach: a locked tty is refused, its holder named" "in use by process $holder (sleep)" \
	"$bin" attach "$dir/pty" -f
[ "$(cat "$lock")" -eq $holder ] && ok "the holder's lock file is left alone" ||
	bad "the lock file changed"
fails "detach: a lock naming no phyllo process is not obeyed" "which is not a phyllo attach" \
	"$bin" detach "$dir/pty"
kill -0 $holder 2>/dev/null && ok "and that process was not signalled" || bad "sleep was killed"

# a stale lock (its process is gone) is taken over; attach then fails on
# the missing module and removes its own lock
printf '%10d\n' 999999 >"$lock"
fails "attach: a stale lock is taken over" "modprobe phyllo" "$bin" attach "$dir/pty" -f
[ ! -e "$lock" ] && ok "attach removed its lock when it failed" || bad "lock left: $(cat "$lock")"

# Locks planted by a user who means harm, in a lock folder anyone may
# write (mode 1777, as /run/lock): as nobody, a lock naming process 1, a
# FIFO, and a symlink to a file naming an unrelated process whose name
# starts with phyllo. attach and pub --tty neither hang nor obey them; the
# symlink's target is never written; detach signals nobody.
plant() {	# plant KIND: as nobody, the tty's lock in $ulock
	rm -f "$ulock/LCK..$pts"
	case $1 in
	number) setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c \
		"printf '%10d\\n' 1 >'$ulock/LCK..$pts'" ;;
	fifo) setpriv --reuid=nobody --regid=nogroup --clear-groups mkfifo "$ulock/LCK..$pts" ;;
	symlink) setpriv --reuid=nobody --regid=nogroup --clear-groups \
		ln -s "$dir/target" "$ulock/LCK..$pts" ;;
	esac
}
ulock=$dir/ulock
pts=pts$(readlink "$dir/pty" | sed 's|/dev/pts/||')	# (fails() sets $name)
mkdir -m 1777 "$ulock"
chmod 755 "$dir"
cp "$(command -v sleep)" "$dir/phyllo-victim"
"$dir/phyllo-victim" 600 &
victim=$!
pids="$pids $victim"
printf '%10d\n' $victim >"$dir/target"
chmod 644 "$dir/target"
for kind in number fifo symlink; do
	plant $kind
	[ -n "$(find "$ulock" -user nobody -name "LCK..$pts")" ] || bad "planting a $kind as nobody"
	PHYLLO_LOCK_DIR=$ulock timeout 10 "$bin" attach "$dir/pty" -f >"$dir/out" 2>"$dir/err" </dev/null
	rc=$?
	{ [ $rc -ne 124 ] && grep -q "modprobe phyllo" "$dir/err" && ! grep -q "in use" "$dir/err"; } &&
		ok "attach: a $kind planted by nobody as the lock is not obeyed, no hang (it goes on to the missing module)" ||
		bad "attach, planted $kind (rc $rc)"
	plant $kind
	PHYLLO_LOCK_DIR=$ulock timeout 10 "$bin" pub --tty "$dir/pty" --reply ping 1 >"$dir/out" 2>"$dir/err" </dev/null
	rc=$?
	{ [ $rc -eq 0 ] && grep -q "^ping 1$" "$dir/out"; } &&
		ok "pub --tty: a $kind planted by nobody is not obeyed, no hang (the reply came)" ||
		bad "pub --tty, planted $kind (rc $rc)"
done
printf '%10d\n' $victim >"$ulock/LCK..$pts"
PHYLLO_LOCK_DIR=$ulock timeout 10 "$bin" detach "$dir/pty" >"$dir/out" 2>"$dir/err"
plant symlink
PHYLLO_LOCK_DIR=$ulock timeout 10 "$bin" detach "$dir/pty" >>"$dir/out" 2>>"$dir/err"
plant number
PHYLLO_LOCK_DIR=$ulock timeout 10 "$bin" detach "$dir/pty" >>"$dir/out" 2>>"$dir/err"
sleep 0.2
kill -0 $victim 2>/dev/null && [ "$(cat "$dir/target")" -eq $victim ] && ! grep -q "stopped" "$dir/out" &&
	ok "detach (root): a lock naming a phyllo-named process that does not hold the tty, directly or by symlink, signals nothing; the symlink's target unchanged" ||
	bad "detach signalled an unrelated process, or wrote through the symlink"
# a holder that has the tty open, with an escape sequence for a name:
# refused and named, the name escaped (comm for attach, cmdline for pub)
evilname=$(printf 'sl\033]0;X\007p')
cp "$(command -v sleep)" "$dir/$evilname"
"$dir/$evilname" 60 <"$dir/pty" &
evil=$!
pids="$pids $evil"
printf '%10d\n' $evil >"$ulock/LCK..$pts"
PHYLLO_LOCK_DIR=$ulock timeout 10 "$bin" attach "$dir/pty" -f >"$dir/out" 2>"$dir/err" </dev/null
PHYLLO_LOCK_DIR=$ulock timeout 10 "$bin" pub --tty "$dir/pty" t 1 >>"$dir/out" 2>>"$dir/err" </dev/null
grep -q "in use by process $evil (sl\\\\x1b\]0;X\\\\x07p)" "$dir/err" &&
	grep -q "in use by process $evil (.*/sl\\\\x1b\]0;X\\\\x07p 60)" "$dir/err" &&
	! grep -q "$(printf '\033')" "$dir/err" &&
	ok "a live holder named by an escape sequence: attach and pub --tty refuse, the name written \\xNN" ||
	bad "holder's name escaped: $(od -c "$dir/err" | head -4)"
kill $evil
rm -f "$ulock/LCK..$pts"

# flock, as libphyllo and other serial programs take it
flock "$dir/pty" sleep 5 &
pids="$pids $!"
i=0
while flock -n "$dir/pty" true 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
fails "attach: a flocked tty is refused" "in use by another program" "$bin" attach "$dir/pty" -f
fails "pub --tty: a flocked tty is refused, naming the holder" "in use by process [0-9]* (flock " \
	"$bin" pub --tty "$dir/pty" t 1
wait $!

# detach
fails "detach: no argument" "usage" "$bin" detach
fails "detach /dev/phyllo0 without the module" "module is not loaded" "$bin" detach /dev/phyllo0
fails "detach: a tty without the discipline" "carries no phyllo link" "$bin" detach "$dir/pty"
fails "detach: not a tty" "not a serial port" "$bin" detach /dev/null
# the process a lock names is stopped when it is a phyllo that holds the
# tty (here a peer, which holds the pty's master)
"$bin" peer --echo --pty "$dir/pty2" 2>/dev/null &
victim=$!
pids="$pids $victim"
i=0
while [ ! -L "$dir/pty2" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
name2=pts$(readlink "$dir/pty2" | sed 's|/dev/pts/||')
printf '%10d\n' $victim >"$PHYLLO_LOCK_DIR/LCK..$name2"
if "$bin" detach "$dir/pty2" >"$dir/out" 2>"$dir/err" &&
   grep -q "stopped phyllo attach (pid $victim)" "$dir/out" && ! kill -0 $victim 2>/dev/null; then
	ok "detach stops the phyllo process the tty's lock names"
else
	bad "detach by lock: $(cat "$dir/out")"
fi

# list: a PID column (the module is absent here: its usage says so)
"$bin" list --help | grep -q "pid of the 'phyllo attach'" && ok "list shows the attach pid" ||
	bad "list --help"

# hot-plug files, as make install puts them
make -C "$top" --no-print-directory -s install-system DESTDIR="$dir/root" PREFIX=/usr \
	>"$dir/err" 2>&1 && ok "make install-system" || bad "make install-system"
rules=$dir/root/usr/lib/udev/rules.d/70-phyllo.rules
unit=$dir/root/usr/lib/systemd/system/phyllo-attach@.service
grep -q 'SUBSYSTEM=="phyllo", KERNEL=="phyllo\[0-9\]\*", GROUP="dialout", MODE="0660"' "$rules" &&
	ok "udev: /dev/phylloN group dialout, 0660" || bad "udev rule (mode)"
grep -q 'SYMLINK+="phyllo/by-tty/$attr{tty}"' "$rules" && ok "udev: /dev/phyllo/by-tty/TTY" ||
	bad "udev rule (by-tty)"
grep -q 'SYMLINK+="phyllo/$attr{name}"' "$rules" && ok "udev: /dev/phyllo/NAME" ||
	bad "udev rule (name)"
grep -q 'ExecStart=/usr/bin/phyllo attach --foreground --name=${PHYLLO_ATTACH_NAME} /dev/%I' "$unit" &&
	grep -q 'PHYLLO_ATTACH_NAME=@serial' "$unit" &&
	grep -q "BindsTo=dev-%i.device" "$unit" &&
	ok "unit: attach in the foreground, named @serial, bound to the tty" ||
	bad "unit contents"
[ -f "$dir/root/usr/share/doc/phyllo/71-phyllo-attach.rules.example" ] &&
	ok "the example rule that starts the unit by USB id" || bad "example rule"
if command -v systemd-analyze >/dev/null; then
	mkdir -p "$dir/units"
	sed "s|/usr/bin/phyllo|$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")|" "$unit" \
		>"$dir/units/phyllo-attach@.service"
	# every warning counts (a mis-quoted Environment= is only a warning)
	if systemd-analyze verify --man=no "$dir/units/phyllo-attach@ttyS0.service" \
		>"$dir/err" 2>&1 && ! grep -q . "$dir/err"; then
		ok "systemd-analyze verify phyllo-attach@ttyS0.service"
	else
		bad "systemd-analyze verify"
	fi
fi
checks_done
