// SPDX-License-Identifier: GPL-2.0
/*
 * pf_ipoption: the IPv4 option classifier, /proc/net/ipopt
 * (see Documentation/ipopt.rst).
 *
 * While it is on, a netfilter NF_INET_PRE_ROUTING hook in the namespace
 * counts the received IPv4 packets that carry options, by ingress
 * interface and option type, and can give each type a verdict: accept,
 * drop, or queue to an NFQUEUE (how Linux lets user space steal a packet
 * and reinject it: the PF_IPOPTION memo's interception).
 *
 * Counters per interface.  The hook must not allocate and must not write a
 * shared cache line per packet, so the counters live in one per-CPU block,
 * a fixed matrix of rows (interfaces) by option types, allocated with the
 * table when the classifier is switched on or reset.  A row is bound to an
 * ifindex the first time a packet with options arrives on it: the hook
 * scans a small array of keys (the slow path of option packets only) and,
 * on a miss, claims the next free row under the table's spinlock; nothing
 * is allocated there.  Keys are ifindexes, never net_device pointers, so
 * the classifier holds no device reference and an interface can leave the
 * namespace at any time; the netdevice notifier only marks its row gone
 * (its counts stay until reset, and an ifindex reused later gets a row of
 * its own).  Interfaces beyond the table share a last row, "others".
 *
 * Locking: ipn->lock (a mutex) serialises commands, reads and namespace
 * exit.  The hook finds the table with RCU; reset publishes a new table
 * and frees the old one after a grace period.  The notifier runs under
 * RTNL and reaches ipn only through ipo_net::cls, which the exit clears
 * under RTNL.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/ip.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/u64_stats_sync.h>
#include <linux/uaccess.h>
#include <net/ip.h>
#include <net/net_namespace.h>

#include "../pktgen_compat.h"
#include "ipoption.h"

#define IPO_CLS_SLOTS		32		/* interfaces with a row of their own */
#define IPO_CLS_ROWS		(IPO_CLS_SLOTS + 1)	/* + "others" */
#define IPO_CLS_OTHERS		IPO_CLS_SLOTS
#define IPO_CLS_KEY_GONE	(-1)		/* row of a device that left */
/* The file, in each namespace's /proc/net */
#define IPO_CLS_NAME		"ipopt"
#define IPO_CLS_RESULT_LEN	512
/* Longest write, in bytes, as pktgen's files */
#define IPO_CLS_WRITE_MAX	1023
#define IPO_CLS_TOO_LONG	"a command is at most " __stringify(IPO_CLS_WRITE_MAX) " bytes"
/*
 * Before defragmentation and conntrack (each fragment is counted as it
 * arrived), and before the raw table, so a user's drop rule cannot hide a
 * packet from the counts.  The kernel parses options after PRE_ROUTING
 * (ip_rcv_finish), so even malformed ones get here.
 */
#define IPO_CLS_PRIORITY	(NF_IP_PRI_CONNTRACK_DEFRAG - 1)

static const char * const ipo_cls_names[IPO_NTYPES] = {
	[IPO_RR]		= "rr",
	[IPO_TS]		= "ts",
	[IPO_LSRR]		= "lsrr",
	[IPO_SSRR]		= "ssrr",
	[IPO_SEC]		= "sec",
	[IPO_RA]		= "ra",
	[IPO_RA_OTHER]	= "ra_other",
	[IPO_OTHER]	= "other",
	[IPO_MALFORMED]	= "malformed",
	[IPO_ANY]		= "any",
};

/* One CPU's counters: written by that CPU only. */
struct ipo_cls_pcpu {
	struct u64_stats_sync syncp;
	u64_stats_t cnt[IPO_CLS_ROWS][IPO_NTYPES];
	u64_stats_t dropped;		/* packets given NF_DROP */
	u64_stats_t queued;		/* packets given NF_QUEUE */
};

