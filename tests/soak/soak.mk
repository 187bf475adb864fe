# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# tests/soak/soak.mk - two `phyllo peer` processes on a pty pair, hostile
# faults both ways, echo peer restarts in the middle; included by the
# top-level Makefile. See tests/soak/README.md.
#   soak        SOAK_UNITS units each way (default 1,000,000), SOAK_RESTARTS
#               restarts (default 2), the optimised build
#   soak-short  SOAK_SHORT_UNITS (default 20,000) and one restart, with
#               the ASan/UBSan build; part of make check
# SOAK_SEED picks the faults' seeds (default 1). SOAK_TIMEOUT (seconds)
# only bounds a stalled run, which is reported as such.

SOAK_UNITS ?= 1000000
SOAK_RESTARTS ?= 2
SOAK_SHORT_UNITS ?= 20000
SOAK_SEED ?= 1

CHECK_TARGETS += soak-short

.PHONY: soak soak-short

soak: deps-core $(HOST)/phyllo
	tests/soak/soak.sh $(HOST)/phyllo $(SOAK_UNITS) $(SOAK_RESTARTS) $(SOAK_SEED)

soak-short: deps-core $(HOST)/phyllo-san
	tests/soak/soak.sh $(HOST)/phyllo-san $(SOAK_SHORT_UNITS) 1 $(SOAK_SEED)

# A reproducer for the core, not part of make check (see stale_unit.c):
# exits 1 while a unit of a peer's old session, reordered past its new
# SYN, can take the place of the new session's first unit.
.PHONY: soak-stale-unit
soak-stale-unit: $(HOST)/soak-stale-unit
	$(HOST)/soak-stale-unit

$(HOST)/soak-stale-unit: tests/soak/stale_unit.c $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Icore $< $(CORE_SRC) -o $@
