// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the receiver's file, /proc/net/pktgen/pgrx (see
 * Documentation/receiver.rst): its commands, its two output formats
 * (display human, script and json), and the receiver's per-namespace state,
 * which lives as long as the file.  Ownership and locking: pktgen_rx.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/proc_fs.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>

#include "pktgen.h"
#include "pktgen_cmd.h"
#include "pktgen_rx.h"
#include "pktgen_rx_proc.h"
#include "pktgen_rx_ring.h"
#include "pktgen_rx_samples.h"
#include "pktgen_rx_streams.h"
#include "pktgen_rxstat.h"

static const char * const pg_rx_stats_names[] = {
	[PG_RX_STATS_COUNTER]	= "counter",
	[PG_RX_STATS_BASIC]	= "basic",
	[PG_RX_STATS_TIME]	= "time",
};

static const char * const pg_rx_display_names[] = {
	[PG_RX_DISPLAY_HUMAN]	= "human",
	[PG_RX_DISPLAY_SCRIPT]	= "script",
	[PG_RX_DISPLAY_JSON]	= "json",
};

/* ---- commands ----------------------------------------------------------------- */

static __printf(2, 3) void pg_rx_result(struct pg_rx_net *rxn, const char *fmt, ...)
{
	va_list ap;

	lockdep_assert_held(&rxn->lock);
	va_start(ap, fmt);
	vsnprintf(rxn->result, sizeof(rxn->result), fmt, ap);
	va_end(ap);
}

/* A new table of streams, with sample rings if sampling is on. */
static struct pg_rx_table *pg_rx_new_table(struct pg_rx_net *rxn)
{
	struct pg_rx_table *t = pg_rx_table_alloc();

	if (!t) {
		pg_rx_result(rxn, "ERROR: out of memory for the stream table");
		return NULL;
	}
	if (pg_rx_table_sampling(t, rxn->sample)) {
		pg_rx_table_free(t);
		pg_rx_result(rxn, "ERROR: out of memory for the sample rings");
		return NULL;
	}
	return t;
}

/* Publish @t; readers of pgrx_samples see that the table changed. */
static void pg_rx_publish(struct pg_rx_net *rxn, struct pg_rx_table *t)
{
	pg_rx_table_replace(rxn, t);
	rxn->table_gen++;
}

static int pg_rx_cmd_rx(struct pg_rx_net *rxn, const char *ifname)
{
	struct net *net = rxn->pn->net;
	struct net_device *dev;
	int err;

	if (!*ifname) {
		pg_rx_result(rxn, "ERROR: rx needs an interface name");
		return -EINVAL;
	}
	dev = __dev_get_by_name(net, ifname);
	if (!dev) {
		pg_rx_result(rxn, "ERROR: no interface %s in this namespace", ifname);
		return -ENODEV;
	}
	if (dev->type != ARPHRD_ETHER) {
		pg_rx_result(rxn, "ERROR: %s is not an Ethernet device", ifname);
		return -EINVAL;
	}
	if (pg_rx_find_dev(rxn, dev)) {
		pg_rx_result(rxn, "ERROR: already receiving on %s", ifname);
		return -EBUSY;
	}
	if (rxn->ndevs >= PG_RX_MAX_DEVS) {
		pg_rx_result(rxn, "ERROR: at most %d devices", PG_RX_MAX_DEVS);
		return -ENOSPC;
	}
	if (!pg_rx_table(rxn)) {
		struct pg_rx_table *t = pg_rx_new_table(rxn);

		if (!t)
			return -ENOMEM;
		pg_rx_publish(rxn, t);
	}
	err = pg_rx_dev_add(rxn, dev);
	if (err) {
		pg_rx_result(rxn, "ERROR: cannot hook %s (netfilter ingress: %d)", ifname, err);
		return err;
	}
	pg_rx_result(rxn, "OK: rx=%s", ifname);
	return 0;
}

static int pg_rx_cmd_disable(struct pg_rx_net *rxn, const char *ifname)
{
	struct pg_rx_dev *rxd, *tmp;
	struct net_device *dev;

	if (!*ifname) {
		list_for_each_entry_safe(rxd, tmp, &rxn->devs, list)
			pg_rx_dev_remove(rxn, rxd);
		pg_rx_result(rxn, "OK: rx_disable");
		return 0;
	}
	dev = __dev_get_by_name(rxn->pn->net, ifname);
	rxd = dev ? pg_rx_find_dev(rxn, dev) : NULL;
	if (!rxd) {
		pg_rx_result(rxn, "ERROR: not receiving on %s", ifname);
		return -ENODEV;
	}
	pg_rx_dev_remove(rxn, rxd);
	pg_rx_result(rxn, "OK: rx_disable=%s", ifname);
	return 0;
}

static int pg_rx_cmd_reset(struct pg_rx_net *rxn, const char *arg)
{
	struct pg_rx_table *t = NULL;

	/* without a table (never enabled) there is nothing to clear */
	if (pg_rx_table(rxn)) {
		t = pg_rx_new_table(rxn);
		if (!t)
			return -ENOMEM;
		pg_rx_publish(rxn, t);
	}
	pg_rx_result(rxn, "OK: rx_reset");
	return 0;
}

