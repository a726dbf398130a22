// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the receiver, /proc/net/pktgen/pgrx (see Documentation/receiver.rst).
 *
 * A netdev ingress netfilter hook on each enabled device recognises pktgen
 * packets (Ethernet, up to two VLAN tags, IPv4 or IPv6, UDP, the magic),
 * counts them per stream and consumes them; everything else passes.
 *
 * Ownership and locking:
 *  - struct pg_rx_net (one per netns) is created with the namespace and
 *    freed at its exit.  The device list changes under RTNL and rxn->lock
 *    (RTNL first): commands, the NETDEV_UNREGISTER notifier (RTNL held)
 *    and the namespace exit all take both.
 *  - struct pg_rx_table holds the streams; the hook finds it with RCU.
 *    rx_reset publishes a fresh table and frees the old one after a grace
 *    period.  Readers of the file hold rxn->lock, so the table they look
 *    at cannot go away.
 *  - per stream: packet and byte counters and the latency histogram are
 *    per-CPU (u64_stats); sequence tracking, jitter, gaps, rate and the
 *    128-bit latency sums need the arrival order or a consistent snapshot
 *    and live in the stream under its own spinlock (pktgen_rxstat.c has
 *    the logic), written only by the CPUs that receive that stream.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <linux/netfilter.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/u64_stats_sync.h>
#include <linux/udp.h>
#include <linux/uaccess.h>
#include <net/ip.h>
#include <net/net_namespace.h>

#include "pktgen.h"
#include "pktgen_cmd.h"
#include "pktgen_rxstat.h"

#define PG_RX_MAX_STREAMS	64
#define PG_RX_HASH_SLOTS	128	/* open addressing, twice the streams */
#define PG_RX_MAX_DEVS		64
enum pg_rx_stats_mode {
	PG_RX_STATS_COUNTER,	/* packets, bytes, sequence: no clock read */
	PG_RX_STATS_BASIC,	/* + latency min/avg/max/stddev and jitter */
	PG_RX_STATS_TIME,	/* + latency histogram and percentiles */
};

static const char * const pg_rx_stats_names[] = {
	[PG_RX_STATS_COUNTER]	= "counter",
	[PG_RX_STATS_BASIC]	= "basic",
	[PG_RX_STATS_TIME]	= "time",
};

/* What identifies a stream (see Documentation/receiver.rst, "Streams"). */
struct pg_rx_key {
	u32 id;			/* extension stream id, or 0 */
	int ifindex;		/* no extension: ingress device ... */
	u8 ipver;		/* ... IP version ... */
	u8 has_id;
	u8 mac[ETH_ALEN];	/* ... and source MAC */
};

/* Per-CPU part of a stream: written only by the CPU that owns it. */
struct pg_rx_pcpu {
	struct u64_stats_sync syncp;
	u64_stats_t packets;
	u64_stats_t bytes;
	u64_stats_t hist[PG_RXS_HIST_BUCKETS];
};

/*
 * Sequence, latency, jitter, gap and rate state need the arrival order (or
 * a consistent snapshot of 128-bit sums) and live in the stream under its
 * lock; the logic is pktgen_rxstat.c's.
 */
struct pg_rx_stream {
	struct pg_rx_key key;
	bool ns_res;			/* carries nanosecond timestamps */
	struct pg_rx_pcpu __percpu *pcpu;
	/* written per packet by the receiving CPU(s) only */
	spinlock_t lock ____cacheline_aligned_in_smp;
	struct pg_rxs_seq seq;
	struct pg_rxs_time time;
};

/* Counters of packets that belong to no stream. */
struct pg_rx_misc {
	struct u64_stats_sync syncp;
	u64_stats_t overflow;		/* pktgen packets beyond the stream limit */
};

struct pg_rx_table {
	spinlock_t create_lock;		/* serialises stream creation */
	int nstreams;			/* published with release */
	u8 slots[PG_RX_HASH_SLOTS];	/* stream index + 1, 0 = empty */
	struct pg_rx_misc __percpu *misc;
	struct pg_rx_stream streams[PG_RX_MAX_STREAMS];
};

struct pg_rx_dev {
	struct list_head list;		/* rxn->devs */
	struct pg_rx_net *rxn;
	struct net_device *dev;
	netdevice_tracker tracker;
	struct nf_hook_ops ops;
	struct rcu_head rcu;
};

