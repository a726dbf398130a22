// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the fields that vary per packet.
 *
 * The run's cursors (struct pktgen_cursor) step through every range the
 * config names (MACs, tags and labels in the template, ports, addresses,
 * flows and their SAs, sizes, queues) once per built packet, sequentially
 * or at random; pktgen_build.c writes what they say into the frame.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/in.h>
#include <linux/math64.h>
#include <linux/netdevice.h>
#include <linux/random.h>

#include "pktgen.h"
#include "pktgen_build_vary.h"
#include "pktgen_ipsec.h"

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
	cur->saddr6 = r->saddr6_min;
	cur->daddr6 = r->daddr6_min;
	cur->queue_map = r->queue_map_min;
	cur->flow = 0;
}

/* ---- varying fields ------------------------------------------------------------ */

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

static void pg_step_daddr(struct pktgen_run *r)
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

/*
 * The flow of this packet: with FLOW_SEQ each flow in turn for flowlen
 * packets, else a random one, restarted once it has sent more than flowlen.
 */
static struct pktgen_flow *pg_pick_flow(struct pktgen_run *r)
{
	struct pktgen_flow *f;

	if (!r->nr_flows)
		return NULL;
	if (r->cfg.flags & PG_F(FLOW_SEQ)) {
		f = &r->flows[r->cur.flow];
		if (f->count >= r->cfg.flowlen) {
			f->count = 0;
			f->running = false;
			r->cur.flow = (r->cur.flow + 1) % r->nr_flows;
			f = &r->flows[r->cur.flow];
		}
	} else {
		r->cur.flow = get_random_u32_below(r->nr_flows);
		f = &r->flows[r->cur.flow];
		if (f->count > r->cfg.flowlen) {
			f->count = 0;
			f->running = false;
		}
	}
	return f;
}

/* A flow keeps the destination (and IPsec SA) it started with. */
static void pg_vary_daddr(struct pktgen_run *r, const struct net_device *odev)
{
	struct pktgen_flow *f = pg_pick_flow(r);

	if (f && f->running) {
		r->cur.daddr = f->daddr;
	} else {
		pg_step_daddr(r);
		if (f) {
			f->daddr = r->cur.daddr;
			f->running = true;
			pg_counter_add(&r->flow_starts, 1);
			pg_ipsec_put(f->xfrm);
			f->xfrm = pg_ipsec_on(r) ?
				  pg_ipsec_lookup(r, dev_net(odev), f->daddr) : NULL;
		}
	}
	if (f)
		f->count++;
}

/* The SA of this packet; NULL without IPSEC. */
struct xfrm_state *pg_current_sa(struct pktgen_run *r, const struct net_device *odev)
{
	if (!pg_ipsec_on(r))
		return NULL;
	if (r->nr_flows)
		return r->flows[r->cur.flow].xfrm;
	if (!r->xfrm_looked_up) {
		r->xfrm = pg_ipsec_lookup(r, dev_net(odev), r->cur.daddr);
		r->xfrm_looked_up = true;
	}
	return r->xfrm;
}

/* 128-bit unsigned arithmetic on IPv6 addresses (host order halves). */
struct pg_u128 {
	u64 hi;
	u64 lo;
};

static struct pg_u128 pg_in6_get(const struct in6_addr *a)
{
	return (struct pg_u128){ get_unaligned_be64(&a->s6_addr[0]),
				 get_unaligned_be64(&a->s6_addr[8]) };
}

static void pg_in6_put(struct in6_addr *a, struct pg_u128 v)
{
	put_unaligned_be64(v.hi, &a->s6_addr[0]);
	put_unaligned_be64(v.lo, &a->s6_addr[8]);
}

static bool pg_u128_le(struct pg_u128 a, struct pg_u128 b)
{
	return a.hi < b.hi || (a.hi == b.hi && a.lo <= b.lo);
}

static struct pg_u128 pg_u128_add(struct pg_u128 a, struct pg_u128 b)
{
	struct pg_u128 s = { a.hi + b.hi, a.lo + b.lo };

	s.hi += s.lo < a.lo;
	return s;
}

static struct pg_u128 pg_u128_sub(struct pg_u128 a, struct pg_u128 b)
{
	struct pg_u128 d = { a.hi - b.hi, a.lo - b.lo };

