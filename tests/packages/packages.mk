# SPDX-License-Identifier: GPL-2.0-only OR MIT
# make install/uninstall and the Debian packages (tests/packages/):
#   test-uninstall  check: make uninstall removes all that make install put
#                   into a DESTDIR (PREFIX=/usr and /usr/local)
#   test-packages   check: every binary package of debian/ built with
#                   dpkg-buildpackage (tests/dkms/deb.sh, build/deb/),
#                   lintian (no error), then `apt install` of all but
#                   phyllo-dkms (test-dkms installs that one in a guest) in a
#                   fresh copy of a cached minimal Debian 12 chroot, where the
#                   README's C and Python examples run against the installed
#                   `phyllo peer --echo` on a pty; apt purge leaves nothing
CHECK_TARGETS += test-uninstall test-packages
.PHONY: test-uninstall test-packages
test-uninstall: $(HOST)/phyllo libphyllo
	tests/packages/test-uninstall.sh $(MAKE)

test-packages:
	@scripts/deps.sh deb packages
	tests/packages/test-packages.sh $(BUILD)