struct ipo_cls_tab {
	/*
	 * keys[i]: the ifindex row i counts, IPO_CLS_KEY_GONE once that
	 * device left, 0 = free.  Rows are claimed in order and never freed,
	 * so the hook's scan stops at the first 0.
	 */
	int keys[IPO_CLS_SLOTS];
	spinlock_t lock;		/* claims and retirements of rows */
	int nrows;			/* rows claimed, under lock */
	int ifindex[IPO_CLS_SLOTS];	/* set once, before the key */
	char name[IPO_CLS_SLOTS][IFNAMSIZ];	/* at claim, renamed: updated */
	struct ipo_cls_pcpu __percpu *pcpu;
};

struct ipo_cls_net {
	struct net *net;
	struct proc_dir_entry *entry;
	struct mutex lock;		/* commands, reads, on/off, exit */
	struct ipo_cls_tab __rcu *tab;
	struct nf_hook_ops ops;
	bool on;
	bool script;			/* display script */
	/*
	 * Verdicts, read per packet.  act_mask has a bit per type whose
	 * verdict is not accept: a packet that carries none of them costs one
	 * AND (the memo's ipopt_cfg & ipopt_pkt).
	 */
	u32 act_mask;
	u32 verdict[IPO_NTYPES];	/* NF_ACCEPT, NF_DROP, NF_QUEUE_NR(n)... */
	char result[IPO_CLS_RESULT_LEN];
};

/* ---- packet path: counting and verdicts ------------------------------------ */

/* Row of @ifindex; claims one on the first packet (no allocation). */
static int ipo_cls_row(struct ipo_cls_tab *tab, struct net_device *dev)
{
	int ifindex = dev->ifindex, i, key;

	for (i = 0; i < IPO_CLS_SLOTS; i++) {
		/* pairs with smp_store_release() below */
		key = smp_load_acquire(&tab->keys[i]);
		if (key == ifindex)
			return i;
		if (!key)
			break;
	}
	if (i == IPO_CLS_SLOTS)
		return IPO_CLS_OTHERS;

	spin_lock_bh(&tab->lock);
	/* another CPU may have claimed it meanwhile */
	for (i = 0; i < tab->nrows; i++)
		if (tab->keys[i] == ifindex)
			goto out;
	if (i == IPO_CLS_SLOTS) {
		i = IPO_CLS_OTHERS;
		goto out;
	}
	tab->ifindex[i] = ifindex;
	strscpy(tab->name[i], dev->name, IFNAMSIZ);
	tab->nrows = i + 1;
	/* the row's ifindex and name are set before a lookup can find it */
	smp_store_release(&tab->keys[i], ifindex);
out:
	spin_unlock_bh(&tab->lock);
	return i;
}

static void ipo_cls_count(struct ipo_cls_tab *tab, int row, u32 seen, unsigned int verdict)
{
	struct ipo_cls_pcpu *c = this_cpu_ptr(tab->pcpu);
	unsigned long bits = seen;
	int t;

	u64_stats_update_begin(&c->syncp);
	for_each_set_bit(t, &bits, IPO_NTYPES)
		u64_stats_inc(&c->cnt[row][t]);
	if ((verdict & NF_VERDICT_MASK) == NF_DROP)
		u64_stats_inc(&c->dropped);
	else if ((verdict & NF_VERDICT_MASK) == NF_QUEUE)
		u64_stats_inc(&c->queued);
	u64_stats_update_end(&c->syncp);
}

/* The first non-accept type carried: malformed, then packet order, then any. */
static unsigned int ipo_cls_verdict(struct ipo_cls_net *ipn, const struct ipo_pkt *p)
{
	u32 mask = READ_ONCE(ipn->act_mask) & p->seen;
	unsigned int i;

	if (likely(!mask))
		return NF_ACCEPT;
	if (mask & BIT(IPO_MALFORMED))
		return READ_ONCE(ipn->verdict[IPO_MALFORMED]);
	for (i = 0; i < p->n; i++)
		if (mask & BIT(p->order[i]))
			return READ_ONCE(ipn->verdict[p->order[i]]);
	return READ_ONCE(ipn->verdict[IPO_ANY]);
}

