// SPDX-License-Identifier: GPL-2.0
/*
 * Bench-only (bench/README, "The floor"): the cheapest send a device
 * takes, to measure pktgen against.  Never installed or packaged.
 *
 * One frame is built once, as pktgen builds the bench's (Ethernet, IPv4,
 * UDP 9 -> 9, TTL 32, no UDP checksum, pktgen's header with its magic and
 * no stamp), and handed straight to the driver's ndo_start_xmit in a
 * tight loop: bursts of BURST under the tx queue's lock (HARD_TX_LOCK, as
 * the stack takes it), xmit_more on all but the last of a burst, no
 * stamps, no pacing, no counter but the run's own.
 *
 * What is handed over is the stack's to write.  On a device with
 * IFF_TX_SKB_SHARING the driver's start_xmit may take the same skb again
 * and again (a reference per send, as pktgen's clone_skb and burst do);
 * on any other device (veth) each send gets a clone of the frame: a new
 * sk_buff of its own over the frame's bytes, which whoever writes them
 * must unshare first, as for every clone (TCP's sends are clones too).
 * The frame is allocated with its fast clone, which skb_clone() takes
 * without an allocation whenever the previous clone has been freed.
 *
 * Interface, /proc/net/pg_floor of the writer's namespace, CAP_NET_ADMIN:
 *
 *	echo "DEV SIZE SECONDS [burst N] [dst_mac MAC] [dst IPV4]" >/proc/net/pg_floor
 *	cat /proc/net/pg_floor
 *
 * SIZE is pktgen's pkt_size (the frame without FCS, 60 to MTU + 14),
 * SECONDS up to 3600 with up to 6 decimals, burst 1-256 (default 32),
 * dst_mac 02:00:00:00:00:01 and dst 198.18.0.1 by default (bench/guest.sh's).
 * The write blocks for the run, then returns the count written, or an
 * errno: ENODEV (no such device), ENETDOWN (down, or it went down
 * mid-run), EOPNOTSUPP (not Ethernet), EINVAL (a bad line or size),
 * EMSGSIZE (SIZE over the MTU), EBUSY (a run is on), EPERM, EINTR (a
 * signal ended the run), ECANCELED (rmmod did: it waits for the run, and
 * ends it).  A run that ended early keeps its partial result.  The read
 * is the last run's "pps N packets N ns N" and a line of what it used.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/inet.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/proc_fs.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/seq_file_net.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#define PGF_MAGIC	0xbe9be955	/* pktgen's header: magic, seq, tv_sec, tv_usec */
#define PGF_HDR_LEN	16
#define PGF_MAX_BURST	256
#define PGF_MAX_USECS	(3600ULL * USEC_PER_SEC)
#define PGF_UDP_PORT	9

struct pgf_args {
	char ifname[IFNAMSIZ];
	u32 size;		/* the frame without FCS (pkt_size) */
	u64 usecs;
	u32 burst;
	u8 dst_mac[ETH_ALEN];
	__be32 daddr;
};

struct pgf_stats {
	u64 packets;		/* NETDEV_TX_OK */
	u64 errors;		/* consumed, not NETDEV_TX_OK */
	u64 busy;		/* bursts cut short: queue stopped, NETDEV_TX_BUSY */
	u64 ns;
};

struct pgf_net {
	struct mutex lock;	/* result */
	char result[192];
};

static unsigned int pgf_net_id __read_mostly;
static DEFINE_MUTEX(pgf_run_lock);	/* one run at a time, machine-wide */
static bool pgf_stopping;		/* module exit: runs end at their next burst */

/* ---------------------------------------------------------------- parsing */

/* "S[.FFFFFF]" seconds into microseconds, at most PGF_MAX_USECS, not 0 */
static int pgf_parse_secs(const char *s, u64 *usecs)
{
	u64 us = 0, scale = USEC_PER_SEC;
	bool digits = false;

	for (; *s >= '0' && *s <= '9'; s++, digits = true) {
		us = us * 10 + (*s - '0');
		if (us > PGF_MAX_USECS / USEC_PER_SEC)
			return -EINVAL;
	}
	us *= USEC_PER_SEC;
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, digits = true) {
			scale /= 10;
			if (!scale)
				return -EINVAL;
			us += (*s - '0') * scale;
		}
	}
	if (*s || !digits || !us || us > PGF_MAX_USECS)
		return -EINVAL;
	*usecs = us;
	return 0;
}

