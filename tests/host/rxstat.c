// SPDX-License-Identifier: GPL-2.0
/*
 * The receiver's sequence and statistics logic (pktgen_rxstat.c, the file
 * the module is built from) in user space: fixed cases (reordering past
 * 2^31, late copies, restarts, the stddev, rates, copies) with their exact
 * figures, then a property test that generates sequences
 * (loss, bounded and unbounded reordering, near and far duplicates,
 * restarts after short and long runs, 32-bit wrap, 2^31-long epochs,
 * steps of either wall clock, absurd stamps, clone_skb/burst copies with
 * pgrx "copies" set or not) and compares every figure with the
 * reference model of rxstat_model.c.  KTAP on stdout.
 *
 *	rxstat [SEQUENCES [SEED]]	(tests/host/rxstat.sh builds and runs it)
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;
typedef int64_t s64;
#define U64_MAX		UINT64_MAX
#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))
#define NSEC_PER_SEC	1000000000LL

static u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	return (unsigned __int128)a * b / c;
}

static int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

#include "../../pktgen_rxstat.c"
#include "rxstat_model.c"

/* ---- the implementation, driven as pktgen_rx.c drives it ----------------- */

struct impl {
	struct pg_rxs_seq q;
	struct pg_rxs_time t;
	u64 hist[PG_RXS_HIST_BUCKETS];
	u64 packets;			/* pktgen_rx.c's per-CPU rx_packets */
};

static void impl_count(struct impl *s, const struct pg_rxs_pkt *p)
{
	int b = pg_rxs_count(&s->q, &s->t, p);

	s->packets++;
	if (b >= 0)
		s->hist[b]++;
}

/* A packet of a test: what is on the wire and the receiver's clocks. */
struct pkt {
	u32 seq;
	bool stamped, header_bad;
	bool untimed;			/* statistics counter */
	u32 tv_sec, tv_nsec;
	s64 real_ns;			/* receiver's CLOCK_REALTIME */
	u64 mono_ns;
	unsigned int len;
};

static void to_in(const struct pkt *k, struct pg_rxs_pkt *p)
{
	memset(p, 0, sizeof(*p));
	p->seq = k->seq;
	p->timed = !k->untimed;
	p->stamped = k->stamped || k->header_bad;
	p->malformed = k->header_bad;
	p->now_sec = (u64)k->real_ns / NSEC_PER_SEC;
	p->now_nsec = (u64)k->real_ns % NSEC_PER_SEC;
	p->tv_sec = k->tv_sec;
	p->tv_nsec = k->tv_nsec;
	p->mono_ns = k->mono_ns;
	p->len = k->len;
}

/* ---- comparing ------------------------------------------------------------ */

struct figures {
	u64 v[32];
};

static const char * const names[] = {
	"lost", "reordered", "duplicates", "late", "restarts", "malformed",
	"first_seq", "last_seq", "latency_samples", "latency_negative",
	"latency_min", "latency_max", "latency_avg", "latency_stddev",
	"jitter", "p50", "p90", "p99", "p999", "gap_samples", "gap_min",
	"gap_max", "gap_avg", "gap_stddev", "rate_pps", "rate_bps", "reordered_ratio_ppm",
};

#define NFIG	(sizeof(names) / sizeof(names[0]))
#define F_BPS	25
#define F_PPM	26