static noinline unsigned int ipo_cls_slow(struct ipo_cls_net *ipn, struct sk_buff *skb,
					  const struct nf_hook_state *state)
{
	struct ipo_pkt p = { .seen = 0 };
	struct ipo_cls_tab *tab;
	unsigned int hlen, verdict;

	/* hooks run under rcu_read_lock() */
	tab = rcu_dereference(ipn->tab);
	if (unlikely(!tab))
		return NF_ACCEPT;

	hlen = ip_hdr(skb)->ihl * 4;
	/* ip_rcv_core() pulled the header already; do not rely on it */
	if (hlen < sizeof(struct iphdr) || !pskb_may_pull(skb, hlen))
		ipo_seen(&p, IPO_MALFORMED);
	else
		ipo_parse((const u8 *)(ip_hdr(skb) + 1), hlen - sizeof(struct iphdr), &p);
	p.seen |= BIT(IPO_ANY);

	verdict = ipo_cls_verdict(ipn, &p);
	ipo_cls_count(tab, ipo_cls_row(tab, state->in ?: skb->dev), p.seen, verdict);
	return verdict;
}

static unsigned int ipo_cls_hook(void *priv, struct sk_buff *skb,
				 const struct nf_hook_state *state)
{
	/* the fast path: the version/IHL byte says there are no options */
	if (likely(ip_hdr(skb)->ihl == 5))
		return NF_ACCEPT;
	return ipo_cls_slow(priv, skb, state);
}

/* ---- tables ---------------------------------------------------------------- */

static void ipo_cls_tab_free(struct ipo_cls_tab *tab)
{
	if (!tab)
		return;
	free_percpu(tab->pcpu);
	kfree(tab);
}

static struct ipo_cls_tab *ipo_cls_tab_alloc(void)
{
	struct ipo_cls_tab *tab;
	int cpu;

	tab = kzalloc(sizeof(*tab), GFP_KERNEL);
	if (!tab)
		return NULL;
	spin_lock_init(&tab->lock);
	tab->pcpu = alloc_percpu(struct ipo_cls_pcpu);
	if (!tab->pcpu) {
		kfree(tab);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(tab->pcpu, cpu)->syncp);
	return tab;
}

static struct ipo_cls_tab *ipo_cls_tab(struct ipo_cls_net *ipn)
{
	return rcu_dereference_protected(ipn->tab, lockdep_is_held(&ipn->lock));
}

/* Publish @tab; the old one is freed once no hook can be using it. */
static void ipo_cls_tab_replace(struct ipo_cls_net *ipn, struct ipo_cls_tab *tab)
{
	struct ipo_cls_tab *old = ipo_cls_tab(ipn);

	rcu_assign_pointer(ipn->tab, tab);
	if (old) {
		synchronize_net();
		ipo_cls_tab_free(old);
	}
}

/* ---- devices ---------------------------------------------------------------- */

/*
 * RTNL held.  The device leaves the namespace (or goes away): its row
 * keeps its counts but no longer matches its ifindex, so a device that
 * gets the same ifindex later counts in a row of its own.
 */
void ipo_cls_netdev_unregister(struct ipo_net *in, struct net_device *dev)
{
	struct ipo_cls_net *ipn = in->cls;
	struct ipo_cls_tab *tab;
	int i;

	ASSERT_RTNL();
	if (!ipn)
		return;
	rcu_read_lock();
	tab = rcu_dereference(ipn->tab);
	if (tab) {
		spin_lock_bh(&tab->lock);
		for (i = 0; i < tab->nrows; i++)
			if (tab->keys[i] == dev->ifindex)
				WRITE_ONCE(tab->keys[i], IPO_CLS_KEY_GONE);
		spin_unlock_bh(&tab->lock);
	}
	rcu_read_unlock();
}

/* ---- commands ----------------------------------------------------------------- */

