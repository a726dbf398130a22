// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the receiver's stream tables.
 *
 * A table (struct pg_rx_table) holds up to PG_RX_MAX_STREAMS streams: the
 * hook (pktgen_rx.c) finds a stream without a lock in an open-addressed
 * hash of u16 indices (load factor at most 1/4, hashed with a random
 * hsiphash key per table, at most PG_RX_MAX_PROBES slots looked at, so
 * that keys chosen by a sender cannot make a packet cost more), and at a
 * stream's first packet allocates it (GFP_NOWAIT, before the lock) and
 * publishes it under the table's create_lock.  A stream that cannot be
 * had (the table full, no free slot within the probe limit, or no
 * memory) is refused: its packets are counted as overflow, never into
 * another stream.  After a failed allocation the table creates no
 * stream for PG_RX_NOMEM_BACKOFF jiffies, so that short memory does not
 * cost an attempt per packet.  Streams live until their table is freed,
 * after a grace period (pktgen_rx.c, pg_rx_table_replace()).
 *
 * Per stream, under its own spinlock, written only by the CPUs that
 * receive it: packet and byte counters, sequence tracking, jitter, gaps,
 * rate, the 128-bit latency sums (pktgen_rxstat.c has the logic) and,
 * under statistics time, the latency histogram (4 KiB, allocated with
 * the stream or when the setting becomes time).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/timekeeping.h>
#include <linux/u64_stats_sync.h>

#include "pktgen_rx_streams.h"
#include "pktgen_rxstat.h"

#define PG_RX_HIST_SIZE		(PG_RXS_HIST_BUCKETS * sizeof(u64))
/*
 * The packet path's allocations: they may fail, and that is counted
 * (overflow); no reserves (the drivers' receive buffers need those).
 * Not __GFP_ACCOUNT: in softirq there is no task whose memory cgroup
 * would be charged.
 */
#define PG_RX_GFP_HOOK		(GFP_NOWAIT | __GFP_NOWARN)
/* After a failed allocation, no stream created for this many jiffies: 1-2 ticks. */
#define PG_RX_NOMEM_BACKOFF	2

/* Counters of packets that belong to no stream. */
struct pg_rx_misc {
	struct u64_stats_sync syncp;
	u64_stats_t overflow;		/* pktgen packets beyond the stream limit */
};

/* ---- packet path: streams ------------------------------------------------- */

/*
 * Keyed: the keys come from the network (stream ids, source MACs), and
 * with a known hash a sender could pick keys that share one probe chain.
 */
static u32 pg_rx_key_hash(const struct pg_rx_table *t, const struct pg_rx_key *key)
{
	return hsiphash(key, sizeof(*key), &t->hkey) & (PG_RX_HASH_SLOTS - 1);
}