static void impl_figures(const struct impl *s, struct figures *f)
{
	struct pg_rxs_moments gm;
	const struct pg_rxs_moments *l = &s->t.lat, *g = &gm;
	struct pg_rxs_rate r;
	int i = 0;

	pg_rxs_gaps(&s->t, &gm);
	pg_rxs_rate(&s->t, &r);
	f->v[i++] = pg_rxs_seq_lost(&s->q);
	f->v[i++] = s->q.reordered;
	f->v[i++] = s->q.duplicates;
	f->v[i++] = s->q.late;
	f->v[i++] = s->q.restarts;
	f->v[i++] = s->q.malformed;
	f->v[i++] = s->q.first;
	f->v[i++] = s->q.max;
	f->v[i++] = l->count;
	f->v[i++] = s->t.lat_negative;
	f->v[i++] = l->min;
	f->v[i++] = l->max;
	f->v[i++] = pg_rxs_mean(l);
	f->v[i++] = pg_rxs_stddev(l);
	f->v[i++] = pg_rxs_jitter_ns(&s->t);
	f->v[i++] = pg_rxs_percentile(s->hist, l->min, l->max, 500);
	f->v[i++] = pg_rxs_percentile(s->hist, l->min, l->max, 900);
	f->v[i++] = pg_rxs_percentile(s->hist, l->min, l->max, 990);
	f->v[i++] = pg_rxs_percentile(s->hist, l->min, l->max, 999);
	f->v[i++] = g->count;
	f->v[i++] = g->min;
	f->v[i++] = g->max;
	f->v[i++] = pg_rxs_mean(g);
	f->v[i++] = pg_rxs_stddev(g);
	f->v[i++] = r.pps;
	f->v[i++] = r.bps;
	f->v[i++] = pg_rxs_reordered_ppm(s->packets, s->q.duplicates, s->q.wild, s->q.reordered);
}

static void model_figures(struct m_model *m, struct figures *f)
{
	static u64 gaps[M_MAXP], lats[M_MAXP];
	struct m_stats ls, gs;
	u64 span, bytes = 0, pk;
	int i, ng = 0;

	for (i = 1; i < m->n; i++)
		if (!m->no_gap[i])
			gaps[ng++] = m->mono[i] - m->mono[i - 1];
	for (i = 0; i < m->nlat; i++)
		lats[i] = m->lat[i];
	m_stats(lats, m->nlat, &ls);
	m_stats(gaps, ng, &gs);
	qsort(lats, m->nlat, sizeof(u64), m_cmp);
	i = 0;
	f->v[i++] = m_lost(m);
	f->v[i++] = m->reordered;
	f->v[i++] = m->dups;
	f->v[i++] = m->late;
	f->v[i++] = m->restarts;
	f->v[i++] = m->malformed;
	f->v[i++] = (u32)m->first;
	f->v[i++] = (u32)m->max;
	f->v[i++] = ls.count;
	f->v[i++] = m->negative;
	f->v[i++] = ls.min;
	f->v[i++] = ls.max;
	f->v[i++] = ls.mean;
	f->v[i++] = ls.stddev;
	f->v[i++] = m->jitter >> 4;
	f->v[i++] = m_percentile(lats, m->nlat, 500);
	f->v[i++] = m_percentile(lats, m->nlat, 900);
	f->v[i++] = m_percentile(lats, m->nlat, 990);
	f->v[i++] = m_percentile(lats, m->nlat, 999);
	f->v[i++] = gs.count;
	f->v[i++] = gs.min;
	f->v[i++] = gs.max;
	f->v[i++] = gs.mean;
	f->v[i++] = gs.stddev;
	/* over the epoch: its first arrival to the last */
	pk = m->n - m->epoch_pkt;
	span = m->n ? m->mono[m->n - 1] - m->mono[m->epoch_pkt] : 0;
	for (i = m->epoch_pkt; i < m->n; i++)
		bytes += m->len[i];
	f->v[24] = pk > 1 && span ? (u64)((unsigned __int128)(pk - 1) * NSEC_PER_SEC / span) : 0;
	f->v[25] = pk > 1 && span ? (u64)((unsigned __int128)bytes * 8 * (pk - 1) * NSEC_PER_SEC /
					  ((unsigned __int128)pk * span)) : 0;
	/* RFC 4737 3.4: among the packets received whose numbers were tracked, each once */
	pk = m->n - m->dups - m->wild;
	f->v[F_PPM] = m->n && pk ? m->reordered * 1000000 / pk : 0;
}

