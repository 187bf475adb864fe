# SPDX-License-Identifier: GPL-2.0-only OR MIT
# shellcheck shell=sh
# cold.sh - sourced (. scripts/cold.sh) by the scripts that build or fetch
# something big into the cache (~/.cache/phyllo, PHYLLO_KCACHE) when it is
# not there yet: the UML and debug kernels, the chroots, the guest disk,
# the ARM packages. A first run is then never silent for ten minutes:
#   cold_begin WHAT RECORD [PATTERN...]
#       says on stderr that WHAT starts cold, at what time, and how long
#       the last cold build took: RECORD (a small file in the cache
#       entry) or, when that entry is new too, the newest file matching a
#       PATTERN (the same build in an entry of another version);
#   cold_end
#       writes this build's time to RECORD ("SECONDS CORES DATE") and
#       says how long it took.
# One cold build at a time per script: the state is in cold_* variables.

# cold_mmss SECONDS: 9:04
cold_mmss() {
	printf '%d:%02d' $(($1 / 60)) $(($1 % 60))
}

cold_begin() {
	cold_what=$1 cold_record=$2
	shift 2
	cold_t0=$(date +%s)
	cold_last=$cold_record
	# shellcheck disable=SC2012,SC2068,SC2086
	[ -f "$cold_last" ] || cold_last=$(ls -t $@ 2>/dev/null | head -1)
	cold_note="no earlier time recorded"
	if [ -n "$cold_last" ] && read -r cold_s cold_c cold_d <"$cold_last" &&
		[ -n "$cold_s" ]; then
		cold_note="the last time it took $(cold_mmss "$cold_s") on $cold_c cores ($cold_d"
		[ "$cold_last" = "$cold_record" ] || cold_note="$cold_note, ${cold_last%/*}"
		cold_note="$cold_note)"
	fi
	echo "$cold_what: not cached yet, started $(date +%H:%M:%S); $cold_note" >&2
}

cold_end() {
	cold_s=$(($(date +%s) - cold_t0))
	mkdir -p "$(dirname "$cold_record")"
	echo "$cold_s $(nproc) $(date +%F)" >"$cold_record"
	echo "$cold_what: ready in $(cold_mmss "$cold_s") (cold)" >&2
}
