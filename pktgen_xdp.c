// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: xmit_mode xdp.  Each packet is built as in the other modes
 * (pktgen_build.c: into the run's skb, which never leaves pktgen), its
 * bytes are copied into a page of the run's own ring and handed to the
 * device's ndo_xdp_xmit() as an xdp_frame, up to PG_XDP_BULK at a time.
 *
 * The frames' memory model is MEM_TYPE_PAGE_ORDER0: whoever ends up
 * with a frame (the driver at completion, veth's peer when it makes an
 * skb of it, any error path) frees it with xdp_return_frame(), that is
 * put_page(), and nothing registered with the core is looked up, so no
 * frame depends on this module or on a run still existing.  The ring
 * keeps one reference to each of its pages; a page is written again
 * only when that reference is the last (every holder let go of it),
 * else a fresh page takes its place in the ring.  A frame handed to the
 * driver is never written by pktgen again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/if_vlan.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/xdp.h>

#include "pktgen.h"
#include "pktgen_build.h"
#include "pktgen_xdp.h"

/* Frames per ndo_xdp_xmit() call; a larger burst is several calls. */
#define PG_XDP_BULK		64
/*
 * A run whose device took none of this many frames in a row, for as
 * long, ends (pg_xdp_stuck()): it would never reach its count.
 */
#define PG_XDP_STUCK_FRAMES	PG_XDP_BULK
#define PG_XDP_STUCK_NS		NSEC_PER_SEC
/* Pages in a run's ring: frames in flight before it allocates. */
#define PG_XDP_RING		512
/*
 * The largest frame: a page less the headroom XDP programs are
 * promised (the xdp_frame lives at its start) and the tailroom a
 * receiver needs to make an skb of it (skb_shared_info).
 */
#define PG_XDP_MAX_FRAME	(PAGE_SIZE - XDP_PACKET_HEADROOM - \
				 SKB_DATA_ALIGN(sizeof(struct skb_shared_info)))

struct pg_xdp {
	/* never registered: xdp_convert_buff_to_frame() reads its mem.type */
	struct xdp_rxq_info rxq;
	unsigned int next;
	struct page *ring[PG_XDP_RING];
	struct xdp_frame *frames[PG_XDP_BULK];
	u32 lens[PG_XDP_BULK];
	/* frames refused in a row (by the driver, over the MTU), since when */
	u64 refused;
	ktime_t refused_since;
};

/* Why @odev cannot take xmit_mode xdp, or NULL. */
const char *pg_xdp_refusal(const struct net_device *odev)
{
#ifndef HAVE_XDP_FRAME_FLAGS
	/* probes/xdp_frame_flags.c: why the frame's flags stand for more */
	return "xmit_mode xdp needs a kernel with v5.18's xdp_frame.flags";
#endif
	if (!odev->netdev_ops->ndo_xdp_xmit)
		return "xmit_mode xdp needs a device with ndo_xdp_xmit (XDP transmit)";
	return NULL;
}

/*
 * Whether @odev takes frames now, as devmap checks before it calls
 * ndo_xdp_xmit(): its xdp_features (pg_xdp_xmit_on()), its being up.
 * 0, or the errno with the reason in @why (@len bytes).  Not at the
 * xmit_mode write: a program may be attached, a device set up, after it.
 */
int pg_xdp_dev_check(const struct net_device *odev, char *why, size_t len)
{
	if (!pg_xdp_xmit_on(odev)) {
		snprintf(why, len,
			 "xmit_mode xdp: %s takes no XDP frames now (xdp_features without NDO_XMIT; veth: no XDP program or GRO on its peer) (%d)",
			 odev->name, -EOPNOTSUPP);
		return -EOPNOTSUPP;
	}
	if (!(odev->flags & IFF_UP)) {
		snprintf(why, len, "xmit_mode xdp: %s is down (%d)", odev->name, -ENETDOWN);
		return -ENETDOWN;
	}
	return 0;
}

/* The largest frame xdp_ok_fwd_dev() lets through to @odev. */
static unsigned int pg_xdp_dev_max(const struct net_device *odev)
{
	return READ_ONCE(odev->mtu) + odev->hard_header_len + VLAN_HLEN;
}

/*
 * Whether the settings @cfg (sizes resolved) can be sent as xdp frames
 * to @odev: 0, or the errno (-EOPNOTSUPP, -EMSGSIZE, -ENETDOWN) with the
 * reason in @why (@len bytes).  frags and flag IPSEC are refused as they
 * are written (pktgen_rules.c); checked here again as the run takes the
 * settings.
 */