	d.hi -= a.lo < b.lo;
	return d;
}

/* Uniform in [0, span]: masked draws, rejecting those above span. */
static struct pg_u128 pg_u128_random(struct pg_u128 span)
{
	struct pg_u128 mask, v = {};
	int tries = 64;

	mask.hi = span.hi ? GENMASK_ULL(fls64(span.hi) - 1, 0) : 0;
	mask.lo = span.hi ? ~0ULL : (span.lo ? GENMASK_ULL(fls64(span.lo) - 1, 0) : 0);
	/* each draw is accepted with probability > 1/2 */
	while (tries--) {
		v.hi = get_random_u64() & mask.hi;
		v.lo = get_random_u64() & mask.lo;
		if (pg_u128_le(v, span))
			return v;
	}
	return (struct pg_u128){};
}

/* Sequential (wrapping after max) or random over [min, max], inclusive. */
static void pg_step6(struct in6_addr *cur, const struct in6_addr *min,
		     const struct in6_addr *max, bool rnd)
{
	struct pg_u128 lo = pg_in6_get(min), hi = pg_in6_get(max);
	struct pg_u128 v = pg_in6_get(cur), one = { 0, 1 };

	if (pg_u128_le(hi, lo))
		return;
	if (rnd) {
		v = pg_u128_add(lo, pg_u128_random(pg_u128_sub(hi, lo)));
	} else {
		v = pg_u128_add(v, one);
		if (!pg_u128_le(v, hi) || !pg_u128_le(lo, v))
			v = lo;
	}
	pg_in6_put(cur, v);
}

static void pg_vary_size(struct pktgen_run *r)
{
	u32 min = r->cfg.min_pkt_size, max = r->cfg.max_pkt_size;
	u64 x;
	u32 i;

	if (min < max) {
		if (r->cfg.flags & PG_F(TXSIZE_RND))
			r->cur.pkt_size = get_random_u32_inclusive(min, max - 1);
		else
			r->cur.pkt_size = r->cur.pkt_size + 1 > max ? min : r->cur.pkt_size + 1;
		return;
	}
	if (!r->cfg.nr_imix)
		return;
	/* each entry with probability weight / sum, exactly */
	x = mul_u64_u64_shr(get_random_u64(), r->imix_weight_sum, 64);
	for (i = 0; i + 1 < r->cfg.nr_imix && x >= r->cfg.imix[i].weight; i++)
		x -= r->cfg.imix[i].weight;
	r->cur.pkt_size = r->cfg.imix[i].size;
	pg_counter_add(&r->imix_counts[i], 1);
}

static void pg_vary_tags(struct pktgen_run *r)
{
	const struct pktgen_config *cfg = &r->cfg;
	u8 *tci;
	u32 i;

	if (r->vlan_off && (cfg->flags & PG_F(VID_RND))) {
		tci = r->tmpl + r->vlan_off;
		put_unaligned_be16((get_unaligned_be16(tci) & ~VLAN_VID_MASK) |
				   get_random_u32_below(VLAN_N_VID), tci);
	}
	if (r->svlan_off && (cfg->flags & PG_F(SVID_RND))) {
		tci = r->tmpl + r->svlan_off;
		put_unaligned_be16((get_unaligned_be16(tci) & ~VLAN_VID_MASK) |
				   get_random_u32_below(VLAN_N_VID), tci);
	}
	if (!r->mpls_off || !(cfg->flags & PG_F(MPLS_RND)))
		return;
	/* labels written with the S bit are the random ones */
	for (i = 0; i < cfg->nr_mpls; i++) {
		u32 word = cfg->mpls[i];

		if (!(word & PG_MPLS_S))
			continue;
		word = (word & (BIT(PG_MPLS_LABEL_SHIFT) - 1)) |
		       get_random_u32() << PG_MPLS_LABEL_SHIFT;
		put_unaligned_be32(pg_mpls_entry(word, i, cfg->nr_mpls),
				   r->tmpl + r->mpls_off + 4 * i);
	}
}

