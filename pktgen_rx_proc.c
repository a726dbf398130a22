// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the receiver's file, /proc/net/pktgen/pgrx (see
 * Documentation/receiver.rst): its commands, its two output formats
 * (display human and script), and the receiver's per-namespace state,
 * which lives as long as the file.  Ownership and locking: pktgen_rx.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/proc_fs.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>

#include "pktgen.h"
#include "pktgen_cmd.h"
#include "pktgen_rx.h"
#include "pktgen_rx_proc.h"
#include "pktgen_rx_streams.h"
#include "pktgen_rxstat.h"

static const char * const pg_rx_stats_names[] = {
	[PG_RX_STATS_COUNTER]	= "counter",
	[PG_RX_STATS_BASIC]	= "basic",
	[PG_RX_STATS_TIME]	= "time",
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
		struct pg_rx_table *t = pg_rx_table_alloc();

		if (!t) {
			pg_rx_result(rxn, "ERROR: out of memory for the stream table");
			return -ENOMEM;
		}
		pg_rx_table_replace(rxn, t);
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
		t = pg_rx_table_alloc();
		if (!t) {
			pg_rx_result(rxn, "ERROR: out of memory for the stream table");
			return -ENOMEM;
		}
		pg_rx_table_replace(rxn, t);
	}
	pg_rx_result(rxn, "OK: rx_reset");
	return 0;
}