static void model_count(struct m_model *m, const struct pkt *k)
{
	int i = m->n++;
	u64 was = m->malformed;

	m->mono[i] = k->mono_ns;
	m->len[i] = k->len;
	m->no_gap[i] = false;
	m_seq(m, k->seq, i);
	if (k->header_bad)
		m_stamp(m, k->real_ns, 0, 0, true);
	else if (k->stamped)
		m_stamp(m, k->real_ns, k->tv_sec, k->tv_nsec, false);
	/* a packet is malformed once, however many of its fields are */
	if (m->malformed > was + 1)
		m->malformed = was + 1;
}

static struct impl S;
static struct m_model M;
static u32 copies;			/* the receiver's setting: pgrx "copies" */

static void run(const struct pkt *k, int n, struct figures *fi, struct figures *fm)
{
	struct pg_rxs_pkt in;
	int i;

	memset(&S, 0, sizeof(S));
	S.q.copies = copies;
	/* the model's set is cleared slot by slot: it is large */
	while (M.nused)
		M.set[M.used[--M.nused]] = 0;
	memset(&M, 0, offsetof(struct m_model, set));
	M.copies = copies;
	for (i = 0; i < n; i++) {
		to_in(&k[i], &in);
		impl_count(&S, &in);
		model_count(&M, &k[i]);
	}
	impl_figures(&S, fi);
	model_figures(&M, fm);
}

/* rate_bps: a product of two floors against one (within 1 b/s) */
static int differ(const struct figures *a, const struct figures *b, char *why, size_t len)
{
	size_t i;

	for (i = 0; i < NFIG; i++) {
		u64 x = a->v[i], y = b->v[i];

		if (x == y || (i == F_BPS && (x + 1 == y || y + 1 == x)))
			continue;
		snprintf(why, len, "%s: code %llu, model %llu", names[i],
			 (unsigned long long)x, (unsigned long long)y);
		return 1;
	}
	return 0;
}

/* ---- KTAP ------------------------------------------------------------------ */

static int nt, npass, nfail;

static void result(bool ok, const char *name, const char *diag)
{
	nt++;
	if (ok) {
		npass++;
		printf("ok %d %s\n", nt, name);
	} else {
		nfail++;
		if (diag)
			printf("# %s\n", diag);
		printf("not ok %d %s\n", nt, name);
	}
}

/* ---- fixed cases, with the right figures ---------------------------------- */

static struct pkt P[M_MAXP];
static int np;
static u64 mono;

static void add(u32 seq)
{
	struct pkt *k = &P[np++];

	memset(k, 0, sizeof(*k));
	k->seq = seq;
	k->len = 60;
	mono += 1000000;
	k->mono_ns = mono;
	k->real_ns = 1700000000LL * NSEC_PER_SEC + mono;
}

static void add_run(u32 from, u32 to)
{
	u32 s;

	for (s = from;; s++) {
		add(s);
		if (s == to)
			break;
	}
}

/* a case: NAME, then KEY VALUE pairs of the figures wanted (-1 ends) */
static void expect(const char *name, ...)
{
	struct figures fi, fm;
	char why[256] = "";
	va_list ap;
	int key;

	run(P, np, &fi, &fm);
	va_start(ap, name);
	while ((key = va_arg(ap, int)) >= 0) {
		u64 want = va_arg(ap, u64);

		if (fi.v[key] != want && !why[0])
			snprintf(why, sizeof(why), "%s: %llu, want %llu", names[key],
				 (unsigned long long)fi.v[key], (unsigned long long)want);
	}
	va_end(ap);
	if (!why[0])
		differ(&fi, &fm, why, sizeof(why));
	result(!why[0], name, why);
	np = 0;
}

enum { LOST, REORD, DUPS, LATE, RESTARTS, MALFORMED, FIRST, LAST };
#define V(x)	((u64)(x))

/* M numbers from 1, each sent K times as clone_skb/burst number them */
static void add_copies(u32 m, u32 k)
{
	u32 i, j;

	for (i = 0; i < m; i++)
		for (j = 0; j < k; j++)
			add(1 + i * k);
}

