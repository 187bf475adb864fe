# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# firmware/firmware.mk - AVR firmware, its simulator tests and benchmarks,
# the Arduino library. Included by the top-level Makefile.
#
#   make firmware         every build below, -Werror, then an avr-size table
#   make test-firmware    on simavr: core tests, echo sessions through a pty,
#                         lossy link, line noise (tests/firmware/run.sh)
#   make bench-firmware   cycles per echo, rates, RAM/flash -> build/firmware/bench.json
#   make arduino-zip      build/Phyllo.zip, installable from the Arduino IDE
#                         (PHYLLO_URL=...: its library.properties' url=)
#   make arduino-examples every example, Uno and Micro, arduino-builder, from the
#                         clone and from the zip (part of test-firmware)
#   make test-arduino     the library's C++ layer on the host (tests/arduino)
#   make flash BOARD=uno|nano|nano-old|micro [PORT=/dev/ttyACM0] [FIRMWARE=...]
#                         [BOOT_PORT=...]: avrdude only (firmware/flash.sh)
#
# A build is BOARD-PRESET[-VARIANT]; its flags are FW_FLAGS_<name>.

AVR_CC      ?= avr-gcc
AVR_SIZE    ?= avr-size
AVR_OBJCOPY ?= avr-objcopy
FW_BUILD    := $(BUILD)/firmware
FW_F_CPU    := 16000000UL
FW_WARN     := -Wall -Wextra -Werror -Wundef -Wshadow -Wstrict-prototypes
# r4 to r7 belong to the UART handlers (uart.c): no object of the image
# may use them (tests/firmware/fixed-regs.sh checks the linked image).
FW_FIXED    := -ffixed-r4 -ffixed-r5 -ffixed-r6 -ffixed-r7 -DPHYLLO_FW_FIXED_R4_R7=1
# -mstrict-X: X only for plain and post-increment accesses, as the
# hardware has it (no offsets to fake with adiw/sbiw): 62 bytes of the
# Uno's flash and 48 busy cycles per small echo at 1 Mbaud.
FW_CFLAGS   := -std=gnu11 -Os -g $(FW_WARN) -DF_CPU=$(FW_F_CPU) $(FW_FIXED) -mstrict-X \
	-ffunction-sections -fdata-sections -fshort-enums -flto \
	-Icore -Ifirmware
# -mrelax: the linker turns each call and jump whose target is near into
# its 2-byte form (rcall, rjmp), a cycle less each: 80 bytes of the Uno's
# flash and 85 busy cycles per small echo at 1 Mbaud.
FW_LDFLAGS  := -Wl,--gc-sections -mrelax
FW_SRCS     := firmware/main.c firmware/uart.c firmware/clock.c firmware/phyllo_node.c \
	$(filter-out %_test.c,$(wildcard core/phyllo_*.c))

FW_MCU_uno   := atmega328p
FW_MCU_micro := atmega32u4
# Window storage per board: each slot is ~245 bytes of the Uno's 2 KB.
FW_WIN_uno   := 2
FW_WIN_micro := 4
# Rings per board (powers of two); the Micro has 512 more bytes of RAM.
FW_RING_uno   := -DPHYLLO_FW_RX_RING=128 -DPHYLLO_FW_TX_RING=64
FW_RING_micro := -DPHYLLO_FW_RX_RING=256 -DPHYLLO_FW_TX_RING=64

fw_std = -DPHYLLO_FW_PRESET=2 -DPHYLLO_FW_APP_PUBSUB=1 -DPHYLLO_ARQ_WINDOW_MAX=$(FW_WIN_$(1)) $(FW_RING_$(1))
FW_FLAGS_uno-standard      := $(call fw_std,uno)
FW_FLAGS_uno-standard-1m   := $(call fw_std,uno) -DPHYLLO_FW_BAUD=1000000UL
FW_FLAGS_uno-reduced       := -DPHYLLO_FW_PRESET=1 -DPHYLLO_FW_APP_PUBSUB=1 -DPHYLLO_ARQ_WINDOW_MAX=1
FW_FLAGS_uno-minimal       := -DPHYLLO_FW_PRESET=0 -DPHYLLO_FW_APP_PUBSUB=0 -DPHYLLO_ARQ_WINDOW_MAX=1
FW_FLAGS_micro-standard    := $(call fw_std,micro)
FW_FLAGS_micro-standard-1m := $(call fw_std,micro) -DPHYLLO_FW_BAUD=1000000UL
FW_FLAGS_micro-reduced     := $(FW_FLAGS_uno-reduced)
FW_FLAGS_micro-minimal     := $(FW_FLAGS_uno-minimal)
FW_TARGETS := uno-standard uno-standard-1m uno-reduced uno-minimal \
	micro-standard micro-standard-1m micro-reduced micro-minimal
