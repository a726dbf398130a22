// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the receiver's stream tables.
 *
 * A table (struct pg_rx_table) holds up to PG_RX_MAX_STREAMS streams, all
 * allocated with it: the hook (pktgen_rx.c) finds a stream without a
 * lock, creates it under the table's create_lock and counts into it.
 *
 * Per stream: packet and byte counters and the latency histogram are
 * per-CPU (u64_stats); sequence tracking, jitter, gaps, rate and the
 * 128-bit latency sums need the arrival order or a consistent snapshot
 * and live in the stream under its own spinlock (pktgen_rxstat.c has
 * the logic), written only by the CPUs that receive that stream.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jhash.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/u64_stats_sync.h>

#include "pktgen_rx_streams.h"
#include "pktgen_rxstat.h"

/* Per-CPU part of a stream: written only by the CPU that owns it. */
struct pg_rx_pcpu {
	struct u64_stats_sync syncp;
	u64_stats_t packets;
	u64_stats_t bytes;
	u64_stats_t hist[PG_RXS_HIST_BUCKETS];
};

/* Counters of packets that belong to no stream. */
struct pg_rx_misc {
	struct u64_stats_sync syncp;
	u64_stats_t overflow;		/* pktgen packets beyond the stream limit */
};

/* ---- packet path: streams ------------------------------------------------- */

static u32 pg_rx_key_hash(const struct pg_rx_key *key)
{
	return jhash(key, sizeof(*key), 0) & (PG_RX_HASH_SLOTS - 1);
}

static bool pg_rx_key_eq(const struct pg_rx_key *a, const struct pg_rx_key *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* Lock-free lookup; *slot is where the key would be inserted (or -1). */
struct pg_rx_stream *pg_rx_lookup(struct pg_rx_table *t, const struct pg_rx_key *key,
				  int *slot)
{
	u32 h = pg_rx_key_hash(key);
	int i, idx;

	*slot = -1;
	for (i = 0; i < PG_RX_HASH_SLOTS; i++, h = (h + 1) & (PG_RX_HASH_SLOTS - 1)) {
		/* pairs with smp_store_release() in pg_rx_create() */
		idx = smp_load_acquire(&t->slots[h]);
		if (!idx) {
			*slot = h;
			return NULL;
		}
		if (pg_rx_key_eq(&t->streams[idx - 1].key, key))
			return &t->streams[idx - 1];
	}
	return NULL;
}

/* The first packet of a stream; bounded by the stream limit. */
struct pg_rx_stream *pg_rx_create(struct pg_rx_table *t, const struct pg_rx_key *key,
				  bool ns_res, u32 copies)
{
	struct pg_rx_stream *s;
	int slot, n;

	if (READ_ONCE(t->nstreams) >= PG_RX_MAX_STREAMS)
		return NULL;
	spin_lock(&t->create_lock);
	/* another CPU may have created it meanwhile */
	s = pg_rx_lookup(t, key, &slot);
	n = t->nstreams;
	if (s || slot < 0 || n >= PG_RX_MAX_STREAMS)
		goto out;
	s = &t->streams[n];
	s->key = *key;
	s->ns_res = ns_res;
	/* a stream counts with one setting throughout: a change mid-run would mix two */
	s->seq.copies = copies;
	/* publish the initialised stream to lookups (pg_rx_lookup) ... */
	smp_store_release(&t->slots[slot], n + 1);
	/* ... and to readers of the file (pg_rx_show) */
	smp_store_release(&t->nstreams, n + 1);
out:
	spin_unlock(&t->create_lock);
	return s;
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
	struct pg_rx_pcpu *c = this_cpu_ptr(s->pcpu);
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

	u64_stats_update_begin(&c->syncp);
	u64_stats_inc(&c->packets);
	u64_stats_add(&c->bytes, p->frame_len);
	if (bucket >= 0 && mode == PG_RX_STATS_TIME)
		u64_stats_inc(&c->hist[bucket]);
	u64_stats_update_end(&c->syncp);
}

void pg_rx_count_overflow(struct pg_rx_table *t)
{
	struct pg_rx_misc *m = this_cpu_ptr(t->misc);

	u64_stats_update_begin(&m->syncp);
	u64_stats_inc(&m->overflow);
	u64_stats_update_end(&m->syncp);
}

/* ---- tables ------------------------------------------------------------------- */

void pg_rx_table_free(struct pg_rx_table *t)
{
	int i;

	if (!t)
		return;
	for (i = 0; i < PG_RX_MAX_STREAMS; i++)
		free_percpu(t->streams[i].pcpu);
	free_percpu(t->misc);
	pg_rx_rings_free(t->rings);
	kvfree(t);
}

/* Everything a stream can need is allocated here, none in the packet path. */
struct pg_rx_table *pg_rx_table_alloc(void)
{
	struct pg_rx_table *t;
	int i, cpu;

	t = kvzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return NULL;
	spin_lock_init(&t->create_lock);
	t->misc = alloc_percpu(struct pg_rx_misc);
	if (!t->misc)
		goto err_free;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(t->misc, cpu)->syncp);
	for (i = 0; i < PG_RX_MAX_STREAMS; i++) {
		struct pg_rx_stream *s = &t->streams[i];

		spin_lock_init(&s->lock);
		s->pcpu = alloc_percpu(struct pg_rx_pcpu);
		if (!s->pcpu)
			goto err_free;
		for_each_possible_cpu(cpu)
			u64_stats_init(&per_cpu_ptr(s->pcpu, cpu)->syncp);
	}
	return t;

err_free:
	pg_rx_table_free(t);
	return NULL;
}

