// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: building packets.
 *
 * At start the fixed part of the headers goes into a template once; each
 * built skb copies it and patches only what varies (addresses, ports,
 * size, IP id and checksum, sequence number, timestamp).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/timekeeping.h>
#include <linux/udp.h>
#include <net/ip.h>

#include "pktgen.h"

#define PG_L2L3L4_LEN	(ETH_HLEN + sizeof(struct iphdr) + sizeof(struct udphdr))

/* The 16-byte header every pktgen packet carries after UDP. */
struct pktgen_hdr {
	__be32 magic;
	__be32 seq;
	__be32 tv_sec;
	__be32 tv_usec;
};

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

/* Resolve start-time defaults and fill the header template. */
void pg_build_prepare(struct pktgen_run *r, const struct net_device *odev)
{
	struct pktgen_config *cfg = &r->cfg;
	struct ethhdr *eth = (struct ethhdr *)r->tmpl;
	struct iphdr *iph = (struct iphdr *)(r->tmpl + ETH_HLEN);
	struct udphdr *udph = (struct udphdr *)(iph + 1);

	if (is_zero_ether_addr(cfg->src_mac))
		ether_addr_copy(r->src_mac, odev->dev_addr);
	else
		ether_addr_copy(r->src_mac, cfg->src_mac);

	if (cfg->src_min_text[0]) {
		r->saddr_min = cfg->saddr_min;
		r->saddr_max = cfg->saddr_max;
	} else {
		r->saddr_min = pg_first_ipv4(odev);
		r->saddr_max = r->saddr_min;
	}

	memset(r->tmpl, 0, sizeof(r->tmpl));
	ether_addr_copy(eth->h_dest, cfg->dst_mac);
	ether_addr_copy(eth->h_source, r->src_mac);
	eth->h_proto = htons(ETH_P_IP);
	iph->version = 4;
	iph->ihl = 5;
	iph->ttl = 32;
	iph->protocol = IPPROTO_UDP;
	udph->check = 0;
}

/* Put cursors back at the start of every range. */
void pg_cursor_reset(struct pktgen_run *r)
{
	struct pktgen_cursor *cur = &r->cur;

	cur->pkt_size = r->cfg.min_pkt_size;
	cur->saddr = r->saddr_min;
	cur->daddr = r->cfg.daddr_min;
	cur->udp_src = r->cfg.udp_src_min;
	cur->udp_dst = r->cfg.udp_dst_min;
	cur->src_mac_offset = 0;
	cur->dst_mac_offset = 0;
}

/*
 * base + offset over bytes 1..5 of a MAC (byte 0 -- the I/G and U/L
 * bits -- is never changed), the carry running towards byte 1.
 */
static void pg_mac_add(u8 *out, const u8 *base, u32 offset)
{
	unsigned int carry = 0;
	int i;

	for (i = ETH_ALEN - 1; i >= 1; i--) {
		unsigned int sum = base[i] + carry;

		if (i >= 2)
			sum += (offset >> (8 * (ETH_ALEN - 1 - i))) & 0xff;
		out[i] = sum;
		carry = sum >> 8;
	}
	out[0] = base[0];
}

/* Next offset of a MAC walk over @count addresses. */
static u32 pg_mac_step(u32 *cursor, u32 count, bool rnd)
{
	u32 offset;

	if (rnd)
		return get_random_u32_below(count);
	offset = (*cursor)++;
	if (*cursor >= count)
		*cursor = 0;
	return offset;
}

/* UDP port ranges: [min, max) -- max is exclusive, as upstream. */
static u16 pg_port_step(u16 cur, u16 min, u16 max, bool rnd)
{
	if (min >= max)
		return cur;
	if (rnd)
		return get_random_u32_inclusive(min, max - 1);
	return cur + 1 >= max ? min : cur + 1;
}

/* IPv4 ranges: random in [min, max), sequential over [min, max]. */
static u32 pg_ip_step(u32 cur, u32 min, u32 max, bool rnd)
{
	if (rnd)
		return get_random_u32_inclusive(min, max - 1);
	return cur + 1 > max || cur + 1 < min ? min : cur + 1;
}

static bool pg_ipv4_unroutable(__be32 addr)
{
	return ipv4_is_loopback(addr) || ipv4_is_multicast(addr) ||
	       ipv4_is_lbcast(addr) || ipv4_is_zeronet(addr) ||
	       ipv4_is_local_multicast(addr);
}

static void pg_vary_daddr(struct pktgen_run *r)
{
	u32 min = ntohl(r->cfg.daddr_min), max = ntohl(r->cfg.daddr_max);
	bool rnd = r->cfg.flags & PG_F(IPDST_RND);
	__be32 addr;
	int tries = 16;

	if (min >= max)
		return;
	/* Random destinations avoid addresses no router would forward. */
	do {
		addr = htonl(pg_ip_step(ntohl(r->cur.daddr), min, max, rnd));
	} while (rnd && pg_ipv4_unroutable(addr) && --tries);
	r->cur.daddr = addr;
}

