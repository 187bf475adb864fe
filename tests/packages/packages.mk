# SPDX-License-Identifier: GPL-2.0-only OR MIT
# make install/uninstall and the Debian packages (tests/packages/):
#   test-uninstall  check: make uninstall removes all that make install put
#                   into a DESTDIR (PREFIX=/usr and /usr/local)
CHECK_TARGETS += test-uninstall
.PHONY: test-uninstall
test-uninstall: $(HOST)/phyllo libphyllo
	tests/packages/test-uninstall.sh $(MAKE)