/* 6. copies of a number (clone_skb, burst) with pgrx "copies" */
static void copies_cases(void)
{
	u32 s, i;

	add_copies(100, 3);
	expect("sender copies: 100 numbers x 3 copies, copies 1: lost 198, duplicates 200 (stock count)",
	       LOST, V(198), DUPS, V(200), LAST, V(298), -1);
	copies = 3;
	add_copies(100, 3);
	expect("sender copies: 100 numbers x 3 copies, copies 3: lost 0, duplicates 0, last 300",
	       LOST, V(0), DUPS, V(0), REORD, V(0), FIRST, V(1), LAST, V(300), -1);
	for (s = 0; s < 100; s++)	/* 4's third copy lost, 7 arrives 4 times */
		for (i = 0; i < 3U + (s == 2) - (s == 1); i++)
			add(1 + 3 * s);
	expect("sender copies: copies 3, a copy of 4 lost, 7 duplicated: lost 1, duplicates 1",
	       LOST, V(1), DUPS, V(1), -1);
	add_copies(10, 3);
	P[4] = P[3];			/* 4 twice and 4's copy lost: 3 packets of 4 */
	expect("sender copies: copies 3, one copy of 4 lost, another duplicated: indistinguishable",
	       LOST, V(0), DUPS, V(0), -1);
	add_copies(2000, 3);
	add_copies(100, 3);
	expect("sender copies: copies 3, runs of 2000 and 100 numbers: restarts 1, lost 0",
	       RESTARTS, V(1), LOST, V(0), DUPS, V(0), LAST, V(300), -1);
	add_copies(100, 3);
	for (np = 0; np < 300; np++)	/* 1, 4, 1, 4, ...: the copies interleaved */
		P[np].seq = 1 + 3 * ((np / 6) * 2 + np % 2);
	expect("sender copies: copies 3, two numbers' copies interleaved: reordered 2 per pair",
	       LOST, V(0), DUPS, V(0), REORD, V(100), -1);
	copies = 0;
}

static void gap_series(const u64 *gaps, int n)
{
	int i;

	np = 0;
	for (i = 0; i < n; i++) {
		add(i + 1);
		if (i)
			mono = P[i - 1].mono_ns + gaps[i % 2];
		P[i].mono_ns = mono;
	}
}

/*
 * Review: candidates of a restart counted in statistics counter mode (no
 * clock) must stay in step with the held-back gaps: switching between
 * counter and time while a sender repeats 1, then 2, 3 wrote past
 * held_gap[] (and past the structure).  Statistics mode is not in the
 * model: the figures are checked here.
 */
static void held_counter_mode(void)
{
	struct pg_rxs_pkt in;
	char why[160] = "";
	int i, r;

	np = 0;
	add(10000);
	add_run(1, 3);
	for (r = 0; r < 4; r++) {
		add(20000 + r);
		P[np - 1].untimed = true;
		add(1);
		P[np - 1].untimed = true;
		add_run(2, 3);
	}
	add_run(4, 5);			/* 5 confirms: the epoch is 1 (counter), 2..5 */
	memset(&S, 0, sizeof(S));
	for (i = 0; i < np && !why[0]; i++) {
		to_in(&P[i], &in);
		impl_count(&S, &in);
		if (S.t.held != S.q.cand_n || S.t.held > PG_RXS_CONFIRM)
			snprintf(why, sizeof(why), "packet %d: held %u, cand_n %u", i, S.t.held,
				 S.q.cand_n);
	}
	/* gaps: 1, 2, 3 after 10000 and the 2 -> 3 of each round; of the epoch 3 -> 4 -> 5 */
	if (!why[0] && (S.q.restarts != 1 || S.t.epoch_packets != 4 ||
			S.t.epoch_first_ns != P[np - 4].mono_ns || S.t.gap.count != 3 + 4 + 2))
		snprintf(why, sizeof(why),
			 "restarts %llu epoch_packets %llu (want 4) first %llu (want %llu) gaps %llu (want 9)",
			 (unsigned long long)S.q.restarts, (unsigned long long)S.t.epoch_packets,
			 (unsigned long long)S.t.epoch_first_ns,
			 (unsigned long long)P[np - 4].mono_ns, (unsigned long long)S.t.gap.count);
	result(!why[0], "review: statistics counter <-> time with restart candidates: held in step",
	       why);
	np = 0;
}

