// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: building packets.
 *
 * At start every header up to UDP goes into a template once; each built
 * skb copies it and patches only what varies (addresses, ports, size,
 * random VLAN ids and labels, IP id and checksum, sequence number,
 * timestamp).  The cursors that say what varies: pktgen_build_vary.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/checksum.h>
#include <net/if_inet6.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>

#include "pktgen.h"
#include "pktgen_build.h"
#include "pktgen_build_vary.h"
#include "pktgen_ipsec.h"

#define PG_VLAN_CFI_SHIFT	12		/* DEI since 802.1Q-2011 */

/* ---- start-time defaults ------------------------------------------------- */

/* First IPv4 address of the device, 0.0.0.0 if it has none. */
static __be32 pg_first_ipv4(const struct net_device *odev)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	__be32 addr = 0;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(odev);
	if (in_dev) {
		ifa = rcu_dereference(in_dev->ifa_list);
		if (ifa)
			addr = ifa->ifa_local;
	}
	rcu_read_unlock();
	return addr;
}

/* First usable link-local address of the device, :: if it has none. */
static void pg_link_local6(const struct net_device *odev, struct in6_addr *out)
{
	struct inet6_ifaddr *ifp;
	struct inet6_dev *idev;

	*out = in6addr_any;
	rcu_read_lock();
	idev = __in6_dev_get(odev);
	if (idev) {
		read_lock_bh(&idev->lock);
		list_for_each_entry(ifp, &idev->addr_list, if_list) {
			if ((ifp->scope & IFA_LINK) && !(ifp->flags & IFA_F_TENTATIVE)) {
				*out = ifp->addr;
				break;
			}
		}
		read_unlock_bh(&idev->lock);
	}
	rcu_read_unlock();
}

/* An IPv6 range: [min, max] when min is set, else the fixed address. */
static void pg_resolve_range6(struct in6_addr *lo, struct in6_addr *hi,
			      const struct in6_addr *min, const struct in6_addr *max,
			      const struct in6_addr *fixed)
{
	if (ipv6_addr_any(min)) {
		*lo = *fixed;
		*hi = *fixed;
		return;
	}
	*lo = *min;
	*hi = ipv6_addr_cmp(max, min) > 0 ? *max : *min;
}

static void pg_resolve_addresses(struct pktgen_run *r, const struct net_device *odev)
{
	const struct pktgen_config *cfg = &r->cfg;
	struct in6_addr local;

	if (cfg->src_min_text[0]) {
		r->saddr_min = cfg->saddr_min;
		r->saddr_max = cfg->saddr_max;
	} else {
		r->saddr_min = pg_first_ipv4(odev);
		r->saddr_max = r->saddr_min;
	}

	pg_resolve_range6(&r->daddr6_min, &r->daddr6_max, &cfg->dst6_min,
			  &cfg->dst6_max, &cfg->dst6);
	if (ipv6_addr_any(&cfg->src6_min) && ipv6_addr_any(&cfg->src6)) {
		pg_link_local6(odev, &local);
		r->saddr6_min = local;
		r->saddr6_max = local;
	} else {
		pg_resolve_range6(&r->saddr6_min, &r->saddr6_max, &cfg->src6_min,
				  &cfg->src6_max, &cfg->src6);
	}
}

/*
 * The queue range must name queues the device has, whatever the count
 * is now (the proc side clamps what Params shows, and says so).
 */
static void pg_resolve_queues(struct pktgen_run *r, const struct net_device *odev)
{
	u16 last = odev->real_num_tx_queues ? odev->real_num_tx_queues - 1 : 0;

	r->queue_map_min = min(r->cfg.queue_map_min, last);
	r->queue_map_max = min(r->cfg.queue_map_max, last);
}

/* ---- the header template -------------------------------------------------- */

/* A VLAN tag: TCI, then the next EtherType (filled in by the caller). */
static u8 *pg_put_tag(u8 *p, __be16 **next_proto, u16 id, u8 prio, u8 cfi)
{
	**next_proto = htons(ETH_P_8021Q);
	put_unaligned_be16(id | cfi << PG_VLAN_CFI_SHIFT | prio << VLAN_PRIO_SHIFT, p);
	*next_proto = (__be16 *)(p + 2);
	return p + VLAN_HLEN;
}

