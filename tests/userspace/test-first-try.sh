#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-first-try.sh - the rough edges of a first day (issue 27), on ptys,
# no module: each message must name its real cause and the next step.
#   3  a capture file that cannot be made is said as the capture file's
#      (PHYLLO_CAPTURE on a --tty command, capture -w), never blamed on the
#      tty, nor on a stack that writes no capture
#   4  stats --tty reads a running sub's counters with no folder made by
#      hand: root's /run/phyllo from the tmpfiles.d entry (in a private
#      /run), a user's $XDG_RUNTIME_DIR/phyllo made by the library; and
#      when there is none, it says why and what makes it
#   5  a UUCP lock file with a live pid (minicom, screen) is honoured,
#      naming the process; a program with the port open and no lock is
#      named before the board is blamed
#   6  without the module, the messages name --tty
#   7  one range per option kind: -n 1..10^8, -t 1..86400, in every command
# (1 is test-uno.sh's, 2 tests/python's, 8 test-docs.py's and
# test-install.sh's, 9 tests/firmware/run.sh's.)
# Usage: test-first-try.sh PHYLLO_BINARY
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/checks.sh"
unset PHYLLO_RUN_DIR PHYLLO_CAPTURE
# lock files in the scratch folder, never the host's /run/lock
PHYLLO_LOCK_DIR=$dir/lock
export PHYLLO_LOCK_DIR
mkdir "$PHYLLO_LOCK_DIR"

