# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/phyllo_compat.mk - included by ./Kbuild: which kernel API the
# headers of the kernel being built against have.
#
# Contract:
#  1. The glue is written against the newest API. Where an older kernel
#     lacks it, the one place that uses it says both, as
#     #ifdef PHYLLO_NO_<API> ... #else <newest> #endif, keyed on a flag
#     set here by probing the kernel's headers (no LINUX_VERSION_CODE, so
#     an API a distribution backported is found too). No shim defines a
#     kernel name, and no glue function exists twice.
#  2. make upstream lays the driver into a tree with unifdef and the
#     flags this file gives for that tree: the laid-in code keeps only the
#     tree's own branch, and neither this file nor the flags go with it.
#  3. Differences the glue avoids rather than names: the device class is
#     a static struct class registered with class_register() (class_create()
#     lost its owner argument in 6.4), and /dev/phylloN sets no .llseek
#     (no_llseek went away in 6.12; a NULL llseek on a stream_open()ed
#     file fails with ESPIPE on every kernel).
phyllo_khdr := $(srctree)/include/linux
# 6.13 added hrtimer_setup(); later kernels removed hrtimer_init().
ifeq ($(shell grep -qsw hrtimer_setup $(phyllo_khdr)/hrtimer.h && echo y),)
ccflags-y += -DPHYLLO_NO_HRTIMER_SETUP
endif
# 6.6 gave the ldisc receive hooks u8 flags and a size_t count.
ifeq ($(shell grep -qs 'const u8 \*fp' $(phyllo_khdr)/tty_ldisc.h && echo y),)
ccflags-y += -DPHYLLO_OLD_TTY_HOOKS
endif
# Kernels after 6.12 added WQ_PERCPU (what a workqueue without WQ_UNBOUND
# always was); unstable's 7.2 warns at a workqueue that says neither.
ifeq ($(shell grep -qsw WQ_PERCPU $(phyllo_khdr)/workqueue.h && echo y),)
ccflags-y += -DPHYLLO_NO_WQ_PERCPU
endif
# 6.10 added kfifo_skip_count(); before it, the flush copies out what it
# discards.
ifeq ($(shell grep -qsw kfifo_skip_count $(phyllo_khdr)/kfifo.h && echo y),)
ccflags-y += -DPHYLLO_NO_KFIFO_SKIP_COUNT
endif
# 6.13 made symbol namespaces strings: MODULE_IMPORT_NS("NS"); before, the
# macro stringified a bare name.
ifeq ($(shell grep -qs 'import_ns, __stringify(ns)' $(phyllo_khdr)/module.h && echo y),y)
ccflags-y += -DPHYLLO_NS_TOKEN
endif