#define IPO_CLS_TYPES	"rr, ts, lsrr, ssrr, sec, ra, ra_other, other, malformed or any"
#define IPO_CLS_ACTIONS	"accept, drop or queue:<0-65535> [bypass]"
#define IPO_CLS_USAGE \
	"on, off, reset, verdict TYPE accept|drop|queue:<0-65535> [bypass], display human|script"

static __printf(2, 3) void ipo_cls_result(struct ipo_cls_net *ipn, const char *fmt, ...)
{
	va_list ap;

	lockdep_assert_held(&ipn->lock);
	va_start(ap, fmt);
	vsnprintf(ipn->result, sizeof(ipn->result), fmt, ap);
	va_end(ap);
}

static int ipo_cls_cmd_on(struct ipo_cls_net *ipn, char **argv, int argc)
{
	struct ipo_cls_tab *tab;
	int err;

	if (ipn->on) {
		ipo_cls_result(ipn, "OK: on (already)");
		return 0;
	}
	if (!ipo_cls_tab(ipn)) {
		tab = ipo_cls_tab_alloc();
		if (!tab) {
			ipo_cls_result(ipn, "ERROR: out of memory for the counters");
			return -ENOMEM;
		}
		ipo_cls_tab_replace(ipn, tab);
	}
	err = nf_register_net_hook(ipn->net, &ipn->ops);
	if (err) {
		ipo_cls_result(ipn, "ERROR: cannot register the PRE_ROUTING hook (%d)", err);
		return err;
	}
	ipn->on = true;
	ipo_cls_result(ipn, "OK: on (ipv4 pre_routing, priority %d)", IPO_CLS_PRIORITY);
	return 0;
}

/* ipn->lock held; waits for hooks in flight. */
static void ipo_cls_unhook(struct ipo_cls_net *ipn)
{
	if (!ipn->on)
		return;
	nf_unregister_net_hook(ipn->net, &ipn->ops);
	ipn->on = false;
}

static int ipo_cls_cmd_off(struct ipo_cls_net *ipn, char **argv, int argc)
{
	ipo_cls_unhook(ipn);
	ipo_cls_result(ipn, "OK: off");
	return 0;
}

static int ipo_cls_cmd_reset(struct ipo_cls_net *ipn, char **argv, int argc)
{
	struct ipo_cls_tab *tab;

	/* never switched on: nothing to zero */
	if (ipo_cls_tab(ipn)) {
		tab = ipo_cls_tab_alloc();
		if (!tab) {
			ipo_cls_result(ipn, "ERROR: out of memory for the counters");
			return -ENOMEM;
		}
		ipo_cls_tab_replace(ipn, tab);
	}
	ipo_cls_result(ipn, "OK: reset");
	return 0;
}

static int ipo_cls_type_by_name(const char *name)
{
	int t;

	for (t = 0; t < IPO_NTYPES; t++)
		if (!strcmp(name, ipo_cls_names[t]))
			return t;
	return -1;
}

/*
 * "accept", "drop", "queue:N" with N 0-65535; *verdict as the hook returns it.
 * A queue verdict always bypasses a queue nobody listens on: a consumer that
 * dies must not black-hole its option type until someone writes "accept".
 */
static int ipo_cls_parse_action(const char *s, u32 *verdict)
{
	u16 qnum;

	if (!strcmp(s, "accept")) {
		*verdict = NF_ACCEPT;
		return 0;
	}
	if (!strcmp(s, "drop")) {
		*verdict = NF_DROP;
		return 0;
	}
	if (strncmp(s, "queue:", 6) || !isdigit(s[6]) || kstrtou16(s + 6, 10, &qnum))
		return -EINVAL;
	*verdict = NF_QUEUE_NR(qnum) | NF_VERDICT_FLAG_QUEUE_BYPASS;
	return 0;
}