static int pg_rx_cmd_statistics(struct pg_rx_net *rxn, const char *arg)
{
	struct pg_rx_table *t = pg_rx_table(rxn);
	int i;

	for (i = 0; i < ARRAY_SIZE(pg_rx_stats_names); i++) {
		if (strcmp(arg, pg_rx_stats_names[i]))
			continue;
		WRITE_ONCE(rxn->stats_mode, i);
		/* streams created from here on get a histogram: the others now */
		if (i == PG_RX_STATS_TIME && t && pg_rx_table_hists(t)) {
			pg_rx_result(rxn, "ERROR: out of memory for the histograms %s",
				     "(statistics time; streams without one have no percentiles)");
			return -ENOMEM;
		}
		pg_rx_result(rxn, "OK: statistics=%s", arg);
		return 0;
	}
	pg_rx_result(rxn, "ERROR: statistics takes counter, basic or time");
	return -EINVAL;
}

static int pg_rx_cmd_copies(struct pg_rx_net *rxn, const char *arg)
{
	u32 n;

	if (kstrtou32(arg, 10, &n) || !n || n > PG_RXS_COPIES_MAX) {
		pg_rx_result(rxn, "ERROR: copies takes 1-%d (packets per sequence number)",
			     PG_RXS_COPIES_MAX);
		return -EINVAL;
	}
	WRITE_ONCE(rxn->copies, n);
	pg_rx_result(rxn, "OK: copies=%u", n);
	return 0;
}

/* "sample N" (every Nth), "sample random N" (1 in N at random), "sample 0" (off). */
static int pg_rx_cmd_sample(struct pg_rx_net *rxn, const char *arg)
{
	struct pg_rx_table *t = pg_rx_table(rxn);
	bool rnd = false;
	u32 n, how;
	int err;

	if (!strncmp(arg, "random ", 7)) {
		rnd = true;
		arg += 7;
	}
	if (kstrtou32(arg, 10, &n) || n > PG_RX_SAMPLE_MAX || (rnd && !n)) {
		pg_rx_result(rxn, "ERROR: sample takes N (every Nth packet), %s, N 1-%d",
			     "random N (1 in N at random), or 0 (off)", PG_RX_SAMPLE_MAX);
		return -EINVAL;
	}
	how = n | (rnd ? PG_RX_SAMPLE_RANDOM : 0);
	err = t ? pg_rx_table_sampling(t, how) : 0;
	if (err) {
		pg_rx_result(rxn, "ERROR: out of memory for the sample rings");
		return err;
	}
	rxn->sample = how;
	pg_rx_result(rxn, "OK: sample=%s%u", rnd ? "random " : "", n);
	return 0;
}

/*
 * "clock software" (the default), "clock hardware [OFFSET_NS]": arrival
 * times from the device's receive stamps, plus OFFSET_NS, where a packet
 * carries one.  New packets take it at once; the streams say which
 * clock their samples had.
 */
static int pg_rx_cmd_clock(struct pg_rx_net *rxn, const char *arg)
{
	const char *off = "";
	s64 ns = 0;

	if (!strncmp(arg, "hardware ", 9))
		off = arg + 9;
	if ((strcmp(arg, "software") && strcmp(arg, "hardware") && !*off) ||
	    (*off && (kstrtos64(off, 10, &ns) || ns <= -PG_RXS_LAT_LIMIT ||
		      ns >= PG_RXS_LAT_LIMIT))) {
		pg_rx_result(rxn, "ERROR: clock takes software, or hardware [OFFSET_NS] %s",
			     "(added to the device's stamps, |OFFSET_NS| < 2^40)");
		return -EINVAL;
	}
	WRITE_ONCE(rxn->hw_offset_ns, ns);
	WRITE_ONCE(rxn->hw_clock, arg[0] == 'h');
	pg_rx_result(rxn, "OK: clock=%s offset_ns=%lld", arg[0] == 'h' ? "hardware" : "software",
		     ns);
	return 0;
}

static int pg_rx_cmd_display(struct pg_rx_net *rxn, const char *arg)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(pg_rx_display_names); i++) {
		if (!strcmp(arg, pg_rx_display_names[i])) {
			rxn->display = i;
			pg_rx_result(rxn, "OK: display=%s", arg);
			return 0;
		}
	}
	pg_rx_result(rxn, "ERROR: display takes human, script or json");
	return -EINVAL;
}

struct pg_rx_cmd {
	const char *name;
	bool rtnl;		/* changes the device list */
	bool arg;		/* takes a word (else: nothing may follow) */
	bool arg2;		/* may take two, handed over as "w1 w2" */
	int (*exec)(struct pg_rx_net *rxn, const char *arg);
};

static const struct pg_rx_cmd pg_rx_cmds[] = {
	{ "rx",		true,	true,	false,	pg_rx_cmd_rx },
	{ "rx_disable",	true,	true,	false,	pg_rx_cmd_disable },
	{ "rx_reset",	false,	false,	false,	pg_rx_cmd_reset },
	{ "statistics",	false,	true,	false,	pg_rx_cmd_statistics },
	{ "copies",	false,	true,	false,	pg_rx_cmd_copies },
	{ "display",	false,	true,	false,	pg_rx_cmd_display },
	{ "sample",	false,	true,	true,	pg_rx_cmd_sample },
	{ "clock",	false,	true,	true,	pg_rx_cmd_clock },
};

