# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# firmware/megaavr/megaavr.mk - the Arduino Nano Every (ATmega4809),
# included by firmware/firmware.mk.
#
#   make firmware-nanoevery  trixie's avr-gcc 14 in a cached chroot
#                            (toolchain.sh) builds nanoevery-standard;
#                            avr-size figures (part of make firmware)
#   make test-mega0          the USART driver on the host against a
#                            register-level fake (part of make test-firmware)
#   make flash-nanoevery PORT=/dev/ttyACM0   avrdude through the board's
#                            USB bridge (jtag2updi), untested here
# No emulator here models the 4809: the firmware is built, never run.

NE_ELF := $(FW_BUILD)/nanoevery-standard/phyllo-nanoevery-standard.elf
NE_SRCS := firmware/main.c firmware/phyllo_node.c firmware/board.h \
	$(wildcard firmware/megaavr/*.c firmware/megaavr/*.h firmware/*.h core/*.c core/*.h) \
	firmware/megaavr/build.sh

.PHONY: deps-megaavr firmware-nanoevery test-mega0 flash-nanoevery
deps-megaavr:
	@$(DEPS) megaavr

$(NE_ELF): $(NE_SRCS) | deps-megaavr
	@firmware/megaavr/toolchain.sh >/dev/null
	@echo "  AVR14-CC nanoevery-standard (trixie chroot)"
	@firmware/megaavr/toolchain.sh run $(CURDIR) $(FW_BUILD) sh firmware/megaavr/build.sh /out \
		>/dev/null

firmware-nanoevery: $(NE_ELF)
	@firmware/size-table.sh $< | tee $(FW_BUILD)/size-nanoevery.txt

firmware: firmware-nanoevery

$(HOST)/test-mega0: tests/firmware/mega0_usart_test.c firmware/megaavr/mega0_usart.c \
		$(wildcard firmware/megaavr/*.h firmware/*.h) tests/ptest.c tests/ptest.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Icore -Ifirmware -Ifirmware/megaavr -Itests \
		-DPHYLLO_FW_RX_RING=256 -DPHYLLO_FW_TX_RING=64 -DF_CPU=16000000UL \
		tests/firmware/mega0_usart_test.c firmware/megaavr/mega0_usart.c tests/ptest.c -o $@

test-mega0: $(HOST)/test-mega0
	$(HOST)/test-mega0

test-firmware: test-mega0

flash-nanoevery: $(NE_ELF) | deps-arduino
	avrdude -p atmega4809 -c jtag2updi -P $(PORT) -b 115200 \
		-U flash:w:$(NE_ELF:.elf=.hex):i
