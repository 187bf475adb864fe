#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# debian-apt.sh - apt on a Debian suite this host's apt does not list,
# without changing the host's apt configuration.
# Usage: tests/kernel/debian-apt.sh --mirror
#          print the archive address taken from the host's own sources
#          (/etc/apt/sources.list.d/*.sources, /etc/apt/sources.list)
#        tests/kernel/debian-apt.sh SUITE apt-get|apt-cache ARGS...
#          run the tool on SUITE (bookworm-backports, unstable, ...) of that
#          archive through a private configuration in
#          ~/.cache/phyllo/apt/SUITE (sources, lists, package cache);
#          the lists are refreshed when older than a day. The host's dpkg
#          database is only read (apt-get download, apt-cache), never
#          changed through this script.
set -e
cache=${PHYLLO_KCACHE:-$HOME/.cache/phyllo}

# The first archive URI whose suites include a release name (no -security
# or -updates): deb822 stanzas first, then one-line sources.
mirror() {
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '
			/^[ \t]*$/ { if (uri != "" && ok) { print uri; exit } uri = ""; ok = 0; next }
			tolower($1) == "uris:" { uri = $2 }
			tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i !~ /-/) ok = 1 }
			END { if (uri != "" && ok) print uri }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -n 's/^deb[ \t]\+\(\[[^]]*\][ \t]\+\)\?\([a-z]\+:[^ \t]*\)[ \t]\+[a-z]\+[ \t].*/\2/p' "$f"
	done
}

if [ "$1" = --mirror ]; then
	uri=$(mirror | grep -v security | head -1)
	[ -n "$uri" ] || { echo "debian-apt: no Debian archive in the host's apt sources" >&2; exit 1; }
	echo "${uri%/}"
	exit 0
fi

suite=$1 tool=$2
shift 2
dir=$cache/apt/$suite
mkdir -p "$dir/lists/partial" "$dir/archives/partial" "$dir/none"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $("$0" --mirror) $suite main" \
	>"$dir/sources.list"
opts="-o Dir::Etc::SourceList=$dir/sources.list -o Dir::Etc::SourceParts=$dir/none
 -o Dir::State::Lists=$dir/lists -o Dir::Cache=$dir -o Dir::Cache::Archives=$dir/archives
 -o Dir::Etc::Preferences=$dir/none -o Dir::Etc::PreferencesParts=$dir/none
 -o APT::Default-Release= -o APT::Sandbox::User=root -o DPkg::Lock::Timeout=900"
if [ -z "$(find "$dir/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null)" ]; then
	apt-get $opts update -q >&2
fi
exec "$tool" $opts "$@"