static int pgf_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/*
 * "xx:xx:xx:xx:xx:xx"; not mac_pton() or hex_to_bin(): 7.x's kernel.h no
 * longer includes linux/hex.h, which older kernels do not have
 */
static int pgf_parse_mac(const char *s, u8 *mac)
{
	unsigned int i;
	int hi, lo;

	if (strlen(s) != 3 * ETH_ALEN - 1)
		return -EINVAL;
	for (i = 0; i < ETH_ALEN; i++, s += 3) {
		hi = pgf_hex(s[0]);
		lo = pgf_hex(s[1]);
		if (hi < 0 || lo < 0 || (i + 1 < ETH_ALEN && s[2] != ':'))
			return -EINVAL;
		mac[i] = hi << 4 | lo;
	}
	return 0;
}

static char *pgf_token(char **line)
{
	char *t;

	do {
		t = strsep(line, " \t\n");
	} while (t && !*t);
	return t;
}

static int pgf_parse(char *line, struct pgf_args *a)
{
	char *t, *v;
	int err;

	memset(a, 0, sizeof(*a));
	a->burst = 32;
	a->dst_mac[0] = 0x02;
	a->dst_mac[5] = 0x01;
	a->daddr = htonl(0xc6120001);	/* 198.18.0.1 */

	t = pgf_token(&line);
	if (!t || strscpy(a->ifname, t, sizeof(a->ifname)) < 0)
		return -EINVAL;
	t = pgf_token(&line);
	if (!t || kstrtou32(t, 10, &a->size))
		return -EINVAL;
	t = pgf_token(&line);
	if (!t)
		return -EINVAL;
	err = pgf_parse_secs(t, &a->usecs);
	if (err)
		return err;
	while ((t = pgf_token(&line))) {
		v = pgf_token(&line);
		if (!v)
			return -EINVAL;
		if (!strcmp(t, "burst")) {
			if (kstrtou32(v, 10, &a->burst) || !a->burst ||
			    a->burst > PGF_MAX_BURST)
				return -EINVAL;
		} else if (!strcmp(t, "dst_mac")) {
			err = pgf_parse_mac(v, a->dst_mac);
			if (err)
				return err;
		} else if (!strcmp(t, "dst")) {
			if (!in4_pton(v, -1, (u8 *)&a->daddr, '\0', NULL))
				return -EINVAL;
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- the frame */

/* the device's first IPv4 address, as pktgen takes its source; or 0 */
static __be32 pgf_first_ipv4(struct net_device *dev)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	__be32 addr = 0;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(dev);
	if (in_dev) {
		ifa = rcu_dereference(in_dev->ifa_list);
		if (ifa)
			addr = ifa->ifa_local;
	}
	rcu_read_unlock();
	return addr;
}

static struct sk_buff *pgf_build(struct net_device *dev, const struct pgf_args *a,
				 bool fclone)
{
	unsigned int headroom = NET_SKB_PAD + LL_RESERVED_SPACE(dev);
	u32 datalen = a->size - ETH_HLEN - sizeof(struct iphdr) - sizeof(struct udphdr);
	struct sk_buff *skb;
	struct ethhdr *eth;
	struct udphdr *uh;
	struct iphdr *iph;
	__be32 magic = htonl(PGF_MAGIC);
	u8 *data;

	skb = __alloc_skb(headroom + a->size + dev->needed_tailroom, GFP_KERNEL,
			  fclone ? SKB_ALLOC_FCLONE : 0, NUMA_NO_NODE);
	if (!skb)
		return NULL;
	skb_reserve(skb, headroom);

	skb_reset_mac_header(skb);
	eth = skb_put(skb, ETH_HLEN);
	ether_addr_copy(eth->h_dest, a->dst_mac);
	ether_addr_copy(eth->h_source, dev->dev_addr);
	eth->h_proto = htons(ETH_P_IP);

	skb_set_network_header(skb, skb->len);
	iph = skb_put_zero(skb, sizeof(*iph));
	iph->version = 4;
	iph->ihl = 5;
	iph->ttl = 32;
	iph->protocol = IPPROTO_UDP;
	iph->tot_len = htons(a->size - ETH_HLEN);
	iph->saddr = pgf_first_ipv4(dev);
	iph->daddr = a->daddr;
	iph->check = ip_fast_csum(iph, iph->ihl);

	skb_set_transport_header(skb, skb->len);
	uh = skb_put_zero(skb, sizeof(*uh));
	uh->source = htons(PGF_UDP_PORT);
	uh->dest = htons(PGF_UDP_PORT);
	uh->len = htons(datalen + sizeof(*uh));

	data = skb_put_zero(skb, datalen);
	memcpy(data, &magic, sizeof(magic));	/* seq 0, no stamp */

	skb->protocol = htons(ETH_P_IP);
	skb->dev = dev;
	skb->ip_summed = CHECKSUM_NONE;
	skb_set_queue_mapping(skb, 0);
	return skb;
}

/* ---------------------------------------------------------------- the loop */

/*
 * Send @skb's frame on @dev's queue 0 until @a->usecs have passed, a
 * signal comes, the module goes or the device goes down.  @copies: room
 * for a burst of clones, or NULL to send @skb itself (IFF_TX_SKB_SHARING).
 */
static int pgf_loop(struct net_device *dev, struct sk_buff *skb, struct sk_buff **copies,
		    const struct pgf_args *a, struct pgf_stats *st)
{
	struct netdev_queue *txq = netdev_get_tx_queue(dev, 0);
	u64 t0 = ktime_get_ns(), end = t0 + a->usecs * NSEC_PER_USEC;
	unsigned int n, i;
	int err = 0;

	for (;;) {
		if (signal_pending(current)) {
			err = -EINTR;
			break;
		}
		if (READ_ONCE(pgf_stopping)) {	/* not EINTR, which is retried */
			err = -ECANCELED;
			break;
		}
		if (ktime_get_ns() >= end)
			break;
		/* this burst's skbs, before the lock */
		if (copies) {
			for (n = 0; n < a->burst; n++) {
				copies[n] = skb_clone(skb, GFP_KERNEL);
				if (!copies[n])
					break;
			}
			if (!n) {
				err = -ENOMEM;
				break;
			}
		} else {
			n = a->burst;
			refcount_add(n, &skb->users);
		}

		local_bh_disable();
		/*
		 * Inside the BH-off section: dev_close() clears the running
		 * bit and waits (synchronize_net) before ndo_stop.
		 */
		if (unlikely(!netif_running(dev) || !netif_carrier_ok(dev))) {
			local_bh_enable();
			i = 0;
			err = -ENETDOWN;
		} else {
			HARD_TX_LOCK(dev, txq, smp_processor_id());
			for (i = 0; i < n; i++) {
				netdev_tx_t ret;

				if (netif_xmit_frozen_or_drv_stopped(txq))
					break;
				ret = netdev_start_xmit(copies ? copies[i] : skb, dev, txq,
							i + 1 < n);
				if (likely(ret == NETDEV_TX_OK)) {
					st->packets++;
				} else if (dev_xmit_complete(ret)) {
					st->errors++;
				} else {	/* NETDEV_TX_BUSY: still ours */
					break;
				}
			}
			HARD_TX_UNLOCK(dev, txq);
			local_bh_enable();
		}

		/* what the driver did not take */
		if (i < n) {
			if (copies) {
				while (i < n)
					kfree_skb(copies[i++]);
			} else {
				WARN_ON_ONCE(refcount_sub_and_test(n - i, &skb->users));
			}
			if (!err)
				st->busy++;
		}
		if (err)
			break;
		cond_resched();
	}
	st->ns = ktime_get_ns() - t0;
	return err;
}

/* ---------------------------------------------------------------- /proc */

static int pgf_run(struct net *net, const struct pgf_args *a, struct pgf_stats *st,
		   bool *shared)
{
	struct sk_buff **copies = NULL;
	struct net_device *dev;
	struct sk_buff *skb;
	int err;

	dev = dev_get_by_name(net, a->ifname);
	if (!dev)
		return -ENODEV;
	err = -EOPNOTSUPP;
	if (dev->type != ARPHRD_ETHER || dev->addr_len != ETH_ALEN)
		goto out;
	err = -ENETDOWN;
	if (!netif_running(dev))
		goto out;
	err = -EINVAL;
	if (a->size < ETH_ZLEN)
		goto out;
	err = -EMSGSIZE;
	if (a->size > dev->mtu + ETH_HLEN)
		goto out;

	*shared = dev->priv_flags & IFF_TX_SKB_SHARING;
	err = -ENOMEM;
	if (!*shared) {
		copies = kmalloc_array(a->burst, sizeof(*copies), GFP_KERNEL);
		if (!copies)
			goto out;
	}
	skb = pgf_build(dev, a, !*shared);
	if (!skb)
		goto out;
	err = pgf_loop(dev, skb, copies, a, st);
	/* in flight copies hold their own references: ours goes */
	consume_skb(skb);
out:
	kfree(copies);
	dev_put(dev);
	return err;
}

static int pgf_write(struct file *file, char *buf, size_t size)
{
	struct net *net = seq_file_single_net(file->private_data);
	struct pgf_net *pn = net_generic(net, pgf_net_id);
	struct pgf_stats st = {};
	struct pgf_args a;
	bool shared = false;
	u64 pps;
	int err;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	err = pgf_parse(buf, &a);
	if (err)
		return err;
	if (!mutex_trylock(&pgf_run_lock))
		return -EBUSY;
	err = pgf_run(net, &a, &st, &shared);
	mutex_unlock(&pgf_run_lock);
	if (err && !st.ns)
		return err;

	pps = st.ns ? mul_u64_u64_div_u64(st.packets, NSEC_PER_SEC, st.ns) : 0;
	mutex_lock(&pn->lock);
	snprintf(pn->result, sizeof(pn->result),
		 "pps %llu packets %llu ns %llu\n"
		 "dev %s size %u burst %u send %s errors %llu busy %llu%s\n",
		 pps, st.packets, st.ns, a.ifname, a.size, a.burst,
		 shared ? "shared" : "clone", st.errors, st.busy,
		 err == -EINTR || err == -ECANCELED ? " interrupted" : err ? " ended early" : "");
	mutex_unlock(&pn->lock);
	return err;
}

static int pgf_show(struct seq_file *seq, void *v)
{
	struct pgf_net *pn = net_generic(seq_file_single_net(seq), pgf_net_id);

	mutex_lock(&pn->lock);
	seq_puts(seq, pn->result[0] ? pn->result : "none\n");
	mutex_unlock(&pn->lock);
	return 0;
}

static int __net_init pgf_net_init(struct net *net)
{
	struct pgf_net *pn = net_generic(net, pgf_net_id);

	mutex_init(&pn->lock);
	if (!proc_create_net_single_write("pg_floor", 0600, net->proc_net, pgf_show,
					  pgf_write, NULL))
		return -ENOMEM;
	return 0;
}

static void __net_exit pgf_net_exit(struct net *net)
{
	/* waits for a write in progress, which pgf_stopping ends */
	remove_proc_entry("pg_floor", net->proc_net);
}

static struct pernet_operations pgf_net_ops = {
	.init = pgf_net_init,
	.exit = pgf_net_exit,
	.id = &pgf_net_id,
	.size = sizeof(struct pgf_net),
};

static int __init pgf_init(void)
{
	return register_pernet_subsys(&pgf_net_ops);
}

static void __exit pgf_exit(void)
{
	WRITE_ONCE(pgf_stopping, true);
	unregister_pernet_subsys(&pgf_net_ops);
}

module_init(pgf_init);
module_exit(pgf_exit);
MODULE_DESCRIPTION("pktgen bench: the cheapest send on a device (not for production)");
MODULE_LICENSE("GPL");
