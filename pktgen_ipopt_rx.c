// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the IPv4 option classifier, /proc/net/pktgen/ipopt
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
 * RTNL and reaches ipn only through pn->ipopt, which the exit clears
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
#include <linux/u64_stats_sync.h>
#include <linux/uaccess.h>
#include <net/ip.h>
#include <net/net_namespace.h>

#include "pktgen.h"
#include "pktgen_cmd.h"

#define PG_IPOPT_SLOTS		32		/* interfaces with a row of their own */
#define PG_IPOPT_ROWS		(PG_IPOPT_SLOTS + 1)	/* + "others" */
#define PG_IPOPT_OTHERS		PG_IPOPT_SLOTS
#define PG_IPOPT_KEY_GONE	(-1)		/* row of a device that left */
/*
 * Before defragmentation and conntrack (each fragment is counted as it
 * arrived), and before the raw table, so a user's drop rule cannot hide a
 * packet from the counts.  The kernel parses options after PRE_ROUTING
 * (ip_rcv_finish), so even malformed ones get here.
 */
#define PG_IPOPT_PRIORITY	(NF_IP_PRI_CONNTRACK_DEFRAG - 1)

static const char * const pg_ipopt_names[PG_IPOPT_NTYPES] = {
	[PG_IPOPT_RR]		= "rr",
	[PG_IPOPT_TS]		= "ts",
	[PG_IPOPT_LSRR]		= "lsrr",
	[PG_IPOPT_SSRR]		= "ssrr",
	[PG_IPOPT_SEC]		= "sec",
	[PG_IPOPT_RA]		= "ra",
	[PG_IPOPT_RA_OTHER]	= "ra_other",
	[PG_IPOPT_OTHER]	= "other",
	[PG_IPOPT_MALFORMED]	= "malformed",
	[PG_IPOPT_ANY]		= "any",
};

/* One CPU's counters: written by that CPU only. */
struct pg_ipopt_pcpu {
	struct u64_stats_sync syncp;
	u64_stats_t cnt[PG_IPOPT_ROWS][PG_IPOPT_NTYPES];
	u64_stats_t dropped;		/* packets given NF_DROP */
	u64_stats_t queued;		/* packets given NF_QUEUE */
};

struct pg_ipopt_tab {
	/*
	 * keys[i]: the ifindex row i counts, PG_IPOPT_KEY_GONE once that
	 * device left, 0 = free.  Rows are claimed in order and never freed,
	 * so the hook's scan stops at the first 0.
	 */
	int keys[PG_IPOPT_SLOTS];
	spinlock_t lock;		/* claims and retirements of rows */
	int nrows;			/* rows claimed, under lock */
	int ifindex[PG_IPOPT_SLOTS];	/* set once, before the key */
	char name[PG_IPOPT_SLOTS][IFNAMSIZ];	/* at claim, renamed: updated */
	struct pg_ipopt_pcpu __percpu *pcpu;
};

struct pg_ipopt_net {
	struct pktgen_net *pn;
	struct proc_dir_entry *entry;
	struct mutex lock;		/* commands, reads, on/off, exit */
	struct pg_ipopt_tab __rcu *tab;
	struct nf_hook_ops ops;
	bool on;
	bool script;			/* display script */
	/*
	 * Verdicts, read per packet.  act_mask has a bit per type whose
	 * verdict is not accept: a packet that carries none of them costs one
	 * AND (the memo's ipopt_cfg & ipopt_pkt).
	 */
	u32 act_mask;
	u32 verdict[PG_IPOPT_NTYPES];	/* NF_ACCEPT, NF_DROP, NF_QUEUE_NR(n)... */
	char result[PG_RESULT_LEN];
};

/* ---- packet path: parsing ------------------------------------------------- */

static void pg_ipopt_seen(struct pg_ipopt_pkt *p, enum pg_ipopt_type t)
{
	if (p->seen & BIT(t))
		return;
	p->seen |= BIT(t);
	p->order[p->n++] = t;
}

/* RR, LSRR, SSRR: a pointer (>= 4) to a 4-byte slot inside, or past the end (full). */
static bool pg_ipopt_route_ok(const u8 *o, unsigned int olen)
{
	return olen >= 3 && o[2] >= IPOPT_MINOFF && (o[2] > olen || o[2] + 3 <= olen);
}