static bool pg_rx_key_eq(const struct pg_rx_key *a, const struct pg_rx_key *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/*
 * Lock-free lookup of at most PG_RX_MAX_PROBES slots; *slot is where the
 * key would be inserted, or -1 when none of them is free (the key cannot
 * be had: overflow).  Slots only go from empty to set, so a key absent
 * from its first PG_RX_MAX_PROBES slots is absent from the table.
 */
struct pg_rx_stream *pg_rx_lookup(struct pg_rx_table *t, const struct pg_rx_key *key,
				  int *slot)
{
	u32 h = pg_rx_key_hash(t, key);
	int i, idx;

	/* the slots hold stream index + 1, 0 for none */
	BUILD_BUG_ON(PG_RX_MAX_STREAMS >= U16_MAX);
	/* the hash masked to a slot, the probe wrapped by the same mask */
	BUILD_BUG_ON(!is_power_of_2(PG_RX_HASH_SLOTS));
	/* load 1/4 at most, what PG_RX_MAX_PROBES was chosen for */
	BUILD_BUG_ON(PG_RX_HASH_SLOTS < 4 * PG_RX_MAX_STREAMS);
	BUILD_BUG_ON(PG_RX_MAX_PROBES > PG_RX_HASH_SLOTS);
	/* the first streams have rings */
	BUILD_BUG_ON(PG_RX_RING_STREAMS > PG_RX_MAX_STREAMS);

	*slot = -1;
	for (i = 0; i < PG_RX_MAX_PROBES; i++, h = (h + 1) & (PG_RX_HASH_SLOTS - 1)) {
		/* pairs with smp_store_release() in pg_rx_create() */
		idx = smp_load_acquire(&t->slots[h]);
		if (!idx) {
			*slot = h;
			return NULL;
		}
		if (pg_rx_key_eq(&t->streams[idx - 1]->key, key))
			return t->streams[idx - 1];
	}
	return NULL;
}

/* Within PG_RX_NOMEM_BACKOFF jiffies of a failed allocation. */
static bool pg_rx_nomem(const struct pg_rx_table *t)
{
	unsigned long at = READ_ONCE(t->nomem_at);

	return time_in_range_open(jiffies, at, at + PG_RX_NOMEM_BACKOFF);
}

/*
 * The first packet of a stream: the stream, or NULL when the table is
 * full, the key's probe chain has no free slot within PG_RX_MAX_PROBES,
 * or memory is short (the caller counts the packet as overflow).  Both
 * allocations are made before create_lock is taken.  @stats_mode is read
 * again under create_lock, so that pg_rx_table_hists() sees every stream
 * created before the setting became time.
 */
struct pg_rx_stream *pg_rx_create(struct pg_rx_table *t, const struct pg_rx_key *key,
				  bool ns_res, u32 copies, const int *stats_mode)
{
	struct pg_rx_stream *s, *found;
	u64 *hist = NULL;
	int slot, n;

	if (READ_ONCE(t->nstreams) >= PG_RX_MAX_STREAMS || pg_rx_nomem(t))
		return NULL;
	s = kzalloc(sizeof(*s), PG_RX_GFP_HOOK);
	if (s && READ_ONCE(*stats_mode) == PG_RX_STATS_TIME) {
		hist = kzalloc(PG_RX_HIST_SIZE, PG_RX_GFP_HOOK);
		if (!hist) {
			kfree(s);
			s = NULL;
		}
	}
	if (!s)
		goto nomem;
	spin_lock_init(&s->lock);
	s->key = *key;
	s->ns_res = ns_res;
	/* a stream counts with one setting throughout: a change mid-run would mix two */
	s->seq.copies = copies;

	spin_lock(&t->create_lock);
	/* another CPU may have created it meanwhile */
	found = pg_rx_lookup(t, key, &slot);
	n = t->nstreams;
	if (found || slot < 0 || n >= PG_RX_MAX_STREAMS)
		goto out_free;
	if (READ_ONCE(*stats_mode) == PG_RX_STATS_TIME) {
		/* rare: the setting became time since the read above */
		if (!hist)
			hist = kzalloc(PG_RX_HIST_SIZE, PG_RX_GFP_HOOK);
		if (!hist) {
			spin_unlock(&t->create_lock);
			kfree(s);
			goto nomem;
		}
		s->hist = hist;
		hist = NULL;
	}
	if (t->rings && n < PG_RX_RING_STREAMS)
		s->ring = &t->rings[n];
	t->streams[n] = s;
	/* publish the initialised stream to lookups (pg_rx_lookup) ... */
	smp_store_release(&t->slots[slot], n + 1);
	/* ... and to readers of the file (pg_rx_table_streams) */
	smp_store_release(&t->nstreams, n + 1);
	spin_unlock(&t->create_lock);
	/* the setting is no longer time: no histogram */
	kfree(hist);
	return s;

out_free:
	spin_unlock(&t->create_lock);
	kfree(hist);
	kfree(s);
	return found;

nomem:
	WRITE_ONCE(t->nomem_at, jiffies);
	return NULL;
}

/* ---- packet path: counting -------------------------------------------------- */

/*
 * A sample whose stamp was not written as its packet was sent: the
 * sender stamped at build (not stamp_sent: an ESP run, or a sender
 * that predates the flags), or the packet is a copy that went out with
 * an earlier copy's stamp (stamp_copies, the stamp the stream saw
 * last).  @s->lock held.
 */
static void pg_rx_count_stamp(struct pg_rx_stream *s, const struct pg_rx_pkt *p)
{
	u64 stamp = (u64)p->tv_sec << 32 | p->tv_nsec;

	if (!p->stamp_sent || (p->stamp_copies && stamp == s->copy_stamp))
		s->build_stamped++;
	if (p->stamp_copies)
		s->copy_stamp = stamp;
}

/*
 * Latency needs CLOCK_REALTIME (what the sender stamps), or the device's
 * receive stamp on that scale (p->hw); gaps and rate take the monotonic
 * clock under the stream's lock, so that it cannot step and CPUs read it
 * in the order in which they count.  Counter mode reads no clock.
 */
void pg_rx_count(struct pg_rx_stream *s, const struct pg_rx_pkt *p, int mode)
{
	struct pg_rxs_pkt in = {
		.seq = p->seq,
		.timed = mode != PG_RX_STATS_COUNTER,
		.stamped = p->stamped,
		.malformed = p->malformed,
		.tv_sec = p->tv_sec,
		.tv_nsec = p->tv_nsec,
		.len = p->frame_len,
	};
	struct pg_rx_ring *ring;
	struct timespec64 now;
	int bucket;
	s64 lat;

	if (in.timed && in.stamped) {
		if (p->hw)
			now = ns_to_timespec64(p->hw_ns);
		else
			ktime_get_real_ts64(&now);
		in.now_sec = now.tv_sec;
		in.now_nsec = now.tv_nsec;
	}
	spin_lock(&s->lock);
	if (in.timed)
		in.mono_ns = ktime_get_ns();
	bucket = pg_rxs_count(&s->seq, &s->time, &in);
	s->packets++;
	s->bytes += p->frame_len;
	/* no histogram yet: the setting just became time (pg_rx_table_hists) */
	if (bucket >= 0 && mode == PG_RX_STATS_TIME && s->hist)
		s->hist[bucket]++;
	if (in.timed && in.stamped && s->key.has_id)
		pg_rx_count_stamp(s, p);
	if (bucket >= 0 && p->hw)
		s->hw_stamped++;
	/* pairs with smp_store_release() in pg_rx_table_sampling() */
	ring = smp_load_acquire(&s->ring);
	if (ring && in.timed && in.stamped && !in.malformed &&
	    pg_rxs_latency(in.now_sec, in.now_nsec, in.tv_sec, in.tv_nsec, &lat))
		pg_rx_ring_add(ring, READ_ONCE(ring->how), timespec64_to_ns(&now), p->seq, lat);
	spin_unlock(&s->lock);
}

void pg_rx_count_overflow(struct pg_rx_table *t)
{
	struct pg_rx_misc *m = this_cpu_ptr(t->misc);

	u64_stats_update_begin(&m->syncp);
	u64_stats_inc(&m->overflow);
	u64_stats_update_end(&m->syncp);
}

/* ---- tables ------------------------------------------------------------------- */

/* No hook or reader may be using @t (a grace period after it was unpublished). */
void pg_rx_table_free(struct pg_rx_table *t)
{
	int i;

	if (!t)
		return;
	for (i = 0; i < t->nstreams; i++) {
		kfree(t->streams[i]->hist);
		kfree(t->streams[i]);
	}
	free_percpu(t->misc);
	pg_rx_rings_free(t->rings);
	vfree(t);
}

/* An empty table; its streams come with their first packets. */
struct pg_rx_table *pg_rx_table_alloc(void)
{
	struct pg_rx_table *t;
	int cpu;

	/* 64 KiB and a few bytes: vmalloc rather than a 128 KiB kmalloc */
	t = vzalloc(sizeof(*t));
	if (!t)
		return NULL;
	spin_lock_init(&t->create_lock);
	get_random_bytes(&t->hkey, sizeof(t->hkey));
	/* no failed allocation yet */
	t->nomem_at = jiffies - PG_RX_NOMEM_BACKOFF;
	t->misc = alloc_percpu(struct pg_rx_misc);
	if (!t->misc)
		goto err_free;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(t->misc, cpu)->syncp);
	return t;

err_free:
	pg_rx_table_free(t);
	return NULL;
}

