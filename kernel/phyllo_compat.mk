# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/phyllo_compat.mk - included by ./Kbuild (and by the in-tree
# Makefile that tests/kernel/upstream.sh lays out): which kernel API the
# headers of the kernel being built against have, for phyllo_compat.h.
# Probing the headers finds an API a distribution backported as well as a
# new one, and needs no LINUX_VERSION_CODE test.
phyllo_khdr := $(srctree)/include/linux
# 6.13 added hrtimer_setup(); later kernels removed hrtimer_init().
ifeq ($(shell grep -qsw hrtimer_setup $(phyllo_khdr)/hrtimer.h && echo y),)
ccflags-y += -DPHYLLO_NO_HRTIMER_SETUP
endif
# 6.6 gave the ldisc receive hooks u8 flags and a size_t count.
ifeq ($(shell grep -qs 'const u8 \*fp' $(phyllo_khdr)/tty_ldisc.h && echo y),)
ccflags-y += -DPHYLLO_OLD_TTY_HOOKS
endif
# Kernels after 6.12 added WQ_PERCPU; unstable's 7.2 warns at a workqueue
# that says neither it nor WQ_UNBOUND.
ifeq ($(shell grep -qsw WQ_PERCPU $(phyllo_khdr)/workqueue.h && echo y),)
ccflags-y += -DPHYLLO_NO_WQ_PERCPU
endif
# 6.2 added <kunit/visibility.h> (Debian's 6.1 has it backported).
ifeq ($(wildcard $(srctree)/include/kunit/visibility.h),)
ccflags-y += -DPHYLLO_NO_KUNIT_VISIBILITY
endif
# 6.13 made symbol namespaces strings: MODULE_IMPORT_NS("NS").
ifeq ($(shell grep -qs 'import_ns, __stringify(ns)' $(phyllo_khdr)/module.h && echo y),y)
ccflags-y += -DPHYLLO_NS_TOKEN
endif