/* TS: as RR, from 5, with 4- or 8-byte slots by the flag (RFC 791). */
static bool pg_ipopt_ts_ok(const u8 *o, unsigned int olen)
{
	unsigned int slot;

	if (olen < 4 || o[2] < IPOPT_MINOFF + 1)
		return false;
	if (o[2] > olen)
		return true;
	switch (o[3] & 0x0f) {
	case IPOPT_TS_TSONLY:
		slot = 4;
		break;
	case IPOPT_TS_TSANDADDR:
	case IPOPT_TS_PRESPEC:
		slot = 8;
		break;
	default:
		return false;
	}
	return o[2] + slot - 1 <= olen;
}

/* The type of one well-formed option, or PG_IPOPT_MALFORMED. */
static enum pg_ipopt_type pg_ipopt_type_of(const u8 *o, unsigned int olen)
{
	switch (o[0]) {
	case IPOPT_RR:
		return pg_ipopt_route_ok(o, olen) ? PG_IPOPT_RR : PG_IPOPT_MALFORMED;
	case IPOPT_LSRR:
		return pg_ipopt_route_ok(o, olen) ? PG_IPOPT_LSRR : PG_IPOPT_MALFORMED;
	case IPOPT_SSRR:
		return pg_ipopt_route_ok(o, olen) ? PG_IPOPT_SSRR : PG_IPOPT_MALFORMED;
	case IPOPT_TS:
		return pg_ipopt_ts_ok(o, olen) ? PG_IPOPT_TS : PG_IPOPT_MALFORMED;
	case IPOPT_SEC:
		return PG_IPOPT_SEC;
	case IPOPT_RA:
		if (olen != 4)
			return PG_IPOPT_MALFORMED;
		return o[2] || o[3] ? PG_IPOPT_RA_OTHER : PG_IPOPT_RA;
	default:
		return PG_IPOPT_OTHER;
	}
}

/*
 * Walk the @len option bytes.  Types are noted in the order they appear;
 * the walk stops at EOL or at the first option that does not parse (a
 * length that is missing, below 2 or past the header, a pointer out of
 * range), which counts as malformed, not as its own type.
 */
void pg_ipopt_parse(const u8 *opt, unsigned int len, struct pg_ipopt_pkt *p)
{
	unsigned int off = 0, olen;
	enum pg_ipopt_type t;

	while (off < len) {
		if (opt[off] == IPOPT_END)
			return;
		if (opt[off] == IPOPT_NOOP) {
			off++;
			continue;
		}
		if (len - off < 2 || opt[off + 1] < 2 || opt[off + 1] > len - off) {
			pg_ipopt_seen(p, PG_IPOPT_MALFORMED);
			return;
		}
		olen = opt[off + 1];
		t = pg_ipopt_type_of(opt + off, olen);
		pg_ipopt_seen(p, t);
		if (t == PG_IPOPT_MALFORMED)
			return;
		off += olen;
	}
}

/* ---- packet path: counting and verdicts ------------------------------------ */