int pg_xdp_config_check(const struct pktgen_config *cfg, const struct net_device *odev,
			char *why, size_t len)
{
	u32 i, largest = cfg->max_pkt_size;

	if (cfg->frags) {
		strscpy(why, "xmit_mode xdp sends linear frames: needs frags 0", len);
		return -EOPNOTSUPP;
	}
	if (cfg->flags & PG_F(IPSEC)) {
		strscpy(why, "xmit_mode xdp does not do flag IPSEC", len);
		return -EOPNOTSUPP;
	}
	/* with imix and no size range, imix alone sets the sizes (pg_vary_size()) */
	if (cfg->nr_imix && cfg->min_pkt_size == cfg->max_pkt_size) {
		largest = 0;
		for (i = 0; i < cfg->nr_imix; i++)
			largest = max(largest, cfg->imix[i].size);
	}
	largest = max(largest, pg_min_frame(cfg));
	if (largest > PG_XDP_MAX_FRAME) {
		snprintf(why, len, "xmit_mode xdp: pkt_size and imix sizes at most %lu (a page)",
			 (unsigned long)PG_XDP_MAX_FRAME);
		return -EOPNOTSUPP;
	}
	/* as xdp_ok_fwd_dev(): drivers never see a frame over it on this path */
	if (largest > pg_xdp_dev_max(odev)) {
		snprintf(why, len,
			 "xmit_mode xdp: %u-byte frames over what %s takes, %u (MTU %u + header) (%d)",
			 largest, odev->name, pg_xdp_dev_max(odev), READ_ONCE(odev->mtu),
			 -EMSGSIZE);
		return -EMSGSIZE;
	}
	return pg_xdp_dev_check(odev, why, len);
}

#ifdef HAVE_XDP_FRAME_FLAGS

/* The run's ring and frame array; GFP_KERNEL, at start. */
int pg_xdp_prepare(struct pktgen_run *r)
{
	struct pg_xdp *x;

	if (r->xdp)
		return 0;
	x = kvzalloc_node(sizeof(*x), GFP_KERNEL, r->node);
	if (!x)
		return -ENOMEM;
	x->rxq.mem.type = MEM_TYPE_PAGE_ORDER0;
	r->xdp = x;
	return 0;
}

/* The run is over: the ring lets go of its pages, frames in flight keep theirs. */
void pg_xdp_release(struct pktgen_run *r)
{
	struct pg_xdp *x = r->xdp;
	unsigned int i;

	if (!x)
		return;
	for (i = 0; i < PG_XDP_RING; i++)
		if (x->ring[i])
			put_page(x->ring[i]);
	kvfree(x);
	r->xdp = NULL;
}

/*
 * The next page of the ring to write a frame into, with a reference
 * for the frame: the ring's page where nobody else holds it any more,
 * else a new one in its place.  NULL when no memory is free.
 */
static struct page *pg_xdp_page(struct pg_xdp *x, int node)
{
	struct page **slot = &x->ring[x->next];
	struct page *page = *slot;

	if (page && page_ref_count(page) == 1) {
		/* the last holder's put_page() came after its last read */
		smp_acquire__after_ctrl_dep();
	} else {
		if (page)
			put_page(page);
		page = alloc_pages_node(node, GFP_NOWAIT | __GFP_NOWARN, 0);
		*slot = page;
		if (!page)
			return NULL;
	}
	x->next = (x->next + 1) % PG_XDP_RING;
	get_page(page);
	return page;
}

/* A frame holding @skb's bytes (a linear skb), or NULL. */
static struct xdp_frame *pg_xdp_frame(struct pg_xdp *x, const struct sk_buff *skb, int node)
{
	struct xdp_frame *xdpf;
	struct xdp_buff xdp;
	struct page *page;
	void *hard;

	if (unlikely(skb->len > PG_XDP_MAX_FRAME || skb_is_nonlinear(skb)))
		return NULL;
	page = pg_xdp_page(x, node);
	if (unlikely(!page))
		return NULL;
	hard = page_address(page);
	xdp_init_buff(&xdp, PAGE_SIZE, &x->rxq);
	xdp_prepare_buff(&xdp, hard, XDP_PACKET_HEADROOM, skb->len, false);
	memcpy(xdp.data, skb->data, skb->len);
	xdpf = xdp_convert_buff_to_frame(&xdp);
	if (unlikely(!xdpf)) {
		put_page(page);
		return NULL;
	}
	xdpf->dev_rx = NULL;
	return xdpf;
}

/*
 * The next packet, built into the run's skb (r->skb, ours alone: it is
 * never handed over).  A sum the device would finish is finished here:
 * frames have no checksum offload.  The stamp goes into the frame's
 * copy, just before the send (pg_xdp_send()).
 */
static int pg_xdp_build(struct pktgen_run *r, struct net_device *odev)
{
	struct sk_buff *skb = pg_build_skb(r, odev, r->skb);

	if (IS_ERR(skb)) {
		r->skb = NULL;
		return PTR_ERR(skb);
	}
	r->skb = skb;
	if (skb->ip_summed == CHECKSUM_PARTIAL && skb_checksum_help(skb)) {
		consume_skb(skb);
		r->skb = NULL;
		return -ENOMEM;
	}
	/* nobody else saw it: the next build may patch it */
	r->frame_intact = true;
	return 0;
}

