# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# firmware/cortexm/cortexm.mk - the Cortex-M firmware, included by
# firmware/firmware.mk. One build per (board, CPU):
#
#   cm-an385     qemu mps2-an385, Cortex-M3 (stands for the Arduino Due)
#   cm-an386     qemu mps2-an386, Cortex-M4 (stands for the Teensy 3.6)
#   cm-an500     qemu mps2-an500, Cortex-M7 (stands for the Teensy 4.0)
#   cm-microbit  qemu microbit,   Cortex-M0 (stands for the Teensy LC)
#   cm-due       Arduino Due (SAM3X8E, M3)    \  the real boards: built,
#   cm-teensy36  Teensy 3.6 (MK66FX1M0, M4F)   | with size figures; no
#   cm-teensylc  Teensy LC (MKL26Z64, M0+)     | emulator models them and
#   cm-teensy40  Teensy 4.0 (i.MX RT1062, M7) /  no board was at hand
#
# Each is the standard preset with the pub-sub endpoints, -Werror, built
# with Debian's gcc-arm-none-eabi (newlib-nano for memcpy and friends).

CM_CC      ?= arm-none-eabi-gcc
CM_SIZE    ?= arm-none-eabi-size
CM_OBJCOPY ?= arm-none-eabi-objcopy
CM_DIR     := firmware/cortexm
CM_CFLAGS  := -std=gnu11 -Os -g $(FW_WARN) -mthumb -ffunction-sections -fdata-sections \
	-flto -Icore -Ifirmware -I$(CM_DIR)
CM_LDFLAGS := -nostartfiles --specs=nano.specs -Wl,--gc-sections -L$(CM_DIR)
CM_SRCS    := $(CM_DIR)/cm_main.c $(CM_DIR)/cm_uart.c $(CM_DIR)/cm_clock.c \
	$(CM_DIR)/cm_start.c firmware/phyllo_node.c \
	$(filter-out %_test.c,$(wildcard core/phyllo_*.c))

# build -> board folder, CPU, window; the qemu machine for the emulated ones
CM_BOARD_cm-an385    := mps2
CM_BOARD_cm-an386    := mps2
CM_BOARD_cm-an500    := mps2
CM_BOARD_cm-microbit := microbit
CM_CPU_cm-an385      := cortex-m3
CM_CPU_cm-an386      := cortex-m4
CM_CPU_cm-an500      := cortex-m7
CM_CPU_cm-microbit   := cortex-m0
CM_WIN_cm-an385      := 8
CM_WIN_cm-an386      := 8
CM_WIN_cm-an500      := 8
CM_WIN_cm-microbit   := 4
CM_QEMU_cm-an385     := mps2-an385
CM_QEMU_cm-an386     := mps2-an386
CM_QEMU_cm-an500     := mps2-an500
CM_QEMU_cm-microbit  := microbit
CM_BOARD_cm-due      := due
CM_BOARD_cm-teensy36 := teensy36
CM_BOARD_cm-teensylc := teensylc
CM_BOARD_cm-teensy40 := teensy40
CM_CPU_cm-due        := cortex-m3
CM_CPU_cm-teensy36   := cortex-m4
CM_CPU_cm-teensylc   := cortex-m0plus
CM_CPU_cm-teensy40   := cortex-m7
CM_WIN_cm-due        := 8
CM_WIN_cm-teensy36   := 8
CM_WIN_cm-teensylc   := 4
CM_WIN_cm-teensy40   := 8
# 8 KB of RAM on the LC: smaller rings
CM_XFLAGS_cm-teensylc := -DPHYLLO_CM_RX_RING=512 -DPHYLLO_CM_TX_RING=512
CM_QEMU_TARGETS := cm-an385 cm-an386 cm-an500 cm-microbit
CM_BOARD_TARGETS := cm-due cm-teensy36 cm-teensylc cm-teensy40
CM_TARGETS := $(CM_QEMU_TARGETS) $(CM_BOARD_TARGETS)
CM_ELFS := $(foreach t,$(CM_TARGETS),$(FW_BUILD)/$(t)/phyllo-$(t).elf)