/* Row of @ifindex; claims one on the first packet (no allocation). */
static int pg_ipopt_row(struct pg_ipopt_tab *tab, struct net_device *dev)
{
	int ifindex = dev->ifindex, i, key;

	for (i = 0; i < PG_IPOPT_SLOTS; i++) {
		/* pairs with smp_store_release() below */
		key = smp_load_acquire(&tab->keys[i]);
		if (key == ifindex)
			return i;
		if (!key)
			break;
	}
	if (i == PG_IPOPT_SLOTS)
		return PG_IPOPT_OTHERS;

	spin_lock_bh(&tab->lock);
	/* another CPU may have claimed it meanwhile */
	for (i = 0; i < tab->nrows; i++)
		if (tab->keys[i] == ifindex)
			goto out;
	if (i == PG_IPOPT_SLOTS) {
		i = PG_IPOPT_OTHERS;
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

static void pg_ipopt_count(struct pg_ipopt_tab *tab, int row, u32 seen, unsigned int verdict)
{
	struct pg_ipopt_pcpu *c = this_cpu_ptr(tab->pcpu);
	unsigned long bits = seen;
	int t;

	u64_stats_update_begin(&c->syncp);
	for_each_set_bit(t, &bits, PG_IPOPT_NTYPES)
		u64_stats_inc(&c->cnt[row][t]);
	if ((verdict & NF_VERDICT_MASK) == NF_DROP)
		u64_stats_inc(&c->dropped);
	else if ((verdict & NF_VERDICT_MASK) == NF_QUEUE)
		u64_stats_inc(&c->queued);
	u64_stats_update_end(&c->syncp);
}

/* The first non-accept type carried: malformed, then packet order, then any. */
static unsigned int pg_ipopt_verdict(struct pg_ipopt_net *ipn, const struct pg_ipopt_pkt *p)
{
	u32 mask = READ_ONCE(ipn->act_mask) & p->seen;
	unsigned int i;

	if (likely(!mask))
		return NF_ACCEPT;
	if (mask & BIT(PG_IPOPT_MALFORMED))
		return READ_ONCE(ipn->verdict[PG_IPOPT_MALFORMED]);
	for (i = 0; i < p->n; i++)
		if (mask & BIT(p->order[i]))
			return READ_ONCE(ipn->verdict[p->order[i]]);
	return READ_ONCE(ipn->verdict[PG_IPOPT_ANY]);
}

static noinline unsigned int pg_ipopt_slow(struct pg_ipopt_net *ipn, struct sk_buff *skb,
					   const struct nf_hook_state *state)
{
	struct pg_ipopt_pkt p = { .seen = 0 };
	struct pg_ipopt_tab *tab;
	unsigned int hlen, verdict;

	/* hooks run under rcu_read_lock() */
	tab = rcu_dereference(ipn->tab);
	if (unlikely(!tab))
		return NF_ACCEPT;

	hlen = ip_hdr(skb)->ihl * 4;
	/* ip_rcv_core() pulled the header already; do not rely on it */
	if (hlen < sizeof(struct iphdr) || !pskb_may_pull(skb, hlen))
		pg_ipopt_seen(&p, PG_IPOPT_MALFORMED);
	else
		pg_ipopt_parse((const u8 *)(ip_hdr(skb) + 1), hlen - sizeof(struct iphdr), &p);
	p.seen |= BIT(PG_IPOPT_ANY);

	verdict = pg_ipopt_verdict(ipn, &p);
	pg_ipopt_count(tab, pg_ipopt_row(tab, state->in ?: skb->dev), p.seen, verdict);
	return verdict;
}

static unsigned int pg_ipopt_hook(void *priv, struct sk_buff *skb,
				  const struct nf_hook_state *state)
{
	/* the fast path: the version/IHL byte says there are no options */
	if (likely(ip_hdr(skb)->ihl == 5))
		return NF_ACCEPT;
	return pg_ipopt_slow(priv, skb, state);
}

/* ---- tables ---------------------------------------------------------------- */

static void pg_ipopt_tab_free(struct pg_ipopt_tab *tab)
{
	if (!tab)
		return;
	free_percpu(tab->pcpu);
	kfree(tab);
}

static struct pg_ipopt_tab *pg_ipopt_tab_alloc(void)
{
	struct pg_ipopt_tab *tab;
	int cpu;

	tab = kzalloc(sizeof(*tab), GFP_KERNEL);
	if (!tab)
		return NULL;
	spin_lock_init(&tab->lock);
	tab->pcpu = alloc_percpu(struct pg_ipopt_pcpu);
	if (!tab->pcpu) {
		kfree(tab);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(tab->pcpu, cpu)->syncp);
	return tab;
}

static struct pg_ipopt_tab *pg_ipopt_tab(struct pg_ipopt_net *ipn)
{
	return rcu_dereference_protected(ipn->tab, lockdep_is_held(&ipn->lock));
}

/* Publish @tab; the old one is freed once no hook can be using it. */
static void pg_ipopt_tab_replace(struct pg_ipopt_net *ipn, struct pg_ipopt_tab *tab)
{
	struct pg_ipopt_tab *old = pg_ipopt_tab(ipn);

	rcu_assign_pointer(ipn->tab, tab);
	if (old) {
		synchronize_net();
		pg_ipopt_tab_free(old);
	}
}

/* ---- devices ---------------------------------------------------------------- */

/*
 * RTNL held.  The device leaves the namespace (or goes away): its row
 * keeps its counts but no longer matches its ifindex, so a device that
 * gets the same ifindex later counts in a row of its own.
 */
void pg_ipopt_netdev_unregister(struct pktgen_net *pn, struct net_device *dev)
{
	struct pg_ipopt_net *ipn = pn->ipopt;
	struct pg_ipopt_tab *tab;
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
				WRITE_ONCE(tab->keys[i], PG_IPOPT_KEY_GONE);
		spin_unlock_bh(&tab->lock);
	}
	rcu_read_unlock();
}

/* ---- commands ----------------------------------------------------------------- */

#define PG_IPOPT_TYPES	"rr, ts, lsrr, ssrr, sec, ra, ra_other, other, malformed or any"
#define PG_IPOPT_ACTIONS	"accept, drop or queue:<0-65535> [bypass]"
#define PG_IPOPT_USAGE \
	"on, off, reset, verdict TYPE accept|drop|queue:<0-65535> [bypass], display human|script"

static __printf(2, 3) void pg_ipopt_result(struct pg_ipopt_net *ipn, const char *fmt, ...)
{
	va_list ap;

	lockdep_assert_held(&ipn->lock);
	va_start(ap, fmt);
	vsnprintf(ipn->result, sizeof(ipn->result), fmt, ap);
	va_end(ap);
}

static int pg_ipopt_cmd_on(struct pg_ipopt_net *ipn, char **argv, int argc)
{
	struct pg_ipopt_tab *tab;
	int err;

	if (ipn->on) {
		pg_ipopt_result(ipn, "OK: on (already)");
		return 0;
	}
	if (!pg_ipopt_tab(ipn)) {
		tab = pg_ipopt_tab_alloc();
		if (!tab) {
			pg_ipopt_result(ipn, "ERROR: out of memory for the counters");
			return -ENOMEM;
		}
		pg_ipopt_tab_replace(ipn, tab);
	}
	err = nf_register_net_hook(ipn->pn->net, &ipn->ops);
	if (err) {
		pg_ipopt_result(ipn, "ERROR: cannot register the PRE_ROUTING hook (%d)", err);
		return err;
	}
	ipn->on = true;
	pg_ipopt_result(ipn, "OK: on (ipv4 pre_routing, priority %d)", PG_IPOPT_PRIORITY);
	return 0;
}

/* ipn->lock held; waits for hooks in flight. */
static void pg_ipopt_unhook(struct pg_ipopt_net *ipn)
{
	if (!ipn->on)
		return;
	nf_unregister_net_hook(ipn->pn->net, &ipn->ops);
	ipn->on = false;
}

static int pg_ipopt_cmd_off(struct pg_ipopt_net *ipn, char **argv, int argc)
{
	pg_ipopt_unhook(ipn);
	pg_ipopt_result(ipn, "OK: off");
	return 0;
}

static int pg_ipopt_cmd_reset(struct pg_ipopt_net *ipn, char **argv, int argc)
{
	struct pg_ipopt_tab *tab;

	/* never switched on: nothing to zero */
	if (pg_ipopt_tab(ipn)) {
		tab = pg_ipopt_tab_alloc();
		if (!tab) {
			pg_ipopt_result(ipn, "ERROR: out of memory for the counters");
			return -ENOMEM;
		}
		pg_ipopt_tab_replace(ipn, tab);
	}
	pg_ipopt_result(ipn, "OK: reset");
	return 0;
}

static int pg_ipopt_type_by_name(const char *name)
{
	int t;

	for (t = 0; t < PG_IPOPT_NTYPES; t++)
		if (!strcmp(name, pg_ipopt_names[t]))
			return t;
	return -1;
}

/*
 * "accept", "drop", "queue:N" with N 0-65535; *verdict as the hook returns it.
 * A queue verdict always bypasses a queue nobody listens on: a consumer that
 * dies must not black-hole its option type until someone writes "accept".
 */
static int pg_ipopt_parse_action(const char *s, u32 *verdict)
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

static int pg_ipopt_cmd_verdict(struct pg_ipopt_net *ipn, char **argv, int argc)
{
	u32 verdict;
	int t;

	t = argc >= 1 ? pg_ipopt_type_by_name(argv[0]) : -1;
	if (t < 0) {
		pg_ipopt_result(ipn, "ERROR: verdict TYPE: %s", PG_IPOPT_TYPES);
		return -EINVAL;
	}
	if (argc < 2 || argc > 3 || pg_ipopt_parse_action(argv[1], &verdict) ||
	    (argc == 3 && (strcmp(argv[2], "bypass") || verdict == NF_ACCEPT ||
			   verdict == NF_DROP))) {
		pg_ipopt_result(ipn, "ERROR: verdict %s takes %s", pg_ipopt_names[t],
				PG_IPOPT_ACTIONS);
		return -EINVAL;
	}
	/* a packet racing with the change may still get the old verdict */
	WRITE_ONCE(ipn->verdict[t], verdict);
	if (verdict == NF_ACCEPT)
		WRITE_ONCE(ipn->act_mask, ipn->act_mask & ~BIT(t));
	else
		WRITE_ONCE(ipn->act_mask, ipn->act_mask | BIT(t));
	pg_ipopt_result(ipn, "OK: verdict %s=%s%s", pg_ipopt_names[t], argv[1],
			verdict & NF_VERDICT_FLAG_QUEUE_BYPASS ? " bypass" : "");
	return 0;
}

static int pg_ipopt_cmd_display(struct pg_ipopt_net *ipn, char **argv, int argc)
{
	if (argc != 1 || (strcmp(argv[0], "human") && strcmp(argv[0], "script"))) {
		pg_ipopt_result(ipn, "ERROR: display takes human or script");
		return -EINVAL;
	}
	ipn->script = !strcmp(argv[0], "script");
	pg_ipopt_result(ipn, "OK: display=%s", argv[0]);
	return 0;
}

struct pg_ipopt_cmd {
	const char *name;
	int max_args;
	int (*exec)(struct pg_ipopt_net *ipn, char **argv, int argc);
};

static const struct pg_ipopt_cmd pg_ipopt_cmds[] = {
	{ "on",		0,	pg_ipopt_cmd_on },
	{ "off",	0,	pg_ipopt_cmd_off },
	{ "reset",	0,	pg_ipopt_cmd_reset },
	{ "verdict",	3,	pg_ipopt_cmd_verdict },
	{ "display",	1,	pg_ipopt_cmd_display },
};

#define PG_IPOPT_MAX_WORDS	4	/* a command and up to 3 arguments */

static int pg_ipopt_command(struct pg_ipopt_net *ipn, char *buf)
{
	char *argv[PG_IPOPT_MAX_WORDS];
	const struct pg_ipopt_cmd *cmd = NULL;
	int argc, i, err;

	/* more words than any command takes (-E2BIG) still names the command */
	argc = pg_split_words(buf, argv, ARRAY_SIZE(argv));
	for (i = 0; argc && i < ARRAY_SIZE(pg_ipopt_cmds); i++)
		if (!strcmp(argv[0], pg_ipopt_cmds[i].name))
			cmd = &pg_ipopt_cmds[i];

	mutex_lock(&ipn->lock);
	if (!cmd) {
		pg_ipopt_result(ipn, "ERROR: unknown command \"%.32s\" (%s)",
				argc ? argv[0] : "", PG_IPOPT_USAGE);
		err = -EINVAL;
	} else if (argc < 0 || argc - 1 > cmd->max_args) {
		pg_ipopt_result(ipn, "ERROR: %s takes %s", cmd->name,
				cmd->max_args ? "fewer words" : "no argument");
		err = -EINVAL;
	} else {
		err = cmd->exec(ipn, argv + 1, argc - 1);
	}
	mutex_unlock(&ipn->lock);
	return err;
}

static ssize_t pg_ipopt_write(struct file *file, const char __user *ubuf, size_t count,
			      loff_t *ppos)
{
	struct pg_ipopt_net *ipn = pde_data(file_inode(file));
	const char *why;
	char *buf;
	int err;

	buf = pg_cmd_fetch(file, ubuf, count);
	if (IS_ERR(buf)) {
		why = pg_cmd_refusal(PTR_ERR(buf));
		if (why) {
			mutex_lock(&ipn->lock);
			pg_ipopt_result(ipn, "ERROR: %s", why);
			mutex_unlock(&ipn->lock);
		}
		return PTR_ERR(buf);
	}
	err = pg_ipopt_command(ipn, buf);
	kfree(buf);
	return err ?: count;
}

/* ---- reading ------------------------------------------------------------------ */

/* Counters merged over CPUs, and what names the rows; too big for the stack. */
struct pg_ipopt_view {
	u64 cnt[PG_IPOPT_ROWS][PG_IPOPT_NTYPES];
	u64 total[PG_IPOPT_NTYPES];
	u64 dropped, queued;
	struct pg_ipopt_pcpu snap;
	int nrows;
	int key[PG_IPOPT_SLOTS];
	int ifindex[PG_IPOPT_SLOTS];
	char name[PG_IPOPT_ROWS][IFNAMSIZ + 8];
};

static void pg_ipopt_fetch(const struct pg_ipopt_pcpu *c, struct pg_ipopt_pcpu *snap)
{
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&c->syncp);
		memcpy(snap, c, sizeof(*snap));
	} while (u64_stats_fetch_retry(&c->syncp, start));
}

