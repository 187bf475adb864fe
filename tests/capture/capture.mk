# SPDX-License-Identifier: GPL-2.0-only OR MIT
# make test-capture (check): `phyllo capture` and the Wireshark dissector
# tools/wireshark/phyllo.lua under Debian's tshark (deps.sh capture):
# known frames field by field, and a lossy `phyllo peer` session whose
# captures must count what the peers' stats count (tests/capture/).
# install-capture, uninstall-capture: parts of make install / uninstall
# (the dissector in $(PREFIX)/share/phyllo/wireshark/).

CHECK_TARGETS += test-capture
.PHONY: test-capture deps-capture install-capture uninstall-capture

deps-capture:
	@scripts/deps.sh capture

test-capture: deps-core deps-capture $(HOST)/phyllo-san
	tests/capture/test-capture.sh $(HOST)/phyllo-san tools/wireshark/phyllo.lua

install-capture:
	install -D -m 644 tools/wireshark/phyllo.lua \
		$(DESTDIR)$(PREFIX)/share/phyllo/wireshark/phyllo.lua

uninstall-capture:
	rm -f $(DESTDIR)$(PREFIX)/share/phyllo/wireshark/phyllo.lua