cm_flags = -mcpu=$(CM_CPU_$(1)) -I$(CM_DIR)/boards/$(CM_BOARD_$(1)) -I$(CM_DIR)/boards/kinetis \
	-DPHYLLO_FW_PRESET=2 -DPHYLLO_FW_APP_PUBSUB=1 -DPHYLLO_ARQ_WINDOW_MAX=$(CM_WIN_$(1)) \
	$(CM_XFLAGS_$(1))

# $(1) = build name
define cm_build
CM_OBJS_$(1) := $$(patsubst %.c,$(FW_BUILD)/$(1)/%.o,$$(CM_SRCS) \
	$(CM_DIR)/boards/$(CM_BOARD_$(1))/board.c)
$(FW_BUILD)/$(1)/flags: FORCE
	@mkdir -p $$(@D)
	@echo '$$(CM_CFLAGS) $$(call cm_flags,$(1))' | cmp -s - $$@ || \
		echo '$$(CM_CFLAGS) $$(call cm_flags,$(1))' > $$@
$(FW_BUILD)/$(1)/%.o: %.c $(FW_BUILD)/$(1)/flags | deps-cortexm
	@mkdir -p $$(@D)
	@echo "  ARM-CC  $(1)/$$<"
	@$$(CM_CC) $$(CM_CFLAGS) $$(call cm_flags,$(1)) -MMD -MP -c $$< -o $$@
$(FW_BUILD)/$(1)/phyllo-$(1).elf: $$(CM_OBJS_$(1)) $(CM_DIR)/cm_sections.ld \
		$(CM_DIR)/boards/$(CM_BOARD_$(1))/board.ld
	@echo "  ARM-LD  $$@"
	@$$(CM_CC) $$(CM_CFLAGS) $$(call cm_flags,$(1)) $$(CM_LDFLAGS) \
		-T$(CM_DIR)/boards/$(CM_BOARD_$(1))/board.ld \
		-Wl,-Map,$(FW_BUILD)/$(1)/phyllo-$(1).map $$(CM_OBJS_$(1)) -o $$@
$(FW_BUILD)/$(1)/phyllo-$(1).bin: $(FW_BUILD)/$(1)/phyllo-$(1).elf
	@$$(CM_OBJCOPY) -O binary $$< $$@
$(FW_BUILD)/$(1)/phyllo-$(1).hex: $(FW_BUILD)/$(1)/phyllo-$(1).elf
	@$$(CM_OBJCOPY) -O ihex $$< $$@
-include $$(CM_OBJS_$(1):.o=.d)
endef
$(foreach t,$(CM_TARGETS),$(eval $(call cm_build,$(t))))

.PHONY: deps-cortexm firmware-cortexm
deps-cortexm:
	@$(DEPS) cortexm

# Loader formats: .hex for teensy_loader_cli, .bin for bossac.
CM_IMAGES := $(foreach t,cm-teensy36 cm-teensylc cm-teensy40,$(FW_BUILD)/$(t)/phyllo-$(t).hex) \
	$(FW_BUILD)/cm-due/phyllo-cm-due.bin
firmware-cortexm: deps-cortexm $(CM_ELFS) $(CM_IMAGES)
	@$(CM_DIR)/size-table.sh $(CM_ELFS) | tee $(FW_BUILD)/size-cortexm.txt

# Flash a real board (not testable here): make flash-cortexm BOARD=teensy40|
# teensy36|teensylc|due [PORT=/dev/ttyACM0]. teensy_loader_cli waits for
# the Teensy's program button; the Due's programming port is erased by
# opening it at 1200 baud, then bossac writes, verifies, sets boot from
# flash (-b) and resets (-R).
CM_TEENSY_MCU_teensy40 := TEENSY40
CM_TEENSY_MCU_teensy36 := TEENSY36
CM_TEENSY_MCU_teensylc := TEENSYLC
.PHONY: flash-cortexm deps-cortexm-flash
deps-cortexm-flash:
	@scripts/deps.sh cortexm-flash
