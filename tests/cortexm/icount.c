// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * icount.c - a qemu TCG plugin that counts the instructions the emulated
 * Cortex-M executes, for `make bench-firmware` (tests/cortexm/bench.py).
 *
 * Arguments (-plugin phyllo-icount.so,ctl=FIFO,out=FILE,begin=A,end=A,tick=A):
 *   begin, end  addresses of phyllo_cm_work_begin/_end (cm_main.c): the
 *               instructions between a begin and the next end are "work"
 *   tick        address of the SysTick handler: its entries are counted
 *   ctl, out    every line written to the FIFO ctl makes the plugin append
 *               one line "total work ticks" to out (a snapshot taken while
 *               the guest runs; 64-bit loads are atomic on the host)
 * Counting: each translated block adds its instruction count when it starts
 * (an inline add: no call per instruction), so a snapshot can be ahead by
 * the rest of the current block, and a work bracket is exact to within the
 * two instructions of begin's and end's own blocks.
 *
 * Debian 12's qemu 7.2 is built with plugin support but ships no header:
 * the declarations below are the subset of the documented plugin API
 * (qemu's docs/devel/tcg-plugins.rst, API version 1) this file uses.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the plugin API, as documented ---------------------------------------- */
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
				    void *userdata);
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv);
QEMU_PLUGIN_EXPORT extern int qemu_plugin_version;
QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

/* ---- the counters --------------------------------------------------------- */
enum mark { MARK_BEGIN, MARK_END, MARK_TICK, MARKS };

static uint64_t total, work, ticks, work_start;
static uint64_t mark_addr[MARKS];
static int in_work;
static const char *ctl_path, *out_path;

static void on_mark(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	switch ((enum mark)(uintptr_t)udata) {
	case MARK_BEGIN:
		work_start = total;
		in_work = 1;
		break;
	case MARK_END:
		if (in_work)
			work += total - work_start;
		in_work = 0;
		break;
	default:
		ticks++;
		break;
	}
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &total, n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		int m;

		for (m = 0; m < MARKS; m++)
			if (mark_addr[m] && pc == mark_addr[m])
				qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
					QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)m);
	}
}

static void snapshot(FILE *out)
{
	fprintf(out, "%llu %llu %llu\n", (unsigned long long)total,
		(unsigned long long)work, (unsigned long long)ticks);
	fflush(out);
}

/* One snapshot per line that arrives on the control FIFO. */
static void *control(void *arg)
{
	FILE *out = arg;
	char buf[64];
	int fd = open(ctl_path, O_RDWR);	/* RDWR: no EOF when a writer leaves */
	ssize_t n;

	if (fd < 0)
		return NULL;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		ssize_t i;

		for (i = 0; i < n; i++)
			if (buf[i] == '\n')
				snapshot(out);
	}
	close(fd);
	return NULL;
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	snapshot(udata);
}

int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	static const char *const names[MARKS] = { "begin=", "end=", "tick=" };
	pthread_t thread;
	FILE *out;
	int i, m;

	(void)info;
	for (i = 0; i < argc; i++) {
		for (m = 0; m < MARKS; m++)
			if (!strncmp(argv[i], names[m], strlen(names[m])))
				mark_addr[m] = strtoull(argv[i] + strlen(names[m]), NULL, 0) & ~1ull;
		if (!strncmp(argv[i], "ctl=", 4))
			ctl_path = argv[i] + 4;
		if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
	}
	if (!out_path || !(out = fopen(out_path, "a"))) {
		fprintf(stderr, "phyllo-icount: out=FILE is required and must be writable\n");
		return 1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, at_exit, out);
	if (ctl_path && pthread_create(&thread, NULL, control, out) == 0)
		pthread_detach(thread);
	return 0;
}
