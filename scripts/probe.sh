#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# What building a group of scripts/deps.sh needs, checked without
# installing anything and without dpkg: libraries through pkg-config, tools
# on PATH. Silent when all is there; else one line naming the Debian
# packages missing, and exit 1. The goals that install (make deps, check,
# the tests, demo, try) run scripts/deps.sh instead (the Makefile's DEPS).
# Usage: scripts/probe.sh GROUP...  (the groups of deps.sh that a build
#        goal's deps-GROUP prerequisite names)
set -u
missing=""

need() {
	case " $missing " in *" $1 "*) ;; *) missing="$missing $1" ;; esac
}

# lib PKG-CONFIG-MODULE DEBIAN-PACKAGE
lib() {
	if ! command -v pkg-config >/dev/null 2>&1; then
		need pkg-config
	elif ! pkg-config --exists "$1"; then
		need "$2"
	fi
}

# tool COMMAND DEBIAN-PACKAGE
tool() {
	command -v "$1" >/dev/null 2>&1 || need "$2"
}

for group in "$@"; do
	case "$group" in
	core)     lib jansson libjansson-dev ;;
	mqtt|mqtt-lib) lib libmosquitto libmosquitto-dev ;;
	avr)      tool avr-gcc gcc-avr; lib simavr libsimavr-dev; lib libelf libelf-dev ;;
	arduino)  tool arduino-builder arduino-builder; tool zip zip; tool unzip unzip ;;
	cortexm)  tool arm-none-eabi-gcc gcc-arm-none-eabi ;;
	megaavr)  tool debootstrap debootstrap ;;
	*) echo "probe.sh: no probe for group '$group'" >&2; exit 2 ;;
	esac
done
[ -z "$missing" ] && exit 0
echo "probe.sh: missing$missing; as root: apt-get install$missing" \
	"(or make deps: what every part needs)" >&2
exit 1