static void fixed_cases(void)
{
	static const u64 alt[2] = { 1000000, 1000001 }, pace[2] = { 10000000, 10000999 };
	struct pg_rxs_moments m = { 0 };
	struct figures fi, fm;
	char why[128];
	u32 s;
	int i;

	/* 1. reordering after 2^31 numbers (here reached by losses) */
	add(1);
	add(1U << 29);
	add(1U << 30);
	add((1U << 30) + (1U << 29));
	add(1U << 31);
	add_run((1U << 31) + 1, (1U << 31) + 49);
	add_run((1U << 31) + 51, (1U << 31) + 99);
	add((1U << 31) + 50);
	expect("reordering: reordered after 2^31: lost = the 4 holes only, reordered 1",
	       LOST, V((1U << 31) - 5), REORD, V(1), -1);
	add_run(0xFFFFFF01, 0xFFFFFFEF);
	add_run(0xFFFFFFF1, 0xFFFFFFFF);
	add_run(0, 9);
	add(0xFFFFFFF0);
	expect("reordering: across the 32-bit wrap, 0xFFFFFFF0 late: lost 0, reordered 1",
	       LOST, V(0), REORD, V(1), DUPS, V(0), -1);

	/* 2. a copy more than W behind cannot drive lost below zero */
	add_run(1, 10000);
	add(5000);
	add_run(10001, 12000);
	expect("late copy: 1..12000, a copy of 5000 after 10000: lost 0, late 1",
	       LOST, V(0), LATE, V(1), DUPS, V(0), -1);
	add(100000);
	add(95000);
	expect("late copy: mid-run start 100000, then 95000: lost 0, late 1",
	       LOST, V(0), LATE, V(1), FIRST, V(100000), -1);

	/* 3. restarts */
	add_run(1, 6000);
	add(10);
	add_run(6001, 10000);
	expect("restart: a copy of 10 after 6000 is no restart: restarts 0, lost 0",
	       RESTARTS, V(0), LOST, V(0), LATE, V(1), -1);
	add_run(1, 20000);
	add_run(1, 10);
	add(19995);
	add_run(11, 20);
	expect("restart: a straggler of the old run after a restart is late, not a jump",
	       RESTARTS, V(1), LOST, V(0), LATE, V(1), LAST, V(20), -1);
	add_run(1, 2998);
	add(3000);
	add_run(1, 10);
	add(2999);
	add_run(11, 5000);
	expect("review: 1..3000 without 2999, restart 1..10, old 2999, 11..5000: 2999 is late",
	       RESTARTS, V(1), REORD, V(0), DUPS, V(0), LATE, V(1), LOST, V(1), LAST, V(5000), -1);
	add_run(1, 1000);
	add_run(1, 4);
	add_run(10, 1000);
	expect("review: runs of 1000, the second losing 5..9: 10.. are its own, not stragglers",
	       RESTARTS, V(1), LATE, V(0), LOST, V(5), LAST, V(1000), -1);
	add_run(5, 4204);
	add_run(1, 4);
	add_run(4205, 5000);
	expect("review: 5..4204, delayed 1..4, 4205..5000: no restart, late 4 (their loss final)",
	       RESTARTS, V(0), LATE, V(4), LOST, V(4), FIRST, V(1), LAST, V(5000), -1);
	add_run(999000, 1000000);
	add_run(1, 4);
	add_run(1000001, 1002000);
	expect("review: 1, 2, 3, 4 spoofed into a run at 1000000: no restart, late 4, lost 0",
	       RESTARTS, V(0), LATE, V(4), LOST, V(0), FIRST, V(999000), LAST, V(1002000), -1);
	add_run(1, 20000);
	add_run(1, 4);
	add(19990);
	add_run(5, 10);
	expect("review: a straggler right after a restart's 4 packets confirms it, and is late",
	       RESTARTS, V(1), LATE, V(1), DUPS, V(0), LOST, V(0), FIRST, V(1), LAST, V(10), -1);
	add_run(1, 20000);
	add_run(1, 5);
	expect("review: runs of 20000 and 5: restarts 1, lost 0",
	       RESTARTS, V(1), LOST, V(0), DUPS, V(0), LAST, V(5), -1);
	add_run(1, 1000);
	add_run(1, 1000);
	expect("restart: two runs of 1000: restarts 1, duplicates 0, lost 0",
	       RESTARTS, V(1), DUPS, V(0), LOST, V(0), FIRST, V(1), LAST, V(1000), -1);
	add_run(1, 20000);
	add_run(1, 1000);
	expect("restart: runs of 20000 and 1000: restarts 1, lost 0 (rx-basic's case)",
	       RESTARTS, V(1), LOST, V(0), 19, V(20000 + 998), -1);

	/* 4. stddev from exact sums, not a floored mean; no clamped squares */
	gap_series(alt, 1001);
	run(P, np, &fi, &fm);
	result(fi.v[23] == 1 && !differ(&fi, &fm, why, sizeof(why)),
	       "stddev: gaps alternating 1e6 and 1e6+1 ns: stddev 0.5 -> 1 (was 1000)",
	       why);
	np = 0;
	gap_series(pace, 1001);
	run(P, np, &fi, &fm);
	snprintf(why, sizeof(why), "gap_stddev %llu", (unsigned long long)fi.v[23]);
	result(fi.v[23] == 500, "stddev: gaps of 1e7 + {0, 999} ns: stddev 499.5 -> 500 (was 3201)",
	       why);
	np = 0;
	for (i = 0; i < 99; i++)
		pg_rxs_moments_add(&m, 1);
	pg_rxs_moments_add(&m, 10000000000ULL);
	snprintf(why, sizeof(why), "stddev %llu", (unsigned long long)pg_rxs_stddev(&m));
	result(pg_rxs_stddev(&m) == 994987437, "stddev: 10 s among 99 x 1 ns: 994987437 (was 919 ms)",
	       why);
	memset(&m, 0, sizeof(m));
	pg_rxs_moments_add(&m, 5000000000ULL);
	pg_rxs_moments_add(&m, 5000000002ULL);
	snprintf(why, sizeof(why), "stddev %llu", (unsigned long long)pg_rxs_stddev(&m));
	result(pg_rxs_stddev(&m) == 1, "stddev: a mean above 4.29 s: 5e9 and 5e9+2 give 1 (was 0)",
	       why);

	/* 5. rate: over the epoch; N - 1 intervals for N - 1 packets' bits */
	add_run(1, 1001);
	mono += 60ULL * NSEC_PER_SEC;	/* a minute's pause, then a second run */
	add_run(1, 1001);
	run(P, np, &fi, &fm);
	snprintf(why, sizeof(why), "rate_pps %llu rate_bps %llu", (unsigned long long)fi.v[24],
		 (unsigned long long)fi.v[25]);
	result(fi.v[24] == 1000 && fi.v[25] == 480000 && !differ(&fi, &fm, why, sizeof(why)),
	       "rate: 1001 packets 1 ms apart after a restart: 1000 pps, 480000 b/s", why);
	np = 0;

	held_counter_mode();
	copies_cases();

	/*
	 * 5. both wall clocks step back an hour mid-run: rate and gaps are on
	 * the monotonic clock, latency on the stamps' (the span once wrapped)
	 */
	add_run(1, 1001);
	for (i = 0; i < np; i++) {
		s64 sendt;

		if (i >= 500)
			P[i].real_ns -= 3600 * NSEC_PER_SEC;
		sendt = P[i].real_ns - 50000;
		P[i].stamped = true;
		P[i].tv_sec = sendt / NSEC_PER_SEC;
		P[i].tv_nsec = sendt % NSEC_PER_SEC;
	}
	expect("rate: wall clocks step back 1 h mid-run: 1000 pps, 1000 gaps of 1 ms",
	       24, V(1000), 19, V(1000), 20, V(1000000), 21, V(1000000), 11, V(50000),
	       LOST, V(0), -1);

	/* review: a packet malformed only in its stamp still counts in the ratio */
	add(1);
	add_run(3, 3);
	add(2);
	add_run(4, 100);
	for (i = 0; i < 50; i++)
		P[2 * i].header_bad = true;
	expect("review: reordered_ratio_ppm: 1 of 100, 50 with bad stamps: 10000 (was 20000)",
	       REORD, V(1), MALFORMED, V(50), F_PPM, V(10000), -1);

	/* 7. a tv_usec that wraps into range is malformed (pktgen_rx.c checks it) */
	for (s = 1; s <= 3; s++)
		add(s);
	P[1].header_bad = true;
	P[2].stamped = true;
	P[2].tv_sec = 1700000000 + (1U << 31);	/* 68 years: malformed */
	expect("absurd stamps: malformed 2", MALFORMED, V(2), 8, V(0), -1);
}

