/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * suites.h - the portable core suites, for every runner (host, AVR).
 */
#ifndef PHYLLO_TEST_SUITES_H
#define PHYLLO_TEST_SUITES_H

#include "ptest.h"

extern const struct ptest_suite phyllo_suite_cobs, phyllo_suite_crc,
	phyllo_suite_layers, phyllo_suite_msgpack, phyllo_suite_stack, phyllo_suite_arq,
	phyllo_suite_arq_ack, phyllo_suite_session;

#define PHYLLO_CORE_SUITES &phyllo_suite_cobs, &phyllo_suite_crc, &phyllo_suite_layers, \
	&phyllo_suite_msgpack, &phyllo_suite_stack, &phyllo_suite_arq, &phyllo_suite_arq_ack, \
	&phyllo_suite_session

#endif
