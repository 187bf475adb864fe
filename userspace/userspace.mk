# SPDX-License-Identifier: GPL-2.0-only OR MIT
# libphyllo and the phyllo tool, in build/host/:
#   libphyllo.so.$(PHYLLO_VERSION) (soname libphyllo.so.0) and libphyllo.a:
#       userspace/lib/ and the protocol core, public header
#       userspace/include/libphyllo.h; only phyllo_* of that header are
#       exported from the shared library
#   phyllo      the tool (optimised, linked with libphyllo.a), what users and
#               the kernel and firmware tests run
#   phyllo-san  the same with ASan + UBSan, what the userspace tests run
# JSON is Debian's jansson (deps.sh core). Targets (check: in make check):
#   test-userspace     check: the tool (tests/userspace/*.sh; test-board.sh:
#                      a first board's troubles on ptys; test-first-try.sh:
#                      a first day's error messages; test-docs.py: the
#                      man pages against --help and the header), make install
#   test-lib           check: libphyllo's unit tests, ASan + UBSan
#   test-python        check: the Python package (python/), pytest
#   test-guest-attach  check: attach/detach/hang-up, the library and Python
#                      on /dev/phylloN, in Debian's kernel under qemu
#   test-hotplug       two named boards unplugged, swapped and reset
#                      under udev + systemd, every client on one open file;
#                      the bridge's unit there on mosquitto
#   test-hotplug-short check: the same, one cycle (a swap) and the reset
#   install-lib, install-system: parts of the top-level `make install`

