# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/kernel.mk - phyllo.ko and its tests, included by the top-level
# Makefile. The module's build is here (kmod.sh: one kernel; module.sh:
# the matrix below); its tests are in tests/kernel/ and tests/dkms/.
# The kernels are Debian's (tests/kernel/kernel-get.sh): 6.1 (Debian 12),
# 6.12 (bookworm-backports) and unstable (the newest, built in a cached
# unstable chroot), and their ARM flavours (ARM_KERNELS: arm64, armmp and
# armmp-lpae of 6.1 and 6.12, cross-built); everything fetched is cached
# in ~/.cache/phyllo.
#   module       phyllo.ko for each of KERNELS: W=1 clean, no 64-bit
#                division helper (nm -u, modpost), uapi header standalone,
#                checkpatch (6.12 tree) on the glue
#   kunit        KUnit suites on UML from linux-source of each of
#                KUNIT_KERNELS (KASAN, lockdep, kmemleak, UBSAN): 6.1, 6.12
#   test-kernel  UML (6.1) boots with phyllo.ko: ldattach, phyllo peer,
#                /dev/phyllo0
#   test-qemu    each of KERNELS' Debian image under qemu (tcg): ldattach,
#                1,000 units through /dev/phyllo0 via ttyS1 (ttyS0, a PCI
#                16550, on ARM); in the arm64 guests the static aarch64
#                phyllo tool ($(BUILD)/arm64/phyllo) attaches, lists, detaches
#   test-dkms    (not in check: two TCG boots, DKMS compiling the module
#                in each) the phyllo-dkms package in a Debian 12 guest
#                with systemd: DKMS builds for 6.1 and, on installing it,
#                6.12; after a reboot into 6.12, 1,000 units; apt remove
#   test-dkms-short  (in check) the package's contents, and dkms.conf's
#                MAKE line run as DKMS runs it against 6.1's and 6.12's
#                headers on the host; then one boot of the guest: apt
#                install (DKMS builds for 6.1), 1,000 units, apt remove
#   upstream     the driver as a patch series against linux-source-6.12
#                (build/upstream/series/, scripts/upstream.sh): git am
#                one patch at a time, each checkpatch --strict clean and
#                built W=1 (a module and built in); docs checked
#   upstream-boot  (not in check: a kernel build) the series' kernel,
#                tinyconfig with the driver built in, under qemu:
#                ldattach N_PHYLLO and 1,000 units (upstream-boot.sh)

ARM_KERNELS ?= arm64-6.1 arm64-6.12 armmp-6.1 armmp-6.12 armmp-lpae-6.1 armmp-lpae-6.12
KERNELS ?= 6.1 6.12 unstable $(ARM_KERNELS)
ARM_TOOL := $(if $(filter arm64-%,$(KERNELS)),$(BUILD)/arm64/phyllo)
KUNIT_KERNELS ?= 6.1 6.12

CHECK_TARGETS += module upstream kunit test-kernel test-qemu test-dkms-short

.PHONY: module kunit test-kernel test-qemu test-dkms test-dkms-short upstream upstream-boot

module:
	@scripts/deps.sh kernel qemu kernels arm
	kernel/module.sh $(BUILD) $(KERNELS)

kunit:
	@scripts/deps.sh kernel kernels qemu
	BUILD=$(BUILD) tests/kernel/kunit.sh $(KUNIT_KERNELS)

test-kernel: $(HOST)/phyllo
	@scripts/deps.sh kernel
	tests/kernel/test-kernel.sh $(BUILD)

test-qemu: module $(HOST)/phyllo $(ARM_TOOL)
	@scripts/deps.sh qemu kernels arm
	tests/kernel/test-qemu.sh $(BUILD) 1000 $(KERNELS)

# The phyllo tool for the arm64 guests: static, cross-built with Debian's
# gcc-aarch64-linux-gnu against arm64's libjansson.a (arm-userland.sh).
$(BUILD)/arm64/phyllo: $(PHYLLO_SRC) $(LIB_SRC) $(CORE_SRC) $(PHYLLO_HDR)
	@scripts/deps.sh arm
	@mkdir -p $(@D)
	sysroot=$$(tests/kernel/arm-userland.sh arm64) && \
	aarch64-linux-gnu-gcc $(PHYLLO_CFLAGS) -O2 -static -I$$sysroot/usr/include \
		$(PHYLLO_SRC) $(LIB_SRC) $(CORE_SRC) \
		$$sysroot/usr/lib/aarch64-linux-gnu/libjansson.a -lm -o $@

test-dkms: $(HOST)/phyllo
	@scripts/deps.sh dkms kernels
	tests/dkms/test-dkms.sh $(BUILD) 1000

test-dkms-short: $(HOST)/phyllo
	@scripts/deps.sh dkms kernels qemu
	tests/dkms/dkms-short.sh $(BUILD) 6.1 6.12
	SHORT=1 tests/dkms/test-dkms.sh $(BUILD) 1000

upstream:
	@scripts/deps.sh kernel kernels
	scripts/upstream.sh $(BUILD)

upstream-boot: upstream $(HOST)/phyllo
	@scripts/deps.sh qemu
	tests/kernel/upstream-boot.sh $(BUILD) 1000
