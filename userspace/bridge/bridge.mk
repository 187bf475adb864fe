# SPDX-License-Identifier: GPL-2.0-only OR MIT
# phyllo-bridge (userspace/bridge/): a link's topics on an MQTT broker, in
# build/host/. A binary of its own, so that the phyllo tool does not link
# libmosquitto; `phyllo bridge ...` runs it (userspace/bridge_exec.c).
# Included after userspace/userspace.mk (PHYLLO_CFLAGS, LIB_SRC, ...).
#   phyllo-bridge      optimised, linked with libphyllo.a and Debian's
#                      libmosquitto (scripts/deps.sh mqtt)
#   phyllo-bridge-san  the same with ASan + UBSan, what the tests run
#   install-bridge     the binary, phyllo-bridge(1), the systemd unit and
#                      the example configurations (not part of `make install`:
#                      it needs libmosquitto); `make uninstall` removes them
# Its tests: tests/bridge/bridge.mk.

BRIDGE_SRC := $(wildcard userspace/bridge/*.c)
BRIDGE_HDR := $(wildcard userspace/bridge/*.h)
BRIDGE_LIBS := -lmosquitto $(PHYLLO_LIBS)

.PHONY: deps-mqtt deps-mqtt-lib phyllo-bridge install-bridge
deps-mqtt:
	@$(DEPS) core mqtt
# what building the binary needs (the Debian build has it from
# Build-Depends, and no broker)
deps-mqtt-lib:
	@$(DEPS) core mqtt-lib

$(HOST)/phyllo-bridge: $(BRIDGE_SRC) $(BRIDGE_HDR) $(HOST)/libphyllo.a | deps-mqtt-lib
	@mkdir -p $(@D)
	$(CC) $(PHYLLO_CFLAGS) -O2 -g $(BRIDGE_SRC) $(HOST)/libphyllo.a -o $@ $(BRIDGE_LIBS)

$(HOST)/phyllo-bridge-san: $(BRIDGE_SRC) $(BRIDGE_HDR) $(LIB_SRC) $(CORE_SRC) $(PHYLLO_HDR) \
		| deps-mqtt
	@mkdir -p $(@D)
	$(CC) $(PHYLLO_CFLAGS) $(SAN_FLAGS) $(BRIDGE_SRC) $(LIB_SRC) $(CORE_SRC) -o $@ $(BRIDGE_LIBS)

phyllo-bridge: $(HOST)/phyllo-bridge

# The examples: local.conf (the starter, a broker on this machine) and
# tls.conf, in share/doc/phyllo-bridge/examples/, as the Debian package
# puts them; docs/bridge.md copies one to /etc/phyllo/bridge.conf.
BRIDGE_EXAMPLES_DIR = $(PREFIX)/share/doc/phyllo-bridge/examples
install-bridge: $(HOST)/phyllo-bridge
	install -D -m 755 $(HOST)/phyllo-bridge $(DESTDIR)$(PREFIX)/bin/phyllo-bridge
	install -D -m 644 docs/phyllo-bridge.1 $(DESTDIR)$(PREFIX)/share/man/man1/phyllo-bridge.1
	mkdir -p $(DESTDIR)$(SYSTEMD_UNIT_DIR)
	sed -e 's|@BINDIR@|$(PREFIX)/bin|' userspace/system/phyllo-bridge@.service.in \
		>$(DESTDIR)$(SYSTEMD_UNIT_DIR)/phyllo-bridge@.service
	install -D -m 644 -t $(DESTDIR)$(BRIDGE_EXAMPLES_DIR) userspace/bridge/examples/local.conf \
		userspace/bridge/examples/tls.conf

# part of `make uninstall`: what install-bridge put there (same PREFIX,
# DESTDIR); nothing if it never ran
.PHONY: uninstall-bridge
uninstall-bridge:
	rm -f $(DESTDIR)$(PREFIX)/bin/phyllo-bridge $(DESTDIR)$(PREFIX)/share/man/man1/phyllo-bridge.1 \
		$(DESTDIR)$(SYSTEMD_UNIT_DIR)/phyllo-bridge@.service \
		$(DESTDIR)$(BRIDGE_EXAMPLES_DIR)/local.conf $(DESTDIR)$(BRIDGE_EXAMPLES_DIR)/tls.conf
	rmdir $(DESTDIR)$(BRIDGE_EXAMPLES_DIR) $(DESTDIR)$(PREFIX)/share/doc/phyllo-bridge \
		2>/dev/null || true