static int pg_rx_exec(struct pg_rx_net *rxn, const struct pg_rx_cmd *cmd, const char *arg)
{
	int err;

	if (cmd->rtnl)
		rtnl_lock();
	mutex_lock(&rxn->lock);
	if (!cmd->arg && *arg) {
		pg_rx_result(rxn, "ERROR: %s takes no argument", cmd->name);
		err = -EINVAL;
	} else if (strlen(arg) >= IFNAMSIZ && cmd->exec == pg_rx_cmd_rx) {
		pg_rx_result(rxn, "ERROR: interface name too long");
		err = -EINVAL;
	} else {
		err = cmd->exec(rxn, arg);
	}
	mutex_unlock(&rxn->lock);
	if (cmd->rtnl)
		rtnl_unlock();
	return err;
}

/*
 * A command word and at most one argument (pg_split_words()'s grammar),
 * two for a command that takes them.
 */
static int pg_rx_command(struct pg_rx_net *rxn, char *buf)
{
	char *word[3], arg[48];
	int n, i;

	n = pg_split_words(buf, word, ARRAY_SIZE(word));
	for (i = 0; n > 0 && i < ARRAY_SIZE(pg_rx_cmds); i++) {
		if (strcmp(word[0], pg_rx_cmds[i].name))
			continue;
		if (n < 3)
			return pg_rx_exec(rxn, &pg_rx_cmds[i], n > 1 ? word[1] : "");
		if (!pg_rx_cmds[i].arg2 ||
		    snprintf(arg, sizeof(arg), "%s %s", word[1], word[2]) >= sizeof(arg))
			break;
		return pg_rx_exec(rxn, &pg_rx_cmds[i], arg);
	}

	mutex_lock(&rxn->lock);
	if (n < 0 || n > 2)
		pg_rx_result(rxn, "ERROR: one command and at most one argument per write");
	else
		pg_rx_result(rxn, "ERROR: unknown command \"%.32s\" (%s)", n ? word[0] : "",
			     "rx IF, rx_disable [IF], rx_reset, statistics counter|basic|time, copies N, display human|script|json, sample [random] N, clock software|hardware [NS]");
	mutex_unlock(&rxn->lock);
	return -EINVAL;
}

static ssize_t pg_rx_write(struct file *file, const char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	struct pg_rx_net *rxn = pde_data(file_inode(file));
	const char *why;
	char *buf;
	int err;

	buf = pg_cmd_fetch(file, ubuf, count);
	if (IS_ERR(buf)) {
		why = pg_cmd_refusal(PTR_ERR(buf));
		if (why) {
			mutex_lock(&rxn->lock);
			pg_rx_result(rxn, "ERROR: %s", why);
			mutex_unlock(&rxn->lock);
		}
		return PTR_ERR(buf);
	}
	err = pg_rx_command(rxn, buf);
	kfree(buf);
	return err ?: count;
}

/* ---- reading: the snapshot -------------------------------------------------------- */

struct pg_rx_figures {
	u64 avg, stddev, p50, p90, p99, p999;
	u64 gap_avg, gap_stddev;
	u64 reordered_ppm;
};

static void pg_rx_figures(const struct pg_rx_sum *d, const u64 *hist, struct pg_rx_figures *f)
{
	f->avg = pg_rxs_mean(&d->lat);
	f->stddev = pg_rxs_stddev(&d->lat);
	f->gap_avg = pg_rxs_mean(&d->gap);
	f->gap_stddev = pg_rxs_stddev(&d->gap);
	f->p50 = pg_rxs_percentile(hist, d->lat.min, d->lat.max, 500);
	f->p90 = pg_rxs_percentile(hist, d->lat.min, d->lat.max, 900);
	f->p99 = pg_rxs_percentile(hist, d->lat.min, d->lat.max, 990);
	f->p999 = pg_rxs_percentile(hist, d->lat.min, d->lat.max, 999);
	/* RFC 4737 3.4: reordered among the packets received (each once) */
	f->reordered_ppm = pg_rxs_reordered_ppm(d->packets, d->duplicates, d->wild,
						d->reordered);
}

/* A figure of a stream or of the total, under its stable name. */
struct pg_rx_kv {
	const char *name;
	u64 v;
};

#define PG_RX_NKV	29

/* The stable names (Documentation/receiver.rst, "Output"), in their order. */
static void pg_rx_kvs(const struct pg_rx_sum *d, const struct pg_rx_figures *fp,
		      struct pg_rx_kv *kv)
{
	const struct pg_rx_figures f = *fp;

