#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# tests/firmware/run.sh BUILD HOST - the firmware tests of `make test-firmware`,
# all on simavr:
#   1. the core suites, built for the AVR, on the simulator;
#   2. `phyllo peer --client` against the Uno firmware through a pty at
#      115200 baud: every preset x the three benchmark tuples, 1000 echoes
#      each, nothing lost, wrong, duplicated or reordered;
#   3. standard preset with 5% of frames dropped and 5% corrupted (both
#      directions): still nothing lost, duplicated or reordered;
#   4. ten simulated seconds of random bytes into the UART, then a normal
#      session (and no reset of the firmware throughout);
#   5. the ping, stats and blink endpoints, the Micro build, and two very
#      large requests in flight to the Uno with none resent, driven by the
#      harness's own client in simulated time;
#   6. the Arduino library's examples, as compiled for the Uno, on the
#      simulated Uno: Echo answers every tuple, ping and stats; Blink's LED
#      follows the blink topic; Echo at 500 kbaud takes section 5's burst
#      (5,000 very large echoes behind pure ACKs) with none resent.
# First, before any simulation: no code of an Uno or Micro image but the
# UART handlers touches r4..r7, their registers (fixed-regs.sh).
# COUNT=N overrides the 1000 echoes (for a quick run).
set -u
BUILD=$1
HOST=$2
SIM=$HOST/phyllo-simavr
PEER=$HOST/phyllo
FW=$BUILD/firmware
COUNT=${COUNT:-1000}
TMP=$(mktemp -d /tmp/phyllo-fw.XXXXXX)
SIM_PID=
failed=0
trap 'stop_sim; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM

fail() {
	echo "FAIL: $*"
	failed=$((failed + 1))
}

stop_sim() {
	[ -n "$SIM_PID" ] || return 0
	kill "$SIM_PID" 2>/dev/null
	wait "$SIM_PID" 2>/dev/null
	SIM_RC=$?
	SIM_PID=
}

# start_sim ELF [harness options...]: firmware on a pty at $TMP/tty
start_sim() {
	elf=$1
	shift
	rm -f "$TMP/tty"
	"$SIM" --pty --link "$TMP/tty" "$@" "$elf" >"$TMP/sim.out" 2>"$TMP/sim.err" &
	SIM_PID=$!
	i=0
	while [ ! -e "$TMP/tty" ]; do
		i=$((i + 1))
		if [ $i -gt 600 ] || ! kill -0 "$SIM_PID" 2>/dev/null; then
			fail "simulator did not come up for $elf"
			cat "$TMP/sim.err"
			return 1
		fi
		sleep 0.1
	done
}

# client NAME PRESET PAYLOAD WINDOW COUNT [peer options...]
client() {
	name=$1 preset=$2 payload=$3 window=$4 count=$5
	shift 5
	"$PEER" peer --client --device "$TMP/tty" --baud 115200 --preset "$preset" \
		--window "$window" --count "$count" --payload "$payload" --timeout 300 "$@" \
		>"$TMP/client.json" 2>"$TMP/client.err"
	rc=$?
	summary=$(grep -o '"sent":[0-9]*,"received":[0-9]*,"mismatches":[0-9]*,"lost":[0-9]*,"duplicates":[0-9]*,"reordered":[0-9]*' "$TMP/client.json")
	rate=$(grep -o '"msgs_per_s":[0-9.]*' "$TMP/client.json")
	if [ $rc -ne 0 ] || [ -z "$summary" ] ||
	   ! echo "$summary" | grep -q "\"received\":$count,\"mismatches\":0,\"lost\":0,\"duplicates\":0,\"reordered\":0"; then
		fail "$name: client exit $rc: $summary"
		cat "$TMP/client.err" "$TMP/client.json"
		return 1
	fi
	echo "ok   $name: $summary $rate"
}

echo "== r4..r7 left to the UART handlers (uart.c)"
"$(dirname "$0")/fixed-regs.sh" "$FW"/uno-*/phyllo-*.elf "$FW"/micro-*/phyllo-*.elf ||
	fail "fixed registers"