static u8 *pg_put_l2(struct pktgen_run *r, u8 *p, __be16 *proto)
{
	const struct pktgen_config *cfg = &r->cfg;
	u32 i;

	r->svlan_off = 0;
	r->vlan_off = 0;
	r->mpls_off = 0;
	if (cfg->vlan_id != PG_VLAN_OFF) {
		/* QinQ keeps upstream's layout: 0x8100 for both tags */
		if (cfg->svlan_id != PG_VLAN_OFF) {
			r->svlan_off = p - r->tmpl;
			p = pg_put_tag(p, &proto, cfg->svlan_id, cfg->svlan_p, cfg->svlan_cfi);
		}
		r->vlan_off = p - r->tmpl;
		p = pg_put_tag(p, &proto, cfg->vlan_id, cfg->vlan_p, cfg->vlan_cfi);
	}
	if (cfg->nr_mpls) {
		*proto = htons(ETH_P_MPLS_UC);
		r->mpls_off = p - r->tmpl;
		for (i = 0; i < cfg->nr_mpls; i++, p += 4)
			put_unaligned_be32(pg_mpls_entry(cfg->mpls[i], i, cfg->nr_mpls), p);
	} else {
		*proto = htons(cfg->flags & PG_F(IPV6) ? ETH_P_IPV6 : ETH_P_IP);
	}
	return p;
}

static void pg_put_l3(const struct pktgen_config *cfg, u8 *p)
{
	struct ipv6hdr *ip6h = (struct ipv6hdr *)p;
	struct iphdr *iph = (struct iphdr *)p;

	if (cfg->flags & PG_F(IPV6)) {
		ip6_flow_hdr(ip6h, cfg->traffic_class, 0);
		ip6h->nexthdr = IPPROTO_UDP;
		ip6h->hop_limit = 32;
		return;
	}
	iph->version = 4;
	iph->ihl = 5 + cfg->ip_opt_len / 4;
	iph->tos = cfg->tos;
	iph->ttl = 32;
	iph->protocol = IPPROTO_UDP;
	memcpy(iph + 1, cfg->ip_opt, cfg->ip_opt_len);
}

static unsigned int pg_l3_len(const struct pktgen_config *cfg)
{
	if (cfg->flags & PG_F(IPV6))
		return sizeof(struct ipv6hdr);
	return sizeof(struct iphdr) + cfg->ip_opt_len;
}

/* The smallest frame that holds every header and the pktgen header. */
u32 pg_min_frame(const struct pktgen_config *cfg)
{
	u32 len = ETH_HLEN + 4 * cfg->nr_mpls + pg_l3_len(cfg) + sizeof(struct udphdr) +
		  PG_HDR_LEN;

	if (cfg->vlan_id != PG_VLAN_OFF)
		len += VLAN_HLEN;
	if (cfg->vlan_id != PG_VLAN_OFF && cfg->svlan_id != PG_VLAN_OFF)
		len += VLAN_HLEN;
	if (cfg->flags & PG_F(NS_TIMESTAMP))
		len += sizeof(struct pktgen_hdr_ext);
	return len;
}

/* Sizes left at 0 mean the smallest frame; a max below the min is the min. */
void pg_resolve_sizes(struct pktgen_config *cfg)
{
	if (!cfg->min_pkt_size)
		cfg->min_pkt_size = pg_min_frame(cfg);
	if (cfg->min_pkt_size > cfg->max_pkt_size)
		cfg->max_pkt_size = cfg->min_pkt_size;
}

static void pg_build_template(struct pktgen_run *r)
{
	const struct pktgen_config *cfg = &r->cfg;
	struct ethhdr *eth = (struct ethhdr *)r->tmpl;
	u8 *p;

	memset(r->tmpl, 0, sizeof(r->tmpl));
	ether_addr_copy(eth->h_dest, cfg->dst_mac);
	ether_addr_copy(eth->h_source, r->src_mac);
	p = pg_put_l2(r, r->tmpl + ETH_HLEN, &eth->h_proto);
	r->l2_len = p - r->tmpl;
	r->l3_len = pg_l3_len(cfg);
	r->pgh_off = r->l2_len + r->l3_len + sizeof(struct udphdr);
	pg_put_l3(cfg, p);
	/* UDP: ports, length and checksum are written per packet */
}