/* ---- the property test ------------------------------------------------------ */

static u64 rs;

static u64 rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static u64 below(u64 n)
{
	return n ? rnd() % n : 0;
}

static u32 sent[M_MAXP];
static int nsent;

/*
 * one sender run from @start: losses, bursts, jumps; each skb sent @k
 * times (clone_skb, burst; now and then a burst cut short) under its
 * first number, seq_num advancing by every packet sent
 */
static void gen_run(u32 start, int len, int loss_pct, bool jumps, u32 k)
{
	u32 s = start, c, j;
	int i;

	for (i = 0; i < len && nsent < M_MAXP / 2; i++) {
		if (jumps && !below(20))
			s += below(4) == 0 ? (1U << 30) - 1 - below(3) :
			     below(3) == 0 ? PG_RXS_WINDOW + below(3) :
			     below(2) ? below(PG_RXS_WINDOW) : below(1U << 29);
		c = below(8) ? k : 1 + below(k);
		for (j = 0; j < c && nsent < M_MAXP / 2; j++)
			if (below(100) >= (u64)loss_pct)
				sent[nsent++] = s;
		s += c;
	}
}

/* the network: reordering, duplicates; then the receiver's clocks */
static void gen_sequence(void)
{
	static const u32 starts[] = { 1, 2, 4096, 4097, 0xFFFFFF00, 0x7FFFFFF0, 100000 };
	int runs = 1 + below(3), r, i, j, n;
	s64 step = 0, sstep = 0, offset = below(10) ? 0 : (s64)below(1ULL << 36) - (1LL << 35);
	u32 kc = below(4) ? 1 : 2 + below(below(4) ? 3 : 7);
	u64 t;

	/* mostly the sender's copies; now and then a receiver set otherwise */
	copies = below(10) ? kc : below(9);
	nsent = 0;
	for (r = 0; r < runs; r++) {
		u32 st = r ? (below(4) ? 1 : 1 + below(8)) : starts[below(7)];

		if (!below(8))
			st = rnd();
		/* now and then longer than the window, so that its bits wrap */
		gen_run(st, below(3) ? 1 + below(40) : below(4) ? 1 + below(600) : 1 + below(6000),
			below(3) ? 0 : below(30), !below(4), kc);
	}
	n = nsent;
	/*
	 * a block held back and delivered late: the numbers it left out are
	 * a gap the window skips, whose bits must read unseen when they come
	 */
	if (n > 2 && !below(4)) {
		u32 held[600];
		int b, at;

		i = below(n - 1);
		b = 1 + below(n - i - 1 < 600 ? n - i - 1 : 600);
		at = i + b + below(n - i - b + 1);
		memcpy(held, &sent[i], b * sizeof(u32));
		memmove(&sent[i], &sent[i + b], (at - i - b) * sizeof(u32));
		memcpy(&sent[at - b], held, b * sizeof(u32));
	}
	/* reordering: bounded swaps, or one packet moved far later */
	for (i = 0; i + 1 < n; i++) {
		if (below(10))
			continue;
		j = i + 1 + (below(4) ? below(4) : below(n));
		if (j >= n)
			j = n - 1;
		t = sent[i];
		memmove(&sent[i], &sent[i + 1], (j - i) * sizeof(u32));
		sent[j] = t;
	}
	/* duplicates, near or far */
	for (i = 0; i < n && nsent < M_MAXP - 1; i++) {
		if (below(20))
			continue;
		j = i + 1 + (below(3) ? below(3) : below(n));
		if (j > nsent)
			j = nsent;
		memmove(&sent[j + 1], &sent[j], (nsent - j) * sizeof(u32));
		sent[j] = sent[i];
		nsent++;
	}
	mono = below(1ULL << 40);
	t = below(8) ? 1700000000ULL * NSEC_PER_SEC + below(1ULL << 50) :
			(0x100000000ULL - 3) * NSEC_PER_SEC + below(5ULL * NSEC_PER_SEC);
	np = 0;
	for (i = 0; i < nsent; i++) {
		struct pkt *k = &P[np++];
		s64 sendt;

		memset(k, 0, sizeof(*k));
		k->seq = sent[i];
		k->len = 60 + below(1440);
		mono += below(4) ? 1000000 + below(1000) : below(10) ? below(1ULL << 24) :
			below(1ULL << 38);
		k->mono_ns = mono;
		/* the receiver's wall clock steps, and the sender's */
		if (!below(50))
			step += (s64)below(1ULL << 36) - (1LL << 35);
		if (!below(50))
			sstep += (s64)below(1ULL << 36) - (1LL << 35);
		k->real_ns = t + mono + step;
		if (below(10)) {
			sendt = k->real_ns - step + sstep - below(20000000) + offset;
			k->stamped = true;
			k->tv_sec = (u64)sendt / NSEC_PER_SEC;
			k->tv_nsec = (u64)sendt % NSEC_PER_SEC;
			if (!below(40))
				k->tv_sec = rnd();		/* absurd */
			if (!below(60))
				k->tv_nsec = NSEC_PER_SEC + below(1U << 31);
		}
		k->header_bad = !below(80);
		if (k->header_bad)
			k->stamped = false;
	}
}

