/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pktgen: the receiver's sample rings (pktgen_rx_ring.c): per stream, the
 * latest sampled packets' arrival time, sequence number and latency.
 * Written by the hook under the stream's lock (pktgen_rx_streams.c), read
 * by /proc/net/pktgen/pgrx_samples (pktgen_rx_samples.c) in chunks under
 * the same lock.  Documentation/receiver.rst, "Sampled latencies".
 */
#ifndef _PKTGEN_RX_RING_H
#define _PKTGEN_RX_RING_H

#include <linux/bits.h>
#include <linux/types.h>

#define PG_RX_RING_LEN		2048	/* samples per stream, a power of two */
/* A sampling setting: 0 off, N every Nth, N | PG_RX_SAMPLE_RANDOM 1 in N at random. */
#define PG_RX_SAMPLE_RANDOM	BIT(31)
#define PG_RX_SAMPLE_MAX	1000000000

struct pg_rx_sample {
	u64 rx_ns;		/* CLOCK_REALTIME at arrival */
	s64 lat_ns;		/* arrival - stamp: negative when stamped later */
	u32 seq;
};

struct pg_rx_ring {
	u32 how;		/* the sampling setting (WRITE_ONCE by the file) */
	u32 since;		/* packets with a latency since the last sample */
	u64 taken;		/* samples written; the next one's number */
	struct pg_rx_sample e[PG_RX_RING_LEN];
};

struct pg_rx_ring *pg_rx_rings_alloc(unsigned int n);
void pg_rx_rings_free(struct pg_rx_ring *r);
void pg_rx_ring_add(struct pg_rx_ring *r, u32 how, u64 rx_ns, u32 seq, s64 lat);
unsigned int pg_rx_ring_copy(const struct pg_rx_ring *r, u64 *next, u64 end,
			     struct pg_rx_sample *out, unsigned int max);

#endif /* _PKTGEN_RX_RING_H */
