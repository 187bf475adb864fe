# SPDX-License-Identifier: GPL-2.0-only OR MIT
# shellcheck shell=sh
#
# tests/qemu/boot.sh - the qemu boot of the guest tests, sourced (". boot.sh")
# by the scripts that boot one. Two shapes, one function each:
#
# qemu_console_boot NAME LIMIT WORK SHOW APPEND [QEMU-ARG...]
#   A guest of Debian's kernel, a busybox initramfs and guest-init.sh,
#   whose console tells all (test-guest, test-bridge-guest,
#   test-capture-kernel, the demo).
#   1. Boots /boot/vmlinuz-$kver (the caller's kver, tests/qemu/kver.sh)
#      under qemu-system-x86_64 -accel tcg, 512 MiB, one vCPU, no display,
#      no reboot, with WORK/initrd.gz (mkinitramfs.sh) and the command line
#      "console=ttyS0 panic=-1 quiet APPEND". The console is the first
#      serial port, on stdio (stdin /dev/null); QEMU-ARG... come after it
#      (a second -serial is the guest's ttyS1).
#   2. At most LIMIT seconds (timeout); the console whole goes to
#      WORK/console.log, and to stdout the lines that match the extended
#      regular expression SHOW, or with SHOW "!RE" those that do not.
#   3. Returns 0 if the console has a line starting "GUEST-EXIT 0" (what
#      guest-init.sh prints when its script exited 0). Otherwise prints
#      "NAME: FAILED; the console's end:" and the console's last 15
#      lines, and returns 1.
#
# qemu_link_boot LIMIT LOG SOCK READY PEERLOG STATS QEMU-COMMAND...
#   A guest whose link is a serial port on the unix socket SOCK (qemu its
#   server, wait=off) and whose console goes to the file LOG; the host's
#   end of the link is `phyllo peer --echo` (test-qemu, upstream-boot,
#   test-dkms). It is qemu_link_start, then qemu_link_end; a test that
#   has more to do while the guest runs calls the two itself.
#
# qemu_link_start LIMIT LOG SOCK READY PEERLOG STATS QEMU-COMMAND...
#   1. Starts `timeout LIMIT QEMU-COMMAND...` in the background (the
#      command names qemu-system-* and all its arguments); its pid (the
#      timeout's) in qemu_pid.
#   2. Once LOG has a line matching READY (grep -a; an empty READY: at
#      once), or qemu has ended, starts $build/host/phyllo (the caller's
#      build) as `peer --echo --connect unix:SOCK`, and `--stats STATS`
#      unless STATS is empty; the peer's output in PEERLOG, its pid in
#      peer_pid. A test that cuts the board's power ends that peer and
#      starts another itself, and sets peer_pid to the new one.
#
# qemu_link_end LOG
#   3. Waits until qemu has ended, or LOG says "GUEST-EXIT": then qemu has
#      one second more and is ended (a kernel without ACPI only halts at
#      poweroff; one with it has powered off by then).
#   4. Ends the peer; qemu's exit status in qemu_status (124: LIMIT ran
#      out). Returns 0: what the guest said is in LOG, for the caller to
#      judge.
#
# None changes the caller's options (set -e, -u) or its traps; each
# leaves its files only where the caller said.

qemu_console_boot() {
	_qc_name=$1 _qc_limit=$2 _qc_work=$3 _qc_show=$4 _qc_append=$5
	shift 5
	_qc_grep="-E"
	case $_qc_show in !*) _qc_grep="-vE" _qc_show=${_qc_show#!} ;; esac
	timeout "$_qc_limit" qemu-system-x86_64 -accel tcg -m 512M -smp 1 -display none -no-reboot \
		-kernel "/boot/vmlinuz-${kver:?}" -initrd "$_qc_work/initrd.gz" \
		-append "console=ttyS0 panic=-1 quiet $_qc_append" -serial stdio "$@" \
		</dev/null 2>&1 | tee "$_qc_work/console.log" | grep $_qc_grep "$_qc_show" || true
	grep -q '^GUEST-EXIT 0' "$_qc_work/console.log" && return 0
	echo "$_qc_name: FAILED; the console's end:"
	tail -15 "$_qc_work/console.log"
	return 1
}

qemu_link_start() {
	_ql_limit=$1 _ql_log=$2 _ql_sock=$3 _ql_ready=$4 _ql_peerlog=$5 _ql_stats=$6
	shift 6
	timeout "$_ql_limit" "$@" &
	qemu_pid=$!
	if [ -n "$_ql_ready" ]; then
		until grep -aq "$_ql_ready" "$_ql_log" 2>/dev/null; do
			kill -0 "$qemu_pid" 2>/dev/null || break
			sleep 0.2
		done
	fi
	"${build:?}/host/phyllo" peer --echo --connect "unix:$_ql_sock" \
		${_ql_stats:+--stats "$_ql_stats"} >"$_ql_peerlog" 2>&1 &
	peer_pid=$!
}

qemu_link_end() {
	until grep -aq "GUEST-EXIT" "$1" 2>/dev/null; do
		kill -0 "$qemu_pid" 2>/dev/null || break
		sleep 0.5
	done
	if kill -0 "$qemu_pid" 2>/dev/null; then
		sleep 1
		kill "$qemu_pid" 2>/dev/null || true
	fi
	qemu_status=0
	# shellcheck disable=SC2034 # the caller's to read
	wait "$qemu_pid" 2>/dev/null || qemu_status=$?
	kill "$peer_pid" 2>/dev/null || true
	wait "$peer_pid" 2>/dev/null || true
	return 0
}

qemu_link_boot() {
	qemu_link_start "$@"
	qemu_link_end "$2"
}
