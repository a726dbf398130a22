// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: IPsec (flag IPSEC, command spi).
 *
 * Built packets are put through an ESP security association the user
 * installed (ip xfrm state add ... proto esp mode transport): the SA is
 * looked up by spi, or without spi by the flow's addresses, when a run or
 * a flow starts, and each built skb is transformed by the SA's own output
 * function.  There is no route and no policy on this path, so only what
 * works without them is accepted: IPv4, transport mode, no ESN, no TFC
 * padding (it sizes itself from the route), and a cipher that completes
 * synchronously (an asynchronous one would hand the skb to the stack's
 * resume path, which needs a route).  Sequence numbers are taken from
 * the SA as the stack's output path does.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/aead.h>
#include <linux/ip.h>
#include <linux/skbuff.h>
#include <net/ip.h>
#include <net/xfrm.h>

#include "pktgen.h"
#include "pktgen_ipsec.h"

/* Largest link-layer header pktgen builds: Ethernet, two tags, 16 labels. */
#define PG_MAX_L2	(ETH_HLEN + 2 * VLAN_HLEN + PG_MAX_MPLS * 4)

/* Why pktgen cannot use @x, or NULL when it can. */
static const char *pg_ipsec_unusable(const struct xfrm_state *x)
{
	struct crypto_aead *aead = x->data;

	if (x->id.proto != IPPROTO_ESP || x->props.family != AF_INET)
		return "not IPv4 ESP";
	if (x->props.mode != XFRM_MODE_TRANSPORT)
		return "not transport mode";
	if ((x->props.flags & XFRM_STATE_ESN) || x->tfcpad)
		return "ESN and TFC padding are not supported";
	if (x->km.state != XFRM_STATE_VALID || !aead)
		return "not valid";
	if (x->encap)
		return "UDP-encapsulated (NAT-T) SAs need a socket and a route";
	if (crypto_aead_alg(aead)->base.cra_flags & CRYPTO_ALG_ASYNC)
		return "asynchronous cipher (e.g. AES-NI via cryptd); use a synchronous one";
	return NULL;
}

/*
 * The SA for packets to @daddr: by spi when one is set, else the
 * transport-mode ESP SA between the current addresses.  NULL if none
 * fits; the caller owns the reference.
 */
struct xfrm_state *pg_ipsec_lookup(struct pktgen_run *r, struct net *net, __be32 daddr)
{
	xfrm_address_t dst = { .a4 = daddr }, src = { .a4 = r->cur.saddr };
	struct xfrm_state *x;
	const char *why;

	if (r->cfg.spi)
		x = xfrm_state_lookup_byspi(net, htonl(r->cfg.spi), AF_INET);
	else
		x = xfrm_stateonly_find(net, 0, 0, &dst, &src, AF_INET,
					XFRM_MODE_TRANSPORT, IPPROTO_ESP, 0);
	if (!x)
		return NULL;
	why = pg_ipsec_unusable(x);
	if (why) {
		pr_info_ratelimited("IPSEC: cannot use SA spi 0x%x: %s\n", ntohl(x->id.spi), why);
		xfrm_state_put(x);
		x = NULL;
	}
	return x;
}

void pg_ipsec_put(struct xfrm_state *x)
{
	if (x)
		xfrm_state_put(x);
}

/* Bytes the SA puts in front of the payload; counted inside pkt_size. */
unsigned int pg_ipsec_header_len(const struct xfrm_state *x)
{
	return x ? x->props.header_len : 0;
}

/*
 * Encrypt a built IPv4 packet in place.  The link-layer header is saved
 * and put back in front of the new IP header; total length and header
 * checksum are redone.  0 or a negative errno (the skb is still ours).
 */
int pg_ipsec_output(struct xfrm_state *x, struct sk_buff *skb, unsigned int l2_len)
{
	int nhead = x->props.header_len - (int)skb_headroom(skb);
	u8 l2[PG_MAX_L2];
	struct iphdr *iph;
	int err;

	if (WARN_ON_ONCE(l2_len > sizeof(l2)))
		return -EINVAL;
	if (nhead > 0 && pskb_expand_head(skb, nhead, 0, GFP_ATOMIC))
		return -ENOMEM;
	memcpy(l2, skb->data, l2_len);
	__skb_pull(skb, l2_len);
	skb_reset_network_header(skb);

	err = pktgen_xfrm_outer_mode_output(x, skb);
	if (err)
		return err;
	/*
	 * The SA's lock covers its counters only, as on the stack's output
	 * path: ESP's output takes it itself (trailer page, encapsulation).
	 */
	spin_lock_bh(&x->lock);
	if (x->km.state != XFRM_STATE_VALID) {
		spin_unlock_bh(&x->lock);
		return -EINVAL;
	}
	XFRM_SKB_CB(skb)->seq.output.low = ++x->replay.oseq;
	XFRM_SKB_CB(skb)->seq.output.hi = 0;
	x->curlft.bytes += skb->len;
	x->curlft.packets++;
	spin_unlock_bh(&x->lock);
	err = x->type->output(x, skb);
	if (err)
		return err;

	/* the IP header is at skb->data again */
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->tot_len = htons(skb->len);
	ip_send_check(iph);
	memcpy(__skb_push(skb, l2_len), l2, l2_len);
	skb_reset_mac_header(skb);
	return 0;
}