	{
		/* one list: its length is checked against the arrays at build time */
		const struct pg_rx_kv all[] = {
			{ "rx_packets", d->packets },
			{ "rx_bytes", d->bytes },
			{ "lost", d->lost },
			{ "reordered", d->reordered },
			{ "reordered_ratio_ppm", f.reordered_ppm },
			{ "duplicates", d->duplicates },
			{ "late", d->late },
			{ "restarts", d->restarts },
			{ "malformed", d->malformed },
			{ "rate_pps", d->rate.pps },
			{ "rate_bps", d->rate.bps },
			{ "latency_samples", d->lat.count },
			{ "latency_negative", d->lat_negative },
			{ "latency_build_stamped", d->build_stamped },
			{ "latency_hw_stamped", d->hw_stamped },
			{ "latency_min_ns", d->lat.min },
			{ "latency_avg_ns", f.avg },
			{ "latency_max_ns", d->lat.max },
			{ "latency_stddev_ns", f.stddev },
			{ "latency_p50_ns", f.p50 },
			{ "latency_p90_ns", f.p90 },
			{ "latency_p99_ns", f.p99 },
			{ "latency_p999_ns", f.p999 },
			{ "jitter_ns", d->jitter_ns },
			{ "gap_samples", d->gap.count },
			{ "gap_min_ns", d->gap.min },
			{ "gap_avg_ns", f.gap_avg },
			{ "gap_max_ns", d->gap.max },
			{ "gap_stddev_ns", f.gap_stddev },
		};

		BUILD_BUG_ON(ARRAY_SIZE(all) != PG_RX_NKV);
		memcpy(kv, all, sizeof(all));
	}
}

/* A stream as one read shows it: its figures, percentiles included. */
struct pg_rx_snap_stream {
	char name[48];
	bool ns_res;
	struct pg_rx_sum sum;
	struct pg_rx_figures f;
};

/*
 * What one read shows, taken at its start (offset 0) under rxn->lock:
 * every stream summed once, so that every table and key of a display
 * shows one moment, whatever the number of read(2) calls.  The streams'
 * figures (about 400 bytes each, not their histograms) go to st[], sized
 * to the table's streams when the read begins; allocated per open file,
 * the hook never waits for it.
 */
struct pg_rx_snap {
	int display, mode, n, ndevs;
	u32 copies;
	bool hw_clock;
	s64 hw_offset_ns;
	u64 overflow;
	u64 gen;			/* rxn->table_gen of the snapshot */
	char devs[PG_RX_MAX_DEVS][IFNAMSIZ];
	char result[PG_RESULT_LEN];
	struct pg_rx_sum total;
	struct pg_rx_figures total_f;
	u64 total_hist[PG_RXS_HIST_BUCKETS];
	int cap;			/* st[]'s size */
	struct pg_rx_snap_stream *st;
	/* scratch: a stream's buckets and its json record, the figures' names */
	u64 hist[PG_RXS_HIST_BUCKETS];
	struct pg_rx_snap_stream cur;
	struct pg_rx_kv kv[PG_RX_NKV];
};

/* For pg_rx_snapshot(), outside rxn->lock: st[] large enough for @n streams. */
static int pg_rx_snap_room(struct pg_rx_snap *b, int n)
{
	if (n <= b->cap)
		return 0;
	kvfree(b->st);
	b->cap = 0;
	b->st = kvmalloc_array(n, sizeof(*b->st), GFP_KERNEL_ACCOUNT);
	if (!b->st)
		return -ENOMEM;
	b->cap = n;
	return 0;
}

static int pg_rx_snapshot(struct pg_rx_net *rxn, struct pg_rx_snap *b)
{
	struct pg_rx_dev *rxd;
	struct pg_rx_table *t;
	int i, k, n, tries;
	u64 *hist;

	/*
	 * st[] (up to 1.4 MiB, an allocation that may reclaim) is sized
	 * outside rxn->lock, which the RTNL-holding netdev notifier takes: to
	 * the streams seen first, and if the table grew before the lock was
	 * taken again, to the limit.
	 */
	for (tries = 0; ; tries++) {
		mutex_lock(&rxn->lock);
		t = pg_rx_table(rxn);
		n = t ? pg_rx_table_streams(t) : 0;
		if (n <= b->cap)
			break;
		mutex_unlock(&rxn->lock);
		if (pg_rx_snap_room(b, tries ? PG_RX_MAX_STREAMS : n))
			return -ENOMEM;
	}
	b->display = rxn->display;
	b->mode = READ_ONCE(rxn->stats_mode);
	b->copies = READ_ONCE(rxn->copies);
	b->hw_clock = READ_ONCE(rxn->hw_clock);
	b->hw_offset_ns = READ_ONCE(rxn->hw_offset_ns);
	b->overflow = t ? pg_rx_overflow(t) : 0;
	b->gen = rxn->table_gen;
	b->n = n;
	b->ndevs = 0;
	list_for_each_entry(rxd, &rxn->devs, list)
		if (b->ndevs < PG_RX_MAX_DEVS)
			strscpy(b->devs[b->ndevs++], rxd->dev->name, IFNAMSIZ);
	strscpy(b->result, rxn->result[0] ? rxn->result : "Idle", sizeof(b->result));
	memset(&b->total, 0, sizeof(b->total));
	memset(b->total_hist, 0, sizeof(b->total_hist));
	/*
	 * Only statistics time keeps the histograms: under basic and counter
	 * a stream's buckets are those of an earlier time, frozen; none shown.
	 */
	hist = b->mode == PG_RX_STATS_TIME ? b->hist : NULL;
	memset(b->hist, 0, sizeof(b->hist));
	for (i = 0; i < n; i++) {
		struct pg_rx_snap_stream *st = &b->st[i];
		struct pg_rx_stream *s = t->streams[i];

		pg_rx_stream_name(rxn->pn->net, s, st->name, sizeof(st->name));
		st->ns_res = s->ns_res;
		/* each stream's lock for one copy: the hook waits for no more */
		pg_rx_sum_stream(s, &st->sum, hist);
		pg_rx_figures(&st->sum, b->hist, &st->f);
		pg_rx_sum_add(&b->total, &st->sum);
		for (k = 0; hist && k < PG_RXS_HIST_BUCKETS; k++)
			b->total_hist[k] += hist[k];
		if (!(i % 256))
			cond_resched();
	}
	pg_rx_figures(&b->total, b->total_hist, &b->total_f);
	mutex_unlock(&rxn->lock);
	return 0;
}

