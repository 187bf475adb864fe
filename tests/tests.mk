# SPDX-License-Identifier: GPL-2.0-only OR MIT
# End to end: the emulated Uno and the kernel line discipline (tests/demo/).
#
#   make demo         the README's first command: 200 echoes of each tuple
#   make demo-short   the same with 50 (part of make check)

DEMO_FW := $(BUILD)/firmware/uno-standard/phyllo-uno-standard.elf

.PHONY: demo demo-short demo-deps demo-kmod demo-example
demo-deps:
	@scripts/deps.sh core avr qemu

# phyllo.ko for the kernel the guest boots (Debian's linux-image-amd64)
demo-kmod: demo-deps
	@kver=$$(tests/qemu/kver.sh) && echo "demo: building phyllo.ko for $$kver" && \
		kernel/kmod.sh $(BUILD)/kmod/$$kver /lib/modules/$$kver/build >/dev/null

# The README's libphyllo example, built as the README says (make install,
# then cc with pkg-config): the guest runs it against the board.
demo-example: demo-deps
	@tests/userspace/readme-example.sh $(MAKE) $(BUILD)/demo/example

demo: demo-deps
	@echo "demo: building the phyllo tool, the README's libphyllo example, the Uno firmware and the simulator"
	@$(MAKE) --no-print-directory $(HOST)/phyllo $(DEMO_FW) $(FW_SIM) demo-example >/dev/null
	@$(MAKE) --no-print-directory demo-kmod
	tests/demo/demo.sh 200

demo-short: demo-deps
	@$(MAKE) --no-print-directory $(HOST)/phyllo $(DEMO_FW) $(FW_SIM) demo-example demo-kmod >/dev/null
	tests/demo/demo.sh 50 1

CHECK_TARGETS += demo-short

# make bench: the deterministic bench twice (both ends in one qemu guest
# under -icount, tests/bench/icount.sh; BENCH_N, BENCH_NHOG set the sizes),
# its tables, the two runs compared and the CDF plot in $(BUILD)/bench/;
# then its scaling series once (1 to 32 links, 1 to 32 readers on one
# link, tests/bench/icount-scale.sh; BENCH_WIN sets its window), its table,
# goals and plot in $(BUILD)/bench/scale.*; then the old TCG bench as a
# second opinion (the host path, kernel line discipline against the
# userspace stack, libphyllo against bare read/write; N1..N4 set its sizes).
.PHONY: bench bench-short
bench: demo-deps
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory $(HOST)/phyllo $(HOST)/lib-overhead $(HOST)/bench-app demo-kmod >/dev/null
	BUILD=$(BUILD) tests/bench/icount.sh $(BUILD)/bench/icount-1.txt
	BUILD=$(BUILD) tests/bench/icount.sh $(BUILD)/bench/icount-2.txt
	/usr/bin/python3 tests/bench/icount-report.py $(BUILD)/bench/icount $(BUILD)/bench/icount-1.txt $(BUILD)/bench/icount-2.txt
	BUILD=$(BUILD) BENCH_RUN=scale tests/bench/icount.sh $(BUILD)/bench/scale.txt
	/usr/bin/python3 tests/bench/icount-scale-report.py --tree "$$(git rev-parse --short HEAD)$$(git diff --quiet HEAD -- kernel core userspace tests/bench || echo +changes) $$(date -u +%F)" $(BUILD)/bench/scale $(BUILD)/bench/scale.txt
	BUILD=$(BUILD) tests/bench/bench.sh

# make bench-short: the deterministic bench with 20 units a run (10 beside
# the hogs), and the scaling series' smallest and largest points (1 and 32
# links, 1 and 32 readers) in a 500 ms window; fails unless every scenario
# row and every point of every path has figures. Never a timing assertion.
bench-short: demo-deps
	@$(MAKE) --no-print-directory $(HOST)/phyllo $(HOST)/bench-app demo-kmod >/dev/null
	BUILD=$(BUILD) BENCH_N=20 BENCH_NHOG=10 tests/bench/icount.sh $(BUILD)/bench/short.txt
	/usr/bin/python3 tests/bench/icount-report.py --check $(BUILD)/bench/short.txt
	BUILD=$(BUILD) BENCH_RUN=scale BENCH_LINKS=1,32 BENCH_READERS=1,32 BENCH_WIN=500 tests/bench/icount.sh $(BUILD)/bench/scale-short.txt
	/usr/bin/python3 tests/bench/icount-scale-report.py --check 1,32 1,32 $(BUILD)/bench/scale-short.txt

CHECK_TARGETS += bench-short

$(HOST)/bench-app: tests/bench/bench-app.c $(HOST)/libphyllo.a userspace/include/libphyllo.h
	$(CC) $(PHYLLO_CFLAGS) -Iuserspace/include -O2 $< $(HOST)/libphyllo.a -o $@ -lpthread $(PHYLLO_LIBS)

$(HOST)/lib-overhead: tests/bench/lib-overhead.c $(HOST)/libphyllo.a userspace/include/libphyllo.h
	$(CC) $(PHYLLO_CFLAGS) -Iuserspace/include -O2 $< $(HOST)/libphyllo.a -o $@ $(PHYLLO_LIBS)
