# SPDX-License-Identifier: GPL-2.0-only OR MIT
# The phyllo tool: build/host/phyllo (optimised, what users and the kernel
# and firmware tests run) and build/host/phyllo-san (ASan + UBSan, what the
# userspace tests run). JSON is Debian's jansson (deps.sh core).

# The release, as in debian/changelog and dkms.conf.
PHYLLO_VERSION := 0.1.0
PHYLLO_SRC := $(wildcard userspace/*.c) $(CORE_SRC) tests/vectors/phyllo_tuples.c
PHYLLO_HDR := $(wildcard userspace/*.h) $(wildcard core/*.h) $(wildcard uapi/*.h) \
	tests/vectors/phyllo_tuples.h
PHYLLO_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -Wundef -Icore -Iuapi -Iuserspace -Itests/vectors \
	-DPHYLLO_VERSION='"$(PHYLLO_VERSION)"'
PHYLLO_LIBS := -ljansson -lm

$(HOST)/phyllo: $(PHYLLO_SRC) $(PHYLLO_HDR) | deps-core
	@mkdir -p $(@D)
	$(CC) $(PHYLLO_CFLAGS) -O2 -g $(PHYLLO_SRC) -o $@ $(PHYLLO_LIBS)

$(HOST)/phyllo-san: $(PHYLLO_SRC) $(PHYLLO_HDR) | deps-core
	@mkdir -p $(@D)
	$(CC) $(PHYLLO_CFLAGS) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
		$(PHYLLO_SRC) -o $@ $(PHYLLO_LIBS)

.PHONY: phyllo
phyllo: $(HOST)/phyllo

CHECK_TARGETS += test-userspace
.PHONY: test-userspace
test-userspace: deps-core $(HOST)/phyllo-san $(HOST)/test-json $(HOST)/test-fault
	$(HOST)/test-json
	$(HOST)/test-fault
	tests/userspace/test-cli.sh $(HOST)/phyllo-san
	tests/userspace/test-safety.sh $(HOST)/phyllo-san
	tests/userspace/test-peer.sh $(HOST)/phyllo-san
	@d=$$(mktemp -d) && $(MAKE) --no-print-directory -s install DESTDIR=$$d PREFIX=/usr && \
		test -x $$d/usr/bin/phyllo && test -f $$d/usr/share/man/man1/phyllo.1 && \
		test -f $$d/usr/share/man/man4/phyllo.4 && rm -rf $$d && echo "ok   make install"

$(HOST)/test-fault: userspace/fault.c userspace/fault.h userspace/tests/test_fault.c $(CORE_HDR)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Iuserspace $(TEST_INC) userspace/fault.c userspace/tests/test_fault.c \
		tests/ptest.c -o $@

$(HOST)/test-json: userspace/json.c userspace/json.h userspace/tests/test_json.c core/phyllo_msgpack.c $(CORE_HDR) | deps-core
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Iuserspace $(TEST_INC) userspace/json.c userspace/tests/test_json.c \
		tests/ptest.c core/phyllo_msgpack.c -o $@ $(PHYLLO_LIBS)