/*
 * Stream @i for its display json record, summed again as the record is
 * written, with its buckets (the snapshot keeps no histogram per
 * stream), so that the record's figures, percentiles and buckets are of
 * one moment.  If the table was replaced since the snapshot: the
 * snapshot's figures and no buckets.  No buckets either unless both the
 * snapshot's setting and the current one are time (see pg_rx_snapshot).
 */
static const struct pg_rx_snap_stream *pg_rx_snap_json_stream(struct pg_rx_net *rxn,
							      struct pg_rx_snap *b, int i)
{
	struct pg_rx_snap_stream *cur = &b->cur;
	struct pg_rx_table *t;
	bool timed;

	*cur = b->st[i];
	memset(b->hist, 0, sizeof(b->hist));
	mutex_lock(&rxn->lock);
	t = pg_rx_table(rxn);
	timed = b->mode == PG_RX_STATS_TIME && READ_ONCE(rxn->stats_mode) == PG_RX_STATS_TIME;
	if (t && rxn->table_gen == b->gen && i < pg_rx_table_streams(t)) {
		pg_rx_sum_stream(t->streams[i], &cur->sum, timed ? b->hist : NULL);
		pg_rx_figures(&cur->sum, b->hist, &cur->f);
	}
	mutex_unlock(&rxn->lock);
	return cur;
}

/* Which clock a stream's (or the total's) latency samples had. */
static const char *pg_rx_sum_clock(const struct pg_rx_sum *d)
{
	if (!d->lat.count)
		return "none";
	if (!d->hw_stamped)
		return "software";
	return d->hw_stamped == d->lat.count ? "hardware" : "mixed";
}

/* ---- reading: display script and human ------------------------------------------- */

static void pg_rx_show_kv(struct seq_file *seq, const char *prefix, const char *name, u64 v)
{
	seq_printf(seq, "%s%s=%llu\n", prefix, name, v);
}

static void pg_rx_show_script(struct seq_file *seq, struct pg_rx_snap *b, const char *prefix,
			      const struct pg_rx_sum *d, const struct pg_rx_figures *f)
{
	int i;

	pg_rx_kvs(d, f, b->kv);
	for (i = 0; i < PG_RX_NKV; i++)
		pg_rx_show_kv(seq, prefix, b->kv[i].name, b->kv[i].v);
}

static void pg_rx_show_stream_script(struct seq_file *seq, struct pg_rx_snap *b, int i)
{
	const struct pg_rx_snap_stream *st = &b->st[i];
	char prefix[16];

	snprintf(prefix, sizeof(prefix), "s%d_", i);
	seq_printf(seq, "%sstream=%s\n", prefix, st->name);
	seq_printf(seq, "%slatency_clock=%s\n", prefix, pg_rx_sum_clock(&st->sum));
	pg_rx_show_kv(seq, prefix, "latency_resolution_ns", st->ns_res ? 1 : NSEC_PER_USEC);
	pg_rx_show_kv(seq, prefix, "first_seq", st->sum.first_seq);
	pg_rx_show_kv(seq, prefix, "last_seq", st->sum.last_seq);
	pg_rx_show_script(seq, b, prefix, &st->sum, &st->f);
}

#define PG_RX_HUMAN_HDR1 "%-3s %-36s %10s %12s %8s %9s %6s %5s %9s %10s\n"
#define PG_RX_HUMAN_ROW1 "%-3s %-36s %10llu %12llu %8llu %9llu %6llu %5llu %9llu %6llu.%03llu\n"
#define PG_RX_HUMAN_HDR2 "%-3s %9s %10s %10s %10s %10s %10s %10s %10s %10s %9s %9s %9s\n"
#define PG_RX_HUMAN_ROW2 "%-3s %9llu %10llu %10llu %10llu %10llu %10llu %10llu %10llu %10llu %9llu %9llu %9llu\n"
#define PG_RX_HUMAN_HDR3 "%-3s %9s %10s %10s %10s %10s\n"
#define PG_RX_HUMAN_ROW3 "%-3s %9llu %10llu %10llu %10llu %10llu\n"