/* ---- per-run resources ------------------------------------------------------ */

/* Drop the SA references of every flow and of the run. */
static void pg_put_sas(struct pktgen_run *r)
{
	u32 i;

	for (i = 0; i < r->nr_flows; i++) {
		pg_ipsec_put(r->flows[i].xfrm);
		r->flows[i].xfrm = NULL;
	}
	pg_ipsec_put(r->xfrm);
	r->xfrm = NULL;
	r->xfrm_looked_up = false;
}

static void pg_free_flows(struct pktgen_run *r)
{
	kvfree(r->flows);
	r->flows = NULL;
	r->nr_flows = 0;
}

static int pg_alloc_flows(struct pktgen_run *r)
{
	u32 n = r->cfg.flags & PG_F(IPV6) ? 0 : r->cfg.flows;

	pg_put_sas(r);
	if (n != r->nr_flows) {
		pg_free_flows(r);
		if (n) {
			r->flows = kvcalloc(n, sizeof(*r->flows), GFP_KERNEL);
			if (!r->flows)
				return -ENOMEM;
		}
		r->nr_flows = n;
	} else if (n) {
		memset(r->flows, 0, n * sizeof(*r->flows));
	}
	r->cur.flow = 0;
	return 0;
}

static int pg_alloc_frag_page(struct pktgen_run *r)
{
	if (r->cfg.frags <= 0 || r->frag_page)
		return 0;
	r->frag_page = alloc_pages_node(r->node, GFP_KERNEL | __GFP_ZERO, 0);
	return r->frag_page ? 0 : -ENOMEM;
}

/* Undo pg_build_prepare(): the run is over. */
void pg_build_release(struct pktgen_run *r)
{
	pg_put_sas(r);
	pg_free_flows(r);
	if (r->frag_page) {
		put_page(r->frag_page);
		r->frag_page = NULL;
	}
}

/* Resolve start-time defaults, allocate what the run needs, fill the template. */
int pg_build_prepare(struct pktgen_run *r, struct net_device *odev)
{
	struct pktgen_config *cfg = &r->cfg;
	u32 i;

	if (is_zero_ether_addr(cfg->src_mac))
		ether_addr_copy(r->src_mac, odev->dev_addr);
	else
		ether_addr_copy(r->src_mac, cfg->src_mac);
	pg_resolve_sizes(cfg);
	pg_resolve_addresses(r, odev);
	pg_resolve_queues(r, odev);

	r->node = NUMA_NO_NODE;
	if ((cfg->flags & PG_F(NODE)) && cfg->node >= 0 && cfg->node < MAX_NUMNODES &&
	    node_online(cfg->node))
		r->node = cfg->node;

	r->min_data = PG_HDR_LEN;
	if (cfg->flags & PG_F(NS_TIMESTAMP))
		r->min_data += sizeof(struct pktgen_hdr_ext);

	r->imix_weight_sum = 0;
	for (i = 0; i < cfg->nr_imix; i++)
		r->imix_weight_sum += cfg->imix[i].weight;

	/* ESP encrypts the stamp with the payload: it is taken before */
	r->stamp_late = !(cfg->flags & PG_F(NO_TIMESTAMP)) && !pg_ipsec_on(r);

	pg_build_template(r);
	if (pg_alloc_flows(r) || pg_alloc_frag_page(r)) {
		pg_build_release(r);
		return -ENOMEM;
	}
	r->frame_fixed = pg_frame_fixed(r);
	r->frame_intact = false;
	return 0;
}

/* ---- the packet ----------------------------------------------------------------- */

/*
 * The pktgen header as built.  Its stamp is taken here only where it
 * cannot be taken as the packet is handed over (!r->stamp_late); else
 * it stays 0 until pg_stamp_skb(), and a copy never stamped there goes
 * out without one (the receiver takes no sample of it).
 */