static int pg_rx_cmd_statistics(struct pg_rx_net *rxn, const char *arg)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(pg_rx_stats_names); i++) {
		if (!strcmp(arg, pg_rx_stats_names[i])) {
			WRITE_ONCE(rxn->stats_mode, i);
			pg_rx_result(rxn, "OK: statistics=%s", arg);
			return 0;
		}
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

static int pg_rx_cmd_display(struct pg_rx_net *rxn, const char *arg)
{
	if (strcmp(arg, "human") && strcmp(arg, "script")) {
		pg_rx_result(rxn, "ERROR: display takes human or script");
		return -EINVAL;
	}
	rxn->script = !strcmp(arg, "script");
	pg_rx_result(rxn, "OK: display=%s", arg);
	return 0;
}

struct pg_rx_cmd {
	const char *name;
	bool rtnl;		/* changes the device list */
	bool arg;		/* takes a word (else: nothing may follow) */
	int (*exec)(struct pg_rx_net *rxn, const char *arg);
};

static const struct pg_rx_cmd pg_rx_cmds[] = {
	{ "rx",		true,	true,	pg_rx_cmd_rx },
	{ "rx_disable",	true,	true,	pg_rx_cmd_disable },
	{ "rx_reset",	false,	false,	pg_rx_cmd_reset },
	{ "statistics",	false,	true,	pg_rx_cmd_statistics },
	{ "copies",	false,	true,	pg_rx_cmd_copies },
	{ "display",	false,	true,	pg_rx_cmd_display },
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

/* A command word and at most one argument (pg_split_words()'s grammar). */
static int pg_rx_command(struct pg_rx_net *rxn, char *buf)
{
	char *word[2];
	int n, i;

	n = pg_split_words(buf, word, ARRAY_SIZE(word));
	for (i = 0; n > 0 && i < ARRAY_SIZE(pg_rx_cmds); i++)
		if (!strcmp(word[0], pg_rx_cmds[i].name))
			return pg_rx_exec(rxn, &pg_rx_cmds[i], n > 1 ? word[1] : "");

	mutex_lock(&rxn->lock);
	if (n < 0)
		pg_rx_result(rxn, "ERROR: one command and at most one argument per write");
	else
		pg_rx_result(rxn, "ERROR: unknown command \"%.32s\" (%s)", n ? word[0] : "",
			     "rx IF, rx_disable [IF], rx_reset, statistics counter|basic|time, copies N, display human|script");
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

/* ---- reading: output ------------------------------------------------------------- */

struct pg_rx_figures {
	u64 avg, stddev, p50, p90, p99, p999;
	u64 gap_avg, gap_stddev;
	u64 reordered_ppm;
};

static void pg_rx_figures(const struct pg_rx_sum *d, struct pg_rx_figures *f)
{
	f->avg = pg_rxs_mean(&d->lat);
	f->stddev = pg_rxs_stddev(&d->lat);
	f->gap_avg = pg_rxs_mean(&d->gap);
	f->gap_stddev = pg_rxs_stddev(&d->gap);
	f->p50 = pg_rxs_percentile(d->hist, d->lat.min, d->lat.max, 500);
	f->p90 = pg_rxs_percentile(d->hist, d->lat.min, d->lat.max, 900);
	f->p99 = pg_rxs_percentile(d->hist, d->lat.min, d->lat.max, 990);
	f->p999 = pg_rxs_percentile(d->hist, d->lat.min, d->lat.max, 999);
	/* RFC 4737 3.4: reordered among the packets received (each once) */
	f->reordered_ppm = pg_rxs_reordered_ppm(d->packets, d->duplicates, d->wild,
						d->reordered);
}

static void pg_rx_show_kv(struct seq_file *seq, const char *prefix, const char *name, u64 v)
{
	seq_printf(seq, "%s%s=%llu\n", prefix, name, v);
}

/* The stable key=value names (Documentation/receiver.rst, "Output"). */
static void pg_rx_show_script(struct seq_file *seq, const char *prefix,
			      const struct pg_rx_sum *d)
{
	struct pg_rx_figures f;

	pg_rx_figures(d, &f);
	pg_rx_show_kv(seq, prefix, "rx_packets", d->packets);
	pg_rx_show_kv(seq, prefix, "rx_bytes", d->bytes);
	pg_rx_show_kv(seq, prefix, "lost", d->lost);
	pg_rx_show_kv(seq, prefix, "reordered", d->reordered);
	pg_rx_show_kv(seq, prefix, "reordered_ratio_ppm", f.reordered_ppm);
	pg_rx_show_kv(seq, prefix, "duplicates", d->duplicates);
	pg_rx_show_kv(seq, prefix, "late", d->late);
	pg_rx_show_kv(seq, prefix, "restarts", d->restarts);
	pg_rx_show_kv(seq, prefix, "malformed", d->malformed);
	pg_rx_show_kv(seq, prefix, "rate_pps", d->rate.pps);
	pg_rx_show_kv(seq, prefix, "rate_bps", d->rate.bps);
	pg_rx_show_kv(seq, prefix, "latency_samples", d->lat.count);
	pg_rx_show_kv(seq, prefix, "latency_negative", d->lat_negative);
	pg_rx_show_kv(seq, prefix, "latency_build_stamped", d->build_stamped);
	pg_rx_show_kv(seq, prefix, "latency_min_ns", d->lat.min);
	pg_rx_show_kv(seq, prefix, "latency_avg_ns", f.avg);
	pg_rx_show_kv(seq, prefix, "latency_max_ns", d->lat.max);
	pg_rx_show_kv(seq, prefix, "latency_stddev_ns", f.stddev);
	pg_rx_show_kv(seq, prefix, "latency_p50_ns", f.p50);
	pg_rx_show_kv(seq, prefix, "latency_p90_ns", f.p90);
	pg_rx_show_kv(seq, prefix, "latency_p99_ns", f.p99);
	pg_rx_show_kv(seq, prefix, "latency_p999_ns", f.p999);
	pg_rx_show_kv(seq, prefix, "jitter_ns", d->jitter_ns);
	pg_rx_show_kv(seq, prefix, "gap_samples", d->gap.count);
	pg_rx_show_kv(seq, prefix, "gap_min_ns", d->gap.min);
	pg_rx_show_kv(seq, prefix, "gap_avg_ns", f.gap_avg);
	pg_rx_show_kv(seq, prefix, "gap_max_ns", d->gap.max);
	pg_rx_show_kv(seq, prefix, "gap_stddev_ns", f.gap_stddev);
}

/* "id-<hex>" (extension) or "<dev>-ipv<N>-<source MAC>". */
static void pg_rx_stream_name(struct net *net, const struct pg_rx_stream *s, char *buf,
			      size_t len)
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

static void pg_rx_show_stream_script(struct seq_file *seq, int i, const char *name,
				     const struct pg_rx_stream *s, const struct pg_rx_sum *d)
{
	char prefix[16];

	snprintf(prefix, sizeof(prefix), "s%d_", i);
	seq_printf(seq, "%sstream=%s\n", prefix, name);
	pg_rx_show_kv(seq, prefix, "latency_resolution_ns", s->ns_res ? 1 : NSEC_PER_USEC);
	pg_rx_show_kv(seq, prefix, "first_seq", d->first_seq);
	pg_rx_show_kv(seq, prefix, "last_seq", d->last_seq);
	pg_rx_show_script(seq, prefix, d);
}

#define PG_RX_HUMAN_HDR1 "%-3s %-36s %10s %12s %8s %9s %6s %5s %9s %10s\n"
#define PG_RX_HUMAN_ROW1 "%-3s %-36s %10llu %12llu %8llu %9llu %6llu %5llu %9llu %6llu.%03llu\n"
#define PG_RX_HUMAN_HDR2 "%-3s %9s %10s %10s %10s %10s %10s %10s %10s %10s %9s %9s\n"
#define PG_RX_HUMAN_ROW2 "%-3s %9llu %10llu %10llu %10llu %10llu %10llu %10llu %10llu %10llu %9llu %9llu\n"
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
		   f->stddev, f->p50, f->p90, f->p99, f->p999, d->jitter_ns, d->build_stamped);
}

static void pg_rx_human_row3(struct seq_file *seq, const char *tag, const struct pg_rx_sum *d,
			     const struct pg_rx_figures *f)
{
	seq_printf(seq, PG_RX_HUMAN_ROW3, tag, d->gap.count, d->gap.min, f->gap_avg, d->gap.max,
		   f->gap_stddev);
}

/*
 * Reading state, too big for the stack: every stream is summed once, so
 * that the tables of display human show one moment.
 */
struct pg_rx_show_buf {
	struct pg_rx_sum sum[PG_RX_MAX_STREAMS];
	struct pg_rx_sum total;
	struct pg_rx_figures f;
	char name[48];
};

static void pg_rx_show_head(struct seq_file *seq, struct pg_rx_net *rxn, int nstreams,
			    u64 overflow)
{
	const char *mode = pg_rx_stats_names[READ_ONCE(rxn->stats_mode)];
	struct pg_rx_dev *rxd;

	if (rxn->script) {
		seq_puts(seq, "devices=");
		list_for_each_entry(rxd, &rxn->devs, list)
			seq_printf(seq, "%s%s", rxd->dev->name,
				   list_is_last(&rxd->list, &rxn->devs) ? "" : ",");
		seq_printf(seq, "\nstatistics=%s\ncopies=%u\nstreams=%d\nstreams_max=%d\noverflow_packets=%llu\n",
			   mode, READ_ONCE(rxn->copies), nstreams, PG_RX_MAX_STREAMS, overflow);
		return;
	}
	seq_puts(seq, "Receiver on:");
	list_for_each_entry(rxd, &rxn->devs, list)
		seq_printf(seq, " %s", rxd->dev->name);
	seq_printf(seq, "%s  statistics: %s  streams: %d/%d  overflow packets: %llu  copies: %u\n",
		   list_empty(&rxn->devs) ? " (none)" : "", mode, nstreams, PG_RX_MAX_STREAMS,
		   overflow, READ_ONCE(rxn->copies));
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

/* One row (or key=value block) per stream, then the totals. */
static void pg_rx_show_pass(struct seq_file *seq, struct pg_rx_net *rxn, struct pg_rx_table *t,
			    int n, struct pg_rx_show_buf *b, enum pg_rx_pass pass)
{
	char tag[12];
	int i;

	if (pass == PG_RX_COUNTS)
		seq_printf(seq, PG_RX_HUMAN_HDR1, "#", "stream", "rx_packets", "rx_bytes",
			   "lost", "reordered", "dups", "late", "pps", "Mb/s");
	if (pass == PG_RX_LATENCY)
		seq_printf(seq, "Latency (ns):\n" PG_RX_HUMAN_HDR2, "#", "samples", "min", "avg",
			   "max", "stddev", "p50", "p90", "p99", "p99.9", "jitter", "built");
	if (pass == PG_RX_GAPS)
		seq_printf(seq, "Inter-arrival (ns):\n" PG_RX_HUMAN_HDR3, "#", "samples", "min",
			   "avg", "max", "stddev");
	for (i = 0; i < n; i++) {
		struct pg_rx_stream *s = &t->streams[i];

		pg_rx_stream_name(rxn->pn->net, s, b->name, sizeof(b->name));
		pg_rx_figures(&b->sum[i], &b->f);
		snprintf(tag, sizeof(tag), "%d", i);
		if (pass == PG_RX_SCRIPT)
			pg_rx_show_stream_script(seq, i, b->name, s, &b->sum[i]);
		else
			pg_rx_show_row(seq, pass, tag, b->name, &b->sum[i], &b->f);
	}
	pg_rx_figures(&b->total, &b->f);
	if (pass == PG_RX_SCRIPT)
		pg_rx_show_script(seq, "", &b->total);
	else
		pg_rx_show_row(seq, pass, "all", "", &b->total, &b->f);
}

static int pg_rx_show(struct seq_file *seq, void *v)
{
	struct pg_rx_net *rxn = seq->private;
	struct pg_rx_show_buf *b;
	struct pg_rx_table *t;
	int i, n = 0;

	b = kvmalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	mutex_lock(&rxn->lock);
	t = pg_rx_table(rxn);
	if (t)
		/* pairs with the release in pg_rx_create(): streams[0..n) are set */
		n = smp_load_acquire(&t->nstreams);
	memset(&b->total, 0, sizeof(b->total));
	for (i = 0; i < n; i++) {
		pg_rx_sum_stream(&t->streams[i], &b->sum[i]);
		pg_rx_sum_add(&b->total, &b->sum[i]);
	}
	pg_rx_show_head(seq, rxn, n, t ? pg_rx_overflow(t) : 0);
	if (rxn->script) {
		pg_rx_show_pass(seq, rxn, t, n, b, PG_RX_SCRIPT);
	} else {
		pg_rx_show_pass(seq, rxn, t, n, b, PG_RX_COUNTS);
		pg_rx_show_pass(seq, rxn, t, n, b, PG_RX_LATENCY);
		pg_rx_show_pass(seq, rxn, t, n, b, PG_RX_GAPS);
	}
	seq_printf(seq, "Result: %s\n", rxn->result[0] ? rxn->result : "Idle");
	mutex_unlock(&rxn->lock);
	kvfree(b);
	return 0;
}

static int pg_rx_open(struct inode *inode, struct file *file)
{
	return single_open(file, pg_rx_show, pde_data(inode));
}

static const struct proc_ops pg_rx_proc_ops = {
	.proc_open	= pg_rx_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_write	= pg_rx_write,
	.proc_release	= single_release,
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
	/* waits for readers and writers of the file */
	proc_remove(rxn->entry);

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