static void pg_rx_human_row1(struct seq_file *seq, const char *tag, const char *name,
			     const struct pg_rx_sum *d, const struct pg_rx_figures *f)
{
	seq_printf(seq, PG_RX_HUMAN_ROW1, tag, name, d->packets, d->bytes, d->lost,
		   d->reordered, d->duplicates, d->late, d->rate.pps, d->rate.bps / 1000000,
		   d->rate.bps % 1000000 / 1000);
}

static void pg_rx_human_row2(struct seq_file *seq, const char *tag, const struct pg_rx_sum *d,
			     const struct pg_rx_figures *f)
{
	seq_printf(seq, PG_RX_HUMAN_ROW2, tag, d->lat.count, d->lat.min, f->avg, d->lat.max,
		   f->stddev, f->p50, f->p90, f->p99, f->p999, d->jitter_ns, d->build_stamped,
		   d->hw_stamped);
}

static void pg_rx_human_row3(struct seq_file *seq, const char *tag, const struct pg_rx_sum *d,
			     const struct pg_rx_figures *f)
{
	seq_printf(seq, PG_RX_HUMAN_ROW3, tag, d->gap.count, d->gap.min, f->gap_avg, d->gap.max,
		   f->gap_stddev);
}

static const char *pg_rx_clock_name(const struct pg_rx_snap *b)
{
	return b->hw_clock ? "hardware" : "software";
}

static void pg_rx_show_head(struct seq_file *seq, const struct pg_rx_snap *b)
{
	const char *mode = pg_rx_stats_names[b->mode];
	int i;

	if (b->display == PG_RX_DISPLAY_SCRIPT) {
		seq_puts(seq, "devices=");
		for (i = 0; i < b->ndevs; i++)
			seq_printf(seq, "%s%s", i ? "," : "", b->devs[i]);
		seq_printf(seq, "\nstatistics=%s\ncopies=%u\nstreams=%d\nstreams_max=%d\noverflow_packets=%llu\n",
			   mode, b->copies, b->n, PG_RX_MAX_STREAMS, b->overflow);
		seq_printf(seq, "clock=%s\nclock_offset_ns=%lld\n", pg_rx_clock_name(b),
			   b->hw_offset_ns);
		return;
	}
	seq_puts(seq, "Receiver on:");
	for (i = 0; i < b->ndevs; i++)
		seq_printf(seq, " %s", b->devs[i]);
	seq_printf(seq, "%s  statistics: %s  streams: %d/%d  overflow packets: %llu  copies: %u  clock: %s",
		   b->ndevs ? "" : " (none)", mode, b->n, PG_RX_MAX_STREAMS, b->overflow,
		   b->copies, pg_rx_clock_name(b));
	if (b->hw_clock && b->hw_offset_ns)
		seq_printf(seq, " %+lld ns", b->hw_offset_ns);
	seq_putc(seq, '\n');
}

enum pg_rx_pass { PG_RX_SCRIPT, PG_RX_COUNTS, PG_RX_LATENCY, PG_RX_GAPS };

static void pg_rx_show_row(struct seq_file *seq, enum pg_rx_pass pass, const char *tag,
			   const char *name, const struct pg_rx_sum *d,
			   const struct pg_rx_figures *f)
{
	if (pass == PG_RX_COUNTS)
		pg_rx_human_row1(seq, tag, name, d, f);
	else if (pass == PG_RX_LATENCY)
		pg_rx_human_row2(seq, tag, d, f);
	else
		pg_rx_human_row3(seq, tag, d, f);
}

static void pg_rx_show_pass_head(struct seq_file *seq, enum pg_rx_pass pass)
{
	if (pass == PG_RX_COUNTS)
		seq_printf(seq, PG_RX_HUMAN_HDR1, "#", "stream", "rx_packets", "rx_bytes",
			   "lost", "reordered", "dups", "late", "pps", "Mb/s");
	if (pass == PG_RX_LATENCY)
		seq_printf(seq, "Latency (ns):\n" PG_RX_HUMAN_HDR2, "#", "samples", "min", "avg",
			   "max", "stddev", "p50", "p90", "p99", "p99.9", "jitter", "built",
			   "hw");
	if (pass == PG_RX_GAPS)
		seq_printf(seq, "Inter-arrival (ns):\n" PG_RX_HUMAN_HDR3, "#", "samples", "min",
			   "avg", "max", "stddev");
}

/*
 * Records of display human and script, one stream each, so that seq_file
 * holds one at a time whatever the number of streams.  Human: 0 the head,
 * then per table (counts, latency, gaps) its heading, the n streams' rows
 * and the total's row, then the Result.  Script: 0 the head, 1..n the
 * streams, n + 1 the total, n + 2 the Result.
 */
static loff_t pg_rx_text_records(const struct pg_rx_snap *b)
{
	if (b->display == PG_RX_DISPLAY_SCRIPT)
		return b->n + 3;
	return 1 + 3 * (b->n + 2) + 1;
}