static void pg_fill_pktgen_hdr(void *p, const struct pktgen_run *r)
{
	struct pktgen_hdr *pgh = p;
	struct pktgen_hdr_ext *ext;
	struct timespec64 ts = {};

	if (!(r->cfg.flags & PG_F(NO_TIMESTAMP)) && !r->stamp_late)
		ktime_get_real_ts64(&ts);
	pgh->magic = htonl(PG_MAGIC);
	pgh->seq = htonl(r->seq_num);
	pgh->tv_sec = htonl((u32)ts.tv_sec);
	pgh->tv_usec = htonl(ts.tv_nsec / NSEC_PER_USEC);
	if (!(r->cfg.flags & PG_F(NS_TIMESTAMP)))
		return;
	ext = (struct pktgen_hdr_ext *)(pgh + 1);
	ext->magic = htonl(PG_EXT_MAGIC);
	ext->stream = htonl(r->stream);
	ext->tv_nsec = htonl(ts.tv_nsec);
	ext->flags = 0;
}

/* Replace @*field by @val, keeping a software UDP checksum over it true. */
static void pg_stamp_word(__be32 *field, __be32 val, __sum16 *check)
{
	if (check)
		csum_replace4(check, *field, val);
	*field = val;
}

/*
 * The send-time stamp of the frame at @frame (its first byte), with the
 * extension's @flags (PG_EXT_F_*): r->stamp_late runs only.  @sum_done:
 * its UDP checksum (flag UDPCSUM) is complete, and is kept true.  The
 * caller has made sure that nobody else holds the bytes (no reference,
 * no clone, no driver or DMA still reading them): this writes them.
 */
void pg_stamp_frame(const struct pktgen_run *r, void *frame, bool sum_done, u32 flags)
{
	struct udphdr *uh = (struct udphdr *)((u8 *)frame + r->pgh_off - sizeof(*uh));
	struct pktgen_hdr *pgh = (struct pktgen_hdr *)(uh + 1);
	struct pktgen_hdr_ext *ext = (struct pktgen_hdr_ext *)(pgh + 1);
	__sum16 *check = NULL;
	struct timespec64 ts;

	if ((r->cfg.flags & PG_F(UDPCSUM)) && sum_done)
		check = &uh->check;
	ktime_get_real_ts64(&ts);
	pg_stamp_word(&pgh->tv_sec, htonl((u32)ts.tv_sec), check);
	pg_stamp_word(&pgh->tv_usec, htonl(ts.tv_nsec / NSEC_PER_USEC), check);
	if (r->cfg.flags & PG_F(NS_TIMESTAMP)) {
		pg_stamp_word(&ext->tv_nsec, htonl(ts.tv_nsec), check);
		pg_stamp_word(&ext->flags, htonl(flags), check);
	}
	/* UDP sends a computed 0 as all ones: 0 means "no checksum" */
	if (check && !*check)
		*check = CSUM_MANGLED_0;
}

/*
 * The stamp of the copy of @skb handed over now (pg_stamp_frame()):
 * skb->data is at the frame's start, and the pktgen header in the
 * linear part.  A sum the device completes (CHECKSUM_PARTIAL) does not
 * cover the data yet.
 */
void pg_stamp_skb(const struct pktgen_run *r, struct sk_buff *skb, u32 flags)
{
	pg_stamp_frame(r, skb->data, skb->ip_summed != CHECKSUM_PARTIAL, flags);
}

static void pg_fill_l3(const struct pktgen_run *r, u8 *p, unsigned int l4_len)
{
	struct ipv6hdr *ip6h = (struct ipv6hdr *)p;
	struct iphdr *iph = (struct iphdr *)p;

	if (r->cfg.flags & PG_F(IPV6)) {
		ip6h->payload_len = htons(l4_len);
		ip6h->saddr = r->cur.saddr6;
		ip6h->daddr = r->cur.daddr6;
		return;
	}
	iph->tot_len = htons(r->l3_len + l4_len);
	iph->id = htons(r->ip_id);
	iph->saddr = r->cur.saddr;
	iph->daddr = r->cur.daddr;
	iph->check = ip_fast_csum(iph, iph->ihl);
}

