# SPDX-License-Identifier: GPL-2.0-only OR MIT
# make install/uninstall and the Debian packages (tests/packages/):
#   test-uninstall  check: make uninstall removes all that make install put
#                   into a DESTDIR (PREFIX=/usr and /usr/local)
#   test-packages   check: every binary package of debian/ built with
#                   dpkg-buildpackage (scripts/deb.sh, build/packages/deb/),
#                   lintian (no error), then `apt install` of all but
#                   phyllo-dkms (test-dkms installs that one in a guest) in a
#                   fresh copy of a cached minimal Debian 12 chroot, where the
#                   README's C and Python examples run against the installed
#                   `phyllo peer --echo` on a pty; apt purge leaves nothing
#   test-python-uno check: the README's Python example against the Uno
#                   firmware on phyllo-simavr (python/tests, one case)
# Included after firmware/firmware.mk (FW_SIM, FW_BUILD).
CHECK_TARGETS += test-uninstall test-packages test-python-uno
.PHONY: test-uninstall test-packages test-python-uno
test-uninstall: $(HOST)/phyllo libphyllo
	tests/packages/test-uninstall.sh $(MAKE)

test-packages:
	@scripts/deps.sh deb packages
	tests/packages/test-packages.sh $(BUILD)

test-python-uno: deps-avr $(LIB_SO) $(FW_SIM) $(FW_BUILD)/uno-standard/phyllo-uno-standard.elf
	@scripts/deps.sh python
	@out=$$(cd python && PYTHONDONTWRITEBYTECODE=1 PHYLLO_LIBRARY=$(LIB_SO) PHYLLO_SIMAVR=$(FW_SIM) \
		PHYLLO_UNO_ELF=$(FW_BUILD)/uno-standard/phyllo-uno-standard.elf /usr/bin/python3 -m pytest \
		-q -p no:cacheprovider -k emulated_uno tests 2>&1); rc=$$?; \
		[ $$rc -eq 0 ] || echo "$$out"; echo "pytest: $$(echo "$$out" | tail -1)"; exit $$rc
