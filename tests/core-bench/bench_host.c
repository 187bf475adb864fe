// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bench_host.c - host throughput of each preset, payload MB/s.
 *
 * One stack with the handshake off reads its own frames back, so the
 * reliable path runs in full (slot copy, sequence, piggybacked ACK). Units
 * go in batches of 4 with a window of 8: each batch's ACKs retire the
 * batch before. Encode and decode are timed apart, in the same run, and
 * reported beside the minimal preset as a ratio.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "phyllo_stack.h"

#define BATCH 4

static uint8_t wire[BATCH * PHYLLO_WIRE_MAX];
static size_t wire_len;

static void sink(void *ctx, const uint8_t *buf, uint16_t n)
{
	(void)ctx;
	memcpy(wire + wire_len, buf, n);
	wire_len += n;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void bench(uint8_t preset, double *enc_mbs, double *dec_mbs)
{
	static struct phyllo_stack st;
	struct phyllo_arq_config cfg = PHYLLO_ARQ_CONFIG_DEFAULT;
	struct phyllo_out out = { sink, NULL };
	uint8_t payload[PHYLLO_DATAGRAM_MAX];
	uint16_t mtu = phyllo_stack_mtu(preset), i;
	double t_enc = 0, t_dec = 0, t0;
	long rounds = 200000, r, units = 0;

	for (i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i % 7 ? i * 13 : 0);
	cfg.handshake = false;
	cfg.window = 8;
	phyllo_stack_init(&st, preset, &cfg, &out, 1, 0);
	for (r = 0; r < rounds; r++) {
		size_t used = 0;

		wire_len = 0;
		t0 = now_s();
		for (i = 0; i < BATCH; i++)
			if (phyllo_stack_send(&st, 0x60, payload, mtu, true, 0)) {
				fprintf(stderr, "bench: send refused\n");
				exit(1);
			}
		t_enc += now_s() - t0;
		t0 = now_s();
		while (used < wire_len) {
			struct phyllo_unit u;
			bool got;

			used += phyllo_stack_receive(&st, wire + used, (uint16_t)(wire_len - used), 0,
						     &u, &got);
			units += got;
		}
		t_dec += now_s() - t0;
	}
	if (units != rounds * BATCH) {
		fprintf(stderr, "bench: %ld of %ld units came back\n", units, rounds * BATCH);
		exit(1);
	}
	*enc_mbs = (double)rounds * BATCH * mtu / t_enc / 1e6;
	*dec_mbs = (double)rounds * BATCH * mtu / t_dec / 1e6;
}

int main(void)
{
	static const char *const names[] = { "minimal", "reduced", "standard" };
	double enc[3], dec[3];
	uint8_t p;

	for (p = 0; p < 3; p++)
		bench(p, &enc[p], &dec[p]);
	printf("host throughput, payload MB/s (one run, ratio to minimal)\n");
	printf("%-9s %6s %10s %7s %10s %7s\n", "preset", "mtu", "encode", "ratio", "decode", "ratio");
	for (p = 0; p < 3; p++)
		printf("%-9s %6u %10.1f %7.2f %10.1f %7.2f\n", names[p], phyllo_stack_mtu(p),
		       enc[p], enc[p] / enc[0], dec[p], dec[p] / dec[0]);
	printf("{\"host_mb_s\":{\"minimal\":[%.1f,%.1f],\"reduced\":[%.1f,%.1f],"
	       "\"standard\":[%.1f,%.1f]}}\n", enc[0], dec[0], enc[1], dec[1], enc[2], dec[2]);
	return 0;
}