/* ---- reading ---------------------------------------------------------------------- */

/* The streams a reader may look at: t->streams[0..n) (a holder of the file's lock). */
int pg_rx_table_streams(struct pg_rx_table *t)
{
	/* pairs with the release in pg_rx_create(): streams[0..n) are set */
	return smp_load_acquire(&t->nstreams);
}

/*
 * Under statistics time every stream has a histogram: those created
 * before the setting changed get theirs here (the caller has set it and
 * holds the file's lock, so that the table and its streams stay).
 */
int pg_rx_table_hists(struct pg_rx_table *t)
{
	int i, n;
	u64 *h;

	/* a stream created after this saw the new setting (pg_rx_create) */
	spin_lock_bh(&t->create_lock);
	n = t->nstreams;
	spin_unlock_bh(&t->create_lock);
	for (i = 0; i < n; i++) {
		struct pg_rx_stream *s = t->streams[i];

		/* only this function sets a published stream's histogram */
		if (s->hist)
			continue;
		h = kzalloc(PG_RX_HIST_SIZE, GFP_KERNEL_ACCOUNT);
		if (!h)
			return -ENOMEM;
		spin_lock_bh(&s->lock);
		s->hist = h;
		spin_unlock_bh(&s->lock);
		cond_resched();
	}
	return 0;
}

