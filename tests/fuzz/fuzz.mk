# SPDX-License-Identifier: GPL-2.0-only OR MIT
# libFuzzer targets: one per decoder of the core and one for the whole
# stack (tests/fuzz/README.md says what each checks).
#
#   make fuzz        every target, one after another: its regressions, then
#                    FUZZ_SECONDS (default 60) of fuzzing, or FUZZ_RUNS runs
#                    if set; new inputs are kept in build/fuzz/corpus/
#   make fuzz-short  (check) the regressions, then FUZZ_SHORT_RUNS runs per
#                    target from the committed seeds with a fixed -seed: the
#                    same inputs every time, no wall-clock limit
#   make fuzz-build  only the binaries (build/fuzz/fuzz_NAME)
# FUZZ_TARGETS=stack limits either to some targets.

FUZZ_TARGETS ?= cobs datagram msgpack pubsub stack
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?=
FUZZ_SHORT_RUNS ?= 40000
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_CC := clang
FUZZ_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wundef -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-Icore -Icore/tests -Itests/fuzz
FUZZ_CORE_SRC := $(wildcard core/*.c)
FUZZ_HDR := $(wildcard core/*.h) $(wildcard tests/fuzz/*.h)
# Longest input per target: the stack's scripts run to 1 KB (some 200
# operations); the decoders see a frame and more.
FUZZ_MAXLEN_cobs := 1024
FUZZ_MAXLEN_datagram := 512
FUZZ_MAXLEN_msgpack := 1024
FUZZ_MAXLEN_pubsub := 512
FUZZ_MAXLEN_stack := 1024
# While a core bug a target found is open, the one check it trips is off
# for that target's fuzzing: FUZZ_OPEN_CFLAGS_NAME := -fno-sanitize=...
# (its reproducer, regress/fuzz_NAME/open-*, still runs with every check
# and must still fail). None is open now.

FUZZ_FLAGS = -max_len=$(FUZZ_MAXLEN_$(1)) -timeout=30 -rss_limit_mb=2048 \
	-artifact_prefix=$(FUZZ_DIR)/crash-$(1)-

CHECK_TARGETS += fuzz-short

.PHONY: fuzz fuzz-short fuzz-build fuzz-deps
fuzz-deps:
	@scripts/deps.sh fuzz

$(FUZZ_DIR)/fuzz_stack $(FUZZ_DIR)/fuzz_stack-open: tests/fuzz/fuzz_stack_out.c

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_CORE_SRC) $(FUZZ_HDR)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(filter %.c,$^) -o $@

# The fuzzing binary: the strict one unless a bug is open.
$(FUZZ_DIR)/fuzz_%-open: tests/fuzz/fuzz_%.c $(FUZZ_CORE_SRC) $(FUZZ_HDR)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_OPEN_CFLAGS_$*) $(filter %.c,$^) -o $@

fuzz-build: fuzz-deps
	@$(MAKE) --no-print-directory $(foreach t,$(FUZZ_TARGETS),$(FUZZ_DIR)/fuzz_$(t) \
		$(if $(FUZZ_OPEN_CFLAGS_$(t)),$(FUZZ_DIR)/fuzz_$(t)-open))

fuzz_bin = $(FUZZ_DIR)/fuzz_$(1)$(if $(FUZZ_OPEN_CFLAGS_$(1)),-open)

fuzz: fuzz-build
	@$(foreach t,$(FUZZ_TARGETS),\
		echo "== fuzz_$(t): $(if $(FUZZ_RUNS),$(FUZZ_RUNS) runs,$(FUZZ_SECONDS) s)" && \
		nice tests/fuzz/run.sh $(call fuzz_bin,$(t)) $(FUZZ_DIR)/fuzz_$(t) $(t) \
			$(FUZZ_DIR)/corpus/fuzz_$(t) $(FUZZ_DIR)/log/fuzz_$(t).log -- \
			$(call FUZZ_FLAGS,$(t)) \
			$(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS),-max_total_time=$(FUZZ_SECONDS)) &&) true

fuzz-short: fuzz-build
	@$(foreach t,$(FUZZ_TARGETS),\
		echo "== fuzz_$(t): $(FUZZ_SHORT_RUNS) runs, -seed=1" && \
		rm -rf $(FUZZ_DIR)/short/fuzz_$(t) && \
		nice tests/fuzz/run.sh $(call fuzz_bin,$(t)) $(FUZZ_DIR)/fuzz_$(t) $(t) \
			$(FUZZ_DIR)/short/fuzz_$(t) $(FUZZ_DIR)/log/short-fuzz_$(t).log -- \
			$(call FUZZ_FLAGS,$(t)) -runs=$(FUZZ_SHORT_RUNS) -seed=1 &&) true
	@echo "fuzz-short: every target ran $(FUZZ_SHORT_RUNS) inputs, no crash"