/*
 * UDPCSUM: the device finishes the sum when it can (plain Ethernet
 * frames only: offloads rarely look through tags and labels); otherwise
 * it is computed here over the whole datagram, fragments included.
 */
static void pg_udp_csum(struct sk_buff *skb, const struct pktgen_run *r,
			const struct net_device *odev)
{
	bool ipv6 = r->cfg.flags & PG_F(IPV6);
	netdev_features_t hw = NETIF_F_HW_CSUM | (ipv6 ? NETIF_F_IPV6_CSUM : NETIF_F_IP_CSUM);
	struct udphdr *uh = udp_hdr(skb);
	unsigned int len = ntohs(uh->len);
	__wsum sum = 0;
	bool partial = (odev->features & hw) && r->l2_len == ETH_HLEN && !pg_ipsec_on(r);

	if (!partial)
		sum = skb_checksum(skb, skb_transport_offset(skb), len, 0);
	if (ipv6)
		uh->check = csum_ipv6_magic(&r->cur.saddr6, &r->cur.daddr6, len,
					    IPPROTO_UDP, sum);
	else
		uh->check = csum_tcpudp_magic(r->cur.saddr, r->cur.daddr, len,
					      IPPROTO_UDP, sum);
	if (partial) {
		uh->check = ~uh->check;
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_transport_header(skb) - skb->head;
		skb->csum_offset = offsetof(struct udphdr, check);
	} else if (!uh->check) {
		uh->check = CSUM_MANGLED_0;
	}
}

/* How much of @pad goes into page fragments, and in how many. */
static unsigned int pg_frag_bytes(const struct pktgen_run *r, unsigned int pad,
				  unsigned int *nfrags)
{
	unsigned int n;

	*nfrags = 0;
	if (!r->frag_page || !pad)
		return 0;
	n = min_t(unsigned int, min_t(unsigned int, r->cfg.frags, MAX_SKB_FRAGS), pad);
	*nfrags = n;
	return min_t(unsigned int, pad, n * PAGE_SIZE);
}

/* Spread @bytes evenly over @n fragments of the one shared zero page. */
static void pg_add_frags(struct sk_buff *skb, struct page *page, unsigned int n,
			 unsigned int bytes, bool shared_frag)
{
	unsigned int i, size;

	for (i = 0; i < n; i++) {
		size = bytes / n + (i < bytes % n);
		get_page(page);
		skb_fill_page_desc(skb, i, page, 0, size);
	}
	skb->len += bytes;
	skb->data_len += bytes;
	skb->truesize += bytes;
	/*
	 * The page is every packet's padding, in flight many times over:
	 * whoever would write a fragment in place (tc pedit, ESP decrypting
	 * on receive, a checksum over data that could change) must copy it
	 * first, which the flag tells the stack.  A driver's start_xmit
	 * (PG_SEND_SHARE) writes no fragment, and would rather linearize
	 * the skb it shares for a checksum, which BUG()s.
	 */
	if (shared_frag)
		pg_skb_mark_shared_frag(skb);
}

/*
 * An skb whose head, @size bytes, comes from a page fragment, as drivers'
 * receive buffers do; NULL if it does not fit in a page or no memory is
 * free.  Head and sk_buff come from the per-CPU NAPI caches, which BH off
 * makes this thread's own: netdev_alloc_frag() would turn BH off and on
 * again, and build_skb() take every sk_buff from the slab, where
 * pg_reuse_skb() hands back the ones it cannot reuse.
 */
static struct sk_buff *pg_alloc_frag_skb(unsigned int size)
{
	unsigned int truesize = SKB_DATA_ALIGN(size) +
				SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	struct sk_buff *skb;
	void *data;

	if (truesize > PAGE_SIZE)
		return NULL;
	data = napi_alloc_frag(truesize);
	if (!data)
		return NULL;
	skb = napi_build_skb(data, truesize);
	if (!skb) {
		skb_free_frag(data);
		return NULL;
	}
	return skb;
}