wait_for() {	# wait_for PATH: until it exists (a symlink, a file)
	i=0
	while [ ! -e "$1" ] && [ ! -L "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
board() {	# board NAME: an echo peer on a new pty at $dir/NAME
	"$bin" peer --echo --pty "$dir/$1" 2>"$dir/$1.err" &
	pids="$pids $!"
	wait_for "$dir/$1"
}
# fails NAME RC WANT-ERR NOT-ERR CMD...: status RC, stderr matching
# WANT-ERR and not NOT-ERR (empty: anything)
fails() {
	name=$1 want_rc=$2 want=$3 not=$4
	shift 4
	"$@" >"$dir/out" 2>"$dir/err" </dev/null
	rc=$?
	if [ $rc -eq "$want_rc" ] && grep -q -- "$want" "$dir/err" &&
	   { [ -z "$not" ] || ! grep -q -- "$not" "$dir/err"; }; then
		ok "$name"
	else
		bad "$name (rc $rc)"
	fi
}
name_of() { r=$(readlink "$1"); echo "pts${r##*/}"; }	# /dev/pts/3: pts3

board b
b=$dir/b

# 3: the capture file, not the tty
fails "3: PHYLLO_CAPTURE in a missing folder: said as the capture file's" 1 \
	"PHYLLO_CAPTURE=/nonexistent/x.pcapng: cannot create the capture file: No such file or directory (there is no folder /nonexistent)" \
	"cannot open" env PHYLLO_CAPTURE=/nonexistent/x.pcapng "$bin" pub --tty "$b" --reply ping 1
grep -q "unset PHYLLO_CAPTURE" "$dir/err" && ok "3: and what to do (name another file, or unset it)" ||
	bad "3: no next step"
fails "3: capture -w in a missing folder: said before the command runs" 1 \
	"-w /nonexistent/x.pcapng: cannot create the capture file: No such file or directory" \
	"only a userspace stack" "$bin" capture -w /nonexistent/x.pcapng -- "$bin" pub --tty "$b" blink true
fails "3: capture of a command that failed: its failure, not 'only a userspace stack'" 1 \
	"$bin failed (status 1) and wrote no $dir/c.pcapng" "only a userspace stack" \
	"$bin" capture -w "$dir/c.pcapng" -- "$bin" pub --tty "$dir/nothing" blink true
run "3: capture -w of a good path still records" '' \
	"$bin" capture -w "$dir/c.pcapng" -- "$bin" pub --tty "$b" --reply ping 1
[ -s "$dir/c.pcapng" ] && ok "3: and the file is there" || bad "3: no capture file"
[ "$(stat -c %a "$dir/c.pcapng")" = 600 ] && ok "3: readable by its owner alone (0600): it holds every byte of the link" ||
	bad "3: capture mode $(stat -c %a "$dir/c.pcapng")"
printf 'keep\n' >"$dir/victim"
ln -s "$dir/victim" "$dir/planted.pcapng"
fails "3: PHYLLO_CAPTURE naming a symlink: refused, never written through" 1 \
	"cannot create the capture file: Too many levels of symbolic links" "" \
	env PHYLLO_CAPTURE="$dir/planted.pcapng" "$bin" pub --tty "$b" --reply ping 1
[ "$(cat "$dir/victim")" = keep ] && ok "3: the symlink's target is unchanged" || bad "3: written through the symlink"

# 4: live counters with no folder made by hand. Root's /run/phyllo, in a
# private mount namespace whose /run is an empty tmpfs (the host's /run is
# never touched): first missing, then made by the tmpfiles.d entry that
# make install and the phyllo package install.
board quiet
cat >"$dir/ns.sh" <<'EOF'
set -u
bin=$1 tty=$2 name=$3 conf=$4
mount -t tmpfs tmpfs /run || exit 3
live() {	# sub holds the port; stats --tty, and its status
	"$bin" sub --tty "$tty" nothing >/dev/null 2>&1 &
	sub=$!
	i=0
	while [ ! -e "/run/phyllo/tty-$name.json" ] && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
	"$bin" stats --tty "$tty"
	echo "rc $?"
	kill $sub
	wait $sub
}
live 2>&1
systemd-tmpfiles --create "$conf" || exit 4
stat -c 'mode %a' /run/phyllo
live
EOF
repo=$(cd "$here/../.." && pwd)
if unshare --mount true 2>/dev/null && command -v systemd-tmpfiles >/dev/null; then
	unshare --mount sh "$dir/ns.sh" "$bin" "$dir/quiet" "$(name_of "$dir/quiet")" \
		"$repo/userspace/system/phyllo.tmpfiles" >"$dir/out" 2>"$dir/err" </dev/null
	if grep -q "reports no live counters .*/run/phyllo does not exist (make install and the phyllo package make it from tmpfiles.d" "$dir/out" &&
	   grep -q "^rc 1$" "$dir/out"; then
		ok "4: root, no /run/phyllo: stats --tty says so, and what makes it"
	else
		bad "4: root, no /run/phyllo"
	fi
	if grep -q "^mode 755$" "$dir/out" && grep -q "the live session of process [0-9]* (.*sub --tty" "$dir/out" &&
	   grep -q "^rc 0$" "$dir/out"; then
		ok "4: root, /run/phyllo from tmpfiles.d (0755): stats --tty reads sub's session"
	else
		bad "4: root, /run/phyllo from tmpfiles.d"
	fi
else
	ok "4: (no mount namespace or systemd-tmpfiles here: root's /run/phyllo not tried)"
fi
# a user's: $XDG_RUNTIME_DIR/phyllo, made 0700 by the library
nobody=65534
mkdir "$dir/xdg" && chown $nobody "$dir/xdg" && chmod 700 "$dir/xdg"
chmod 666 "$(readlink -f "$dir/quiet")"
user="setpriv --reuid=$nobody --regid=$nobody --clear-groups env XDG_RUNTIME_DIR=$dir/xdg"
chmod 755 "$dir"
$user "$bin" sub --tty "$dir/quiet" nothing >/dev/null 2>&1 &
sub=$!
pids="$pids $sub"
wait_for "$dir/xdg/phyllo/tty-$(name_of "$dir/quiet").json"
if $user "$bin" stats --tty "$dir/quiet" >"$dir/out" 2>"$dir/err" </dev/null &&
   grep -q "the live session of process $sub" "$dir/out" &&
   [ "$(stat -c %a "$dir/xdg/phyllo")" = 700 ]; then
	ok "4: a user: \$XDG_RUNTIME_DIR/phyllo made (0700), stats --tty reads sub's session"
else
	bad "4: a user's \$XDG_RUNTIME_DIR/phyllo"
fi
kill $sub 2>/dev/null; wait $sub 2>/dev/null
# a folder named and missing: stats says so, not only "in use"
PHYLLO_RUN_DIR=$dir/none "$bin" sub --tty "$dir/quiet" nothing >/dev/null 2>&1 &
sub=$!
pids="$pids $sub"
i=0	# until sub holds the port (its flock)
while ! awk -v p=$sub '$2 == "FLOCK" && $5 == p { f = 1 } END { exit !f }' /proc/locks &&
	[ $i -lt 50 ]; do
	sleep 0.1; i=$((i + 1))
done
fails "4: no run folder: stats --tty says why it cannot read the holder's counters" 1 \
	"process $sub reports no live counters of .* $dir/none does not exist (PHYLLO_RUN_DIR names it: mkdir it)" "" \
	env PHYLLO_RUN_DIR="$dir/none" "$bin" stats --tty "$dir/quiet"
kill $sub 2>/dev/null; wait $sub 2>/dev/null

# 5: programs that take no flock (a lock naming one is believed while it
# has the tty open)
sleep 60 <"$b" &
holder=$!
pids="$pids $holder"
printf '%10d\n' $holder >"$PHYLLO_LOCK_DIR/LCK..$(name_of "$b")"
fails "5: a UUCP lock file with a live pid: refused, naming it" 1 \
	"$b is in use by process $holder (sleep 60)" "" "$bin" pub --tty "$b" --reply ping 1
kill $holder; wait $holder 2>/dev/null
run "5: its process gone, the stale lock is no obstacle" '^ping 1$' \
	"$bin" pub --tty "$b" --reply ping 1
rm -f "$PHYLLO_LOCK_DIR"/LCK..*
python3 "$here/ptyboard.py" silent "$dir/silent" 2>/dev/null &
pids="$pids $!"
wait_for "$dir/silent"
fails "5: a silent pty's far end (it holds the master) is not blamed" 1 \
	"nothing at all came" "without a lock" "$bin" pub --tty "$dir/silent" --reply -t 1 ping 1
cat "$dir/silent" >/dev/null &
reader=$!
pids="$pids $reader"
sleep 0.2
fails "5: a reader with no lock is named before the board is blamed" 1 \
	"process $reader (cat $dir/silent) has $dir/silent open too, without a lock" \
	"nothing at all came\|handshake" "$bin" pub --tty "$dir/silent" --reply -t 1 ping 1
kill $reader 2>/dev/null

# 6: no module
if [ ! -e /sys/module/phyllo ] && [ ! -e /dev/phyllo0 ]; then
	fails "6: no /dev/phyllo0 and no module: modprobe, or --tty" 1 \
		"run 'modprobe phyllo' (or insmod phyllo.ko) first, or.*--tty" "" \
		"$bin" pub blink true
	fails "6: attach with no module: modprobe, or skip attach with --tty" 1 \
		"modprobe phyllo' first, or.*take --tty $b" "" "$bin" attach "$b"
else
	ok "6: (the module is loaded here: its absence not tried)"
fi

# 7: one range per option kind
for c in "pub -t 0 x 1" "sub -t 0 x" "stats -t 0" "echo -t 0" "drain -t 0" \
	"capture -t 0 -- true" "peer --client -t 0"; do
	# shellcheck disable=SC2086
	fails "7: $c: refused, with the range" 2 "--timeout: '0' is not a number from 1 to 86400" "" \
		"$bin" $c
done
for c in "sub -n 100000001 x" "echo -n 100000001" "drain -n 100000001" \
	"peer --client -n 100000001"; do
	# shellcheck disable=SC2086
	fails "7: $c: refused, with the range" 2 "--count: '100000001' is not a number from 1 to 100000000" "" \
		"$bin" $c
done
checks_done