static int ipo_cls_cmd_verdict(struct ipo_cls_net *ipn, char **argv, int argc)
{
	u32 verdict;
	int t;

	t = argc >= 1 ? ipo_cls_type_by_name(argv[0]) : -1;
	if (t < 0) {
		ipo_cls_result(ipn, "ERROR: verdict TYPE: %s", IPO_CLS_TYPES);
		return -EINVAL;
	}
	if (argc < 2 || argc > 3 || ipo_cls_parse_action(argv[1], &verdict) ||
	    (argc == 3 && (strcmp(argv[2], "bypass") || verdict == NF_ACCEPT ||
			   verdict == NF_DROP))) {
		ipo_cls_result(ipn, "ERROR: verdict %s takes %s", ipo_cls_names[t],
			       IPO_CLS_ACTIONS);
		return -EINVAL;
	}
	/* a packet racing with the change may still get the old verdict */
	WRITE_ONCE(ipn->verdict[t], verdict);
	if (verdict == NF_ACCEPT)
		WRITE_ONCE(ipn->act_mask, ipn->act_mask & ~BIT(t));
	else
		WRITE_ONCE(ipn->act_mask, ipn->act_mask | BIT(t));
	ipo_cls_result(ipn, "OK: verdict %s=%s%s", ipo_cls_names[t], argv[1],
		       verdict & NF_VERDICT_FLAG_QUEUE_BYPASS ? " bypass" : "");
	return 0;
}

static int ipo_cls_cmd_display(struct ipo_cls_net *ipn, char **argv, int argc)
{
	if (argc != 1 || (strcmp(argv[0], "human") && strcmp(argv[0], "script"))) {
		ipo_cls_result(ipn, "ERROR: display takes human or script");
		return -EINVAL;
	}
	ipn->script = !strcmp(argv[0], "script");
	ipo_cls_result(ipn, "OK: display=%s", argv[0]);
	return 0;
}

struct ipo_cls_cmd {
	const char *name;
	int max_args;
	int (*exec)(struct ipo_cls_net *ipn, char **argv, int argc);
};

static const struct ipo_cls_cmd ipo_cls_cmds[] = {
	{ "on",		0,	ipo_cls_cmd_on },
	{ "off",	0,	ipo_cls_cmd_off },
	{ "reset",	0,	ipo_cls_cmd_reset },
	{ "verdict",	3,	ipo_cls_cmd_verdict },
	{ "display",	1,	ipo_cls_cmd_display },
};

#define IPO_CLS_MAX_WORDS	4	/* a command and up to 3 arguments */
/* Where words end: the separators of pktgen's files, so one script serves both */
#define IPO_CLS_SEPS		"\"\t\n\r ="

/* Split @buf in place into words; -E2BIG (argv[] filled) past @max. */
static int ipo_cls_words(char *buf, char **argv, int max)
{
	char *word;
	int n = 0;

	while ((word = strsep(&buf, IPO_CLS_SEPS))) {
		if (!*word)
			continue;
		if (n == max)
			return -E2BIG;
		argv[n++] = word;
	}
	return n;
}

static int ipo_cls_command(struct ipo_cls_net *ipn, char *buf)
{
	char *argv[IPO_CLS_MAX_WORDS];
	const struct ipo_cls_cmd *cmd = NULL;
	int argc, i, err;

	/* more words than any command takes (-E2BIG) still names the command */
	argc = ipo_cls_words(buf, argv, ARRAY_SIZE(argv));
	for (i = 0; argc && i < ARRAY_SIZE(ipo_cls_cmds); i++)
		if (!strcmp(argv[0], ipo_cls_cmds[i].name))
			cmd = &ipo_cls_cmds[i];

	mutex_lock(&ipn->lock);
	if (!cmd) {
		ipo_cls_result(ipn, "ERROR: unknown command \"%.32s\" (%s)",
			       argc ? argv[0] : "", IPO_CLS_USAGE);
		err = -EINVAL;
	} else if (argc < 0 || argc - 1 > cmd->max_args) {
		ipo_cls_result(ipn, "ERROR: %s takes %s", cmd->name,
			       cmd->max_args ? "fewer words" : "no argument");
		err = -EINVAL;
	} else {
		err = cmd->exec(ipn, argv + 1, argc - 1);
	}
	mutex_unlock(&ipn->lock);
	return err;
}