struct pg_rx_net {
	struct pktgen_net *pn;
	struct proc_dir_entry *entry;
	/* Serialises commands and reads; device list changes also hold RTNL. */
	struct mutex lock;
	struct list_head devs;
	unsigned int ndevs;
	struct pg_rx_table __rcu *table;
	bool hooked;			/* a hook was ever registered */
	int stats_mode;			/* enum pg_rx_stats_mode, read per packet */
	u32 copies;			/* packets per number, taken by new streams */
	bool script;			/* display script */
	char result[PG_RESULT_LEN];
};

/* A recognised packet. */
struct pg_rx_pkt {
	struct pg_rx_key key;
	u32 seq;
	u32 tv_sec;
	u32 tv_nsec;			/* from tv_usec, or from the extension */
	bool stamped;
	bool malformed;			/* stamp out of range */
	unsigned int frame_len;		/* Ethernet frame, FCS excluded */
};

/* ---- packet path: recognising -------------------------------------------- */

struct pg_rx_wire_hdr {
	__be32 magic;
	__be32 seq;
	__be32 tv_sec;
	__be32 tv_usec;
	/* the extension, when present */
	__be32 ext_magic;
	__be32 ext_id;
	__be32 ext_nsec;
	__be32 ext_zero;
};

/* Skip up to two VLAN tags left in the data; *off moves past them. */
static bool pg_rx_skip_vlans(const struct sk_buff *skb, __be16 *proto, unsigned int *off)
{
	struct vlan_hdr _vh;
	const struct vlan_hdr *vh;
	int tags = 0;

	while (eth_type_vlan(*proto)) {
		if (++tags > 2)
			return false;
		vh = skb_header_pointer(skb, *off, sizeof(_vh), &_vh);
		if (!vh)
			return false;
		*proto = vh->h_vlan_encapsulated_proto;
		*off += VLAN_HLEN;
	}
	return true;
}

/* IPv4 (any IHL, not a fragment) or IPv6 without extension headers, UDP. */
static bool pg_rx_skip_ip(const struct sk_buff *skb, __be16 proto, unsigned int *off,
			  u8 *ipver)
{
	if (proto == htons(ETH_P_IP)) {
		struct iphdr _iph;
		const struct iphdr *iph = skb_header_pointer(skb, *off, sizeof(_iph), &_iph);

		if (!iph || iph->version != 4 || iph->ihl < 5 ||
		    iph->protocol != IPPROTO_UDP || ip_is_fragment(iph))
			return false;
		*off += iph->ihl * 4;
		*ipver = 4;
		return true;
	}
	if (proto == htons(ETH_P_IPV6)) {
		struct ipv6hdr _ip6h;
		const struct ipv6hdr *ip6h = skb_header_pointer(skb, *off, sizeof(_ip6h),
								&_ip6h);

		if (!ip6h || ip6h->version != 6 || ip6h->nexthdr != IPPROTO_UDP)
			return false;
		*off += sizeof(*ip6h);
		*ipver = 6;
		return true;
	}
	return false;
}

static void pg_rx_read_hdr(const struct pg_rx_wire_hdr *h, bool ext, struct pg_rx_pkt *p)
{
	u32 usec = ntohl(h->tv_usec);

	p->seq = ntohl(h->seq);
	p->tv_sec = ntohl(h->tv_sec);
	p->stamped = h->tv_sec || h->tv_usec;
	/* checked before the product, which could wrap into range */
	p->malformed = usec >= USEC_PER_SEC;
	p->tv_nsec = usec * NSEC_PER_USEC;
	p->key.has_id = ext;
	if (ext) {
		p->key.id = ntohl(h->ext_id);
		p->tv_nsec = ntohl(h->ext_nsec);
		p->malformed |= p->tv_nsec >= NSEC_PER_SEC;
	}
	/* a garbled stamp gives no latency sample rather than a wild one */
	if (p->malformed)
		p->stamped = false;
}

/*
 * At the ingress hook skb->data is at the network header, skb->protocol
 * is the EtherType after any tag the stack already took into vlan_tci.
 */
