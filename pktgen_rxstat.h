/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pktgen: the receiver's sequence and statistics logic as pure functions
 * (no skb, no lock, no clock): pktgen_rx_streams.c calls them under the
 * stream's lock, pktgen_rx_proc.c for its figures, and tests/host/rxstat.c
 * compiles the same pktgen_rxstat.c in user space to compare them with a
 * reference model.  The definitions are in Documentation/receiver.rst.
 *
 * In user space the includer defines the kernel types (u32, u64, ...),
 * U64_MAX, bool, and the few helpers of linux/math64.h used here.
 */
#ifndef _PKTGEN_RXSTAT_H
#define _PKTGEN_RXSTAT_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/types.h>
#endif

/* W: how far behind the highest number a packet may be and still count. */
#define PG_RXS_WINDOW		4096
#define PG_RXS_WORDS		(PG_RXS_WINDOW / 64)
/* Packets in a row that, unless the old run goes on, are a sender restart. */
#define PG_RXS_CONFIRM		4
/*
 * A number above the highest of the epoch, in the previous epoch's last W,
 * is that run's straggler if it is more than this nearer to its highest.
 */
#define PG_RXS_STRAY		64
/* Most copies a number may stand for (pgrx "copies"): the scan is per packet. */
#define PG_RXS_COPIES_MAX	256
/* Further ahead than this a number is not believed (malformed). */
#define PG_RXS_SEQ_WILD		BIT(30)
/* A stamp at least this far from the receiver's clock is malformed. */
#define PG_RXS_LAT_LIMIT	((s64)BIT_ULL(40))

struct pg_rxs_u128 {
	u64 hi, lo;
};

/* Count, min, max, sum and sum of squares (128 bits each) of a series. */
struct pg_rxs_moments {
	u64 count, min, max;
	struct pg_rxs_u128 sum, sq;
};

/* What became of a packet's number. */
enum pg_rxs_class {
	PG_RXS_NEXT,		/* above the highest so far */
	PG_RXS_REORDERED,	/* below it, fills a hole within W */
	PG_RXS_DUPLICATE,	/* within W, already seen */
	PG_RXS_LATE,		/* W or more behind: loss already final */
	PG_RXS_WILD,		/* too far ahead: malformed */
};

/* Sequence state of a stream: one epoch (sender run) at a time. */
struct pg_rxs_seq {
	bool started;
	bool have_prev;			/* an earlier epoch existed */
	u32 copies;			/* packets per number sent (0, 1: one) */
	u32 first;			/* lowest number of the epoch */
	u32 max;			/* highest number of the epoch */
	u32 prev_max;			/* highest number of the epoch before */
	u64 span;			/* max - first + 1 */
	u64 unique;			/* distinct numbers seen within W */
	u64 lost_before;		/* holes of earlier epochs */
	u64 reordered, duplicates, late, restarts, malformed;
	u64 wild;			/* of malformed: numbers not tracked */
	/* a possible restart: numbers that went back, in a row */
	unsigned int cand_n;
	u32 cand[PG_RXS_CONFIRM];
	u8 cand_class[PG_RXS_CONFIRM];
	u64 window[PG_RXS_WORDS];	/* bit n % W: number n of (max - W, max] */
};

/* Timing state of a stream (all in ns). */
struct pg_rxs_time {
	bool have_transit;
	s64 prev_transit;		/* RFC 3550: previous arrival - send */
	u64 jitter16;			/* RFC 3550 A.8: jitter, scaled by 16 */
	u64 epoch_first_ns;		/* monotonic arrival of the epoch's first */
	u64 last_ns;			/* and of the latest packet; 0: none */
	u64 epoch_packets, epoch_bytes;	/* arrivals of this epoch */
	u64 lat_negative;		/* stamped later than they arrived */
	/*
	 * A possible restart's packets, held back: as many as q->cand_n (in
	 * every statistics mode), their gaps (U64_MAX: none), and of the timed
	 * ones the count, the first arrival and the bytes.
	 */
	unsigned int held, held_timed;
	u64 held_gap[PG_RXS_CONFIRM];
	u64 held_ns, held_bytes;
	struct pg_rxs_moments lat;	/* latencies */
	struct pg_rxs_moments gap;	/* inter-arrival times */
};

/* A packet as the counting sees it. */
struct pg_rxs_pkt {
	u32 seq;
	bool timed;			/* statistics basic or time */
	bool stamped;			/* carries a stamp (not NO_TIMESTAMP) */
	bool malformed;			/* its stamp fields were out of range */
	u32 now_sec, now_nsec;		/* receiver's CLOCK_REALTIME */
	u32 tv_sec, tv_nsec;		/* the stamp */
	u64 mono_ns;			/* receiver's monotonic clock, under the lock */
	unsigned int len;
};

/* Figures derived when reading. */
struct pg_rxs_rate {
	u64 pps, bps;
};

/* pktgen_rxstat.c */
int pg_rxs_count(struct pg_rxs_seq *q, struct pg_rxs_time *t, const struct pg_rxs_pkt *p);
enum pg_rxs_class pg_rxs_seq_track(struct pg_rxs_seq *q, u32 seq);
u64 pg_rxs_seq_lost(const struct pg_rxs_seq *q);
u64 pg_rxs_reordered_ppm(u64 packets, u64 duplicates, u64 wild, u64 reordered);
bool pg_rxs_latency(u32 now_sec, u32 now_nsec, u32 tv_sec, u32 tv_nsec, s64 *lat);
void pg_rxs_jitter(struct pg_rxs_time *t, s64 transit);
u64 pg_rxs_jitter_ns(const struct pg_rxs_time *t);
void pg_rxs_moments_add(struct pg_rxs_moments *m, u64 v);
void pg_rxs_moments_merge(struct pg_rxs_moments *d, const struct pg_rxs_moments *s);
u64 pg_rxs_mean(const struct pg_rxs_moments *m);
u64 pg_rxs_stddev(const struct pg_rxs_moments *m);
void pg_rxs_rate(const struct pg_rxs_time *t, struct pg_rxs_rate *r);
void pg_rxs_gaps(const struct pg_rxs_time *t, struct pg_rxs_moments *m);
unsigned int pg_rxs_hist_bucket(u64 v);
u64 pg_rxs_bucket_lo(unsigned int b);
u64 pg_rxs_bucket_hi(unsigned int b);
u64 pg_rxs_bucket_mid(unsigned int b);
u64 pg_rxs_percentile(const u64 *hist, u64 min, u64 max, unsigned int per_mille);

/*
 * Log-linear latency histogram (ns): values below 16 have a bucket each,
 * then every power of two from 2^4 to 2^34 is cut into 16 buckets (6.25%
 * wide).  The last of them, from 31 x 2^30 ns (33.3 s), also takes every
 * value of 2^35 ns and more (up to the malformed limit of 2^40 ns).
 */
#define PG_RXS_HIST_SUB_BITS	4
#define PG_RXS_HIST_SUB		BIT(PG_RXS_HIST_SUB_BITS)
#define PG_RXS_HIST_MAX_EXP	34
#define PG_RXS_HIST_BUCKETS	((PG_RXS_HIST_MAX_EXP - PG_RXS_HIST_SUB_BITS + 2) << \
				 PG_RXS_HIST_SUB_BITS)

#endif /* _PKTGEN_RXSTAT_H */