/*
 * An skb with @len bytes of room, and @headroom (the device's) before
 * them (skb->dev is the caller's).  Its head comes from page fragments
 * where it fits in a page: a kmalloc()ed head costs far more to allocate
 * and free (bench/README).
 */
static struct sk_buff *pg_alloc_skb(const struct pktgen_run *r, struct net_device *odev,
				    unsigned int headroom, unsigned int len)
{
	/*
	 * One whose copies are clones (PG_SEND_CLONE) comes with its
	 * companion, which skb_clone() takes without an allocation while no
	 * earlier clone holds it: the common case, where the stack frees
	 * each copy before the next is made.
	 */
	int fclone = r->built_for == PG_SEND_CLONE ? SKB_ALLOC_FCLONE : 0;
	gfp_t gfp = GFP_NOWAIT | __GFP_NOWARN;
	struct sk_buff *skb;

	if (r->node == NUMA_NO_NODE && !fclone) {
		skb = pg_alloc_frag_skb(NET_SKB_PAD + headroom + len);
		if (skb)
			skb_reserve(skb, NET_SKB_PAD);
		else	/* over a page; reserves NET_SKB_PAD itself */
			skb = __netdev_alloc_skb(odev, headroom + len, gfp);
	} else {
		skb = __alloc_skb(NET_SKB_PAD + headroom + len, gfp, fclone, r->node);
		if (skb)
			skb_reserve(skb, NET_SKB_PAD);
	}
	if (skb)
		skb_reserve(skb, headroom);
	return skb;
}

/*
 * Whether @skb, the last one built, has come back whole to us alone: no
 * other reference to it or to its head (a tap's clone, a queue), and
 * nothing attached that releasing it would have to drop.  Its head must
 * be a page fragment of ours (pg_alloc_frag_skb()) without fragments.
 */
static bool pg_skb_reusable(struct sk_buff *skb)
{
	const struct skb_shared_info *shinfo = skb_shinfo(skb);

	return refcount_read(&skb->users) == 1 && !skb_cloned(skb) && skb->head_frag &&
	       skb->fclone == SKB_FCLONE_UNAVAILABLE && !skb->destructor &&
	       !skb_dst(skb) && !skb_nfct(skb) && !skb_has_extensions(skb) &&
	       !shinfo->nr_frags && !shinfo->frag_list && !skb_zcopy(skb);
}

/*
 * With clone_skb 0 every slot builds a packet, mostly in place of one
 * that the stack has finished with: where @old is reusable and its head
 * holds NET_SKB_PAD, @headroom and @len bytes, it is made a new skb
 * around the same head, as napi_build_skb() would make one (every field
 * cleared), which saves its release and the allocation of another.
 * Otherwise @old is released and NULL returned.  BH off.
 */
static struct sk_buff *pg_reuse_skb(struct sk_buff *old, unsigned int headroom,
				    unsigned int len)
{
	headroom += NET_SKB_PAD;
	if (!old)
		return NULL;
	if (!pg_skb_reusable(old) || headroom + len > skb_end_offset(old)) {
		napi_consume_skb(old, 1);
		return NULL;
	}
	/* build_skb_around() expects a cleared sk_buff, as napi_build_skb()'s */
	memset(old, 0, offsetof(struct sk_buff, tail));
	/* the size of the head's fragment, as pg_alloc_frag_skb() took it */
	build_skb_around(old, old->head,
			 skb_end_offset(old) + SKB_DATA_ALIGN(sizeof(struct skb_shared_info)));
	skb_reserve(old, headroom);
	return old;
}

/* The whole frame of @linear bytes at @data: headers, pktgen header, padding. */
static void pg_fill_frame(const struct pktgen_run *r, u8 *data, unsigned int hdr_len,
			  unsigned int datalen, unsigned int linear)
{
	struct udphdr *uh = (struct udphdr *)(data + r->l2_len + r->l3_len);

	memcpy(data, r->tmpl, hdr_len);
	pg_fill_l3(r, data + r->l2_len, sizeof(*uh) + datalen);
	uh->source = htons(r->cur.udp_src);
	uh->dest = htons(r->cur.udp_dst);
	uh->len = htons(sizeof(*uh) + datalen);
	pg_fill_pktgen_hdr(uh + 1, r);
	memset(data + hdr_len + r->min_data, 0, linear - hdr_len - r->min_data);
}