static void pg_ipopt_sum(struct pg_ipopt_tab *tab, struct pg_ipopt_view *v)
{
	int cpu, r, t;

	for_each_possible_cpu(cpu) {
		pg_ipopt_fetch(per_cpu_ptr(tab->pcpu, cpu), &v->snap);
		for (r = 0; r < PG_IPOPT_ROWS; r++)
			for (t = 0; t < PG_IPOPT_NTYPES; t++)
				v->cnt[r][t] += u64_stats_read(&v->snap.cnt[r][t]);
		v->dropped += u64_stats_read(&v->snap.dropped);
		v->queued += u64_stats_read(&v->snap.queued);
	}
	for (r = 0; r < PG_IPOPT_ROWS; r++)
		for (t = 0; t < PG_IPOPT_NTYPES; t++)
			v->total[t] += v->cnt[r][t];
}

/* A live row shows the device's name now, a gone one the last name seen + ":gone". */
static void pg_ipopt_names_of(struct net *net, struct pg_ipopt_tab *tab,
			      struct pg_ipopt_view *v)
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
	strscpy(v->name[PG_IPOPT_OTHERS], "others", sizeof(v->name[0]));
}

static bool pg_ipopt_row_shown(const struct pg_ipopt_view *v, int r)
{
	return r < v->nrows || v->cnt[r][PG_IPOPT_ANY];
}