FW_ELFS := $(foreach t,$(FW_TARGETS),$(FW_BUILD)/$(t)/phyllo-$(t).elf)

# $(1) = build name; the board is the part before the first dash.
define fw_build
FW_OBJS_$(1) := $$(patsubst %.c,$(FW_BUILD)/$(1)/%.o,$$(FW_SRCS))
$(FW_BUILD)/$(1)/flags: FORCE
	@mkdir -p $$(@D)
	@echo '$$(FW_CFLAGS) $$(FW_FLAGS_$(1)) $$(FW_LDFLAGS)' | cmp -s - $$@ || \
		echo '$$(FW_CFLAGS) $$(FW_FLAGS_$(1)) $$(FW_LDFLAGS)' > $$@
$(FW_BUILD)/$(1)/%.o: %.c $(FW_BUILD)/$(1)/flags
	@mkdir -p $$(@D)
	@echo "  AVR-CC  $(1)/$$<"
	@$$(AVR_CC) -mmcu=$$(FW_MCU_$(firstword $(subst -, ,$(1)))) $$(FW_CFLAGS) \
		$$(FW_FLAGS_$(1)) -MMD -MP -c $$< -o $$@
$(FW_BUILD)/$(1)/phyllo-$(1).elf: $$(FW_OBJS_$(1))
	@echo "  AVR-LD  $$@"
	@$$(AVR_CC) -mmcu=$$(FW_MCU_$(firstword $(subst -, ,$(1)))) $$(FW_CFLAGS) \
		$$(FW_LDFLAGS) $$^ -o $$@
$(FW_BUILD)/$(1)/phyllo-$(1).hex: $(FW_BUILD)/$(1)/phyllo-$(1).elf
	@$$(AVR_OBJCOPY) -O ihex -R .eeprom $$< $$@
-include $$(FW_OBJS_$(1):.o=.d)
endef
$(foreach t,$(FW_TARGETS),$(eval $(call fw_build,$(t))))

.PHONY: firmware deps-avr flash FORCE
FORCE:
deps-avr:
	@$(DEPS) avr

firmware: deps-avr $(FW_ELFS) $(FW_ELFS:.elf=.hex)
	@firmware/size-table.sh $(FW_ELFS) | tee $(FW_BUILD)/size.txt

# Flash real hardware with avrdude alone (firmware/flash.sh; deps.sh flash).
# BOARD: uno, nano (optiboot, 115200), nano-old (the old bootloader,
# 57600), micro. The Uno and Nano take the Uno's builds (FIRMWARE: standard,
# reduced, minimal, standard-1m). The bare Micro firmware talks on pins 0/1
# (USB off), so by default the Micro gets the Arduino library's Echo sketch
# built for it, whose link is its USB serial port (what PORT names);
# FIRMWARE=standard (or another) flashes the bare UART build instead. The
# Micro's bootloader may come up on another port: BOOT_PORT names it, else
# flash.sh finds it.
BOARD     ?= uno
FIRMWARE  ?= $(if $(filter micro,$(BOARD)),usb,standard)
PORT      ?= /dev/ttyACM0
BOOT_PORT ?=
FW_FLASH_BUILD = $(if $(filter uno nano nano-old,$(BOARD)),uno,$(BOARD))
FW_FLASH_HEX = $(strip $(if $(filter usb,$(FIRMWARE)),$(BUILD)/arduino/out/$(BOARD)/Echo.hex,\
	$(FW_BUILD)/$(FW_FLASH_BUILD)-$(FIRMWARE)/phyllo-$(FW_FLASH_BUILD)-$(FIRMWARE).hex))
.PHONY: deps-flash
deps-flash:
	@scripts/deps.sh flash

flash: deps-avr deps-flash
	@case "$(BOARD)" in uno|nano|nano-old|micro) ;; *) echo "make flash: BOARD=$(BOARD): \
boards are uno, nano, nano-old (57600, the old bootloader), micro"; exit 2 ;; esac
	@$(MAKE) --no-print-directory $(FW_FLASH_HEX)
	firmware/flash.sh $(BOARD) $(FW_FLASH_HEX) $(PORT) $(BOOT_PORT)