echo "== 1. core suites on the simulated ATmega328P"
for elf in "$FW"/core-tests/*.elf; do
	out=$("$SIM" --mcu atmega328p --console --seconds 120 "$elf" 2>&1)
	line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
	if echo "$line" | grep -q ', 0 failed$'; then
		echo "ok   $(basename "$elf" .elf): $line"
	else
		fail "core suite $(basename "$elf" .elf): ${line:-no result line}"
		echo "$out" | tail -20
	fi
done

echo "== 2. echo sessions through a pty at 115200 baud, $COUNT each"
# The Uno's window is 2 units. The standard preset keeps two 240-byte
# requests in flight too: the firmware takes in the second while it sends
# the first's reply. The other presets answer a unit from the decoder's
# buffer, so they take a very large one stop-and-wait (firmware/README.md).
for preset in minimal reduced standard; do
	start_sim "$FW/uno-$preset/phyllo-uno-$preset.elf" || continue
	vw=1
	[ $preset != standard ] || vw=2
	client "$preset/small" $preset small 2 "$COUNT"
	client "$preset/large" $preset large 2 "$COUNT"
	client "$preset/very-large" $preset very-large $vw "$COUNT"
	stop_sim
	[ "$SIM_RC" -eq 0 ] || fail "$preset: simulator exit $SIM_RC: $(tail -1 "$TMP/sim.err")"
done

echo "== 3. standard preset, 5% frames dropped, 5% corrupted"
if start_sim "$FW/uno-standard/phyllo-uno-standard.elf"; then
	client "lossy/small" standard small 2 "$COUNT" --drop 5 --corrupt 5 --seed 1
	client "lossy/large" standard large 2 "$COUNT" --drop 5 --corrupt 5 --seed 2
	stop_sim
	[ "$SIM_RC" -eq 0 ] || fail "lossy: simulator exit $SIM_RC"
fi

echo "== 4. ten seconds of random bytes, then a session"
if start_sim "$FW/uno-standard/phyllo-uno-standard.elf" --noise-ms 10000 --seed 7; then
	client "after-noise/small" standard small 2 200
	stop_sim
	tail -1 "$TMP/sim.err"
	grep -q 'resets 0$' "$TMP/sim.err" || fail "noise: the firmware restarted"
	[ "$SIM_RC" -eq 0 ] || fail "noise: simulator exit $SIM_RC"
fi

echo "== 5. endpoints (Uno, Micro) and the Micro's echo, in simulated time"
bench() {
	name=$1
	shift
	out=$("$SIM" --bench "$@" 2>/dev/null)
	if echo "$out" | grep -q '"ok":true'; then
		echo "ok   $name: $(echo "$out" | grep -o '"echoed":[0-9]*,"bad":[0-9]*')"
	else
		fail "$name: $out"
	fi
}
# Exact, in simulated time: two very large requests in flight to the Uno
# and none resent, none lost to a full ring or an overrun; then each
# request right behind a pure ACK (--ack-first), at 115200 and 1 Mbaud:
# the ACK completes while a reply goes out, and the request behind it
# overran the ring (208 resent in 200 echoes) until the firmware set
# such short frames aside. At 1 Mbaud 5,000 of them, on the Uno and the
# Micro: the main loop answered request after request on the time it
# read at its wake, and the reliable layer's deadlines drifted early
# until spurious timeouts resent frames into a full ring (34 resent in
# 5,000 on the Uno, once its UART handlers were faster).
for b in uno-standard:atmega328p:115200:200: uno-standard:atmega328p:115200:200:--ack-first \
	 uno-standard-1m:atmega328p:1000000:5000:--ack-first \
	 micro-standard-1m:atmega32u4:1000000:5000:--ack-first; do
	name=${b%%:*} rest=${b#*:}
	mcu=${rest%%:*} rest=${rest#*:}
	baud=${rest%%:*} rest=${rest#*:}
	count=${rest%%:*} opt=${rest#*:}
	out=$("$SIM" --bench --mcu "$mcu" --baud "$baud" --preset standard --payload very-large \
		--count "$count" --window 2 $opt "$FW/$name/phyllo-$name.elf" 2>/dev/null)
	if echo "$out" | grep -q '"ok":true' && echo "$out" | grep -q '"tx_retransmits":0,' &&
	   echo "$out" | grep -q '"ring_full":0,' && echo "$out" | grep -q '"overruns":0}'; then
		echo "ok   $name/very-large window 2 $opt, $count: $(echo "$out" | grep -o '"echoes_per_s":[0-9.]*'), 0 resent"
	else
		fail "$name/very-large window 2 $opt, $count: $out"
	fi
done
# blink is checked by reading the LED when the following ping's reply
# arrives: one request pair at a time, or a later blink may have run.
for payload in ping stats blink; do
	uw=2 mw=4
	[ $payload != blink ] || uw=1 mw=1
	bench "uno/$payload" --preset standard --payload $payload --count 200 --window $uw \
		"$FW/uno-standard/phyllo-uno-standard.elf"
	bench "micro/$payload" --mcu atmega32u4 --preset standard --payload $payload \
		--count 200 --window $mw "$FW/micro-standard/phyllo-micro-standard.elf"
done
for preset in minimal reduced standard; do
	for payload in small large very-large; do
		window=4
		[ $preset = standard ] || [ $payload != very-large ] || window=1
		bench "micro-$preset/$payload" --mcu atmega32u4 --preset $preset --payload $payload \
			--count "$COUNT" --window $window "$FW/micro-$preset/phyllo-micro-$preset.elf"
	done
done

echo "== 6. the Arduino examples on the simulated Uno"
ARD=$BUILD/arduino/out/uno
for payload in small large very-large ping stats; do
	bench "Echo.ino/$payload" --preset standard --payload $payload --count 200 --window 1 \
		"$ARD/Echo.elf"
done
bench "Blink.ino/blink" --preset standard --payload blink --count 50 --window 1 "$ARD/Blink.elf"
# The burst of section 5 on the Arduino build (the library's poll() read
# the clock once for every unit it answered, the main loop's bug until
# dd3b60c): 5,000 very large echoes, each request behind a pure ACK, none
# resent. At 500 kbaud with one in flight: at 1 Mbaud the Arduino core's
# 64-byte receive ring loses bytes of every very large frame, and two of
# them in flight overrun it at any speed (see Echo500k.ino).
out=$("$SIM" --bench --baud 500000 --preset standard --payload very-large --count 5000 --window 1 \
	--ack-first "$BUILD/arduino/out-tests/uno/Echo500k.elf" 2>/dev/null)
if echo "$out" | grep -q '"ok":true' && echo "$out" | grep -q '"tx_retransmits":0,' &&
   echo "$out" | grep -q '"client_tx_timeouts":0,'; then
	echo "ok   Echo500k.ino/very-large --ack-first, 5000: $(echo "$out" | grep -o '"echoes_per_s":[0-9.]*'), 0 resent"
else
	fail "Echo500k.ino/very-large --ack-first, 5000: $out"
fi

if [ $failed -ne 0 ]; then
	echo "test-firmware: $failed failure(s)"
	exit 1
fi
echo "test-firmware: all passed"
