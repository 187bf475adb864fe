// SPDX-License-Identifier: GPL-2.0-only
/*
 * phyllo_core_exports.c - the protocol core's functions the KUnit suites
 * call, exported to them (phyllo_kunit, in the EXPORTED_FOR_KUNIT_TESTING
 * namespace). Compiled into phyllo only when the suites are built
 * (Kbuild). The core's files are shared unchanged with the firmware and
 * userspace and cannot carry the kernel's export macros, so their exports
 * are listed here, away from the definitions (checkpatch's EXPORT_SYMBOL
 * rule is waived for this file alone, tests/kernel/module.sh).
 */
#include "phyllo_compat.h"
#include "phyllo_crc.h"
#include "phyllo_pubsub.h"
#include "phyllo_stack.h"

EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_hold);
EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_init);
EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_poll);
EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_receive);
EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_refuse);
EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_room);
EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_send);
EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_send_unreliable);
EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_set_line_ms);
EXPORT_SYMBOL_IF_KUNIT(phyllo_arq_take_events);
EXPORT_SYMBOL_IF_KUNIT(phyllo_cobs_rx_feed);
EXPORT_SYMBOL_IF_KUNIT(phyllo_cobs_rx_init);
EXPORT_SYMBOL_IF_KUNIT(phyllo_cobs_rx_take);
EXPORT_SYMBOL_IF_KUNIT(phyllo_cobs_write);
EXPORT_SYMBOL_IF_KUNIT(phyllo_crc32);
EXPORT_SYMBOL_IF_KUNIT(phyllo_crc_table_bytes);
EXPORT_SYMBOL_IF_KUNIT(phyllo_crc_update);
EXPORT_SYMBOL_IF_KUNIT(phyllo_crc_update_portable);
EXPORT_SYMBOL_IF_KUNIT(phyllo_datagram_header);
EXPORT_SYMBOL_IF_KUNIT(phyllo_datagram_parse);
EXPORT_SYMBOL_IF_KUNIT(phyllo_pubsub_parse);
EXPORT_SYMBOL_IF_KUNIT(phyllo_pubsub_topic_match);
EXPORT_SYMBOL_IF_KUNIT(phyllo_stack_init);
EXPORT_SYMBOL_IF_KUNIT(phyllo_stack_mtu);
EXPORT_SYMBOL_IF_KUNIT(phyllo_stack_poll);
EXPORT_SYMBOL_IF_KUNIT(phyllo_stack_receive);
EXPORT_SYMBOL_IF_KUNIT(phyllo_stack_receive_frame);
EXPORT_SYMBOL_IF_KUNIT(phyllo_stack_receive_partial);
EXPORT_SYMBOL_IF_KUNIT(phyllo_stack_receive_set_aside);
EXPORT_SYMBOL_IF_KUNIT(phyllo_stack_send);
EXPORT_SYMBOL_IF_KUNIT(phyllo_validated_header);
EXPORT_SYMBOL_IF_KUNIT(phyllo_validated_parse);
