# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# tests/storm/storm.mk - concurrency storms against phyllo.ko in an SMP
# debug kernel (x86_64 linux-source-6.1 with lockdep, debugobjects,
# kmemleak, hung-task and soft-lockup detection, fail_slab and
# fail_page_alloc, and KASAN or KCSAN, which exclude each other) under
# qemu -smp 4, with injected slab and page allocation failures and an ACK
# link that must lose no acknowledged unit; included by the top-level
# Makefile. See tests/storm/README.md.
#   test-storm        STORM_ITER iterations (default 100000) on the
#                     STORM_SAN kernel (default kcsan), the long run
#   test-storm-short  STORM_SHORT_ITER (default 5000) on STORM_SHORT_SAN
#                     (default kasan: the kernel make check builds anyway),
#                     the same checks; part of make check
#   storm-kernel      only build (or find in the cache) both kernels
# One iteration is one system call on the module's interfaces (open, read,
# write, poll, fsync, ioctl, sysfs read, TIOCSETD, hangup, delete_module).
# STORM_SEED picks the storm's random streams (default 1); STORM_FAILSLAB
# the percent of the scoped kmalloc allocations that fail (default 10, 0:
# none), STORM_FAILPAGE the percent of the scoped page allocations of
# order 2 and up (default 50, 0: none; both 0 turn fault injection off).
# Before the storm, the replug storm (replug.c) unplugs and plugs a named
# link STORM_REPLUG times (default 10000), STORM_SHORT_REPLUG in the short
# run (default 300); 0 skips it.

STORM_ITER ?= 100000
STORM_SHORT_ITER ?= 5000
STORM_SEED ?= 1
STORM_SAN ?= kcsan
STORM_SHORT_SAN ?= kasan
STORM_FAILSLAB ?= 10
STORM_FAILPAGE ?= 50
STORM_REPLUG ?= 10000
STORM_SHORT_REPLUG ?= 300

CHECK_TARGETS += test-storm-short

.PHONY: test-storm test-storm-short storm-kernel

test-storm: $(HOST)/phyllo
	@scripts/deps.sh storm
	tests/storm/test-storm.sh $(BUILD) $(STORM_ITER) $(STORM_SEED) $(STORM_SAN) $(STORM_FAILSLAB) $(STORM_FAILPAGE) $(STORM_REPLUG)

test-storm-short: $(HOST)/phyllo
	@scripts/deps.sh storm
	tests/storm/test-storm.sh $(BUILD) $(STORM_SHORT_ITER) $(STORM_SEED) $(STORM_SHORT_SAN) $(STORM_FAILSLAB) $(STORM_FAILPAGE) $(STORM_SHORT_REPLUG)

storm-kernel:
	@scripts/deps.sh storm
	tests/storm/storm-kernel.sh $(STORM_SHORT_SAN)
	tests/storm/storm-kernel.sh $(STORM_SAN)
