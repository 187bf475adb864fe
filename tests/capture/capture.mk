# SPDX-License-Identifier: GPL-2.0-only OR MIT
# `phyllo capture` and the Wireshark dissector tools/wireshark/phyllo.lua
# under Debian's tshark (deps.sh capture), tests/capture/:
#   test-capture         check: known frames field by field, and a lossy
#                        `phyllo peer` session whose two captures must count
#                        what the peers' stats count
#   test-capture-kernel  check: `phyllo capture --device /dev/phyllo0` (the
#                        module's trace events) in Debian's kernel under
#                        qemu, the module built as make demo builds it,
#                        counted against the link's counters
# The dissector's install (install-capture) is the top-level Makefile's.

CHECK_TARGETS += test-capture test-capture-kernel
.PHONY: test-capture test-capture-kernel deps-capture

deps-capture:
	@scripts/deps.sh capture

test-capture: deps-core deps-capture $(HOST)/phyllo-san
	tests/capture/test-capture.sh $(HOST)/phyllo-san tools/wireshark/phyllo.lua

test-capture-kernel: deps-core deps-capture $(HOST)/phyllo
	@scripts/deps.sh qemu
	@$(MAKE) --no-print-directory demo-kmod >/dev/null
	tests/capture/test-capture-kernel.sh $(BUILD) tools/wireshark/phyllo.lua
