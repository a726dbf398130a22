// SPDX-License-Identifier: GPL-2.0
/*
 * The reference model of the receiver's figures, written from the
 * definitions in Documentation/receiver.rst (RFC 4737 reordering, RFC
 * 7680 loss with the wait W, RFC 3550 A.8 jitter, RFC 5481 terms), not
 * from pktgen_rxstat.c: sequence numbers are unwrapped into 64 bits
 * (RFC 1982 serial arithmetic), each epoch keeps the set of every number
 * it accepted, and the statistics are computed at the end from the whole
 * list of samples in exact 128-bit arithmetic.  Included by rxstat.c.
 */
#define M_W	4096		/* the wait W, in sequence numbers */
#define M_K	4		/* packets in a row that confirm a restart */
#define M_STRAY	64		/* a straggler: nearer the old highest by more */
#define M_MAXP	32768		/* packets per sequence */
#define M_BASE	(1ULL << 40)	/* unwrapped numbers start here: never below 0 */

enum { M_NEXT, M_REORD, M_DUP, M_LATE, M_WILD };

struct m_model {
	/* sequence */
	bool started, have_prev;
	u32 copies;			/* packets per number sent */
	u64 first, max;			/* unwrapped */
	u32 prev_max;			/* the previous epoch's highest, as sent */
	u64 accepted;			/* numbers in the set */
	u64 lost_before, reordered, dups, late, restarts, malformed;
	u64 wild;			/* numbers too far ahead: not tracked */
	int cand_n, cand_cls[M_K], cand_pkt[M_K];
	u32 cand[M_K];
	int nused;
	/* time */
	int n;				/* packets so far */
	int epoch_pkt;			/* first packet of the epoch */
	int nlat;
	u64 negative;
	bool have_transit;
	s64 transit, jitter;		/* RFC 3550 A.8, scaled by 16 */
	/* the arrays last: a new sequence clears only what comes before */
	u64 set[4 * M_MAXP];		/* accepted numbers + 1, open addressing */
	int used[M_MAXP];		/* its slots in use, to clear them */
	u64 mono[M_MAXP];
	unsigned int len[M_MAXP];
	bool no_gap[M_MAXP];		/* the pause before a restart */
	s64 lat[M_MAXP];
};

static bool m_in_set(struct m_model *m, u64 x, bool add)
{
	size_t i = (x * 0x9e3779b97f4a7c15ULL) >> 47;	/* 17 bits: 4 * M_MAXP slots */

	for (;; i = (i + 1) % (4 * M_MAXP)) {
		if (m->set[i] == x + 1)
			return true;
		if (!m->set[i]) {
			if (add) {
				m->set[i] = x + 1;
				m->used[m->nused++] = i;
				m->accepted++;
			}
			return false;
		}
	}
}

static void m_epoch(struct m_model *m, u32 seq)
{
	m->started = true;
	while (m->nused)
		m->set[m->used[--m->nused]] = 0;
	m->accepted = 0;
	/* a run is numbered from 1: a first number <= W means 1.. were sent */
	m->first = M_BASE + (seq >= 1 && seq <= M_W ? 1 : seq);
	m->max = M_BASE + seq;
	m_in_set(m, m->max, true);
}

/* RFC 1982: the unwrapped number nearest the highest one */
static u64 m_unwrap(const struct m_model *m, u32 seq)
{
	s64 d = (s64)seq - (s64)(m->max & 0xffffffff);

	if (d >= 1LL << 31)
		d -= 1LL << 32;
	if (d < -(1LL << 31))
		d += 1LL << 32;
	return m->max + d;	/* d = 2^31 exactly counts as behind (above) */
}

static int m_class(struct m_model *m, u32 seq, bool add)
{
	u64 x = m_unwrap(m, seq);

	if (x > m->max) {
		if (x - m->max >= 1ULL << 30)
			return M_WILD;
		/* the previous run's straggler: in its last W, nearer its highest */
		if (m->have_prev && (u32)(m->prev_max - seq) < M_W &&
		    x - m->max > (u64)(u32)(m->prev_max - seq) + M_STRAY)
			return M_LATE;
		if (add)
			m->max = x;
		if (add)
			m_in_set(m, x, true);
		return M_NEXT;
	}
	if (m->max - x >= M_W)
		return M_LATE;		/* after the wait: its loss is final */
	if (m_in_set(m, x, false))
		return M_DUP;
	if (add) {
		m_in_set(m, x, true);
		if (x < m->first)
			m->first = x;
	}
	return M_REORD;
}

/*
 * k copies: the sender counted each packet, the k packets of one skb
 * carry the number of its first, so the packet numbered s is one of
 * s .. s + k - 1, the lowest one not accepted yet; one of a number the
 * wait W has passed, or all of whose k numbers are in, keeps its own
 */
static u32 m_copy_of(struct m_model *m, u32 seq)
{
	u64 x = m_unwrap(m, seq);
	u32 j;

	if (m->copies < 2 || x + M_W <= m->max)
		return seq;
	for (j = 0; j < m->copies; j++)
		if (x + j > m->max || !m_in_set(m, x + j, false))
			return seq + j;
	return seq;
}

static void m_count(struct m_model *m, int c)
{
	if (c == M_REORD)
		m->reordered++;
	else if (c == M_DUP)
		m->dups++;
	else if (c == M_LATE)
		m->late++;
	else if (c == M_WILD)
		m->malformed++;
	if (c == M_WILD)
		m->wild++;
}

static u64 m_lost(const struct m_model *m)
{
	if (!m->started)
		return 0;
	return m->lost_before + (m->max - m->first + 1) - m->accepted;
}

