#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# test-bridge-guest.sh BUILD - phyllo-bridge on /dev/phyllo0 (the kernel
# line discipline) in Debian's kernel under qemu (TCG): the busybox
# initramfs of the other guests with phyllo.ko, the tool, phyllo-bridge,
# and Debian's mosquitto, mosquitto_pub and mosquitto_sub (their shared
# libraries come along); tests/bridge/guest-bridge.sh runs inside: the
# echo, the broker killed and back (timed), 500 queued commands, TLS with
# a password and the ACL, a status refused (exit 3), all on /dev/phyllo0. Exits
# 0 only if the guest says every step passed.
set -eu
build=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/qemu/boot.sh"
. "$top/tests/bridge/tls.sh"
kver=$("$top/tests/qemu/kver.sh")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# mosquitto looks its user up, even root
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$work/passwd"
printf 'root:x:0:\n' >"$work/group"
# TLS for the guest's broker: a CA, the server's certificate for
# localhost, a password file and an ACL, made here (the guest has no
# openssl or mosquitto_passwd)
test_ca "$work" || { echo "test-bridge-guest: openssl could not make the test CA" >&2; exit 1; }
: >"$work/tpasswd"
mosquitto_passwd -b "$work/tpasswd" guest pw-guest
printf 'user guest\ntopic write phyllo/guest/#\ntopic read phyllo/guest/#\n' >"$work/acl"
printf '127.0.0.1 localhost\n' >"$work/hosts"
"$top/tests/qemu/mkinitramfs.sh" "$work/initrd.gz" "$top/tests/qemu/guest-init.sh" \
	"$build/kmod/$kver/phyllo.ko:/lib/phyllo.ko" "$build/host/phyllo:/bin/phyllo" \
	"$build/host/phyllo-bridge:/bin/phyllo-bridge" "$top/tests/bridge/guest-bridge.sh:/bridge.sh" \
	/usr/sbin/mosquitto:/usr/sbin/mosquitto /usr/bin/mosquitto_pub:/usr/bin/mosquitto_pub \
	/usr/bin/mosquitto_sub:/usr/bin/mosquitto_sub "$work/passwd:/etc/passwd" \
	"$work/group:/etc/group" "$work/hosts:/etc/hosts" "$work/ca.crt:/tls/ca.crt" \
	"$work/server.crt:/tls/server.crt" "$work/server.key:/tls/server.key" \
	"$work/tpasswd:/tls/passwd" "$work/acl:/tls/acl"
echo "test-bridge-guest: Linux $kver in qemu (TCG): phyllo-bridge on /dev/phyllo0"
# a bound, not a pace: a passing run ends sooner (2 to 5 minutes under
# TCG; 300 s was once too few at a load of 12)
qemu_console_boot test-bridge-guest 600 "$work" '^(ok|FAIL|guest|phyllo)' phyllo.run=/bridge.sh
