// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the receiver's sequence and statistics logic (see pktgen_rxstat.h
 * and Documentation/receiver.rst, "What it measures").  Pure functions:
 * the same file is built into the module and into tests/host/rxstat.c.
 */
#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <linux/time64.h>
#endif

#include "pktgen_rxstat.h"

/* ---- 128-bit arithmetic, portable (no __int128 in 32-bit kernels) --------- */

static struct pg_rxs_u128 pg_u128_mul64(u64 a, u64 b)
{
	u64 al = (u32)a, ah = a >> 32, bl = (u32)b, bh = b >> 32;
	u64 ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	u64 mid = (ll >> 32) + (u32)lh + (u32)hl;
	struct pg_rxs_u128 r;

	r.lo = (mid << 32) | (u32)ll;
	r.hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
	return r;
}

static struct pg_rxs_u128 pg_u128_add(struct pg_rxs_u128 a, struct pg_rxs_u128 b)
{
	a.lo += b.lo;
	a.hi += b.hi + (a.lo < b.lo);
	return a;
}

static struct pg_rxs_u128 pg_u128_sub(struct pg_rxs_u128 a, struct pg_rxs_u128 b)
{
	a.hi -= b.hi + (a.lo < b.lo);
	a.lo -= b.lo;
	return a;
}

