// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the receiver's sample rings.  A table of streams gets one ring
 * per stream, all at once, when sampling is turned on (or with each new
 * table while it is on): nothing is allocated in the packet path.  Each
 * ring keeps the latest PG_RX_RING_LEN samples, the oldest overwritten;
 * a sample's number (0, 1, ... since the ring was made) tells a reader
 * which ones it missed.  The callers hold the stream's lock.
 */
#include <linux/random.h>
#include <linux/slab.h>

#include "pktgen_compat.h"
#include "pktgen_rx_ring.h"

struct pg_rx_ring *pg_rx_rings_alloc(unsigned int n)
{
	return kvcalloc(n, sizeof(struct pg_rx_ring), GFP_KERNEL_ACCOUNT);
}

void pg_rx_rings_free(struct pg_rx_ring *r)
{
	kvfree(r);
}

/* A packet with a latency: keep it if the setting @how picks it. */
void pg_rx_ring_add(struct pg_rx_ring *r, u32 how, u64 rx_ns, u32 seq, s64 lat)
{
	u32 n = how & ~PG_RX_SAMPLE_RANDOM;
	struct pg_rx_sample *e;

	if (!n)
		return;
	if (how & PG_RX_SAMPLE_RANDOM) {
		/* each packet alone with probability 1/n: geometric gaps */
		if (n > 1 && get_random_u32_below(n))
			return;
	} else if (++r->since < n) {
		return;
	}
	r->since = 0;
	e = &r->e[r->taken & (PG_RX_RING_LEN - 1)];
	e->rx_ns = rx_ns;
	e->lat_ns = lat;
	e->seq = seq;
	r->taken++;
}

/*
 * Up to @max samples from number *@next (or the oldest still kept, if
 * that one was overwritten) up to @end (exclusive, at most r->taken),
 * into @out; *@next moves past them.  Returns how many.
 */
unsigned int pg_rx_ring_copy(const struct pg_rx_ring *r, u64 *next, u64 end,
			     struct pg_rx_sample *out, unsigned int max)
{
	u64 oldest = r->taken > PG_RX_RING_LEN ? r->taken - PG_RX_RING_LEN : 0;
	unsigned int n = 0;

	if (end > r->taken)
		end = r->taken;
	if (*next < oldest)
		*next = oldest;
	while (*next < end && n < max)
		out[n++] = r->e[(*next)++ & (PG_RX_RING_LEN - 1)];
	return n;
}
