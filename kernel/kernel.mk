# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/kernel.mk - phyllo.ko and its tests, included by the top-level
# Makefile; the scripts doing the work live in tests/kernel/.
#   module       phyllo.ko for linux-headers-amd64: W=1 clean, uapi header
#                standalone, checkpatch on the glue
#   kunit        KUnit suites on UML from linux-source-6.1 (KASAN, lockdep,
#                kmemleak, UBSAN); cached in ~/.cache/phyllo
#   test-kernel  UML boots with phyllo.ko: ldattach, phyllo peer, /dev/phyllo0
#   test-qemu    linux-image-amd64 under qemu (tcg): 1,000 units via ttyS1

CHECK_TARGETS += module kunit test-kernel test-qemu

.PHONY: module kunit test-kernel test-qemu

module:
	@scripts/deps.sh kernel qemu
	tests/kernel/module.sh $(BUILD)

kunit:
	@scripts/deps.sh kernel
	tests/kernel/kunit.sh

test-kernel: $(HOST)/phyllo
	@scripts/deps.sh kernel
	tests/kernel/test-kernel.sh $(BUILD)

test-qemu: module $(HOST)/phyllo
	@scripts/deps.sh qemu
	tests/kernel/test-qemu.sh $(BUILD)