/*
 * The write as a NUL-terminated copy (a NUL inside ends it), or
 * ERR_PTR(-EPERM, -EINVAL: empty, -E2BIG, -EFAULT, -ENOMEM).  Only
 * CAP_NET_ADMIN in the initial user namespace, of the opener and of the
 * writer, may write.  Bytes other than printable ASCII, tab and newline
 * become '?': an unknown word is echoed in the Result.
 */
static char *ipo_cls_copy_cmd(const struct file *file, const char __user *ubuf, size_t count)
{
	char *buf, *c;

	if (!file_ns_capable(file, &init_user_ns, CAP_NET_ADMIN) || !capable(CAP_NET_ADMIN))
		return ERR_PTR(-EPERM);
	if (!count)
		return ERR_PTR(-EINVAL);
	if (count > IPO_CLS_WRITE_MAX)
		return ERR_PTR(-E2BIG);
	buf = memdup_user_nul(ubuf, count);
	for (c = buf; !IS_ERR(buf) && *c; c++)
		if ((*c < ' ' || *c > '~') && !strchr("\t\n", *c))
			*c = '?';
	return buf;
}

static ssize_t ipo_cls_write(struct file *file, const char __user *ubuf, size_t count,
			     loff_t *ppos)
{
	struct ipo_cls_net *ipn = pde_data(file_inode(file));
	const char *why;
	char *buf;
	int err;

	buf = ipo_cls_copy_cmd(file, ubuf, count);
	if (IS_ERR(buf)) {
		/* a writer without the right, a fault: nothing others read changes */
		why = PTR_ERR(buf) == -EINVAL ? "empty write" :
		      PTR_ERR(buf) == -E2BIG ? IPO_CLS_TOO_LONG : NULL;
		if (why) {
			mutex_lock(&ipn->lock);
			ipo_cls_result(ipn, "ERROR: %s", why);
			mutex_unlock(&ipn->lock);
		}
		return PTR_ERR(buf);
	}
	err = ipo_cls_command(ipn, buf);
	kfree(buf);
	return err ?: count;
}

/* ---- reading ------------------------------------------------------------------ */

/* Counters merged over CPUs, and what names the rows; too big for the stack. */
struct ipo_cls_view {
	u64 cnt[IPO_CLS_ROWS][IPO_NTYPES];
	u64 total[IPO_NTYPES];
	u64 dropped, queued;
	struct ipo_cls_pcpu snap;
	int nrows;
	int key[IPO_CLS_SLOTS];
	int ifindex[IPO_CLS_SLOTS];
	char name[IPO_CLS_ROWS][IFNAMSIZ + 8];
};

static void ipo_cls_fetch(const struct ipo_cls_pcpu *c, struct ipo_cls_pcpu *snap)
{
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&c->syncp);
		memcpy(snap, c, sizeof(*snap));
	} while (u64_stats_fetch_retry(&c->syncp, start));
}

static void ipo_cls_sum(struct ipo_cls_tab *tab, struct ipo_cls_view *v)
{
	int cpu, r, t;

	for_each_possible_cpu(cpu) {
		ipo_cls_fetch(per_cpu_ptr(tab->pcpu, cpu), &v->snap);
		for (r = 0; r < IPO_CLS_ROWS; r++)
			for (t = 0; t < IPO_NTYPES; t++)
				v->cnt[r][t] += u64_stats_read(&v->snap.cnt[r][t]);
		v->dropped += u64_stats_read(&v->snap.dropped);
		v->queued += u64_stats_read(&v->snap.queued);
	}
	for (r = 0; r < IPO_CLS_ROWS; r++)
		for (t = 0; t < IPO_NTYPES; t++)
			v->total[t] += v->cnt[r][t];
}