static void pg_vary_size(struct pktgen_run *r)
{
	u32 min = r->cfg.min_pkt_size, max = r->cfg.max_pkt_size;

	if (min >= max)
		return;
	if (r->cfg.flags & PG_F(TXSIZE_RND))
		r->cur.pkt_size = get_random_u32_inclusive(min, max - 1);
	else
		r->cur.pkt_size = r->cur.pkt_size + 1 > max ? min : r->cur.pkt_size + 1;
}

/* Advance every range once; the order follows upstream's. */
static void pg_vary(struct pktgen_run *r, struct ethhdr *eth)
{
	const struct pktgen_config *cfg = &r->cfg;
	struct pktgen_cursor *cur = &r->cur;
	u32 smin, smax;

	if (cfg->src_mac_count > 1)
		pg_mac_add(eth->h_source, r->src_mac,
			   pg_mac_step(&cur->src_mac_offset, cfg->src_mac_count,
				       cfg->flags & PG_F(MACSRC_RND)));
	if (cfg->dst_mac_count > 1)
		pg_mac_add(eth->h_dest, cfg->dst_mac,
			   pg_mac_step(&cur->dst_mac_offset, cfg->dst_mac_count,
				       cfg->flags & PG_F(MACDST_RND)));

	cur->udp_src = pg_port_step(cur->udp_src, cfg->udp_src_min, cfg->udp_src_max,
				    cfg->flags & PG_F(UDPSRC_RND));
	cur->udp_dst = pg_port_step(cur->udp_dst, cfg->udp_dst_min, cfg->udp_dst_max,
				    cfg->flags & PG_F(UDPDST_RND));

	smin = ntohl(r->saddr_min);
	smax = ntohl(r->saddr_max);
	if (smin < smax)
		cur->saddr = htonl(pg_ip_step(ntohl(cur->saddr), smin, smax,
					      cfg->flags & PG_F(IPSRC_RND)));
	pg_vary_daddr(r);
	pg_vary_size(r);
}

static void pg_fill_pktgen_hdr(struct pktgen_hdr *pgh, const struct pktgen_run *r)
{
	struct timespec64 ts;

	pgh->magic = htonl(PG_MAGIC);
	pgh->seq = htonl(r->seq_num);
	if (r->cfg.flags & PG_F(NO_TIMESTAMP)) {
		pgh->tv_sec = 0;
		pgh->tv_usec = 0;
		return;
	}
	ktime_get_real_ts64(&ts);
	pgh->tv_sec = htonl((u32)ts.tv_sec);
	pgh->tv_usec = htonl(ts.tv_nsec / NSEC_PER_USEC);
}

/*
 * Build the next packet: Ethernet, IPv4, UDP, the pktgen header, zero
 * padding.  The frame is cur.pkt_size long (FCS excluded) unless that is
 * too small to hold the pktgen header.
 */
struct sk_buff *pg_build_skb(struct pktgen_run *r, struct net_device *odev)
{
	unsigned int headroom = LL_RESERVED_SPACE(odev);
	unsigned int datalen, frame_len;
	struct pktgen_hdr *pgh;
	struct sk_buff *skb;
	struct udphdr *udph;
	struct iphdr *iph;
	struct ethhdr *eth;

	pg_vary(r, (struct ethhdr *)r->tmpl);

	datalen = max_t(int, (int)r->cur.pkt_size - (int)PG_L2L3L4_LEN, PG_HDR_LEN);
	frame_len = PG_L2L3L4_LEN + datalen;

	skb = __netdev_alloc_skb(odev, headroom + frame_len, GFP_NOWAIT | __GFP_NOWARN);
	if (!skb)
		return NULL;
	skb_reserve(skb, headroom);
	eth = skb_put(skb, frame_len);
	memcpy(eth, r->tmpl, PG_L2L3L4_LEN);

	iph = (struct iphdr *)(eth + 1);
	iph->tot_len = htons(sizeof(*iph) + sizeof(*udph) + datalen);
	iph->id = htons(r->ip_id++);
	iph->saddr = r->cur.saddr;
	iph->daddr = r->cur.daddr;
	iph->check = ip_fast_csum(iph, iph->ihl);

	udph = (struct udphdr *)(iph + 1);
	udph->source = htons(r->cur.udp_src);
	udph->dest = htons(r->cur.udp_dst);
	udph->len = htons(sizeof(*udph) + datalen);

	pgh = (struct pktgen_hdr *)(udph + 1);
	pg_fill_pktgen_hdr(pgh, r);
	memset(pgh + 1, 0, datalen - sizeof(*pgh));

	skb->protocol = eth->h_proto;
	skb->dev = odev;
	skb->pkt_type = PACKET_HOST;
	skb->ip_summed = CHECKSUM_NONE;
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, ETH_HLEN);
	skb_set_transport_header(skb, ETH_HLEN + sizeof(*iph));
	skb_set_queue_mapping(skb, 0);
	return skb;
}