static void pg_ipopt_show_verdict(struct seq_file *seq, u32 verdict)
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

static void pg_ipopt_show_script(struct seq_file *seq, struct pg_ipopt_net *ipn,
				 const struct pg_ipopt_view *v)
{
	int r, t;

	seq_printf(seq, "enabled=%d\ninterfaces=%d\n", ipn->on, v->nrows);
	for (r = 0; r < PG_IPOPT_ROWS; r++) {
		if (!pg_ipopt_row_shown(v, r))
			continue;
		if (r < v->nrows)
			seq_printf(seq, "%s.ifindex=%d\n", v->name[r], v->ifindex[r]);
		for (t = 0; t < PG_IPOPT_NTYPES; t++)
			seq_printf(seq, "%s.%s=%llu\n", v->name[r], pg_ipopt_names[t],
				   v->cnt[r][t]);
	}
	for (t = 0; t < PG_IPOPT_NTYPES; t++)
		seq_printf(seq, "total.%s=%llu\n", pg_ipopt_names[t], v->total[t]);
	seq_printf(seq, "total.dropped=%llu\ntotal.queued=%llu\n", v->dropped, v->queued);
	for (t = 0; t < PG_IPOPT_NTYPES; t++) {
		seq_printf(seq, "verdict.%s=", pg_ipopt_names[t]);
		pg_ipopt_show_verdict(seq, READ_ONCE(ipn->verdict[t]));
		seq_putc(seq, '\n');
	}
}