/* @s's figures into @d and, if @hist, its buckets, at one moment. */
void pg_rx_sum_stream(struct pg_rx_stream *s, struct pg_rx_sum *d, u64 *hist)
{
	const struct pg_rxs_seq *q = &s->seq;

	memset(d, 0, sizeof(*d));
	spin_lock_bh(&s->lock);
	d->packets = s->packets;
	d->bytes = s->bytes;
	d->first_seq = q->first;
	d->last_seq = q->max;
	d->lost = pg_rxs_seq_lost(q);
	d->reordered = q->reordered;
	d->duplicates = q->duplicates;
	d->late = q->late;
	d->restarts = q->restarts;
	d->malformed = q->malformed;
	d->wild = q->wild;
	d->jitter_ns = pg_rxs_jitter_ns(&s->time);
	d->lat_negative = s->time.lat_negative;
	d->build_stamped = s->build_stamped;
	d->hw_stamped = s->hw_stamped;
	d->lat = s->time.lat;
	pg_rxs_gaps(&s->time, &d->gap);
	pg_rxs_rate(&s->time, &d->rate);
	if (hist && s->hist)
		memcpy(hist, s->hist, PG_RX_HIST_SIZE);
	else if (hist)
		memset(hist, 0, PG_RX_HIST_SIZE);
	spin_unlock_bh(&s->lock);
}

/*
 * Totals: sums, except jitter (the largest) and the sequence range (none);
 * the gaps of all streams together, each stream's within itself; the rate
 * of streams received at once is the sum of theirs.
 */
void pg_rx_sum_add(struct pg_rx_sum *tot, const struct pg_rx_sum *s)
{
	tot->packets += s->packets;
	tot->bytes += s->bytes;
	tot->lost += s->lost;
	tot->reordered += s->reordered;
	tot->duplicates += s->duplicates;
	tot->late += s->late;
	tot->restarts += s->restarts;
	tot->malformed += s->malformed;
	tot->wild += s->wild;
	tot->lat_negative += s->lat_negative;
	tot->build_stamped += s->build_stamped;
	tot->hw_stamped += s->hw_stamped;
	tot->jitter_ns = max(tot->jitter_ns, s->jitter_ns);
	tot->rate.pps += s->rate.pps;
	tot->rate.bps += s->rate.bps;
	pg_rxs_moments_merge(&tot->lat, &s->lat);
	pg_rxs_moments_merge(&tot->gap, &s->gap);
}

