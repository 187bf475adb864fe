# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# phyllo top-level Makefile. Each part brings its own fragment:
#   core/core.mk           test-core, bench-core, core-avr
#   userspace/userspace.mk the phyllo tool and library (build/host/)
#   userspace/bridge/bridge.mk  phyllo-bridge, install-bridge
#   firmware/firmware.mk   firmware, test-firmware, bench-firmware, arduino-zip
#   kernel/kernel.mk       module, kunit, test-kernel, test-qemu
#   tests/tests.mk         demo, bench (end to end)
# A fragment adds its test targets to CHECK_TARGETS; the tiers below say
# in what order `make check` runs them. The kernel module itself is
# described by ./Kbuild.

BUILD ?= $(CURDIR)/build
HOST := $(BUILD)/host
CHECK_TARGETS :=

# The goals that install the Debian packages they need (scripts/deps.sh, as
# root): make deps and deps-GROUP, the checks and every test, the demos,
# try, the benches and flash. Any other goal (a plain make, install, a
# file) builds with what the system has: a deps-GROUP prerequisite then
# only probes, and names the package that is missing (scripts/probe.sh).
INSTALL_GOALS = deps deps-% check check-% test-% $(CHECK_TARGETS) demo% try bench% soak% fuzz% flash%
DEPS = scripts/$(if $(filter $(INSTALL_GOALS),$(MAKECMDGOALS)),deps,probe).sh

.PHONY: all check deb deps deps-core help install install-capture install-module uninstall \
	uninstall-capture
all: $(HOST)/phyllo

include core/core.mk
include userspace/userspace.mk
include userspace/bridge/bridge.mk
include firmware/firmware.mk
include kernel/kernel.mk
include tests/tests.mk
include tests/fuzz/fuzz.mk
include tests/storm/storm.mk
include tests/soak/soak.mk
include tests/bridge/bridge.mk
include tests/packages/packages.mk
include tests/capture/capture.mk
include tests/userspace/board.mk

# `make` builds libphyllo too: the Python package finds it in build/host/.
all: libphyllo

# A first try without a board (README.md): the Uno firmware on
# phyllo-simavr, its UART a pty at TRY_TTY (a stable path: give it as
# --tty), in the foreground until Ctrl-C or TRY_SECONDS of simulated time.
TRY_TTY ?= $(BUILD)/try/ttyACM0
TRY_SECONDS ?=
TRY_ELF := $(FW_BUILD)/uno-standard/phyllo-uno-standard.elf
.PHONY: try
try: deps-avr $(HOST)/phyllo libphyllo $(FW_SIM) $(TRY_ELF)
	@scripts/try.sh $(FW_SIM) $(TRY_ELF) $(TRY_TTY) $(HOST)/phyllo $(TRY_SECONDS)

# A target named relative to the clone (make build/host/phyllo-simavr,
# make build/firmware/uno-standard/phyllo-uno-standard.elf) is the file
# the fragments' rules name absolutely (BUILD is $(CURDIR)/build).
ifeq ($(BUILD),$(CURDIR)/build)
build/%: $(BUILD)/% ;
endif

# make check: the tiers in this order, two targets at a time, a table at
# the end (scripts/check.sh); make check-fast (or -sim, -kernel, -system)
# runs one tier. tests/README.md says what each target proves.
#   fast    the host tests: the core, the tool and library, Python, the
#           Arduino class, install, capture, fuzzers and soak in their
#           short forms; under 5 minutes from an empty build/
#   sim     the firmware built and run on simavr and qemu's Cortex-M boards
#   kernel  phyllo.ko built, in UML and in Debian's kernels under qemu
#   system  several parts together: guests with systemd, packages, brokers,
#           the demo, the bench
# The order is the order of preference (in a tier, the longest first: the
# fast tier's test-userspace and fuzz-short, 2 to 4 minutes of waiting
# on ptys and 40,000 runs, set its end); scripts/check-lanes says what each
# target costs (a kernel build takes both cores) and shares (a cache, a
# target to wait for), and the runner starts the kernel builds at once
# beside the one-thread targets. Each target's log: build/check/TARGET.log.
CHECK_FAST := test-userspace fuzz-short test-core core-avr test-lib test-python test-arduino \
	soak-short test-uninstall test-capture
CHECK_SIM := firmware test-firmware test-python-uno test-uno
CHECK_KERNEL := test-guest-attach module upstream kunit test-kernel test-qemu \
	test-storm-short test-bridge-guest test-capture-kernel
CHECK_SYSTEM := test-hotplug-short test-dkms-short demo-short bench-short test-bridge \
	test-bridge-rabbitmq-short test-bridge-deb test-packages