static void pg_ipopt_human_row(struct seq_file *seq, const char *name, const u64 *cnt)
{
	int t;

	seq_printf(seq, "%-20s", name);
	for (t = 0; t < PG_IPOPT_NTYPES; t++)
		seq_printf(seq, " %9llu", cnt[t]);
	seq_putc(seq, '\n');
}

static void pg_ipopt_show_human(struct seq_file *seq, struct pg_ipopt_net *ipn,
				const struct pg_ipopt_view *v)
{
	int r, t;

	seq_printf(seq, "IPv4 option classifier: %s  interfaces: %d/%d  dropped: %llu  queued: %llu\n",
		   ipn->on ? "on" : "off", v->nrows, PG_IPOPT_SLOTS, v->dropped, v->queued);
	seq_printf(seq, "%-20s", "interface");
	for (t = 0; t < PG_IPOPT_NTYPES; t++)
		seq_printf(seq, " %9s", pg_ipopt_names[t]);
	seq_putc(seq, '\n');
	for (r = 0; r < PG_IPOPT_ROWS; r++)
		if (pg_ipopt_row_shown(v, r))
			pg_ipopt_human_row(seq, v->name[r], v->cnt[r]);
	pg_ipopt_human_row(seq, "total", v->total);
	seq_puts(seq, "Verdicts:");
	for (t = 0; t < PG_IPOPT_NTYPES; t++) {
		seq_printf(seq, " %s=", pg_ipopt_names[t]);
		pg_ipopt_show_verdict(seq, READ_ONCE(ipn->verdict[t]));
	}
	seq_putc(seq, '\n');
}

