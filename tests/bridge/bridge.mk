# SPDX-License-Identifier: GPL-2.0-only OR MIT
# phyllo-bridge's tests (tests/bridge/); the binary and its install are
# userspace/bridge/bridge.mk's. Targets (check: in make check):
#   test-bridge        check: unit tests of the configuration, topic map,
#                      payloads and queue; then tests/bridge/test-bridge.sh
#                      against Debian's mosquitto on 127.0.0.1, and
#                      tests/bridge/test-bridge-uno.sh: the Uno firmware on
#                      phyllo-simavr; tests/bridge/test-broker-loss.sh:
#                      what mosquitto itself keeps at kill -9
#                      tests/bridge/test-bridge-ops.sh: reconnect after
#                      kill -9, its time printed (plain, TLS), a broker
#                      list with a stuck broker, queued commands against
#                      a slow broker, the status outside the ACL (exit 3);
#                      tests/bridge/test-bridge-walk.sh: docs/bridge.md's
#                      "From nothing to a working bridge" as written;
#                      tests/bridge/test-bridge-netns.sh: two bridges in
#                      two network namespaces, the broker in a third
#   bench-bridge       messages/s, latency and CPU per message against
#                      mosquitto_pub/mosquitto_sub (not in check)
#   test-bridge-guest  check: the bridge on /dev/phyllo0 in a qemu guest
#   test-bridge-deb    check: the phyllo-bridge Debian package (below)
#   test-bridge-rabbitmq[-short]  the bridge on a RabbitMQ cluster (below)

$(HOST)/test-bridge: tests/bridge/test_bridge.c userspace/bridge/bridge_conf.c \
		userspace/bridge/bridge_map.c $(BRIDGE_HDR) $(LIB_SRC) $(CORE_SRC) $(PHYLLO_HDR) \
		tests/ptest.c | deps-core
	@mkdir -p $(@D)
	$(CC) $(PHYLLO_CFLAGS) $(SAN_FLAGS) -Itests -Iuserspace/bridge tests/bridge/test_bridge.c \
		userspace/bridge/bridge_conf.c userspace/bridge/bridge_map.c tests/ptest.c \
		$(LIB_SRC) $(CORE_SRC) -o $@ $(PHYLLO_LIBS)

$(HOST)/bridge-board: tests/bridge/board.c $(LIB_SRC) $(CORE_SRC) $(PHYLLO_HDR) | deps-core
	@mkdir -p $(@D)
	$(CC) $(PHYLLO_CFLAGS) $(SAN_FLAGS) tests/bridge/board.c $(LIB_SRC) $(CORE_SRC) -o $@ \
		$(PHYLLO_LIBS)

# optimised, for bench-bridge
$(HOST)/bridge-board-O2: tests/bridge/board.c $(HOST)/libphyllo.a | deps-core
	$(CC) $(PHYLLO_CFLAGS) -O2 -g tests/bridge/board.c $(HOST)/libphyllo.a -o $@ $(PHYLLO_LIBS)

# a serial line of a given rate between two ttys, for bench-bridge
$(HOST)/bridge-line: tests/bridge/line.c | deps-core
	@mkdir -p $(@D)
	$(CC) $(PHYLLO_CFLAGS) -O2 -g tests/bridge/line.c -o $@

# Not in check: messages per second each way, the latency the bridge adds,
# CPU per message, each against mosquitto_pub/mosquitto_sub on the same
# broker in the same run (docs/bridge.md has a run's figures).
.PHONY: bench-bridge
bench-bridge: deps-mqtt $(HOST)/phyllo-bridge $(HOST)/bridge-board-O2 $(HOST)/bridge-line
	tests/bridge/bench-bridge.sh $(HOST)

CHECK_TARGETS += test-bridge
.PHONY: test-bridge
test-bridge: deps-mqtt $(HOST)/test-bridge $(HOST)/phyllo-bridge-san $(HOST)/phyllo-san \
		$(HOST)/bridge-board $(HOST)/phyllo-bridge $(FW_SIM) \
		$(FW_BUILD)/uno-standard/phyllo-uno-standard.elf | deps-avr
	$(HOST)/test-bridge
	tests/bridge/test-bridge.sh $(HOST)
	tests/bridge/test-bridge-ops.sh $(HOST)
	tests/bridge/test-bridge-walk.sh $(HOST)
	tests/bridge/test-broker-loss.sh
	tests/bridge/test-bridge-netns.sh $(HOST)
	tests/bridge/test-bridge-uno.sh $(BUILD)

# check: the bridge on /dev/phyllo0 in Debian's kernel under qemu (about 20 s
# warm; the module as test-guest-attach builds it).
CHECK_TARGETS += test-bridge-guest
.PHONY: test-bridge-guest
test-bridge-guest: $(HOST)/phyllo $(HOST)/phyllo-bridge
	@scripts/deps.sh core qemu mqtt
	@$(MAKE) --no-print-directory demo-kmod >/dev/null
	tests/bridge/test-bridge-guest.sh $(BUILD)

# RabbitMQ 3.10's MQTT plugin (Debian's rabbitmq-server), a two-node
# cluster here, beside mosquitto in the same run (test-bridge-rabbitmq.sh):
# the short form in check (300 messages in the rate run, about 2 min
# cold: the nodes take 25-30 s each to start), the long one (2,000) apart
CHECK_TARGETS += test-bridge-rabbitmq-short
.PHONY: test-bridge-rabbitmq test-bridge-rabbitmq-short
test-bridge-rabbitmq test-bridge-rabbitmq-short: deps-mqtt $(HOST)/phyllo-bridge-san $(HOST)/bridge-board
	@scripts/deps.sh rabbitmq
	tests/bridge/test-bridge-rabbitmq.sh $(HOST) $(if $(filter %-short,$@),300,2000)

# check: phyllo-bridge's Debian package built, lintian, installed and run
# in a Debian 12 chroot with mosquitto; install-bridge then uninstall
# (tests/bridge/test-bridge-deb.sh; the packages in BUILD/bridge-deb/)
CHECK_TARGETS += test-bridge-deb
.PHONY: test-bridge-deb
test-bridge-deb:
	@scripts/deps.sh deb packages mqtt-lib
	tests/bridge/test-bridge-deb.sh $(BUILD) $(MAKE)

