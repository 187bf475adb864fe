# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# phyllo top-level Makefile. Each part brings its own fragment:
#   core/core.mk           test-core, bench-core, core-avr
#   userspace/userspace.mk the phyllo tool and library (build/host/)
#   firmware/firmware.mk   firmware, test-firmware, bench-firmware, arduino-zip
#   kernel/kernel.mk       module, kunit, test-kernel, test-qemu
#   tests/tests.mk         demo, bench (end to end)
# A fragment adds its test targets to CHECK_TARGETS; `make check` runs them
# all, in that order. The kernel module itself is described by ./Kbuild.

BUILD ?= $(CURDIR)/build
HOST := $(BUILD)/host
CHECK_TARGETS :=

.PHONY: all check deps-core help
all: $(HOST)/phyllo

-include core/core.mk
-include userspace/userspace.mk
-include firmware/firmware.mk
-include kernel/kernel.mk
-include tests/tests.mk

check: $(CHECK_TARGETS)
	@echo "make check: all of [$(CHECK_TARGETS)] passed"

deps-core:
	@scripts/deps.sh core

help:
	@echo "make demo    emulated Uno + kernel line discipline, end to end"
	@echo "make check   every test: $(CHECK_TARGETS)"
