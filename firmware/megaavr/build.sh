#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR MIT
# build.sh OUT - the Nano Every (ATmega4809) firmware, run inside the
# trixie chroot (toolchain.sh run): firmware/main.c and the node with the
# megaAVR 0-series USART and clock drivers, -Werror, the standard preset
# with pub-sub, a window of 4 (6 KB of RAM), rings 256/64; prints the
# size line. Writes OUT/nanoevery-standard/phyllo-nanoevery-standard.{elf,hex}.
set -eu
out=$1/nanoevery-standard
mkdir -p "$out"
srcs="firmware/main.c firmware/phyllo_node.c firmware/megaavr/mega0_usart.c
	firmware/megaavr/mega0_clock.c $(ls core/phyllo_*.c)"
avr-gcc -mmcu=atmega4809 -std=gnu11 -Os -g -Wall -Wextra -Werror -Wundef -Wshadow \
	-Wstrict-prototypes -DF_CPU=16000000UL -ffunction-sections -fdata-sections \
	-fshort-enums -flto -Icore -Ifirmware -Ifirmware/megaavr \
	-DPHYLLO_FW_PRESET=2 -DPHYLLO_FW_APP_PUBSUB=1 -DPHYLLO_ARQ_WINDOW_MAX=4 \
	-DPHYLLO_FW_RX_RING=256 -DPHYLLO_FW_TX_RING=64 \
	-Wl,--gc-sections $srcs -o "$out/phyllo-nanoevery-standard.elf"
avr-objcopy -O ihex -R .eeprom "$out/phyllo-nanoevery-standard.elf" \
	"$out/phyllo-nanoevery-standard.hex"
avr-gcc --version | head -1