static void property(u64 sequences, u64 seed)
{
	struct figures fi, fm;
	char why[256], name[160];
	u64 i, packets = 0;

	rs = seed ? seed : 1;
	for (i = 0; i < sequences; i++) {
		gen_sequence();
		packets += np;
		run(P, np, &fi, &fm);
		if (differ(&fi, &fm, why, sizeof(why))) {
			snprintf(name, sizeof(name),
				 "property: sequence %llu (seed %llu) differs from the model",
				 (unsigned long long)i, (unsigned long long)seed);
			result(false, name, why);
			return;
		}
		/* a long run shows how far it got */
		if (!((i + 1) % 1000000)) {
			printf("# %llu sequences (%llu packets) equal the model so far\n",
			       (unsigned long long)i + 1, (unsigned long long)packets);
			fflush(stdout);
		}
	}
	snprintf(name, sizeof(name),
		 "property: %llu sequences (%llu packets, seed %llu) equal the model in all %zu figures",
		 (unsigned long long)sequences, (unsigned long long)packets,
		 (unsigned long long)seed, NFIG);
	result(true, name, NULL);
}

int main(int argc, char **argv)
{
	u64 sequences = argc > 1 ? strtoull(argv[1], NULL, 0) : 200000;
	u64 seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 28;

	printf("TAP version 13\n");
	fixed_cases();
	property(sequences, seed);
	printf("1..%d\n", nt);
	printf("%d passed, %d failed, 0 skipped\n", npass, nfail);
	return nfail ? 1 : 0;
}