/* Pktgen packets beyond the stream limit, over CPUs. */
u64 pg_rx_overflow(struct pg_rx_table *t)
{
	unsigned int start;
	u64 n = 0, v;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pg_rx_misc *m = per_cpu_ptr(t->misc, cpu);

		do {
			start = u64_stats_fetch_begin(&m->syncp);
			v = u64_stats_read(&m->overflow);
		} while (u64_stats_fetch_retry(&m->syncp, start));
		n += v;
	}
	return n;
}

/* ---- sample rings ---------------------------------------------------------------- */

/*
 * The sampling setting @how for the streams of @t that have a ring (0:
 * off), the rings allocated the first time it is on: one for each of the
 * first PG_RX_RING_STREAMS streams, those to come included (pg_rx_create
 * gives a new stream its ring); for the holder of the file's lock.  Rings
 * stay with the table (their samples readable) until it is freed.
 */
int pg_rx_table_sampling(struct pg_rx_table *t, u32 how)
{
	struct pg_rx_ring *rings;
	int i;

	if (how && !t->rings) {
		rings = pg_rx_rings_alloc(PG_RX_RING_STREAMS);
		if (!rings)
			return -ENOMEM;
		for (i = 0; i < PG_RX_RING_STREAMS; i++)
			rings[i].how = how;
		spin_lock_bh(&t->create_lock);
		t->rings = rings;
		for (i = 0; i < t->nstreams && i < PG_RX_RING_STREAMS; i++)
			/* the ring, zeroed, to the hook (pg_rx_count()'s acquire) */
			smp_store_release(&t->streams[i]->ring, &rings[i]);
		spin_unlock_bh(&t->create_lock);
	}
	for (i = 0; t->rings && i < PG_RX_RING_STREAMS; i++)
		WRITE_ONCE(t->rings[i].how, how);
	return 0;
}

/* The number of the next sample @s will take (0 without a ring). */
u64 pg_rx_stream_sampled(struct pg_rx_stream *s)
{
	struct pg_rx_ring *r;
	u64 n;

	spin_lock_bh(&s->lock);
	r = READ_ONCE(s->ring);
	n = r ? r->taken : 0;
	spin_unlock_bh(&s->lock);
	return n;
}

/*
 * A chunk of @s's samples for a reader: pg_rx_ring_copy() under the
 * stream's lock, which the hook takes for every packet of the stream:
 * @max bounds the time it waits.
 */
unsigned int pg_rx_stream_samples(struct pg_rx_stream *s, u64 *next, u64 end,
				  struct pg_rx_sample *out, unsigned int max)
{
	struct pg_rx_ring *r;
	unsigned int n = 0;

	spin_lock_bh(&s->lock);
	r = READ_ONCE(s->ring);
	if (r)
		n = pg_rx_ring_copy(r, next, end, out, max);
	spin_unlock_bh(&s->lock);
	return n;
}

/* "id-<hex>" (extension) or "<dev>-ipv<N>-<source MAC>". */
void pg_rx_stream_name(struct net *net, const struct pg_rx_stream *s, char *buf, size_t len)
{
	const struct pg_rx_key *k = &s->key;
	struct net_device *dev;
	char ifname[IFNAMSIZ];

	if (k->has_id) {
		snprintf(buf, len, "id-%08x", k->id);
		return;
	}
	rcu_read_lock();
	dev = dev_get_by_index_rcu(net, k->ifindex);
	if (dev)
		strscpy(ifname, dev->name, sizeof(ifname));
	else
		snprintf(ifname, sizeof(ifname), "if%d", k->ifindex);
	rcu_read_unlock();
	snprintf(buf, len, "%s-ipv%u-%pM", ifname, k->ipver, k->mac);
}