flash-cortexm: firmware-cortexm | deps-cortexm-flash
ifeq ($(BOARD),due)
	stty -F $(PORT) 1200 && sleep 2
	bossac --port=$(notdir $(PORT)) -U false -e -w -v -b $(FW_BUILD)/cm-due/phyllo-cm-due.bin -R
else
	teensy_loader_cli --mcu=$(CM_TEENSY_MCU_$(BOARD)) -w -v $(FW_BUILD)/cm-$(BOARD)/phyllo-cm-$(BOARD).hex
endif

# ---- the core suites on each emulated board (tests/cortexm/) --------------
CM_TEST_ELFS := $(foreach t,$(CM_QEMU_TARGETS),$(FW_BUILD)/cm-tests/$(t).elf)
CM_TEST_SRCS := tests/cortexm/main_cm.c tests/cortexm/cm_syscalls.c $(CM_DIR)/cm_start.c \
	$(filter-out %_test.c,$(wildcard core/phyllo_*.c)) $(wildcard core/tests/test_*.c) \
	tests/ptest.c tests/vectors/phyllo_tuples.c
CM_TEST_DEPS := $(CM_TEST_SRCS) $(wildcard core/*.h core/tests/*.h tests/*.h tests/vectors/*) \
	$(wildcard $(CM_DIR)/*.h $(CM_DIR)/*.ld $(CM_DIR)/boards/*/*) firmware/cortexm/cortexm.mk

$(FW_BUILD)/cm-tests/%.elf: $(CM_TEST_DEPS) | deps-cortexm
	@mkdir -p $(@D)
	@echo "  ARM-CC  cm-tests/$*"
	@$(CM_CC) $(filter-out -flto,$(CM_CFLAGS)) -mcpu=$(CM_CPU_$*) \
		-I$(CM_DIR)/boards/$(CM_BOARD_$*) -Itests -Itests/vectors -Icore/tests \
		$(CM_LDFLAGS) -T$(CM_DIR)/boards/$(CM_BOARD_$*)/board.ld \
		$(CM_TEST_SRCS) $(CM_DIR)/boards/$(CM_BOARD_$*)/board.c -o $@
.PHONY: cm-core-tests
cm-core-tests: deps-cortexm $(CM_TEST_ELFS)

# ---- make firmware / make test-firmware include the Cortex-M builds -------
.PHONY: test-cortexm
firmware: firmware-cortexm
test-firmware: test-cortexm
test-cortexm: firmware-cortexm cm-core-tests $(HOST)/phyllo
	tests/cortexm/run.sh $(BUILD) $(HOST)

# ---- make demo-cortexm BOARD=cortex-m0|m3|m4|m7 ---------------------------
# The demo's guest and line discipline against the Cortex-M firmware on
# qemu-system-arm (tests/demo/demo.sh with CM set). COUNT echoes per tuple.
CM_DEMO_cortex-m3 := cm-an385
CM_DEMO_cortex-m4 := cm-an386
CM_DEMO_cortex-m7 := cm-an500
CM_DEMO_cortex-m0 := cm-microbit
CM_DEMO := $(or $(CM_DEMO_$(BOARD)),cm-an500)
.PHONY: demo-cortexm
demo-cortexm: demo-deps deps-cortexm
	@$(MAKE) --no-print-directory $(HOST)/phyllo $(FW_BUILD)/$(CM_DEMO)/phyllo-$(CM_DEMO).elf \
		demo-example demo-kmod >/dev/null
	BUILD=$(BUILD) CM=$(CM_DEMO) tests/demo/demo.sh $(or $(COUNT),200)

# ---- make bench-firmware: instructions per echo on each emulated board ----
$(HOST)/phyllo-icount.so: tests/cortexm/icount.c | deps-cortexm
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -fPIC -shared $< -o $@ -lpthread
.PHONY: bench-cortexm
bench-firmware: bench-cortexm
bench-cortexm: firmware-cortexm $(HOST)/phyllo $(HOST)/phyllo-icount.so
	python3 tests/cortexm/bench.py $(BUILD) $(HOST)
