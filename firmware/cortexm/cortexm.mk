# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# firmware/cortexm/cortexm.mk - the Cortex-M firmware, included by
# firmware/firmware.mk. One build per (board, CPU):
#
#   cm-an385     qemu mps2-an385, Cortex-M3 (stands for the Arduino Due)
#   cm-an386     qemu mps2-an386, Cortex-M4 (stands for the Teensy 3.6)
#   cm-an500     qemu mps2-an500, Cortex-M7 (stands for the Teensy 4.0)
#   cm-microbit  qemu microbit,   Cortex-M0 (stands for the Teensy LC)
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
CM_QEMU_TARGETS := cm-an385 cm-an386 cm-an500 cm-microbit
CM_TARGETS := $(CM_QEMU_TARGETS)
CM_ELFS := $(foreach t,$(CM_TARGETS),$(FW_BUILD)/$(t)/phyllo-$(t).elf)

cm_flags = -mcpu=$(CM_CPU_$(1)) -I$(CM_DIR)/boards/$(CM_BOARD_$(1)) \
	-DPHYLLO_FW_PRESET=2 -DPHYLLO_FW_APP_PUBSUB=1 -DPHYLLO_ARQ_WINDOW_MAX=$(CM_WIN_$(1))

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
-include $$(CM_OBJS_$(1):.o=.d)
endef
$(foreach t,$(CM_TARGETS),$(eval $(call cm_build,$(t))))

.PHONY: deps-cortexm firmware-cortexm
deps-cortexm:
	@scripts/deps.sh cortexm

firmware-cortexm: deps-cortexm $(CM_ELFS)
	@$(CM_DIR)/size-table.sh $(CM_ELFS) | tee $(FW_BUILD)/size-cortexm.txt

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
# qemu-system-arm (tests/cortexm/demo.sh). COUNT echoes per tuple.
CM_DEMO_cortex-m3 := cm-an385
CM_DEMO_cortex-m4 := cm-an386
CM_DEMO_cortex-m7 := cm-an500
CM_DEMO_cortex-m0 := cm-microbit
CM_DEMO := $(or $(CM_DEMO_$(BOARD)),cm-an500)
.PHONY: demo-cortexm
demo-cortexm: demo-deps deps-cortexm
	@$(MAKE) --no-print-directory $(HOST)/phyllo $(FW_BUILD)/$(CM_DEMO)/phyllo-$(CM_DEMO).elf \
		demo-kmod >/dev/null
	CM=$(CM_DEMO) tests/cortexm/demo.sh $(BUILD) $(or $(COUNT),200)