/* ---- reading: merging the per-CPU counters -------------------------------------- */

/* One CPU's counters of a stream, read field by field within one fetch. */
static void pg_rx_sum_cpu(struct pg_rx_sum *d, const struct pg_rx_pcpu *c)
{
	u64 packets, bytes;
	unsigned int start;
	int b;

	do {
		start = u64_stats_fetch_begin(&c->syncp);
		packets = u64_stats_read(&c->packets);
		bytes = u64_stats_read(&c->bytes);
	} while (u64_stats_fetch_retry(&c->syncp, start));
	d->packets += packets;
	d->bytes += bytes;
	/* buckets only ever grow: each is read whole, which is all a percentile needs */
	for (b = 0; b < PG_RXS_HIST_BUCKETS; b++)
		d->hist[b] += u64_stats_read(&c->hist[b]);
}

void pg_rx_sum_stream(struct pg_rx_stream *s, struct pg_rx_sum *d)
{
	const struct pg_rxs_seq *q = &s->seq;
	int cpu;

	memset(d, 0, sizeof(*d));
	for_each_possible_cpu(cpu)
		pg_rx_sum_cpu(d, per_cpu_ptr(s->pcpu, cpu));

	spin_lock_bh(&s->lock);
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
	spin_unlock_bh(&s->lock);
}

/*
 * Totals: sums, except jitter (the largest) and the sequence range (none);
 * the gaps of all streams together, each stream's within itself; the rate
 * of streams received at once is the sum of theirs.
 */
void pg_rx_sum_add(struct pg_rx_sum *tot, const struct pg_rx_sum *s)
{
	int b;

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
	for (b = 0; b < PG_RXS_HIST_BUCKETS; b++)
		tot->hist[b] += s->hist[b];
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
 * The sampling setting @how for every stream of @t (0: off), the rings
 * allocated the first time it is on; for the holder of the file's lock.
 * Rings stay with the table (their samples readable) until it is freed.
 */
int pg_rx_table_sampling(struct pg_rx_table *t, u32 how)
{
	int i;

	if (how && !t->rings) {
		t->rings = pg_rx_rings_alloc(PG_RX_MAX_STREAMS);
		if (!t->rings)
			return -ENOMEM;
		for (i = 0; i < PG_RX_MAX_STREAMS; i++) {
			t->rings[i].how = how;
			/* the ring, zeroed, to the hook (pg_rx_count()'s acquire) */
			smp_store_release(&t->streams[i].ring, &t->rings[i]);
		}
	}
	for (i = 0; t->rings && i < PG_RX_MAX_STREAMS; i++)
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
