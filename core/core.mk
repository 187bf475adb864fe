# SPDX-License-Identifier: GPL-2.0-only OR MIT
# Protocol core: host unit tests (ASan + UBSan), AVR compile check, bench.

WARN := -Wall -Wextra -Werror -Wundef
HOST_CFLAGS := -std=gnu11 -O1 -g $(WARN) -fsanitize=address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer
CORE_SRC := $(wildcard core/*.c)
CORE_HDR := $(wildcard core/*.h) $(wildcard tests/vectors/*.h) tests/ptest.h
CORE_TEST_SRC := $(wildcard core/tests/test_*.c) tests/ptest.c tests/vectors/phyllo_tuples.c
TEST_INC := -Icore -Itests -Itests/vectors

CHECK_TARGETS += test-core core-avr

.PHONY: test-core core-avr bench-core

$(HOST)/test-core: $(CORE_SRC) $(CORE_TEST_SRC) core/tests/main_host.c $(wildcard core/tests/host_*.c core/tests/*.h) $(CORE_HDR)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(TEST_INC) $(CORE_SRC) $(CORE_TEST_SRC) \
		$(wildcard core/tests/host_*.c) core/tests/main_host.c -o $@

test-core: deps-core $(HOST)/test-core
	$(HOST)/test-core

# The core compiles unchanged for the Uno; print what each layer costs.
AVR_CORE_CFLAGS := -mmcu=atmega328p -Os -std=gnu99 $(WARN) -ffunction-sections -fdata-sections
core-avr:
	@scripts/deps.sh avr
	@mkdir -p $(BUILD)/avr-core
	@for f in $(CORE_SRC); do \
		avr-gcc $(AVR_CORE_CFLAGS) -Icore -c $$f -o $(BUILD)/avr-core/$$(basename $$f .c).o || exit 1; \
	done
	@echo "core objects, avr-gcc -mmcu=atmega328p -Os (bytes):"
	@cd $(BUILD)/avr-core && avr-size -t *.o

# bench-core: host MB/s per preset, then exact AVR cycles under simavr.
# The AVR code is generated as the firmware's is (firmware/firmware.mk:
# -Os, whole-program -flto, -fshort-enums), so the cycles are the ones the
# firmware spends; the same code built file by file (no -flto) is run too,
# and its tuple totals printed beside them.
AVR_BENCH_FLAGS := $(AVR_CORE_CFLAGS) -fshort-enums -DPHYLLO_ARQ_WINDOW_MAX=2 -Wl,--gc-sections
AVR_BENCH_SRC := $(CORE_SRC) tests/vectors/phyllo_tuples.c tests/core-bench/bench_avr.c
bench-core: deps-core
	@scripts/deps.sh avr
	@mkdir -p $(BUILD)/bench $(BUILD)/avr-core $(HOST)
	$(CC) -O2 -std=gnu11 $(WARN) -Icore $(CORE_SRC) tests/core-bench/bench_host.c -o $(HOST)/bench-core
	$(HOST)/bench-core | tee $(BUILD)/bench/core-host.txt
	avr-gcc $(AVR_BENCH_FLAGS) -flto -Icore -Itests -Itests/vectors $(AVR_BENCH_SRC) \
		-o $(BUILD)/avr-core/bench.elf
	avr-gcc $(AVR_BENCH_FLAGS) -Icore -Itests -Itests/vectors $(AVR_BENCH_SRC) \
		-o $(BUILD)/avr-core/bench-nolto.elf
	tests/core-bench/run-avr.sh $(BUILD)/avr-core/bench.elf $(BUILD)/bench/core-avr.json \
		$(BUILD)/avr-core/bench-nolto.elf