/* K packets went back: they start a new epoch */
static void m_restart(struct m_model *m)
{
	int i;

	for (i = 0; i < M_K; i++) {
		if (m->cand_cls[i] == M_DUP)
			m->dups--;
		else
			m->late--;
	}
	m->lost_before = m_lost(m);
	m->restarts++;
	m->have_prev = true;
	m->prev_max = (u32)m->max;
	m->cand_n = 0;
	m->no_gap[m->cand_pkt[0]] = true;
	m->epoch_pkt = m->cand_pkt[0];
	m_epoch(m, m->cand[0]);
	for (i = 1; i < M_K; i++)
		m_count(m, m_class(m, m_copy_of(m, m->cand[i]), true));
}

static void m_seq(struct m_model *m, u32 seq, int pkt)
{
	u64 x;
	int c;

	if (!m->started) {
		m_epoch(m, seq);
		return;
	}
	/*
	 * K candidates: a restart unless this packet goes on with the old
	 * run (at most W above its highest, nearer to that than to the last
	 * candidate by more than M_STRAY)
	 */
	if (m->cand_n == M_K) {
		x = m_unwrap(m, seq);
		if (x > m->max && x - m->max <= M_W &&
		    (u64)(u32)(seq - m->cand[M_K - 1]) > x - m->max + M_STRAY)
			m->cand_n = 0;
		else
			m_restart(m);
	}
	c = m_class(m, m_copy_of(m, seq), true);
	m_count(m, c);
	if (c != M_DUP && c != M_LATE) {
		m->cand_n = 0;
		return;
	}
	/*
	 * a possible restart: packets in a row that went back, from <= W,
	 * rising by 1..W (or repeating a number: its copies)
	 */
	if (m->cand_n && (((u32)(seq - m->cand[m->cand_n - 1]) >= 1 &&
			   (u32)(seq - m->cand[m->cand_n - 1]) <= M_W) ||
			  (m->copies > 1 && seq == m->cand[m->cand_n - 1]))) {
		;
	} else {
		m->cand_n = 0;
		if (seq < 1 || seq > M_W)
			return;
	}
	m->cand[m->cand_n] = seq;
	m->cand_cls[m->cand_n] = c;
	m->cand_pkt[m->cand_n++] = pkt;
}

/*
 * Latency: receiver clock minus the stamp, the stamp's second the one
 * nearest the receiver's with those low 32 bits; header_bad: tv_usec
 * was out of range on the wire.
 */
static void m_stamp(struct m_model *m, s64 real_ns, u32 tv_sec, u32 tv_nsec, bool header_bad)
{
	s64 rsec = real_ns / 1000000000, d, lat;

	if (header_bad || tv_nsec >= 1000000000) {
		m->malformed++;
		return;
	}
	d = (s64)tv_sec - (rsec & 0xffffffff);
	while (d >= 1LL << 31)
		d -= 1LL << 32;
	while (d < -(1LL << 31))
		d += 1LL << 32;
	lat = -d * 1000000000 + real_ns % 1000000000 - tv_nsec;
	if (lat <= -(1LL << 40) || lat >= 1LL << 40) {
		m->malformed++;
		return;
	}
	/* RFC 3550 A.8 */
	if (m->have_transit) {
		s64 dd = lat - m->transit;

		if (dd < 0)
			dd = -dd;
		m->jitter += dd - ((m->jitter + 8) >> 4);
	}
	m->transit = lat;
	m->have_transit = true;
	if (lat < 0)
		m->negative++;
	else
		m->lat[m->nlat++] = lat;
}

struct m_stats {
	u64 count, min, max, mean, stddev;
};

static u64 m_isqrt(unsigned __int128 x)
{
	u64 r = 0;
	int b;

	for (b = 63; b >= 0; b--) {
		unsigned __int128 t = r | 1ULL << b;

		if (t * t <= x)
			r |= 1ULL << b;
	}
	return r;
}

/* population stddev, rounded half up: s = round(sqrt(var)) */
static void m_stats(const u64 *v, int n, struct m_stats *s)
{
	unsigned __int128 s1 = 0, s2 = 0, num, f;
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < n; i++) {
		s1 += v[i];
		s2 += (unsigned __int128)v[i] * v[i];
		if (!i || v[i] < s->min)
			s->min = v[i];
		if (v[i] > s->max)
			s->max = v[i];
	}
	s->count = n;
	if (!n)
		return;
	s->mean = s1 / n;
	if (n < 2)
		return;
	num = n * s2 - s1 * s1;		/* n^2 var */
	f = 4 * num / ((unsigned __int128)n * n);	/* floor(4 var) */
	s->stddev = (m_isqrt(f) + 1) / 2;
}

/* the bucket's middle, from the layout's definition */
static u64 m_bucket_mid(u64 v)
{
	u64 width;
	int e = 63;

	if (v < 16)
		return v;
	if (v >= 31ULL << 30)
		return (31ULL << 30) + (1ULL << 29);
	while (!(v >> e))
		e--;
	width = 1ULL << (e - 4);
	return v - v % width + width / 2;
}

static int m_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 m_percentile(u64 *sorted, int n, unsigned int per_mille)
{
	u64 rank, v;

	if (!n)
		return 0;
	rank = ((u64)n * per_mille + 999) / 1000;
	if (!rank)
		rank = 1;
	v = m_bucket_mid(sorted[rank - 1]);
	return v < sorted[0] ? sorted[0] : v > sorted[n - 1] ? sorted[n - 1] : v;
}