static bool pg_u128_lt(struct pg_rxs_u128 a, struct pg_rxs_u128 b)
{
	return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

static struct pg_rxs_u128 pg_u128_of(u64 v)
{
	struct pg_rxs_u128 r = { .hi = 0, .lo = v };

	return r;
}

/* a * b, the product known to fit in 128 bits */
static struct pg_rxs_u128 pg_u128_mul(struct pg_rxs_u128 a, u64 b)
{
	struct pg_rxs_u128 r = pg_u128_mul64(a.lo, b);

	r.hi += a.hi * b;
	return r;
}

/* a / d and a % d, by long division: only used when reading */
static struct pg_rxs_u128 pg_u128_divmod(struct pg_rxs_u128 a, u64 d, u64 *rem)
{
	struct pg_rxs_u128 q = { 0, 0 };
	u64 r = 0;
	int i;

	for (i = 127; i >= 0; i--) {
		bool carry = r >> 63;
		u64 bit = i >= 64 ? a.hi >> (i - 64) & 1 : a.lo >> i & 1;

		r = r << 1 | bit;
		if (carry || r >= d) {
			r -= d;
			if (i >= 64)
				q.hi |= 1ULL << (i - 64);
			else
				q.lo |= 1ULL << i;
		}
	}
	*rem = r;
	return q;
}

/* floor(sqrt(a)) */
static u64 pg_u128_sqrt(struct pg_rxs_u128 a)
{
	u64 r = 0, t;
	int b;

	for (b = 63; b >= 0; b--) {
		t = r | 1ULL << b;
		if (!pg_u128_lt(a, pg_u128_mul64(t, t)))
			r = t;
	}
	return r;
}

/* ---- sequence numbers ------------------------------------------------------- */

static u64 pg_rxs_sat_add(u64 a, u64 b)
{
	return a + b < a ? U64_MAX : a + b;
}

static bool pg_rxs_win_test(const struct pg_rxs_seq *q, u32 n)
{
	n %= PG_RXS_WINDOW;
	return q->window[n / 64] >> (n % 64) & 1;
}

static void pg_rxs_win_set(struct pg_rxs_seq *q, u32 n)
{
	n %= PG_RXS_WINDOW;
	q->window[n / 64] |= 1ULL << (n % 64);
}

/* Clear @len bits of the window from bit @from, without wrapping. */
static void pg_rxs_win_clear(struct pg_rxs_seq *q, u32 from, u32 len)
{
	while (len) {
		u32 bit = from % 64, n = len < 64 - bit ? len : 64 - bit;

		q->window[from / 64] &= n == 64 ? 0 : ~(((1ULL << n) - 1) << bit);
		from += n;
		len -= n;
	}
}

/*
 * Forget the numbers (max, max + d], which the window now takes for new:
 * a word at a time, so that a gap of d costs d / 64 stores, not d.
 */
static void pg_rxs_win_advance(struct pg_rxs_seq *q, u32 d)
{
	u32 from = (q->max + 1) % PG_RXS_WINDOW, head;

	if (d >= PG_RXS_WINDOW) {
		memset(q->window, 0, sizeof(q->window));
		return;
	}
	head = d < PG_RXS_WINDOW - from ? d : PG_RXS_WINDOW - from;
	pg_rxs_win_clear(q, from, head);
	pg_rxs_win_clear(q, 0, d - head);
}

/*
 * A new epoch at @seq.  pktgen numbers every run from 1: an epoch whose
 * first packet is at most W starts at 1 (the packets before it are lost,
 * or reordered); a receiver enabled mid-run starts where it joins.
 */
static void pg_rxs_epoch(struct pg_rxs_seq *q, u32 seq)
{
	q->started = true;
	q->first = seq && seq <= PG_RXS_WINDOW ? 1 : seq;
	q->max = seq;
	q->span = (u64)(seq - q->first) + 1;
	q->unique = 1;
	memset(q->window, 0, sizeof(q->window));
	pg_rxs_win_set(q, seq);
}

/*
 * With copies k (clone_skb, burst), the sender's seq_num advanced by each
 * packet sent while the k packets of an skb carry its first number: a
 * packet numbered s is one of s .. s + k - 1, and takes the lowest of them
 * not yet seen.  A number W or more behind stays as it is (late), and so
 * does one whose k numbers were all seen (a duplicate).
 */
static u32 pg_rxs_copy_of(const struct pg_rxs_seq *q, u32 seq)
{
	u32 j, x;

	if (q->copies < 2 || q->max - seq >= PG_RXS_WINDOW)
		return seq;
	for (j = 0; j < q->copies; j++) {
		x = seq + j;
		if ((x - q->max && x - q->max < 1U << 31) || !pg_rxs_win_test(q, x))
			return x;
	}
	return seq;
}

/* What @seq is to the epoch, without changing anything. */
static enum pg_rxs_class pg_rxs_classify(const struct pg_rxs_seq *q, u32 seq)
{
	u32 ahead = seq - q->max, behind = q->max - seq;

	if (ahead && ahead < 1U << 31) {
		if (ahead >= PG_RXS_SEQ_WILD)
			return PG_RXS_WILD;
		/*
		 * a straggler of the previous run: less than W below its
		 * highest, and nearer to that (by more than PG_RXS_STRAY) than
		 * to the highest of the new one
		 */
		if (q->have_prev && q->prev_max - seq < PG_RXS_WINDOW &&
		    ahead > q->prev_max - seq + PG_RXS_STRAY)
			return PG_RXS_LATE;
		return PG_RXS_NEXT;
	}
	if (behind >= PG_RXS_WINDOW)
		return PG_RXS_LATE;
	/* below the epoch's first number (which is span - 1 behind) */
	if (behind >= q->span)
		return PG_RXS_REORDERED;
	return pg_rxs_win_test(q, seq) ? PG_RXS_DUPLICATE : PG_RXS_REORDERED;
}

static void pg_rxs_apply(struct pg_rxs_seq *q, u32 seq, enum pg_rxs_class c)
{
	u32 behind = q->max - seq;

	switch (c) {
	case PG_RXS_NEXT:
		pg_rxs_win_advance(q, seq - q->max);
		q->span = pg_rxs_sat_add(q->span, seq - q->max);
		q->max = seq;
		q->unique++;
		pg_rxs_win_set(q, seq);
		break;
	case PG_RXS_REORDERED:
		if (behind >= q->span) {
			q->span = (u64)behind + 1;
			q->first = seq;
		}
		q->unique++;
		q->reordered++;
		pg_rxs_win_set(q, seq);
		break;
	case PG_RXS_DUPLICATE:
		q->duplicates++;
		break;
	case PG_RXS_LATE:
		q->late++;
		break;
	default:
		q->malformed++;
		q->wild++;
		break;
	}
}

/* The candidates confirmed a restart: they start a new epoch. */
static void pg_rxs_restart(struct pg_rxs_seq *q)
{
	unsigned int i;

	/* they were counted against the old epoch: take that back */
	for (i = 0; i < PG_RXS_CONFIRM; i++) {
		if (q->cand_class[i] == PG_RXS_DUPLICATE)
			q->duplicates--;
		else
			q->late--;
	}
	q->lost_before = pg_rxs_seq_lost(q);
	q->restarts++;
	q->have_prev = true;
	q->prev_max = q->max;
	q->cand_n = 0;
	pg_rxs_epoch(q, q->cand[0]);
	for (i = 1; i < PG_RXS_CONFIRM; i++) {
		u32 x = pg_rxs_copy_of(q, q->cand[i]);

		pg_rxs_apply(q, x, pg_rxs_classify(q, x));
	}
}

/*
 * The old run goes on after CONFIRM candidates: @seq is above its highest
 * by at most W, and nearer to it (by more than PG_RXS_STRAY) than to the
 * highest candidate.  The candidates were stragglers or copies, not a
 * restart.
 */
static bool pg_rxs_continues(const struct pg_rxs_seq *q, u32 seq)
{
	u32 ahead = seq - q->max;

	return ahead && ahead <= PG_RXS_WINDOW &&
	       seq - q->cand[PG_RXS_CONFIRM - 1] > ahead + PG_RXS_STRAY;
}

/*
 * Count one packet's number and return its class.  A restart is told
 * from stragglers and copies by CONFIRM packets in a row that each went
 * back (duplicate or late), the first at most W, each 1..W above the one
 * before (or, with copies, equal to it), and a packet after them that
 * does not continue the old run: that packet confirms the restart
 * (q->restarts grows) and is then counted in the new epoch.
 */
enum pg_rxs_class pg_rxs_seq_track(struct pg_rxs_seq *q, u32 seq)
{
	enum pg_rxs_class c;
	bool rises;
	u32 x;

	if (!q->started) {
		pg_rxs_epoch(q, seq);
		return PG_RXS_NEXT;
	}
	if (q->cand_n >= PG_RXS_CONFIRM) {
		if (pg_rxs_continues(q, seq))
			q->cand_n = 0;
		else
			pg_rxs_restart(q);
	}
	x = pg_rxs_copy_of(q, seq);
	c = pg_rxs_classify(q, x);
	pg_rxs_apply(q, x, c);
	if (c != PG_RXS_DUPLICATE && c != PG_RXS_LATE) {
		q->cand_n = 0;
		return c;
	}
	/* a new run's copies repeat its numbers */
	rises = q->cand_n && (seq - q->cand[q->cand_n - 1] - 1 < PG_RXS_WINDOW ||
			      (q->copies > 1 && seq == q->cand[q->cand_n - 1]));
	if (!rises) {
		q->cand_n = 0;
		if (!seq || seq > PG_RXS_WINDOW)
			return c;
	}
	q->cand[q->cand_n] = seq;
	q->cand_class[q->cand_n] = c;
	q->cand_n++;
	return c;
}

/* Holes of this epoch (final once W behind) and of the earlier ones. */
u64 pg_rxs_seq_lost(const struct pg_rxs_seq *q)
{
	/* unique <= span: every number is counted once, and only within W */
	return pg_rxs_sat_add(q->lost_before, q->span - q->unique);
}

/*
 * RFC 4737 3.4: reordered packets among those received, each number once:
 * @packets less the duplicates and the packets whose number was not
 * tracked (too far ahead); a packet malformed only in its stamp still had
 * its number counted.  In parts per million.
 */
u64 pg_rxs_reordered_ppm(u64 packets, u64 duplicates, u64 wild, u64 reordered)
{
	u64 distinct;

	if (packets < duplicates || packets - duplicates <= wild)
		return 0;
	distinct = packets - duplicates - wild;
	return mul_u64_u64_div_u64(reordered, 1000000, distinct);
}

/* ---- time -------------------------------------------------------------------- */

/*
 * Arrival minus stamp in ns, the stamp's 32-bit seconds taken nearest to
 * the arrival's; false (malformed) for tv_nsec out of range or a stamp
 * PG_RXS_LAT_LIMIT or more away.
 */
bool pg_rxs_latency(u32 now_sec, u32 now_nsec, u32 tv_sec, u32 tv_nsec, s64 *lat)
{
	s64 sec = (s32)(now_sec - tv_sec);

	if (tv_nsec >= NSEC_PER_SEC)
		return false;
	*lat = sec * NSEC_PER_SEC + now_nsec - (s64)tv_nsec;
	return *lat > -PG_RXS_LAT_LIMIT && *lat < PG_RXS_LAT_LIMIT;
}

/* RFC 3550 A.8: J += (|D| - J) / 16, kept scaled by 16; exact as the RFC's. */
void pg_rxs_jitter(struct pg_rxs_time *t, s64 transit)
{
	s64 d;

	if (t->have_transit) {
		d = transit - t->prev_transit;
		if (d < 0)
			d = -d;
		t->jitter16 += d - ((t->jitter16 + 8) >> 4);
	}
	t->prev_transit = transit;
	t->have_transit = true;
}

u64 pg_rxs_jitter_ns(const struct pg_rxs_time *t)
{
	return t->jitter16 >> 4;
}

void pg_rxs_moments_add(struct pg_rxs_moments *m, u64 v)
{
	struct pg_rxs_u128 sq = pg_u128_mul64(v, v), n;

	if (!m->count || v < m->min)
		m->min = v;
	if (v > m->max)
		m->max = v;
	m->count++;
	m->sum = pg_u128_add(m->sum, pg_u128_of(v));
	n = pg_u128_add(m->sq, sq);
	/* saturates (2^48 samples of the largest latency) rather than wraps */
	if (pg_u128_lt(n, sq))
		n = (struct pg_rxs_u128){ .hi = U64_MAX, .lo = U64_MAX };
	m->sq = n;
}

void pg_rxs_moments_merge(struct pg_rxs_moments *d, const struct pg_rxs_moments *s)
{
	struct pg_rxs_u128 n;

	if (!s->count)
		return;
	if (!d->count || s->min < d->min)
		d->min = s->min;
	if (s->max > d->max)
		d->max = s->max;
	d->count += s->count;
	d->sum = pg_u128_add(d->sum, s->sum);
	n = pg_u128_add(d->sq, s->sq);
	if (pg_u128_lt(n, s->sq))
		n = (struct pg_rxs_u128){ .hi = U64_MAX, .lo = U64_MAX };
	d->sq = n;
}

/* floor(sum / count) */
u64 pg_rxs_mean(const struct pg_rxs_moments *m)
{
	u64 r;

	return m->count ? pg_u128_divmod(m->sum, m->count, &r).lo : 0;
}

/*
 * Population standard deviation rounded to the nearest integer, from the
 * exact sums: with sum = q n + r, n var = sq - q (sum + r) - r^2 / n, and
 * s = round(sqrt(var)) is the largest s with (2s - 1)^2 <= floor(4 var).
 */
u64 pg_rxs_stddev(const struct pg_rxs_moments *m)
{
	struct pg_rxs_u128 q, mm, a, b4, x, y, n2;
	u64 n = m->count, r, b, bb;
	u64 k = 0;

	if (n < 2 || n >> 62)
		return 0;
	q = pg_u128_divmod(m->sum, n, &r);
	y = pg_u128_mul(pg_u128_add(m->sum, pg_u128_of(r)), q.lo);
	if (pg_u128_lt(m->sq, y))
		return 0;		/* saturated sums */
	mm = pg_u128_sub(m->sq, y);
	/* 4 var = 4 M / n - 4 r^2 / n^2 = A + (B n - 4 r^2) / n^2 */
	a = pg_u128_divmod(mm, n, &b);
	b4 = pg_u128_of(b);
	b4 = pg_u128_add(pg_u128_add(b4, b4), pg_u128_add(b4, b4));
	b4 = pg_u128_divmod(b4, n, &bb);
	if (a.hi >> 62)
		return pg_u128_sqrt(a);	/* beyond any real series */
	a.hi = a.hi << 2 | a.lo >> 62;
	a.lo <<= 2;
	a = pg_u128_add(a, b4);
	x = pg_u128_mul64(bb, n);
	y = pg_u128_mul64(r, r);
	y = pg_u128_add(pg_u128_add(y, y), pg_u128_add(y, y));
	n2 = pg_u128_mul64(n, n);
	while (pg_u128_lt(x, y)) {
		x = pg_u128_add(x, n2);
		k++;
	}
	if (pg_u128_lt(a, pg_u128_of(k)))
		return 0;
	a = pg_u128_sub(a, pg_u128_of(k));
	return (pg_u128_sqrt(a) + 1) / 2;
}

/*
 * A packet arrived: gaps and the epoch's rate.  @cand is q->cand_n after
 * the packet: the packets that may start a restart are held back (their
 * gaps, and their bytes and first arrival for the rate), and if the
 * restart is confirmed the gap of the first of them is the pause between
 * two runs and no gap.  Called for every packet, in every statistics mode,
 * so that the held packets stay in step with the candidates; an untimed
 * packet (@timed false: statistics counter) reads no clock, has no gap,
 * is not in the rate, and leaves no arrival for the next gap to start at.
 */
static void pg_rxs_arrival(struct pg_rxs_time *t, bool timed, u64 now_ns, unsigned int len,
			   unsigned int cand, bool restarted)
{
	bool have_gap = timed && t->last_ns && now_ns >= t->last_ns;
	u64 gap = have_gap ? now_ns - t->last_ns : U64_MAX;
	unsigned int i;

	/* candidates that did not last (or are out of step): their gaps were real */
	if (!restarted && t->held && cand != t->held + 1) {
		for (i = 0; i < t->held && i < PG_RXS_CONFIRM; i++)
			if (t->held_gap[i] != U64_MAX)
				pg_rxs_moments_add(&t->gap, t->held_gap[i]);
		t->held = 0;
		t->held_timed = 0;
	}
	if (restarted) {
		/* the epoch began with the first candidate; its gap was the pause */
		for (i = 1; i < t->held && i < PG_RXS_CONFIRM; i++)
			if (t->held_gap[i] != U64_MAX)
				pg_rxs_moments_add(&t->gap, t->held_gap[i]);
		t->epoch_packets = t->held_timed;
		t->epoch_bytes = t->held_bytes;
		t->epoch_first_ns = t->held_ns;
		t->held = 0;
		t->held_timed = 0;
	}
	if (timed) {
		if (!t->epoch_packets)
			t->epoch_first_ns = now_ns;
		t->epoch_packets++;
		t->epoch_bytes += len;
	}
	t->last_ns = timed ? now_ns : 0;
	if (cand && t->held < PG_RXS_CONFIRM) {
		if (!t->held) {
			t->held_timed = 0;
			t->held_bytes = 0;
		}
		if (timed && !t->held_timed++)
			t->held_ns = now_ns;
		if (timed)
			t->held_bytes += len;
		t->held_gap[t->held++] = gap;
		return;
	}
	if (have_gap)
		pg_rxs_moments_add(&t->gap, gap);
}

/* The gaps so far, with those held back while a restart is unconfirmed. */
void pg_rxs_gaps(const struct pg_rxs_time *t, struct pg_rxs_moments *m)
{
	unsigned int i;

	*m = t->gap;
	for (i = 0; i < t->held && i < PG_RXS_CONFIRM; i++)
		if (t->held_gap[i] != U64_MAX)
			pg_rxs_moments_add(m, t->held_gap[i]);
}

/*
 * Over the epoch, from its first arrival to the last: (packets - 1) per
 * second, and the bits of all but one packet (the mean size times the
 * intervals) per second.
 */
void pg_rxs_rate(const struct pg_rxs_time *t, struct pg_rxs_rate *r)
{
	u64 span = t->last_ns - t->epoch_first_ns, n = t->epoch_packets, bits;

	r->pps = 0;
	r->bps = 0;
	if (n < 2 || !span || t->last_ns < t->epoch_first_ns)
		return;
	r->pps = mul_u64_u64_div_u64(n - 1, NSEC_PER_SEC, span);
	bits = t->epoch_bytes >> 61 ? U64_MAX : t->epoch_bytes * 8;
	/* the per-second figure first: a floor of it scaled by (n-1)/n is off by < 1 */
	bits = mul_u64_u64_div_u64(bits, NSEC_PER_SEC, span);
	r->bps = mul_u64_u64_div_u64(bits, n - 1, n);
}

/*
 * Count one packet in the stream's locked state; returns the latency's
 * histogram bucket (the caller counts it, under the same lock), or -1
 * for none.
 */
int pg_rxs_count(struct pg_rxs_seq *q, struct pg_rxs_time *t, const struct pg_rxs_pkt *p)
{
	bool malformed = p->malformed, lat_ok = false;
	u64 restarts = q->restarts;
	enum pg_rxs_class c;
	s64 lat = 0;

	if (p->timed && p->stamped && !malformed) {
		lat_ok = pg_rxs_latency(p->now_sec, p->now_nsec, p->tv_sec, p->tv_nsec, &lat);
		malformed = !lat_ok;
	}
	c = pg_rxs_seq_track(q, p->seq);
	/* counted once: a wild number already was */
	if (malformed && c != PG_RXS_WILD)
		q->malformed++;
	pg_rxs_arrival(t, p->timed, p->mono_ns, p->len, q->cand_n, q->restarts != restarts);
	if (!lat_ok)
		return -1;
	pg_rxs_jitter(t, lat);
	if (lat < 0) {
		t->lat_negative++;
		return -1;
	}
	pg_rxs_moments_add(&t->lat, lat);
	return pg_rxs_hist_bucket(lat);
}

/* ---- histogram ----------------------------------------------------------------- */

unsigned int pg_rxs_hist_bucket(u64 v)
{
	unsigned int e;

	if (v < PG_RXS_HIST_SUB)
		return v;
	e = fls64(v) - 1;
	if (e > PG_RXS_HIST_MAX_EXP)
		return PG_RXS_HIST_BUCKETS - 1;
	return ((e - PG_RXS_HIST_SUB_BITS + 1) << PG_RXS_HIST_SUB_BITS) |
	       ((v >> (e - PG_RXS_HIST_SUB_BITS)) & (PG_RXS_HIST_SUB - 1));
}

/* Lowest value of a bucket. */
u64 pg_rxs_bucket_lo(unsigned int b)
{
	unsigned int e;

	if (b < PG_RXS_HIST_SUB)
		return b;
	e = (b >> PG_RXS_HIST_SUB_BITS) + PG_RXS_HIST_SUB_BITS - 1;
	return (u64)(PG_RXS_HIST_SUB + (b & (PG_RXS_HIST_SUB - 1))) << (e - PG_RXS_HIST_SUB_BITS);
}

/*
 * One above the highest value of a bucket; the last bucket takes every
 * value up to the malformed limit.
 */
u64 pg_rxs_bucket_hi(unsigned int b)
{
	if (b >= PG_RXS_HIST_BUCKETS - 1)
		return PG_RXS_LAT_LIMIT;
	return pg_rxs_bucket_lo(b + 1);
}

/* Middle of a bucket. */
u64 pg_rxs_bucket_mid(unsigned int b)
{
	u64 low = pg_rxs_bucket_lo(b);

	if (b < PG_RXS_HIST_SUB)
		return low;
	return low + (pg_rxs_bucket_lo(b + 1) - low) / 2;
}

/* Percentile @per_mille/1000: the middle of its bucket, within min..max. */
u64 pg_rxs_percentile(const u64 *hist, u64 min, u64 max, unsigned int per_mille)
{
	u64 n = 0, rank, seen = 0, v;
	unsigned int b;

	for (b = 0; b < PG_RXS_HIST_BUCKETS; b++)
		n += hist[b];
	if (!n)
		return 0;
	rank = (n / 1000) * per_mille + ((n % 1000) * per_mille + 999) / 1000;
	if (!rank)
		rank = 1;
	for (b = 0; b < PG_RXS_HIST_BUCKETS; b++) {
		seen += hist[b];
		if (seen >= rank) {
			v = pg_rxs_bucket_mid(b);
			return v < min ? min : v > max ? max : v;
		}
	}
	return max;
}