# The Arduino library's Echo sketch as a hex, for `make flash BOARD=micro`.
$(BUILD)/arduino/out/%/Echo.hex: FORCE
	@$(MAKE) --no-print-directory arduino-examples
	avr-objcopy -O ihex -R .eeprom $(BUILD)/arduino/out/$*/Echo.elf $@

# ---- simulator harness (host) ------------------------------------------
FW_SIM      := $(HOST)/phyllo-simavr
FW_SIM_CORE := $(filter-out %_test.c,$(wildcard core/phyllo_*.c))
FW_SIM_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Icore -Iuserspace \
	$(shell pkg-config --cflags simavr 2>/dev/null || echo -I/usr/include/simavr)
FW_SIM_LIBS := $(shell pkg-config --libs simavr 2>/dev/null || echo -lsimavr) -lelf

$(FW_SIM): tests/simavr/phyllo_simavr.c userspace/util.c $(FW_SIM_CORE) $(wildcard core/*.h) | deps-avr
	@mkdir -p $(@D)
	$(CC) $(FW_SIM_CFLAGS) tests/simavr/phyllo_simavr.c userspace/util.c $(FW_SIM_CORE) -o $@ $(FW_SIM_LIBS)

.PHONY: simavr-harness
simavr-harness: $(FW_SIM)

# ---- core suites on the simulated AVR -----------------------------------
FW_TEST_MCU    := atmega328p
FW_TEST_SUITES := cobs crc layers msgpack stack arq arq_ack session
# One suite per binary, each within the Uno's 2 KB: the arq suite needs
# windows of 4, the stack suite's default window fits one slot.
FW_TEST_WIN_stack := 1
FW_TEST_CFLAGS := -mmcu=$(FW_TEST_MCU) -std=gnu11 -Os -g -Wall -Wextra -Werror -Wundef \
	-DF_CPU=$(FW_F_CPU) -DPTEST_SCALE=10 \
	-ffunction-sections -fdata-sections -Wl,--gc-sections \
	-Icore -Itests -Itests/vectors -Icore/tests
FW_TEST_ELFS := $(foreach s,$(FW_TEST_SUITES),$(FW_BUILD)/core-tests/$(s).elf)

$(FW_BUILD)/core-tests/%.elf: firmware/firmware.mk $(wildcard core/*.c core/*.h core/tests/*.c core/tests/*.h tests/*.c tests/*.h tests/vectors/*) tests/firmware/main_avr.c
	@mkdir -p $(@D)
	@echo "  AVR-CC  core-tests/$*"
	@$(AVR_CC) $(FW_TEST_CFLAGS) -DPTEST_AVR_SUITE=phyllo_suite_$* \
		-DPHYLLO_ARQ_WINDOW_MAX=$(or $(FW_TEST_WIN_$*),4) $(filter-out %_test.c,$(wildcard core/phyllo_*.c)) \
		core/tests/test_$*.c tests/ptest.c tests/vectors/phyllo_tuples.c tests/firmware/main_avr.c -o $@
.PHONY: fw-core-tests
fw-core-tests: deps-avr $(FW_TEST_ELFS)

# ---- make test-firmware -------------------------------------------------
.PHONY: test-firmware
test-firmware: firmware arduino-examples fw-core-tests $(FW_SIM) $(HOST)/phyllo
	tests/firmware/run.sh $(BUILD) $(HOST)

# ---- make bench-firmware ------------------------------------------------
.PHONY: bench-firmware
bench-firmware: firmware $(FW_SIM)
	python3 firmware/bench.py $(BUILD) $(HOST)

# ---- Arduino library ------------------------------------------------------
# The library is firmware/arduino itself (src/ forwards to core/ and the
# node, see stage.sh); the zip carries the files. arduino-examples builds
# every example for the Uno and the Micro with arduino-builder twice: the
# library as a clone gives it (firmware/arduino symlinked into a libraries
# folder, as a user links it into ~/Arduino/libraries) and as the zip
# installs it (unpacked). test-firmware runs the zip's Uno ELFs.
ARD_LIB   := $(BUILD)/arduino/Phyllo
ARD_ZIP   := $(BUILD)/Phyllo.zip
ARD_CLONE := $(BUILD)/arduino/libs-clone
ARD_UNZIP := $(BUILD)/arduino/libs-zip
ARD_CACHE := $(BUILD)/arduino/core-cache
ARD_BOARDS := uno micro
.PHONY: deps-arduino arduino-lib arduino-examples arduino-zip
deps-arduino: deps-avr
	@$(DEPS) arduino

arduino-lib: deps-arduino
	@PHYLLO_URL='$(PHYLLO_URL)' firmware/arduino/stage.sh $(ARD_LIB)

arduino-zip: arduino-lib
	@rm -f $(ARD_ZIP)
	@cd $(dir $(ARD_LIB)) && zip -qr $(ARD_ZIP) $(notdir $(ARD_LIB))
	@echo "written: $(ARD_ZIP) (Arduino IDE: Sketch > Include Library > Add .ZIP Library)"

arduino-examples: arduino-zip
	@rm -rf $(ARD_CLONE) $(ARD_UNZIP)
	@mkdir -p $(ARD_CLONE) $(ARD_UNZIP)
	@ln -s $(CURDIR)/firmware/arduino $(ARD_CLONE)/Phyllo
	@unzip -q $(ARD_ZIP) -d $(ARD_UNZIP)
	@echo "Arduino examples, arduino-builder, the library from the clone:"
	@firmware/arduino/build-examples.sh $(ARD_CLONE) $(BUILD)/arduino/out-clone $(ARD_CACHE) $(ARD_BOARDS)
	@echo "Arduino examples, arduino-builder, the library from $(notdir $(ARD_ZIP)):"
	@firmware/arduino/build-examples.sh $(ARD_UNZIP) $(BUILD)/arduino/out $(ARD_CACHE) $(ARD_BOARDS)
	@echo "The sketch of firmware/README.md, as written there:"
	@rm -rf $(BUILD)/arduino/readme && firmware/arduino/readme-sketch.sh $(BUILD)/arduino/readme
	@SKETCHES=$(BUILD)/arduino/readme/Readme/ firmware/arduino/build-examples.sh $(ARD_UNZIP) \
		$(BUILD)/arduino/out-readme $(ARD_CACHE) uno
	@echo "The test sketches of tests/firmware/arduino/ (the burst of run.sh at 500 kbaud):"
	@SKETCHES=$(CURDIR)/tests/firmware/arduino/Echo500k/ firmware/arduino/build-examples.sh \
		$(ARD_UNZIP) $(BUILD)/arduino/out-tests $(ARD_CACHE) uno

# The library's C++ layer on the host (ASan, UBSan), from the library's own
# files (forwarders included) with a stand-in Arduino.h: tests/arduino/.
ARD_TEST_SRCS := $(wildcard firmware/arduino/src/*.c firmware/arduino/src/*.cpp)
ARD_TEST_FLAGS := -O1 -g -Wall -Wextra -Werror -Wundef -Wshadow \
	-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
	-Itests/arduino -Ifirmware/arduino/src -Itests
$(HOST)/test-arduino: $(ARD_TEST_SRCS) tests/arduino/test_arduino.cpp tests/arduino/Arduino.h \
		tests/ptest.c tests/ptest.h $(wildcard firmware/arduino/src/*.h firmware/*.[ch] core/*.[ch]) \
		| deps-arduino
	@rm -rf $(@D)/test-arduino.o && mkdir -p $(@D)/test-arduino.o
	@for f in $(filter %.c,$(ARD_TEST_SRCS)) tests/ptest.c; do \
		$(CC) -std=gnu11 -Wstrict-prototypes $(ARD_TEST_FLAGS) -c $$f \
			-o $(@D)/test-arduino.o/$$(basename $$f).o || exit 1; \
	done
	$(CXX) -std=gnu++11 $(ARD_TEST_FLAGS) $(filter %.cpp,$(ARD_TEST_SRCS)) \
		tests/arduino/test_arduino.cpp $(@D)/test-arduino.o/*.o -o $@

.PHONY: test-arduino
test-arduino: deps-arduino $(HOST)/test-arduino
	$(HOST)/test-arduino

CHECK_TARGETS += firmware test-firmware test-arduino

# ---- the other boards -----------------------------------------------------
include firmware/cortexm/cortexm.mk
include firmware/megaavr/megaavr.mk