static void pg_rx_show_text(struct seq_file *seq, struct pg_rx_snap *b, int rec)
{
	int per = b->n + 2, i;
	enum pg_rx_pass pass;
	char tag[12];

	if (!rec) {
		pg_rx_show_head(seq, b);
		return;
	}
	if (rec == pg_rx_text_records(b) - 1) {
		seq_printf(seq, "Result: %s\n", b->result);
		return;
	}
	rec--;
	if (b->display == PG_RX_DISPLAY_SCRIPT) {
		if (rec < b->n)
			pg_rx_show_stream_script(seq, b, rec);
		else
			pg_rx_show_script(seq, b, "", &b->total, &b->total_f);
		return;
	}
	pass = PG_RX_COUNTS + rec / per;
	i = rec % per;
	if (!i) {
		pg_rx_show_pass_head(seq, pass);
	} else if (i <= b->n) {
		snprintf(tag, sizeof(tag), "%d", i - 1);
		pg_rx_show_row(seq, pass, tag, b->st[i - 1].name, &b->st[i - 1].sum,
			       &b->st[i - 1].f);
	} else {
		pg_rx_show_row(seq, pass, "all", "", &b->total, &b->total_f);
	}
}

/* ---- reading: display json ---------------------------------------------------------- */

/*
 * A JSON string: quote and backslash escaped, and every byte outside
 * printable ASCII as \u00XX (interface names may hold any byte but '/',
 * ':' and white space), so that the output is always valid UTF-8.
 */
static void pg_rx_json_str(struct seq_file *seq, const char *s)
{
	seq_putc(seq, '"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\') {
			seq_putc(seq, '\\');
			seq_putc(seq, c);
		} else if (c < 0x20 || c >= 0x7f) {
			seq_printf(seq, "\\u%04x", c);
		} else {
			seq_putc(seq, c);
		}
	}
	seq_putc(seq, '"');
}

/* The figures and the non-empty buckets, inside an object already open. */
static void pg_rx_json_sum(struct seq_file *seq, struct pg_rx_snap *b, const struct pg_rx_sum *d,
			   const struct pg_rx_figures *f, const u64 *hist)
{
	const char *sep = "";
	unsigned int i;

	pg_rx_kvs(d, f, b->kv);
	for (i = 0; i < PG_RX_NKV; i++)
		seq_printf(seq, "\"%s\": %llu, ", b->kv[i].name, b->kv[i].v);
	seq_puts(seq, "\"histogram\": [");
	for (i = 0; i < PG_RXS_HIST_BUCKETS; i++) {
		if (!hist[i])
			continue;
		seq_printf(seq, "%s[%llu, %llu, %llu]", sep, pg_rxs_bucket_lo(i),
			   pg_rxs_bucket_hi(i), hist[i]);
		sep = ", ";
	}
	seq_puts(seq, "]}");
}

/*
 * Records of display json: 0 the header and the total, 1..n the streams,
 * n + 1 the Result and the end.  A stream's record is at most about 25 KB
 * (512 buckets); seq_file grows its buffer to the largest record.
 */
static void pg_rx_show_json(struct seq_file *seq, struct pg_rx_net *rxn, struct pg_rx_snap *b,
			    int rec)
{
	const struct pg_rx_snap_stream *st;
	int i;

	if (!rec) {
		seq_puts(seq, "{\n\"version\": 1,\n\"devices\": [");
		for (i = 0; i < b->ndevs; i++) {
			seq_puts(seq, i ? ", " : "");
			pg_rx_json_str(seq, b->devs[i]);
		}
		seq_printf(seq, "],\n\"statistics\": \"%s\",\n\"copies\": %u, \"stream_count\": %d, \"streams_max\": %d, \"overflow_packets\": %llu,\n",
			   pg_rx_stats_names[b->mode], b->copies, b->n, PG_RX_MAX_STREAMS,
			   b->overflow);
		seq_printf(seq, "\"clock\": \"%s\", \"clock_offset_ns\": %lld,\n\"total\": {",
			   pg_rx_clock_name(b), b->hw_offset_ns);
		pg_rx_json_sum(seq, b, &b->total, &b->total_f, b->total_hist);
		seq_puts(seq, ",\n\"streams\": [");
		return;
	}
	if (rec > b->n) {
		seq_puts(seq, "\n],\n\"result\": ");
		pg_rx_json_str(seq, b->result);
		seq_puts(seq, "\n}\n");
		return;
	}
	st = pg_rx_snap_json_stream(rxn, b, rec - 1);
	seq_printf(seq, "%s\n{\"index\": %d, \"stream\": ", rec > 1 ? "," : "", rec - 1);
	pg_rx_json_str(seq, st->name);
	seq_printf(seq, ", \"latency_resolution_ns\": %lu, \"latency_clock\": \"%s\", \"first_seq\": %u, \"last_seq\": %u, ",
		   st->ns_res ? 1 : NSEC_PER_USEC, pg_rx_sum_clock(&st->sum), st->sum.first_seq,
		   st->sum.last_seq);
	pg_rx_json_sum(seq, b, &st->sum, &st->f, b->hist);
}

/* ---- reading: the file --------------------------------------------------------------- */

struct pg_rx_reader {
	struct pg_rx_net *rxn;
	struct pg_rx_snap snap;
};

static loff_t pg_rx_records(const struct pg_rx_snap *b)
{
	return b->display == PG_RX_DISPLAY_JSON ? b->n + 2 : pg_rx_text_records(b);
}

