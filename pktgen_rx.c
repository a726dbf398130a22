// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the receiver's hook (see Documentation/receiver.rst).
 *
 * A netdev ingress netfilter hook on each enabled device recognises pktgen
 * packets (Ethernet, up to two VLAN tags, IPv4 or IPv6, UDP, the magic),
 * counts them per stream (pktgen_rx_streams.c) and consumes them;
 * everything else passes.  The commands of /proc/net/pktgen/pgrx
 * (pktgen_rx_proc.c) put it on devices and take it off, and swap the
 * table of streams it counts into.  Ownership and locking: pktgen_rx.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/ip.h>

#include "pktgen.h"
#include "pktgen_rx.h"
#include "pktgen_rx_streams.h"

/* The receiver reads struct pktgen_hdr and struct pktgen_hdr_ext. */
#define PG_RX_EXT_MAGIC		PG_EXT_MAGIC

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
	__be32 ext_flags;	/* PG_EXT_F_* */
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
		p->stamp_sent = h->ext_flags & htonl(PG_EXT_F_SENT);
		p->stamp_copies = h->ext_flags & htonl(PG_EXT_F_COPIES);
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
	p->stamp_sent = false;
	p->stamp_copies = false;
	p->hw = false;
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

/*
 * "clock hardware": the device's receive stamp as the arrival time, if
 * the packet has one.  It is on the device's clock (a PHC), which must
 * keep the sender's CLOCK_REALTIME scale less the offset (a PHC on TAI:
 * offset -37 s); the sum wraps rather than overflows, and a wild result
 * is a malformed stamp, as a wild sender stamp is.
 */
static void pg_rx_hw_arrival(struct pg_rx_net *rxn, struct sk_buff *skb, struct pg_rx_pkt *p)
{
	ktime_t hw = pg_skb_rx_hwtstamp(skb);

	if (!hw)
		return;
	p->hw = true;
	p->hw_ns = (s64)((u64)ktime_to_ns(hw) + (u64)READ_ONCE(rxn->hw_offset_ns));
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
	if (READ_ONCE(rxn->hw_clock))
		pg_rx_hw_arrival(rxn, skb, &p);
	/* hooks run under rcu_read_lock() */
	t = rcu_dereference(rxn->table);
	if (unlikely(!t))
		return NF_ACCEPT;

	s = pg_rx_lookup(t, &p.key, &slot);
	/* no free slot within the probe limit: it can never be had */
	if (unlikely(!s) && slot >= 0)
		s = pg_rx_create(t, &p.key, p.key.has_id, READ_ONCE(rxn->copies),
				 &rxn->stats_mode);
	if (likely(s))
		pg_rx_count(s, &p, READ_ONCE(rxn->stats_mode));
	else
		pg_rx_count_overflow(t);

	/* a sink consumes what it measured: not a drop */
	consume_skb(skb);
	return NF_STOLEN;
}

/* ---- the table the hook counts into --------------------------------------------- */

/* Swap in @t (may be NULL); the old table is freed once no hook uses it. */
void pg_rx_table_replace(struct pg_rx_net *rxn, struct pg_rx_table *t)
{
	struct pg_rx_table *old = pg_rx_table(rxn);

	rcu_assign_pointer(rxn->table, t);
	if (old) {
		synchronize_net();
		pg_rx_table_free(old);
	}
}

/* ---- devices ------------------------------------------------------------------ */

struct pg_rx_dev *pg_rx_find_dev(struct pg_rx_net *rxn, const struct net_device *dev)
{
	struct pg_rx_dev *rxd;

	list_for_each_entry(rxd, &rxn->devs, list)
		if (rxd->dev == dev)
			return rxd;
	return NULL;
}

/* RTNL and rxn->lock held. */
void pg_rx_dev_remove(struct pg_rx_net *rxn, struct pg_rx_dev *rxd)
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

int pg_rx_dev_add(struct pg_rx_net *rxn, struct net_device *dev)
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