/*
 * One bulk: up to PG_XDP_BULK of the @want packets still to go in the
 * slot, built one by one (each its own sequence number) and handed to
 * ndo_xdp_xmit() in one call, with XDP_XMIT_FLUSH.  Frames the driver
 * did not take are freed here and counted as errors; their sequence
 * numbers go to the next ones.  Returns the packets the bulk went
 * through (taken, refused or without a page), or an error of the build
 * (-ENOMEM, -ENOENT: r->skb is gone then); the driver's errno (it took
 * nothing and said why: no XDP resources, link down), which ends the
 * run, goes to *@drv_err apart, whatever its value: r->skb is still the
 * run's then.  BH off, as ndo_xdp_xmit() wants it: the caller turns it
 * on between bulks.
 */
int pg_xdp_send(struct pktgen_run *r, struct net_device *odev, unsigned int want,
		int *drv_err)
{
	int (*xmit)(struct net_device *dev, int n, struct xdp_frame **xdp, u32 flags) =
		odev->netdev_ops->ndo_xdp_xmit;
	struct pg_xdp *x = r->xdp;
	unsigned int tried, n = 0, failed = 0, refused = 0, i;
	u64 seq = r->seq_num, bytes = 0;
	int taken = 0, err = 0;

	*drv_err = 0;
	if (unlikely(!xmit || !x)) {
		*drv_err = -EOPNOTSUPP;
		return 0;
	}
	want = min_t(unsigned int, want, PG_XDP_BULK);
	for (tried = 0; tried < want; tried++) {
		WRITE_ONCE(r->seq_num, seq + n);
		err = pg_xdp_build(r, odev);
		if (unlikely(err))
			break;
		/* what devmap checks per frame: the MTU may change mid-run */
		if (unlikely(xdp_ok_fwd_dev(odev, r->skb->len))) {
			refused++;
			continue;
		}
		x->frames[n] = pg_xdp_frame(x, r->skb, r->node);
		if (unlikely(!x->frames[n])) {
			failed++;
			continue;
		}
		x->lens[n++] = r->skb->len;
	}
	if (n) {
		/* as late as the other modes: the pages are still ours alone */
		for (i = 0; r->stamp_late && i < n; i++)
			pg_stamp_frame(r, x->frames[i]->data, true, PG_EXT_F_SENT);
		rcu_read_lock();
		taken = xmit(odev, n, x->frames, XDP_XMIT_FLUSH);
		rcu_read_unlock();
		if (unlikely(taken < 0)) {
			*drv_err = taken;
			taken = 0;
		}
		for (i = 0; i < taken; i++)
			bytes += x->lens[i];
		for (i = taken; i < n; i++)
			xdp_return_frame(x->frames[i]);
		refused += n - taken;
	}
	failed += refused;
	if (taken) {
		x->refused = 0;
	} else if (refused) {
		if (!x->refused)
			x->refused_since = ktime_get();
		x->refused += refused;
	}
	WRITE_ONCE(r->seq_num, seq + taken);
	if (taken) {
		pg_counter_add(&r->sofar, taken);
		pg_counter_add(&r->tx_bytes, bytes);
	}
	if (failed)
		pg_counter_add(&r->errors, failed);
	return err ? err : tried;
}

/*
 * Whether @r's device has taken none of the last PG_XDP_STUCK_FRAMES
 * frames or more, refused by it or over its MTU, for PG_XDP_STUCK_NS or
 * more (a full ring drains far sooner): the run would never end.  Their
 * number in *@frames.
 */
bool pg_xdp_stuck(const struct pktgen_run *r, u64 *frames)
{
	const struct pg_xdp *x = r->xdp;

	if (!x || x->refused < PG_XDP_STUCK_FRAMES ||
	    ktime_to_ns(ktime_sub(ktime_get(), x->refused_since)) < PG_XDP_STUCK_NS)
		return false;
	*frames = x->refused;
	return true;
}

#else	/* !HAVE_XDP_FRAME_FLAGS: pg_xdp_refusal() refuses the mode */

int pg_xdp_prepare(struct pktgen_run *r)
{
	return -EOPNOTSUPP;
}

void pg_xdp_release(struct pktgen_run *r)
{
}

int pg_xdp_send(struct pktgen_run *r, struct net_device *odev, unsigned int want,
		int *drv_err)
{
	*drv_err = -EOPNOTSUPP;
	return 0;
}

bool pg_xdp_stuck(const struct pktgen_run *r, u64 *frames)
{
	return false;
}

#endif