static int pg_ipopt_show(struct seq_file *seq, void *unused)
{
	struct pg_ipopt_net *ipn = seq->private;
	struct pg_ipopt_tab *tab;
	struct pg_ipopt_view *v;

	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	mutex_lock(&ipn->lock);
	tab = pg_ipopt_tab(ipn);
	if (tab) {
		pg_ipopt_sum(tab, v);
		pg_ipopt_names_of(ipn->pn->net, tab, v);
	}
	if (ipn->script)
		pg_ipopt_show_script(seq, ipn, v);
	else
		pg_ipopt_show_human(seq, ipn, v);
	seq_printf(seq, "Result: %s\n", ipn->result[0] ? ipn->result : "Idle");
	mutex_unlock(&ipn->lock);
	kfree(v);
	return 0;
}

static int pg_ipopt_open(struct inode *inode, struct file *file)
{
	return single_open(file, pg_ipopt_show, pde_data(inode));
}

static const struct proc_ops pg_ipopt_proc_ops = {
	.proc_open	= pg_ipopt_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_write	= pg_ipopt_write,
	.proc_release	= single_release,
};

/* ---- namespaces ---------------------------------------------------------------- */

int pg_ipopt_net_init(struct pktgen_net *pn)
{
	struct pg_ipopt_net *ipn;
	int t;

	ipn = kzalloc(sizeof(*ipn), GFP_KERNEL);
	if (!ipn)
		return -ENOMEM;
	ipn->pn = pn;
	mutex_init(&ipn->lock);
	for (t = 0; t < PG_IPOPT_NTYPES; t++)
		ipn->verdict[t] = NF_ACCEPT;
	ipn->ops.hook = pg_ipopt_hook;
	ipn->ops.priv = ipn;
	ipn->ops.pf = NFPROTO_IPV4;
	ipn->ops.hooknum = NF_INET_PRE_ROUTING;
	ipn->ops.priority = PG_IPOPT_PRIORITY;
	ipn->entry = proc_create_data(PG_IPOPT_NAME, 0600, pn->proc_dir, &pg_ipopt_proc_ops,
				      ipn);
	pg_proc_own(ipn->entry);
	if (!ipn->entry) {
		mutex_destroy(&ipn->lock);
		kfree(ipn);
		return -ENOMEM;
	}
	rtnl_lock();
	pn->ipopt = ipn;
	rtnl_unlock();
	return 0;
}

/* The namespace or the module goes away, the classifier perhaps still on. */
void pg_ipopt_net_exit(struct pktgen_net *pn)
{
	struct pg_ipopt_net *ipn = pn->ipopt;

	if (!ipn)
		return;
	/* waits for readers and writers of the file */
	proc_remove(ipn->entry);

	/* the notifier (under RTNL) sees ipn whole or not at all */
	rtnl_lock();
	pn->ipopt = NULL;
	rtnl_unlock();

	mutex_lock(&ipn->lock);
	/* nf_unregister_net_hook() waits for hooks in flight */
	pg_ipopt_unhook(ipn);
	pg_ipopt_tab_replace(ipn, NULL);
	mutex_unlock(&ipn->lock);
	mutex_destroy(&ipn->lock);
	kfree(ipn);
}
