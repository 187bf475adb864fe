# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# tests/storm/storm.mk - concurrency storms against phyllo.ko in an SMP
# debug kernel (x86_64 linux-source-6.1 with KASAN, lockdep, debugobjects,
# kmemleak, hung-task and soft-lockup detection) under qemu -smp 4;
# included by the top-level Makefile. See tests/storm/README.md.
#   test-storm        STORM_ITER iterations (default 100000), the long run
#   test-storm-short  STORM_SHORT_ITER (default 5000), part of make check
#   storm-kernel      only build (or find in the cache) the kernel
# One iteration is one system call on the module's interfaces (open, read,
# write, poll, fsync, ioctl, sysfs read, TIOCSETD, hangup, delete_module).
# STORM_SEED picks the storm's random streams (default 1).

STORM_ITER ?= 100000
STORM_SHORT_ITER ?= 5000
STORM_SEED ?= 1

CHECK_TARGETS += test-storm-short

.PHONY: test-storm test-storm-short storm-kernel

test-storm: $(HOST)/phyllo
	@scripts/deps.sh storm
	tests/storm/test-storm.sh $(BUILD) $(STORM_ITER) $(STORM_SEED)

test-storm-short: $(HOST)/phyllo
	@scripts/deps.sh storm
	tests/storm/test-storm.sh $(BUILD) $(STORM_SHORT_ITER) $(STORM_SEED)

storm-kernel:
	@scripts/deps.sh storm
	tests/storm/storm-kernel.sh