void pg_vary_queue(struct pktgen_run *r, const struct net_device *odev)
{
	unsigned int nq = odev->real_num_tx_queues ?: 1;
	u16 q = r->cur.queue_map;

	if (r->cfg.flags & PG_F(QUEUE_MAP_CPU))
		q = raw_smp_processor_id();
	else if (r->cfg.flags & PG_F(QUEUE_MAP_RND))
		q = get_random_u32_inclusive(r->queue_map_min, r->queue_map_max);
	else if (r->queue_map_min < r->queue_map_max)
		q = q + 1 > r->queue_map_max || q < r->queue_map_min ? r->queue_map_min : q + 1;
	r->cur.queue_map = q % nq;
}

/* Advance every range once; the order follows upstream's. */
void pg_vary(struct pktgen_run *r, const struct net_device *odev)
{
	const struct pktgen_config *cfg = &r->cfg;
	struct pktgen_cursor *cur = &r->cur;
	struct ethhdr *eth = (struct ethhdr *)r->tmpl;
	u32 smin, smax;

	if (cfg->src_mac_count > 1)
		pg_mac_add(eth->h_source, r->src_mac,
			   pg_mac_step(&cur->src_mac_offset, cfg->src_mac_count,
				       cfg->flags & PG_F(MACSRC_RND)));
	if (cfg->dst_mac_count > 1)
		pg_mac_add(eth->h_dest, cfg->dst_mac,
			   pg_mac_step(&cur->dst_mac_offset, cfg->dst_mac_count,
				       cfg->flags & PG_F(MACDST_RND)));
	pg_vary_tags(r);

	cur->udp_src = pg_port_step(cur->udp_src, cfg->udp_src_min, cfg->udp_src_max,
				    cfg->flags & PG_F(UDPSRC_RND));
	cur->udp_dst = pg_port_step(cur->udp_dst, cfg->udp_dst_min, cfg->udp_dst_max,
				    cfg->flags & PG_F(UDPDST_RND));

	if (cfg->flags & PG_F(IPV6)) {
		pg_step6(&cur->saddr6, &r->saddr6_min, &r->saddr6_max,
			 cfg->flags & PG_F(IPSRC_RND));
		pg_step6(&cur->daddr6, &r->daddr6_min, &r->daddr6_max,
			 cfg->flags & PG_F(IPDST_RND));
	} else {
		smin = ntohl(r->saddr_min);
		smax = ntohl(r->saddr_max);
		if (smin < smax)
			cur->saddr = htonl(pg_ip_step(ntohl(cur->saddr), smin, smax,
						      cfg->flags & PG_F(IPSRC_RND)));
		pg_vary_daddr(r, odev);
	}
	pg_vary_size(r);
	pg_vary_queue(r, odev);
}

/*
 * Whether pg_vary() leaves every byte of the frame as it was (it may still
 * change the queue, which is not in the frame): then the next frame
 * differs from the one before only in the fields pg_patch_frame() writes.
 * Each test here is one of pg_vary()'s.
 */
bool pg_frame_fixed(const struct pktgen_run *r)
{
	const struct pktgen_config *cfg = &r->cfg;

	if (cfg->src_mac_count > 1 || cfg->dst_mac_count > 1 ||
	    (r->vlan_off && (cfg->flags & PG_F(VID_RND))) ||
	    (r->svlan_off && (cfg->flags & PG_F(SVID_RND))) ||
	    (r->mpls_off && (cfg->flags & PG_F(MPLS_RND))))
		return false;
	if (cfg->udp_src_min < cfg->udp_src_max || cfg->udp_dst_min < cfg->udp_dst_max)
		return false;
	if (cfg->flags & PG_F(IPV6)) {
		if (!pg_u128_le(pg_in6_get(&r->saddr6_max), pg_in6_get(&r->saddr6_min)) ||
		    !pg_u128_le(pg_in6_get(&r->daddr6_max), pg_in6_get(&r->daddr6_min)))
			return false;
	} else if (ntohl(r->saddr_min) < ntohl(r->saddr_max) ||
		   ntohl(cfg->daddr_min) < ntohl(cfg->daddr_max) || r->nr_flows) {
		return false;
	}
	if (cfg->min_pkt_size < cfg->max_pkt_size || cfg->nr_imix)
		return false;
	/* and what pg_vary() leaves alone but changes the frame */
	return !pg_ipsec_on(r) && !r->frag_page && !(cfg->flags & PG_F(UDPCSUM));
}