/*
 * A frame as built before (r->frame_intact) where nothing else varies
 * (r->frame_fixed): only the IPv4 id and checksum and the pktgen header
 * change.
 */
static void pg_patch_frame(const struct pktgen_run *r, u8 *data)
{
	struct iphdr *iph = (struct iphdr *)(data + r->l2_len);

	if (!(r->cfg.flags & PG_F(IPV6))) {
		iph->id = htons(r->ip_id);
		iph->check = 0;
		iph->check = ip_fast_csum(iph, iph->ihl);
	}
	pg_fill_pktgen_hdr(data + r->l2_len + r->l3_len + sizeof(struct udphdr), r);
}

/*
 * Build the next packet: the template's headers, the pktgen header (and
 * extension), zero padding partly in fragments, then ESP if asked for.
 * The frame is cur.pkt_size long (FCS excluded; an ESP trailer comes on
 * top) unless that is too small to hold the pktgen header.  Returns an
 * ERR_PTR: -ENOMEM (try again later) or -ENOENT (IPSEC without an SA).
 * @old, the skb built before (or NULL), is reused or released
 * (pg_reuse_skb()); where its frame came back intact and nothing varies,
 * only the per-packet fields are written (pg_patch_frame()).  Called with
 * BH off (pg_alloc_frag_skb()).
 */
struct sk_buff *pg_build_skb(struct pktgen_run *r, struct net_device *odev,
			     struct sk_buff *old)
{
	bool patch = r->frame_intact && r->frame_fixed;
	unsigned int hdr_len, datalen, frag_bytes, nfrags, linear, headroom;
	struct xfrm_state *sa;
	struct sk_buff *skb;
	u8 *data;

	lockdep_assert_in_softirq();
	r->frame_intact = false;
	if (r->frame_fixed)
		pg_vary_queue(r, odev);
	else
		pg_vary(r, odev);
	sa = pg_current_sa(r, odev);
	if (pg_ipsec_on(r) && !sa) {
		napi_consume_skb(old, 1);
		return ERR_PTR(-ENOENT);
	}

	hdr_len = r->l2_len + r->l3_len + sizeof(struct udphdr);
	datalen = max_t(int, (int)r->cur.pkt_size - (int)hdr_len -
			(int)pg_ipsec_header_len(sa), r->min_data);
	frag_bytes = pg_frag_bytes(r, datalen - r->min_data, &nfrags);
	linear = hdr_len + datalen - frag_bytes;

	headroom = LL_RESERVED_SPACE(odev);
	skb = pg_reuse_skb(old, headroom, linear);
	patch = patch && skb && headroom == r->frame_headroom;
	if (!skb)
		skb = pg_alloc_skb(r, odev, headroom, linear);
	if (!skb)
		return ERR_PTR(-ENOMEM);
	r->frame_headroom = headroom;
	data = skb_put(skb, linear);
	if (patch)
		pg_patch_frame(r, data);
	else
		pg_fill_frame(r, data, hdr_len, datalen, linear);
	r->ip_id++;
	if (nfrags)
		pg_add_frags(skb, r->frag_page, nfrags, frag_bytes,
			     r->built_for != PG_SEND_SHARE);

	skb->protocol = ((struct ethhdr *)data)->h_proto;
	skb->dev = odev;
	skb->pkt_type = PACKET_HOST;
	skb->priority = r->cfg.skb_priority;
	skb->ip_summed = CHECKSUM_NONE;
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, r->l2_len);
	skb_set_transport_header(skb, r->l2_len + r->l3_len);
	skb_set_queue_mapping(skb, r->cur.queue_map);
	if (r->cfg.flags & PG_F(UDPCSUM))
		pg_udp_csum(skb, r, odev);
	if (sa && pg_ipsec_output(sa, skb, r->l2_len)) {
		kfree_skb(skb);
		return ERR_PTR(-ENOMEM);
	}
	return skb;
}