/* A live row shows the device's name now, a gone one the last name seen + ":gone". */
static void ipo_cls_names_of(struct net *net, struct ipo_cls_tab *tab,
			     struct ipo_cls_view *v)
{
	struct net_device *dev;
	int i;

	spin_lock_bh(&tab->lock);
	v->nrows = tab->nrows;
	memcpy(v->key, tab->keys, sizeof(v->key));
	memcpy(v->ifindex, tab->ifindex, sizeof(v->ifindex));
	for (i = 0; i < v->nrows; i++)
		strscpy(v->name[i], tab->name[i], IFNAMSIZ);
	spin_unlock_bh(&tab->lock);

	rcu_read_lock();
	for (i = 0; i < v->nrows; i++) {
		dev = v->key[i] > 0 ? dev_get_by_index_rcu(net, v->key[i]) : NULL;
		if (dev)
			strscpy(v->name[i], dev->name, IFNAMSIZ);
		else
			strlcat(v->name[i], ":gone", sizeof(v->name[i]));
	}
	rcu_read_unlock();
	strscpy(v->name[IPO_CLS_OTHERS], "others", sizeof(v->name[0]));
}

static bool ipo_cls_row_shown(const struct ipo_cls_view *v, int r)
{
	return r < v->nrows || v->cnt[r][IPO_ANY];
}

static void ipo_cls_show_verdict(struct seq_file *seq, u32 verdict)
{
	switch (verdict & NF_VERDICT_MASK) {
	case NF_ACCEPT:
		seq_puts(seq, "accept");
		break;
	case NF_DROP:
		seq_puts(seq, "drop");
		break;
	default:
		seq_printf(seq, "queue:%u%s", verdict >> NF_VERDICT_QBITS,
			   verdict & NF_VERDICT_FLAG_QUEUE_BYPASS ? " bypass" : "");
	}
}

static void ipo_cls_show_script(struct seq_file *seq, struct ipo_cls_net *ipn,
				const struct ipo_cls_view *v)
{
	int r, t;

	seq_printf(seq, "enabled=%d\ninterfaces=%d\n", ipn->on, v->nrows);
	for (r = 0; r < IPO_CLS_ROWS; r++) {
		if (!ipo_cls_row_shown(v, r))
			continue;
		if (r < v->nrows)
			seq_printf(seq, "%s.ifindex=%d\n", v->name[r], v->ifindex[r]);
		for (t = 0; t < IPO_NTYPES; t++)
			seq_printf(seq, "%s.%s=%llu\n", v->name[r], ipo_cls_names[t],
				   v->cnt[r][t]);
	}
	for (t = 0; t < IPO_NTYPES; t++)
		seq_printf(seq, "total.%s=%llu\n", ipo_cls_names[t], v->total[t]);
	seq_printf(seq, "total.dropped=%llu\ntotal.queued=%llu\n", v->dropped, v->queued);
	for (t = 0; t < IPO_NTYPES; t++) {
		seq_printf(seq, "verdict.%s=", ipo_cls_names[t]);
		ipo_cls_show_verdict(seq, READ_ONCE(ipn->verdict[t]));
		seq_putc(seq, '\n');
	}
}

static void ipo_cls_human_row(struct seq_file *seq, const char *name, const u64 *cnt)
{
	int t;

	seq_printf(seq, "%-20s", name);
	for (t = 0; t < IPO_NTYPES; t++)
		seq_printf(seq, " %9llu", cnt[t]);
	seq_putc(seq, '\n');
}