static bool pg_rx_parse(const struct sk_buff *skb, struct pg_rx_pkt *p)
{
	struct pg_rx_wire_hdr _h;
	const struct pg_rx_wire_hdr *h;
	__be16 proto = skb->protocol;
	unsigned int off = 0;
	bool ext = true;
	u8 ipver;

	if (!pg_rx_skip_vlans(skb, &proto, &off) || !pg_rx_skip_ip(skb, proto, &off, &ipver))
		return false;
	off += sizeof(struct udphdr);
	h = skb_header_pointer(skb, off, sizeof(_h), &_h);
	if (!h) {
		ext = false;
		h = skb_header_pointer(skb, off, PG_HDR_LEN, &_h);
		if (!h)
			return false;
	}
	if (h->magic != htonl(PG_MAGIC))
		return false;
	ext = ext && h->ext_magic == htonl(PG_RX_EXT_MAGIC);

	memset(&p->key, 0, sizeof(p->key));
	pg_rx_read_hdr(h, ext, p);
	if (!ext) {
		p->key.ifindex = skb->skb_iif ?: skb->dev->ifindex;
		p->key.ipver = ipver;
		if (skb_mac_header_was_set(skb))
			ether_addr_copy(p->key.mac, eth_hdr(skb)->h_source);
	}
	p->frame_len = skb->len;
	if (skb_mac_header_was_set(skb))
		p->frame_len += skb->data - skb_mac_header(skb);
	if (skb_vlan_tag_present(skb))
		p->frame_len += VLAN_HLEN;
	return true;
}

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
static struct pg_rx_stream *pg_rx_lookup(struct pg_rx_table *t, const struct pg_rx_key *key,
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
static struct pg_rx_stream *pg_rx_create(struct pg_rx_table *t, const struct pg_rx_key *key,
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
 * Latency needs CLOCK_REALTIME (what the sender stamps); gaps and rate
 * take the monotonic clock under the stream's lock, so that it cannot
 * step and CPUs read it in the order in which they count.  Counter mode
 * reads no clock.
 */
static void pg_rx_count(struct pg_rx_stream *s, const struct pg_rx_pkt *p, int mode)
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
	struct timespec64 now;
	int bucket;

	if (in.timed && in.stamped) {
		ktime_get_real_ts64(&now);
		in.now_sec = now.tv_sec;
		in.now_nsec = now.tv_nsec;
	}
	spin_lock(&s->lock);
	if (in.timed)
		in.mono_ns = ktime_get_ns();
	bucket = pg_rxs_count(&s->seq, &s->time, &in);
	spin_unlock(&s->lock);

	u64_stats_update_begin(&c->syncp);
	u64_stats_inc(&c->packets);
	u64_stats_add(&c->bytes, p->frame_len);
	if (bucket >= 0 && mode == PG_RX_STATS_TIME)
		u64_stats_inc(&c->hist[bucket]);
	u64_stats_update_end(&c->syncp);
}

static void pg_rx_count_overflow(struct pg_rx_table *t)
{
	struct pg_rx_misc *m = this_cpu_ptr(t->misc);

	u64_stats_update_begin(&m->syncp);
	u64_stats_inc(&m->overflow);
	u64_stats_update_end(&m->syncp);
}

static unsigned int pg_rx_hook(void *priv, struct sk_buff *skb,
			       const struct nf_hook_state *state)
{
	struct pg_rx_dev *rxd = priv;
	struct pg_rx_net *rxn = rxd->rxn;
	struct pg_rx_stream *s;
	struct pg_rx_table *t;
	struct pg_rx_pkt p;
	int slot;

	if (!pg_rx_parse(skb, &p))
		return NF_ACCEPT;
	/* hooks run under rcu_read_lock() */
	t = rcu_dereference(rxn->table);
	if (unlikely(!t))
		return NF_ACCEPT;

	s = pg_rx_lookup(t, &p.key, &slot);
	if (unlikely(!s))
		s = pg_rx_create(t, &p.key, p.key.has_id, READ_ONCE(rxn->copies));
	if (likely(s))
		pg_rx_count(s, &p, READ_ONCE(rxn->stats_mode));
	else
		pg_rx_count_overflow(t);

	/* a sink consumes what it measured: not a drop */
	consume_skb(skb);
	return NF_STOLEN;
}

/* ---- tables ------------------------------------------------------------------- */

static void pg_rx_table_free(struct pg_rx_table *t)
{
	int i;

	if (!t)
		return;
	for (i = 0; i < PG_RX_MAX_STREAMS; i++)
		free_percpu(t->streams[i].pcpu);
	free_percpu(t->misc);
	kvfree(t);
}

/* Everything a stream can need is allocated here, none in the packet path. */
static struct pg_rx_table *pg_rx_table_alloc(void)
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

static struct pg_rx_table *pg_rx_table(struct pg_rx_net *rxn)
{
	return rcu_dereference_protected(rxn->table, lockdep_is_held(&rxn->lock));
}

/* Swap in @t (may be NULL); the old table is freed once no hook uses it. */
static void pg_rx_table_replace(struct pg_rx_net *rxn, struct pg_rx_table *t)
{
	struct pg_rx_table *old = pg_rx_table(rxn);

	rcu_assign_pointer(rxn->table, t);
	if (old) {
		synchronize_net();
		pg_rx_table_free(old);
	}
}

/* ---- devices ------------------------------------------------------------------ */

static struct pg_rx_dev *pg_rx_find_dev(struct pg_rx_net *rxn, const struct net_device *dev)
{
	struct pg_rx_dev *rxd;

	list_for_each_entry(rxd, &rxn->devs, list)
		if (rxd->dev == dev)
			return rxd;
	return NULL;
}

/* RTNL and rxn->lock held. */
static void pg_rx_dev_remove(struct pg_rx_net *rxn, struct pg_rx_dev *rxd)
{
	ASSERT_RTNL();
	lockdep_assert_held(&rxn->lock);
	nf_unregister_net_hook(dev_net(rxd->dev), &rxd->ops);
	list_del(&rxd->list);
	rxn->ndevs--;
	netdev_put(rxd->dev, &rxd->tracker);
	/* a hook that already started may still be looking at it */
	kfree_rcu(rxd, rcu);
}

static int pg_rx_dev_add(struct pg_rx_net *rxn, struct net_device *dev)
{
	struct pg_rx_dev *rxd;
	int err;

	rxd = kzalloc(sizeof(*rxd), GFP_KERNEL);
	if (!rxd)
		return -ENOMEM;
	rxd->rxn = rxn;
	rxd->dev = dev;
	rxd->ops.hook = pg_rx_hook;
	rxd->ops.dev = dev;
	rxd->ops.priv = rxd;
	rxd->ops.pf = NFPROTO_NETDEV;
	rxd->ops.hooknum = NF_NETDEV_INGRESS;
	/* before nftables' netdev chains: count what arrived on the wire */
	rxd->ops.priority = INT_MIN + 1;
	netdev_hold(dev, &rxd->tracker, GFP_KERNEL);
	err = nf_register_net_hook(dev_net(dev), &rxd->ops);
	if (err) {
		netdev_put(dev, &rxd->tracker);
		kfree(rxd);
		return err;
	}
	list_add_tail(&rxd->list, &rxn->devs);
	rxn->ndevs++;
	rxn->hooked = true;
	return 0;
}

void pg_rx_netdev_unregister(struct pktgen_net *pn, struct net_device *dev)
{
	struct pg_rx_net *rxn = pn->rx;
	struct pg_rx_dev *rxd;

	/* RTNL held: pn->rx cannot go away under us (see pg_rx_net_exit) */
	if (!rxn)
		return;
	mutex_lock(&rxn->lock);
	rxd = pg_rx_find_dev(rxn, dev);
	if (rxd) {
		pr_info("%s: unregistered, receiver disabled on it\n", dev->name);
		pg_rx_dev_remove(rxn, rxd);
	}
	mutex_unlock(&rxn->lock);
}

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

/* ---- reading: merging the per-CPU counters -------------------------------------- */

/* A stream's (or the total's) figures, merged over CPUs. */
struct pg_rx_sum {
	u64 packets, bytes;
	u64 lost, reordered, duplicates, late, restarts, malformed, jitter_ns;
	u64 wild;			/* of malformed: numbers not tracked */
	u64 lat_negative;
	struct pg_rxs_moments lat, gap;
	struct pg_rxs_rate rate;
	u32 first_seq, last_seq;
	u64 hist[PG_RXS_HIST_BUCKETS];
};

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

static void pg_rx_sum_stream(struct pg_rx_stream *s, struct pg_rx_sum *d)
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
static void pg_rx_sum_add(struct pg_rx_sum *tot, const struct pg_rx_sum *s)
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
	tot->jitter_ns = max(tot->jitter_ns, s->jitter_ns);
	tot->rate.pps += s->rate.pps;
	tot->rate.bps += s->rate.bps;
	pg_rxs_moments_merge(&tot->lat, &s->lat);
	pg_rxs_moments_merge(&tot->gap, &s->gap);
	for (b = 0; b < PG_RXS_HIST_BUCKETS; b++)
		tot->hist[b] += s->hist[b];
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
#define PG_RX_HUMAN_HDR2 "%-3s %9s %10s %10s %10s %10s %10s %10s %10s %10s %9s\n"
#define PG_RX_HUMAN_ROW2 "%-3s %9llu %10llu %10llu %10llu %10llu %10llu %10llu %10llu %10llu %9llu\n"
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
		   f->stddev, f->p50, f->p90, f->p99, f->p999, d->jitter_ns);
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

static u64 pg_rx_overflow(struct pg_rx_table *t)
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
			   "max", "stddev", "p50", "p90", "p99", "p99.9", "jitter");
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
