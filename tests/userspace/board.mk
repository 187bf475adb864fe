# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# tests/userspace/board.mk - make test-uno (check): the tool's first
# commands, with no options, against the Uno firmware on phyllo-simavr
# (tests/userspace/test-uno.sh: the default speed, the board's counters
# by name, the window its handshake offers, a wrong preset diagnosed, the
# --tty commands of phyllo(1)'s EXAMPLES as written, make try and the
# README's lines against it as written), and
# what `make flash` would run for each board (tests/userspace/test-flash.sh).
# Included by the top-level Makefile after firmware/firmware.mk.

CHECK_TARGETS += test-uno
.PHONY: test-uno
test-uno: deps-avr $(HOST)/phyllo-san $(FW_SIM) $(FW_BUILD)/uno-standard/phyllo-uno-standard.elf \
		arduino-zip $(HOST)/phyllo libphyllo
	tests/userspace/test-uno.sh $(BUILD) $(HOST)/phyllo-san $(MAKE)
	tests/userspace/test-flash.sh $(MAKE)