static void ipo_cls_show_human(struct seq_file *seq, struct ipo_cls_net *ipn,
			       const struct ipo_cls_view *v)
{
	int r, t;

	seq_printf(seq, "IPv4 option classifier: %s  interfaces: %d/%d  dropped: %llu  queued: %llu\n",
		   ipn->on ? "on" : "off", v->nrows, IPO_CLS_SLOTS, v->dropped, v->queued);
	seq_printf(seq, "%-20s", "interface");
	for (t = 0; t < IPO_NTYPES; t++)
		seq_printf(seq, " %9s", ipo_cls_names[t]);
	seq_putc(seq, '\n');
	for (r = 0; r < IPO_CLS_ROWS; r++)
		if (ipo_cls_row_shown(v, r))
			ipo_cls_human_row(seq, v->name[r], v->cnt[r]);
	ipo_cls_human_row(seq, "total", v->total);
	seq_puts(seq, "Verdicts:");
	for (t = 0; t < IPO_NTYPES; t++) {
		seq_printf(seq, " %s=", ipo_cls_names[t]);
		ipo_cls_show_verdict(seq, READ_ONCE(ipn->verdict[t]));
	}
	seq_putc(seq, '\n');
}

static int ipo_cls_show(struct seq_file *seq, void *unused)
{
	struct ipo_cls_net *ipn = seq->private;
	struct ipo_cls_tab *tab;
	struct ipo_cls_view *v;

	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	mutex_lock(&ipn->lock);
	tab = ipo_cls_tab(ipn);
	if (tab) {
		ipo_cls_sum(tab, v);
		ipo_cls_names_of(ipn->net, tab, v);
	}
	if (ipn->script)
		ipo_cls_show_script(seq, ipn, v);
	else
		ipo_cls_show_human(seq, ipn, v);
	seq_printf(seq, "Result: %s\n", ipn->result[0] ? ipn->result : "Idle");
	mutex_unlock(&ipn->lock);
	kfree(v);
	return 0;
}

static int ipo_cls_open(struct inode *inode, struct file *file)
{
	return single_open(file, ipo_cls_show, pde_data(inode));
}

static const struct proc_ops ipo_cls_proc_ops = {
	.proc_open	= ipo_cls_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_write	= ipo_cls_write,
	.proc_release	= single_release,
};

/* ---- namespaces ---------------------------------------------------------------- */

int ipo_cls_net_init(struct ipo_net *in)
{
	struct ipo_cls_net *ipn;
	int t;

	ipn = kzalloc(sizeof(*ipn), GFP_KERNEL);
	if (!ipn)
		return -ENOMEM;
	ipn->net = in->net;
	mutex_init(&ipn->lock);
	for (t = 0; t < IPO_NTYPES; t++)
		ipn->verdict[t] = NF_ACCEPT;
	ipn->ops.hook = ipo_cls_hook;
	ipn->ops.priv = ipn;
	ipn->ops.pf = NFPROTO_IPV4;
	ipn->ops.hooknum = NF_INET_PRE_ROUTING;
	ipn->ops.priority = IPO_CLS_PRIORITY;
	ipn->entry = proc_create_data(IPO_CLS_NAME, 0600, in->net->proc_net, &ipo_cls_proc_ops,
				      ipn);
	if (!ipn->entry) {
		mutex_destroy(&ipn->lock);
		kfree(ipn);
		return -ENOMEM;
	}
	/* root of the initial namespace's, whichever user namespace owns the netns */
	proc_set_user(ipn->entry, GLOBAL_ROOT_UID, GLOBAL_ROOT_GID);
	rtnl_lock();
	in->cls = ipn;
	rtnl_unlock();
	return 0;
}

/* The namespace or the module goes away, the classifier perhaps still on. */
void ipo_cls_net_exit(struct ipo_net *in)
{
	struct ipo_cls_net *ipn = in->cls;

	if (!ipn)
		return;
	/* waits for readers and writers of the file */
	proc_remove(ipn->entry);

	/* the notifier (under RTNL) sees ipn whole or not at all */
	rtnl_lock();
	in->cls = NULL;
	rtnl_unlock();

	mutex_lock(&ipn->lock);
	/* nf_unregister_net_hook() waits for hooks in flight */
	ipo_cls_unhook(ipn);
	ipo_cls_tab_replace(ipn, NULL);
	mutex_unlock(&ipn->lock);
	mutex_destroy(&ipn->lock);
	kfree(ipn);
}
