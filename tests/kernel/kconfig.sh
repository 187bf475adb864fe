# SPDX-License-Identifier: GPL-2.0-only OR MIT
# tests/kernel/kconfig.sh - sourced by the builders of the test kernels
# (uml-build.sh, storm-kernel.sh). The caller defines mk(), its make of
# the kernel tree with ARCH and O= set.
# kconfig_merge WHO BASE FRAGMENT SRC OUT: OUT/.config is the BASE
# configuration (defconfig, tinyconfig) with FRAGMENT's lines merged in
# and olddefconfig run; then every CONFIG_ line of FRAGMENT must be in it
# as written (X=n: X absent), else WHO says which did not stick, and the
# status is 1.
kconfig_merge() {
	who=$1 base=$2 frag=$3 src=$4 out=$5
	mk "$base" >/dev/null &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag" >/dev/null &&
		mk olddefconfig >/dev/null || return 1
	grep '^CONFIG_' "$frag" | while read -r opt; do
		case $opt in
		*=n) ! grep -q "^${opt%=n}=" "$out/.config" ;;
		*) grep -qx "$opt" "$out/.config" ;;
		esac || { echo "$who: $opt did not stick" >&2; exit 1; }
	done
}
