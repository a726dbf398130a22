/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pktgen: the receiver's stream tables (pktgen_rx_streams.c): the streams
 * a table holds, how the hook finds, creates and counts them, and how a
 * reader sums them.
 */
#ifndef _PKTGEN_RX_STREAMS_H
#define _PKTGEN_RX_STREAMS_H

#include <linux/if_ether.h>
#include <linux/siphash.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "pktgen_rx_ring.h"
#include "pktgen_rxstat.h"

/* Streams per table (namespace): Documentation/receiver.rst, "Streams". */
#define PG_RX_MAX_STREAMS	4096
/* open addressing, linear probing, load at most 1/4 */
#define PG_RX_HASH_SLOTS	16384
/*
 * Slots a lookup or a creation looks at, at most: a stream whose key
 * finds no free slot within them is not created (overflow).  With a
 * random hash key and 4096 streams the longest probe is far shorter
 * (Documentation/receiver.rst, "Streams").
 */
#define PG_RX_MAX_PROBES	32
/* The first this many streams of a table get a sample ring. */
#define PG_RX_RING_STREAMS	64

enum pg_rx_stats_mode {
	PG_RX_STATS_COUNTER,	/* packets, bytes, sequence: no clock read */
	PG_RX_STATS_BASIC,	/* + latency min/avg/max/stddev and jitter */
	PG_RX_STATS_TIME,	/* + latency histogram and percentiles */
};

struct net;

/* per-CPU part, pktgen_rx_streams.c's alone */
struct pg_rx_misc;

/* What identifies a stream (see Documentation/receiver.rst, "Streams"). */
struct pg_rx_key {
	u32 id;			/* extension stream id, or 0 */
	int ifindex;		/* no extension: ingress device ... */
	u8 ipver;		/* ... IP version ... */
	u8 has_id;
	u8 mac[ETH_ALEN];	/* ... and source MAC */
};

/*
 * A stream, allocated by the hook at its first packet and freed with its
 * table.  Everything the hook writes is under the stream's lock: the
 * sequence, latency, jitter, gap and rate state need the arrival order (or
 * a consistent snapshot of 128-bit sums), and the counters and histogram
 * share that lock rather than cost a per-CPU copy per stream; the logic
 * is pktgen_rxstat.c's.
 */
struct pg_rx_stream {
	struct pg_rx_key key;
	bool ns_res;			/* carries nanosecond timestamps */
	struct pg_rx_ring *ring;	/* set once, when sampling is first on */
	/* written per packet by the receiving CPU(s) only */
	spinlock_t lock ____cacheline_aligned_in_smp;
	u64 packets, bytes;
	/* PG_RXS_HIST_BUCKETS latency buckets, from "statistics time" on; or NULL */
	u64 *hist;
	struct pg_rxs_seq seq;
	struct pg_rxs_time time;
	/* samples whose stamp is not their send's, and the last copy's stamp */
	u64 build_stamped;
	u64 copy_stamp;
	/* samples whose arrival time is the device's */
	u64 hw_stamped;
};

struct pg_rx_table {
	spinlock_t create_lock;		/* serialises stream creation */
	int nstreams;			/* published with release */
	hsiphash_key_t hkey;		/* random, per table: the slots' hash */
	unsigned long nomem_at;		/* jiffies of the last failed allocation */
	struct pg_rx_misc __percpu *misc;
	/* PG_RX_RING_STREAMS sample rings, or NULL; set under create_lock */
	struct pg_rx_ring *rings;
	u16 slots[PG_RX_HASH_SLOTS];	/* stream index + 1, 0 = empty */
	struct pg_rx_stream *streams[PG_RX_MAX_STREAMS];
};

/* A recognised packet. */
struct pg_rx_pkt {
	struct pg_rx_key key;
	u32 seq;
	u32 tv_sec;
	u32 tv_nsec;			/* from tv_usec, or from the extension */
	bool stamped;
	bool malformed;			/* stamp out of range */
	bool stamp_sent;		/* extension: stamped as sent (PG_EXT_F_SENT) */
	bool stamp_copies;		/* ... one of copies (PG_EXT_F_COPIES) */
	bool hw;			/* arrival time from the device's stamp: */
	s64 hw_ns;			/* CLOCK_REALTIME ns, offset applied */
	unsigned int frame_len;		/* Ethernet frame, FCS excluded */
};

/* A stream's (or the total's) figures, merged over CPUs. */
struct pg_rx_sum {
	u64 packets, bytes;
	u64 lost, reordered, duplicates, late, restarts, malformed, jitter_ns;
	u64 wild;			/* of malformed: numbers not tracked */
	u64 lat_negative;
	u64 build_stamped;		/* latency from a stamp not its send's */
	u64 hw_stamped;			/* arrival from the device's stamp */
	struct pg_rxs_moments lat, gap;
	struct pg_rxs_rate rate;
	u32 first_seq, last_seq;
};

struct pg_rx_stream *pg_rx_lookup(struct pg_rx_table *t, const struct pg_rx_key *key,
				  int *slot);
struct pg_rx_stream *pg_rx_create(struct pg_rx_table *t, const struct pg_rx_key *key,
				  bool ns_res, u32 copies, const int *stats_mode);
void pg_rx_count(struct pg_rx_stream *s, const struct pg_rx_pkt *p, int mode);
void pg_rx_count_overflow(struct pg_rx_table *t);
void pg_rx_table_free(struct pg_rx_table *t);
struct pg_rx_table *pg_rx_table_alloc(void);
int pg_rx_table_hists(struct pg_rx_table *t);
int pg_rx_table_streams(struct pg_rx_table *t);
void pg_rx_sum_stream(struct pg_rx_stream *s, struct pg_rx_sum *d, u64 *hist);
void pg_rx_sum_add(struct pg_rx_sum *tot, const struct pg_rx_sum *s);
u64 pg_rx_overflow(struct pg_rx_table *t);
int pg_rx_table_sampling(struct pg_rx_table *t, u32 how);
u64 pg_rx_stream_sampled(struct pg_rx_stream *s);
unsigned int pg_rx_stream_samples(struct pg_rx_stream *s, u64 *next, u64 end,
				  struct pg_rx_sample *out, unsigned int max);
void pg_rx_stream_name(struct net *net, const struct pg_rx_stream *s, char *buf, size_t len);

#endif /* _PKTGEN_RX_STREAMS_H */
