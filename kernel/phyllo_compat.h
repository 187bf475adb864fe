/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * phyllo_compat.h - the kernel API differences between Linux 6.1 and the
 * newest kernel Debian ships, in one place.
 *
 * Contract:
 *  1. The glue is written against the newest API; this header supplies
 *     what an older kernel lacks, keyed on probes of its headers
 *     (phyllo_compat.mk, no LINUX_VERSION_CODE), and nothing
 *     else. No glue function exists twice.
 *  2. A shim takes the newest name and behaves as the newest kernel does.
 *  3. Differences the glue avoids rather than shims: the device class is a
 *     static struct class registered with class_register() (class_create()
 *     lost its owner argument in 6.4), and /dev/phylloN sets no .llseek
 *     (no_llseek went away in 6.12; a NULL llseek on a stream_open()ed
 *     file fails with ESPIPE on every kernel).
 */
#ifndef PHYLLO_COMPAT_H
#define PHYLLO_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/workqueue.h>
#ifndef PHYLLO_NO_KUNIT_VISIBILITY
#include <kunit/visibility.h>
#endif

/*
 * 6.6 changed the ldisc receive hooks to u8 flags and a size_t count; the
 * flags keep their TTY_NORMAL... values, so the glue only casts them.
 * PHYLLO_OLD_TTY_HOOKS, PHYLLO_NO_HRTIMER_SETUP, PHYLLO_NO_WQ_PERCPU,
 * PHYLLO_NO_KUNIT_VISIBILITY and PHYLLO_NS_TOKEN come from probing the
 * kernel's headers (phyllo_compat.mk).
 */
#ifdef PHYLLO_OLD_TTY_HOOKS
#define PHYLLO_TTY_FLAG		char
#define PHYLLO_TTY_COUNT	int
#else
#define PHYLLO_TTY_FLAG		u8
#define PHYLLO_TTY_COUNT	size_t
#endif

/* 6.13 added hrtimer_setup(); later kernels removed hrtimer_init(). */
#ifdef PHYLLO_NO_HRTIMER_SETUP
static inline void
hrtimer_setup(struct hrtimer *timer,
	      enum hrtimer_restart (*function)(struct hrtimer *),
	      clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

/*
 * WQ_PERCPU names what a workqueue without WQ_UNBOUND always was: bound to
 * the CPU that queues the work. Newer kernels warn when neither is given.
 */
#ifdef PHYLLO_NO_WQ_PERCPU
#define WQ_PERCPU 0
#endif

/*
 * The internal functions the KUnit suites (phyllo_kunit) call are exported
 * to them with EXPORT_SYMBOL_IF_KUNIT(), in the EXPORTED_FOR_KUNIT_TESTING
 * namespace and only when KUnit is on; the core's files reach it through
 * this header too (PHYLLO_EXPORT_HEADER, core/phyllo_types.h). A kernel without
 * <kunit/visibility.h> (6.1 before it was backported) gets the same
 * macro here.
 */
#ifdef PHYLLO_NO_KUNIT_VISIBILITY
#if IS_ENABLED(CONFIG_KUNIT)
#define EXPORT_SYMBOL_IF_KUNIT(sym) EXPORT_SYMBOL_NS(sym, EXPORTED_FOR_KUNIT_TESTING)
#else
#define EXPORT_SYMBOL_IF_KUNIT(sym) static_assert(__same_type(sym, sym))
#endif
#endif

/*
 * 6.13 made a symbol namespace a string: MODULE_IMPORT_NS("NS"). Before,
 * the macro stringified a bare name into the same "NS".
 */
#ifdef PHYLLO_NS_TOKEN
#undef MODULE_IMPORT_NS
#define MODULE_IMPORT_NS(ns) MODULE_INFO(import_ns, ns)
#endif

#endif /* PHYLLO_COMPAT_H */