# The release, as in debian/changelog and dkms.conf.
PHYLLO_VERSION := 0.1.0
PHYLLO_SOVERSION := 0
LIB_SRC := $(wildcard userspace/lib/*.c)
LIB_HDR := $(wildcard userspace/lib/*.h) userspace/include/libphyllo.h
PHYLLO_SRC := $(wildcard userspace/*.c) tests/vectors/phyllo_tuples.c
PHYLLO_HDR := $(wildcard userspace/*.h) $(LIB_HDR) $(wildcard core/*.h) $(wildcard uapi/*.h) \
	tests/vectors/phyllo_tuples.h
PHYLLO_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -Wundef -Icore -Iuapi -Iuserspace \
	-Iuserspace/include -Iuserspace/lib -Itests/vectors -DPHYLLO_VERSION='"$(PHYLLO_VERSION)"'
PHYLLO_LIBS := -ljansson -lm
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

LIB_OBJ := $(patsubst %.c,$(HOST)/lib/%.o,$(notdir $(LIB_SRC) $(CORE_SRC)))
LIB_SO := $(HOST)/libphyllo.so.$(PHYLLO_VERSION)

$(HOST)/lib/%.o: userspace/lib/%.c $(LIB_HDR) $(wildcard core/*.h) | deps-core
	@mkdir -p $(@D)
	$(CC) $(PHYLLO_CFLAGS) -O2 -g -fPIC -fvisibility=hidden -c $< -o $@

$(HOST)/lib/%.o: core/%.c $(wildcard core/*.h)
	@mkdir -p $(@D)
	$(CC) $(PHYLLO_CFLAGS) -O2 -g -fPIC -fvisibility=hidden -c $< -o $@

$(LIB_SO): $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,libphyllo.so.$(PHYLLO_SOVERSION) -Wl,--no-undefined \
		$(LIB_OBJ) -o $@ $(PHYLLO_LIBS)
	ln -sf $(notdir $@) $(HOST)/libphyllo.so.$(PHYLLO_SOVERSION)
	ln -sf libphyllo.so.$(PHYLLO_SOVERSION) $(HOST)/libphyllo.so

$(HOST)/libphyllo.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $(LIB_OBJ)

$(HOST)/phyllo: $(PHYLLO_SRC) $(PHYLLO_HDR) $(HOST)/libphyllo.a | deps-core
	@mkdir -p $(@D)
	$(CC) $(PHYLLO_CFLAGS) -O2 -g $(PHYLLO_SRC) $(HOST)/libphyllo.a -o $@ $(PHYLLO_LIBS)

$(HOST)/phyllo-san: $(PHYLLO_SRC) $(LIB_SRC) $(CORE_SRC) $(PHYLLO_HDR) | deps-core
	@mkdir -p $(@D)
	$(CC) $(PHYLLO_CFLAGS) $(SAN_FLAGS) $(PHYLLO_SRC) $(LIB_SRC) $(CORE_SRC) -o $@ $(PHYLLO_LIBS)

.PHONY: phyllo libphyllo
phyllo: $(HOST)/phyllo
libphyllo: $(LIB_SO) $(HOST)/libphyllo.a

CHECK_TARGETS += test-userspace
.PHONY: test-userspace
test-userspace: deps-core $(HOST)/phyllo-san $(HOST)/test-json $(HOST)/test-fault $(HOST)/test-hold \
		$(HOST)/test-linkname
	$(HOST)/test-json
	$(HOST)/test-fault
	$(HOST)/test-hold
	$(HOST)/test-linkname
	tests/userspace/test-cli.sh $(HOST)/phyllo-san
	tests/userspace/test-safety.sh $(HOST)/phyllo-san
	tests/userspace/test-tty.sh $(HOST)/phyllo-san
	tests/userspace/test-board.sh $(HOST)/phyllo-san
	tests/userspace/test-first-try.sh $(HOST)/phyllo-san
	tests/userspace/test-docs.py $(HOST)/phyllo-san $(CURDIR)
	tests/userspace/test-attach.sh $(HOST)/phyllo-san
	tests/userspace/test-peer.sh $(HOST)/phyllo-san
	tests/userspace/test-install.sh $(MAKE) $(HOST)/phyllo-san

$(HOST)/test-fault: userspace/fault.c userspace/fault.h userspace/tests/test_fault.c $(CORE_HDR)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Iuserspace $(TEST_INC) userspace/fault.c userspace/tests/test_fault.c \
		tests/ptest.c -o $@

$(HOST)/test-hold: userspace/hold.c userspace/hold.h userspace/lib/lib_port.c $(LIB_HDR) \
		userspace/tests/test_hold.c tests/ptest.c tests/ptest.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Iuserspace -Iuserspace/lib -Iuserspace/include $(TEST_INC) \
		userspace/hold.c userspace/lib/lib_port.c \
		userspace/tests/test_hold.c tests/ptest.c -o $@ -lpthread

$(HOST)/test-linkname: userspace/linkname.c userspace/linkname.h userspace/tests/test_linkname.c \
		tests/ptest.c tests/ptest.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Iuserspace -Iuapi $(TEST_INC) userspace/linkname.c \
		userspace/tests/test_linkname.c tests/ptest.c -o $@

$(HOST)/test-json: userspace/lib/json.c userspace/lib/json.h userspace/tests/test_json.c \
		core/phyllo_msgpack.c $(CORE_HDR) | deps-core
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Iuserspace/lib $(TEST_INC) userspace/lib/json.c \
		userspace/tests/test_json.c tests/ptest.c core/phyllo_msgpack.c -o $@ $(PHYLLO_LIBS)

# libphyllo's unit tests, ASan + UBSan: two handles on a socketpair.
CHECK_TARGETS += test-lib
.PHONY: test-lib
test-lib: deps-core $(HOST)/test-lib
	$(HOST)/test-lib

$(HOST)/test-lib: userspace/tests/test_lib.c $(LIB_SRC) $(CORE_SRC) $(PHYLLO_HDR) tests/ptest.c \
		| deps-core
	@mkdir -p $(@D)
	$(CC) $(PHYLLO_CFLAGS) $(SAN_FLAGS) -Itests userspace/tests/test_lib.c tests/ptest.c \
		$(LIB_SRC) $(CORE_SRC) -o $@ $(PHYLLO_LIBS) -lpthread

# The library, its header, phyllo.pc and the section 3 pages (a page per
# function that points to libphyllo(3)); part of `make install`.
LIBDIR ?= $(PREFIX)/lib
LIB_MAN3 := phyllo_open phyllo_open_fd phyllo_close phyllo_fd phyllo_dispatch phyllo_wait_up \
	phyllo_publish phyllo_publish_doc phyllo_publish_json phyllo_send phyllo_flush \
	phyllo_subscribe phyllo_subscribe_type phyllo_unsubscribe_all phyllo_recv \
	phyllo_request phyllo_status phyllo_stats phyllo_stats64 phyllo_stat_name phyllo_strerror \
	phyllo_json_to_msgpack phyllo_msgpack_to_json phyllo_options_init phyllo_transport \
	phyllo_mtu phyllo_version phyllo_baud_valid
.PHONY: install-lib
install-lib: $(LIB_SO) $(HOST)/libphyllo.a
	install -D -m 644 $(LIB_SO) $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_SO))
	ln -sf $(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/libphyllo.so.$(PHYLLO_SOVERSION)
	ln -sf libphyllo.so.$(PHYLLO_SOVERSION) $(DESTDIR)$(LIBDIR)/libphyllo.so
	install -m 644 $(HOST)/libphyllo.a $(DESTDIR)$(LIBDIR)/libphyllo.a
	install -D -m 644 userspace/include/libphyllo.h $(DESTDIR)$(PREFIX)/include/libphyllo.h
	mkdir -p $(DESTDIR)$(LIBDIR)/pkgconfig
	sed -e '/^#/d' -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@VERSION@|$(PHYLLO_VERSION)|' userspace/phyllo.pc.in \
		>$(DESTDIR)$(LIBDIR)/pkgconfig/phyllo.pc
	install -D -m 644 docs/libphyllo.3 $(DESTDIR)$(PREFIX)/share/man/man3/libphyllo.3
	for f in $(LIB_MAN3); do \
		echo ".so man3/libphyllo.3" >$(DESTDIR)$(PREFIX)/share/man/man3/$$f.3 || exit 1; \
	done
	$(if $(DESTDIR),,ldconfig)

.PHONY: uninstall-lib
uninstall-lib:
	rm -f $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/libphyllo.so.$(PHYLLO_SOVERSION) \
		$(DESTDIR)$(LIBDIR)/libphyllo.so $(DESTDIR)$(LIBDIR)/libphyllo.a \
		$(DESTDIR)$(PREFIX)/include/libphyllo.h $(DESTDIR)$(LIBDIR)/pkgconfig/phyllo.pc \
		$(DESTDIR)$(PREFIX)/share/man/man3/libphyllo.3 $(LIB_MAN3:%=$(DESTDIR)$(PREFIX)/share/man/man3/%.3)
	$(if $(DESTDIR),,ldconfig)

# The Python package (python/) over the shared library: pytest against
# `phyllo peer --echo` on a pty; Debian's python3 (python3-pytest, -msgpack).
CHECK_TARGETS += test-python
.PHONY: test-python
test-python: $(LIB_SO) $(HOST)/phyllo
	@scripts/deps.sh python
	@out=$$(cd python && PYTHONDONTWRITEBYTECODE=1 PHYLLO_LIBRARY=$(LIB_SO) PHYLLO_BIN=$(HOST)/phyllo \
		/usr/bin/python3 -m pytest -q -p no:cacheprovider tests 2>&1); rc=$$?; \
		[ $$rc -eq 0 ] || echo "$$out"; echo "pytest: $$(echo "$$out" | tail -1)"; exit $$rc

# Hot-plug: the udev rule (dialout 0660, /dev/phyllo/by-tty/TTY), the
# systemd template unit phyllo-attach@.service and the example rule that
# starts it for a board; part of `make install`. Under PREFIX=/usr they go
# where the distribution's own do, else under /etc.
UDEV_RULES_DIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/udev/rules.d,/etc/udev/rules.d)
SYSTEMD_UNIT_DIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/systemd/system,/etc/systemd/system)
# /run/phyllo (the live counters of --tty programs): made at every boot
# from tmpfiles.d, and now when installing on this system.
TMPFILES_DIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/tmpfiles.d,/etc/tmpfiles.d)
.PHONY: install-system
install-system:
	install -D -m 644 userspace/system/phyllo.tmpfiles $(DESTDIR)$(TMPFILES_DIR)/phyllo.conf
	$(if $(DESTDIR),,command -v systemd-tmpfiles >/dev/null && \
		systemd-tmpfiles --create $(TMPFILES_DIR)/phyllo.conf || mkdir -p -m 755 /run/phyllo)
	install -D -m 644 userspace/system/70-phyllo.rules $(DESTDIR)$(UDEV_RULES_DIR)/70-phyllo.rules
	mkdir -p $(DESTDIR)$(SYSTEMD_UNIT_DIR)
	sed -e 's|@BINDIR@|$(PREFIX)/bin|' userspace/system/phyllo-attach@.service.in \
		>$(DESTDIR)$(SYSTEMD_UNIT_DIR)/phyllo-attach@.service
	install -D -m 644 userspace/system/modprobe@phyllo.conf \
		$(DESTDIR)$(SYSTEMD_UNIT_DIR)/modprobe@phyllo.service.d/phyllo.conf
	install -D -m 644 userspace/system/71-phyllo-attach.rules.example \
		$(DESTDIR)$(PREFIX)/share/doc/phyllo/71-phyllo-attach.rules.example
	install -D -m 644 userspace/phyllo.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/phyllo

.PHONY: uninstall-system
uninstall-system:
	rm -f $(DESTDIR)$(UDEV_RULES_DIR)/70-phyllo.rules $(DESTDIR)$(SYSTEMD_UNIT_DIR)/phyllo-attach@.service \
		$(DESTDIR)$(TMPFILES_DIR)/phyllo.conf \
		$(DESTDIR)$(SYSTEMD_UNIT_DIR)/modprobe@phyllo.service.d/phyllo.conf \
		$(DESTDIR)$(PREFIX)/share/doc/phyllo/71-phyllo-attach.rules.example \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/phyllo
	rmdir $(DESTDIR)$(PREFIX)/share/doc/phyllo \
		$(DESTDIR)$(SYSTEMD_UNIT_DIR)/modprobe@phyllo.service.d 2>/dev/null || true

# What needs the module: attach, detach and hang-up, libphyllo and the
# Python package on /dev/phylloN, in Debian's kernel under qemu
# (tests/userspace/test-guest.sh).
CHECK_TARGETS += test-guest-attach
.PHONY: test-guest-attach
test-guest-attach: $(HOST)/phyllo $(HOST)/libphyllo.a $(LIB_SO)
	@scripts/deps.sh core qemu python
	@$(MAKE) --no-print-directory demo-kmod >/dev/null
	tests/userspace/test-guest.sh $(BUILD)

# Boards that come and go (issue 35), with systemd and udev: the cached
# Debian 12 disk of test-dkms with `make install` and `make install-bridge`
# in it; two boards named after their USB serial numbers (a CDC ACM gadget
# as an Uno on dummy_hcd, QEMU's usb-serial as an FTDI board) unplugged
# and plugged, swapped onto each other's ports, and reset, under phyllo
# sub, a libphyllo program, a Python program and phyllo-bridge@ on one
# open file each; then the bridge's commands and both units'
# systemd-analyze security (tests/userspace/hotplug/). The short form, in
# make check: one cycle, a swap, then the reset; 50 echoes, 10 commands.
CHECK_TARGETS += test-hotplug-short
.PHONY: test-hotplug test-hotplug-short
test-hotplug test-hotplug-short: $(HOST)/phyllo $(HOST)/libphyllo.a $(LIB_SO) $(HOST)/phyllo-bridge
	@scripts/deps.sh core qemu dkms kernels mqtt-lib
	tests/userspace/hotplug/test-hotplug.sh $(BUILD) $(MAKE) \
		$(if $(filter test-hotplug-short,$@),1 50 10,2 200 20)
