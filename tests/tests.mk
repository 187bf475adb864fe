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
		tests/kernel/kmod.sh $(BUILD)/kmod/$$kver /lib/modules/$$kver/build >/dev/null

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

# make bench: the host path, kernel line discipline against the userspace
# stack, and libphyllo against bare read/write, in one guest run
# (tests/bench/). N1..N4 set the sizes.
.PHONY: bench
bench: demo-deps
	@$(MAKE) --no-print-directory $(HOST)/phyllo $(HOST)/lib-overhead demo-kmod >/dev/null
	tests/bench/bench.sh

$(HOST)/lib-overhead: tests/bench/lib-overhead.c $(HOST)/libphyllo.a userspace/include/libphyllo.h
	$(CC) $(PHYLLO_CFLAGS) -Iuserspace/include -O2 $< $(HOST)/libphyllo.a -o $@ $(PHYLLO_LIBS)