/* A record's token: its number + 1 (NULL ends). */
static void *pg_rx_seq_start(struct seq_file *seq, loff_t *pos)
{
	struct pg_rx_reader *r = seq->private;
	int err;

	if (!*pos) {
		err = pg_rx_snapshot(r->rxn, &r->snap);
		if (err) {
			r->snap.n = 0;
			return ERR_PTR(err);
		}
	}
	return *pos < pg_rx_records(&r->snap) ? (void *)(uintptr_t)(*pos + 1) : NULL;
}

static void *pg_rx_seq_next(struct seq_file *seq, void *v, loff_t *pos)
{
	struct pg_rx_reader *r = seq->private;

	++*pos;
	return *pos < pg_rx_records(&r->snap) ? (void *)(uintptr_t)(*pos + 1) : NULL;
}

static void pg_rx_seq_stop(struct seq_file *seq, void *v)
{
}

static int pg_rx_seq_show(struct seq_file *seq, void *v)
{
	struct pg_rx_reader *r = seq->private;

	if (r->snap.display == PG_RX_DISPLAY_JSON)
		pg_rx_show_json(seq, r->rxn, &r->snap, (uintptr_t)v - 1);
	else
		pg_rx_show_text(seq, &r->snap, (uintptr_t)v - 1);
	return 0;
}

static const struct seq_operations pg_rx_seq_ops = {
	.start	= pg_rx_seq_start,
	.next	= pg_rx_seq_next,
	.stop	= pg_rx_seq_stop,
	.show	= pg_rx_seq_show,
};

/*
 * The seq_file buffer, at open: display json's first record (the header
 * and the total's 512 buckets) is up to about 27 KB, and a buffer that
 * grows from a page would take a snapshot for each doubling.
 */
#define PG_RX_SEQ_BUF	SZ_32K

static int pg_rx_open(struct inode *inode, struct file *file)
{
	struct pg_rx_reader *r;
	struct seq_file *seq;
	int err;

	r = kvzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return -ENOMEM;
	r->rxn = pde_data(inode);
	err = seq_open(file, &pg_rx_seq_ops);
	if (err) {
		kvfree(r);
		return err;
	}
	seq = file->private_data;
	seq->private = r;
	/* as single_open_size(); without it seq_read() starts with a page */
	seq->buf = kvmalloc(PG_RX_SEQ_BUF, GFP_KERNEL_ACCOUNT);
	if (seq->buf)
		seq->size = PG_RX_SEQ_BUF;
	return 0;
}

static int pg_rx_release(struct inode *inode, struct file *file)
{
	struct seq_file *seq = file->private_data;
	struct pg_rx_reader *r = seq->private;

	kvfree(r->snap.st);
	kvfree(r);
	return seq_release(inode, file);
}

static const struct proc_ops pg_rx_proc_ops = {
	.proc_open	= pg_rx_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_write	= pg_rx_write,
	.proc_release	= pg_rx_release,
};

/* ---- namespaces ---------------------------------------------------------------- */

int pg_rx_net_init(struct pktgen_net *pn)
{
	struct pg_rx_net *rxn;

	rxn = kzalloc(sizeof(*rxn), GFP_KERNEL);
	if (!rxn)
		return -ENOMEM;
	rxn->pn = pn;
	mutex_init(&rxn->lock);
	INIT_LIST_HEAD(&rxn->devs);
	rxn->stats_mode = PG_RX_STATS_TIME;
	rxn->copies = 1;
	rxn->entry = proc_create_data(PG_RX_NAME, 0600, pn->proc_dir, &pg_rx_proc_ops, rxn);
	pg_proc_own(rxn->entry);
	if (!rxn->entry) {
		kfree(rxn);
		return -ENOMEM;
	}
	rxn->samples = pg_rx_samples_create(rxn, pn->proc_dir);
	if (!rxn->samples) {
		proc_remove(rxn->entry);
		kfree(rxn);
		return -ENOMEM;
	}
	pn->rx = rxn;
	return 0;
}

/*
 * The namespace (or the module) goes away.  Devices may still be
 * registered here: pktgen's notifier ignores an exiting namespace, so every
 * hook is removed now, under RTNL so that a concurrent NETDEV_UNREGISTER
 * sees either all of it or nothing.
 */
void pg_rx_net_exit(struct pktgen_net *pn)
{
	struct pg_rx_net *rxn = pn->rx;
	struct pg_rx_dev *rxd, *tmp;

	if (!rxn)
		return;
	/* waits for readers and writers of the files */
	proc_remove(rxn->entry);
	proc_remove(rxn->samples);

	rtnl_lock();
	mutex_lock(&rxn->lock);
	list_for_each_entry_safe(rxd, tmp, &rxn->devs, list)
		pg_rx_dev_remove(rxn, rxd);
	pn->rx = NULL;
	mutex_unlock(&rxn->lock);
	rtnl_unlock();

	/*
	 * No hook can be running after this: free the table and the state.
	 * A namespace whose receiver never hooked a device (most) skips the
	 * grace period.
	 */
	if (rxn->hooked)
		synchronize_net();
	mutex_lock(&rxn->lock);
	pg_rx_table_free(pg_rx_table(rxn));
	mutex_unlock(&rxn->lock);
	mutex_destroy(&rxn->lock);
	kfree(rxn);
}
