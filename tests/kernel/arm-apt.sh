#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# arm-apt.sh - apt on a Debian suite for the ARM targets (arm64, armhf)
# beside amd64, without changing the host's apt or dpkg configuration.
# Usage: tests/kernel/arm-apt.sh SUITE apt-get|apt-cache ARGS...
# Runs the tool through a private configuration in
# ~/.cache/phyllo/apt/SUITE-arm (own sources list, lists, package cache)
# whose APT::Architectures are amd64, arm64 and armhf, so that
# `apt-get download PKG:arm64` fetches a foreign package; it reads its own
# empty dpkg status, never the host's, and nothing is ever installed from
# it (installing foreign kernel headers through multiarch makes apt
# remove the host compiler). The archive address is the host's
# own (debian-apt.sh --mirror); the lists are refreshed when older than a
# day.
set -e
here=$(cd "$(dirname "$0")" && pwd)
cache=${PHYLLO_KCACHE:-$HOME/.cache/phyllo}
suite=$1 tool=$2
shift 2
dir=$cache/apt/$suite-arm
mkdir -p "$dir/lists/partial" "$dir/archives/partial" "$dir/none"
# One apt at a time per configuration (make -j runs a download beside
# another's update): the whole run holds a lock.
if [ "${PHYLLO_ARM_APT_LOCK:-}" != "$dir" ]; then
	PHYLLO_ARM_APT_LOCK=$dir exec flock "$dir/phyllo.lock" "$0" "$suite" "$tool" "$@"
fi
# An empty dpkg status of its own: nothing here is installed, and the
# host's installs then never invalidate the cached package lists.
[ -f "$dir/status" ] || : >"$dir/status"
# Rewritten only when it changes: a newer sources list makes apt rebuild
# its cache.
src="deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $("$here/debian-apt.sh" --mirror) $suite main"
[ "$(cat "$dir/sources.list" 2>/dev/null)" = "$src" ] || echo "$src" >"$dir/sources.list"
opts="-o Dir::Etc::SourceList=$dir/sources.list -o Dir::Etc::SourceParts=$dir/none
 -o Dir::State::Lists=$dir/lists -o Dir::Cache=$dir -o Dir::Cache::Archives=$dir/archives
 -o Dir::Cache::pkgcache=$dir/pkgcache.bin -o Dir::Cache::srcpkgcache=$dir/srcpkgcache.bin
 -o Dir::Etc::Preferences=$dir/none -o Dir::Etc::PreferencesParts=$dir/none
 -o Dir::State::status=$dir/status
 -o APT::Architecture=amd64 -o APT::Architectures::=amd64 -o APT::Architectures::=arm64
 -o APT::Architectures::=armhf -o APT::Default-Release= -o APT::Sandbox::User=root
 -o DPkg::Lock::Timeout=900"
if [ -z "$(find "$dir/lists" -maxdepth 1 -name '*binary-arm64_Packages*' -mtime -1 2>/dev/null)" ]; then
	apt-get $opts update -q >&2
fi
exec "$tool" $opts "$@"