CHECK_TIERS := $(CHECK_FAST) $(CHECK_SIM) $(CHECK_KERNEL) $(CHECK_SYSTEM)
# Each test a fragment adds to CHECK_TARGETS is in one tier, and only those.
ifneq ($(sort $(CHECK_TARGETS)),$(sort $(CHECK_TIERS)))
$(error the fragments' tests and the check tiers of the Makefile differ: \
$(strip $(filter-out $(CHECK_TIERS),$(CHECK_TARGETS)) $(filter-out $(CHECK_TARGETS),$(CHECK_TIERS))))
endif
ifneq ($(words $(CHECK_TIERS)),$(words $(sort $(CHECK_TIERS))))
$(error a test is in two check tiers of the Makefile)
endif
CHECK_TARGETS := $(CHECK_TIERS)

# CHECK_JOBS targets at a time (2; 1 runs them one after another).
CHECK_JOBS ?= 2
CHECK_RUN = @MAKE="$(MAKE)" BUILD=$(BUILD) CHECK_JOBS=$(CHECK_JOBS) scripts/check.sh
.PHONY: check-fast check-sim check-kernel check-system check-repeat
check:
	$(CHECK_RUN) $(CHECK_TARGETS)
check-fast:
	$(CHECK_RUN) $(CHECK_FAST)
check-sim:
	$(CHECK_RUN) $(CHECK_SIM)
check-kernel:
	$(CHECK_RUN) $(CHECK_KERNEL)
check-system:
	$(CHECK_RUN) $(CHECK_SYSTEM)

# What several check targets build, made once before they start (the
# prep column of scripts/check-lanes), so that no two compile one file.
.PHONY: check-prep-host check-prep-sim check-prep-bridge
check-prep-host: $(HOST)/phyllo $(HOST)/phyllo-san libphyllo
check-prep-sim: $(FW_SIM) $(TRY_ELF)
check-prep-bridge: $(HOST)/phyllo-bridge $(HOST)/phyllo-bridge-san $(HOST)/bridge-board

# make check-repeat TARGET=test-uno N=10: one target N times in a row;
# how many passed, each run's time; the failures' logs are kept.
N ?= 10
check-repeat:
	@test -n "$(TARGET)" || { echo "make check-repeat TARGET=name [N=10]"; exit 2; }
	@MAKE="$(MAKE)" BUILD=$(BUILD) scripts/check-repeat.sh $(TARGET) $(N)

# Every group of scripts/deps.sh: what every part's build and tests need.
DEPS_GROUPS ?= core python bench avr arduino flash fuzz capture mqtt rabbitmq cortexm \
	cortexm-flash megaavr kernel kernels qemu arm storm dkms deb packages
deps:
	@scripts/deps.sh $(DEPS_GROUPS)

deps-core:
	@$(DEPS) core

# The tool, libphyllo, the udev rule and systemd unit (install-lib,
# install-system: userspace/userspace.mk) and the man pages; DESTDIR for
# staging, PREFIX as usual.
PREFIX ?= /usr/local
install: $(HOST)/phyllo install-lib install-system install-capture
	install -D -m 755 $(HOST)/phyllo $(DESTDIR)$(PREFIX)/bin/phyllo
	install -D -m 644 docs/phyllo.1 $(DESTDIR)$(PREFIX)/share/man/man1/phyllo.1
	install -D -m 644 docs/phyllo.4 $(DESTDIR)$(PREFIX)/share/man/man4/phyllo.4
	install -D -m 644 uapi/phyllo.h $(DESTDIR)$(PREFIX)/include/linux/phyllo.h

# The Wireshark dissector `phyllo capture` files are read with.
install-capture:
	install -D -m 644 tools/wireshark/phyllo.lua \
		$(DESTDIR)$(PREFIX)/share/phyllo/wireshark/phyllo.lua

uninstall-capture:
	rm -f $(DESTDIR)$(PREFIX)/share/phyllo/wireshark/phyllo.lua

# What `make install` put there, with the same PREFIX and DESTDIR
# (tests/packages/test-uninstall.sh checks that nothing is left), and
# what `make install-bridge` did (uninstall-bridge, userspace/bridge/bridge.mk).
uninstall: uninstall-lib uninstall-system uninstall-capture uninstall-bridge
	rm -f $(DESTDIR)$(PREFIX)/bin/phyllo $(DESTDIR)$(PREFIX)/share/man/man1/phyllo.1 \
		$(DESTDIR)$(PREFIX)/share/man/man4/phyllo.4 $(DESTDIR)$(PREFIX)/include/linux/phyllo.h

# Every binary package of debian/ (phyllo-dkms, phyllo, libphyllo0,
# libphyllo-dev, python3-phyllolink, phyllo-bridge) in build/deb/.
deb:
	@scripts/deps.sh dkms
	scripts/deb.sh $(BUILD)

# phyllo.ko for the running kernel (needs its headers: linux-headers-$(uname -r)).
KREL ?= $(shell uname -r)
install-module:
	@test -d /lib/modules/$(KREL)/build || { echo "install-module: no headers for \
$(KREL): apt-get install linux-headers-$(KREL)"; exit 1; }
	kernel/kmod.sh $(BUILD)/kmod/$(KREL) /lib/modules/$(KREL)/build
	install -D -m 644 $(BUILD)/kmod/$(KREL)/phyllo.ko $(DESTDIR)/lib/modules/$(KREL)/extra/phyllo.ko
	$(if $(DESTDIR),,depmod -a $(KREL))

help:
	@echo "make try             a first try without a board: the Uno firmware on a simulated"
	@echo "                     ATmega328P as a serial port, $(patsubst $(CURDIR)/%,%,$(TRY_TTY)) (give it as --tty)"
	@echo "make simavr-harness  build/host/phyllo-simavr, the simulator harness make try runs"
	@echo "make demo            emulated Uno + kernel line discipline, end to end"
	@echo "make check           every test, tier by tier: $(CHECK_TARGETS)"
	@echo "make check-fast      the host tests, minutes (then check-sim, check-kernel, check-system)"
	@echo "make check-repeat TARGET=t N=10  one check target N times: how many passed, each run's time"
	@echo "make deps            installs the Debian packages every part needs (as root)"
	@echo "make bench           kernel line discipline vs userspace stack"
	@echo "make install         the phyllo tool and man pages (PREFIX=$(PREFIX))"
	@echo "make uninstall       removes what make install put there (same PREFIX, DESTDIR)"
	@echo "make libphyllo       build/host/libphyllo.so.0 (part of make; the Python package uses it)"
	@echo "make deb             the Debian packages, in build/deb/ (apt install ./build/deb/*.deb)"
	@echo "make install-module  phyllo.ko for the running kernel"
	@echo "make test-uno        the tool's first commands and make try's against the Uno firmware"
	@echo "Targets may be named by their path, absolute or relative: make build/host/phyllo"
