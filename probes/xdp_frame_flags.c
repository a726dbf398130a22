// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_XDP_FRAME_FLAGS: xdp_frame.flags and xdp_init_buff(), "xdp:
 * introduce flags field in xdp_buff/xdp_frame" (v5.18), which xmit_mode
 * xdp needs.  It also stands for an older change no interface marks:
 * "bpf, devmap: Move drop error path to devmap for XDP_REDIRECT" (v5.13),
 * after which ndo_xdp_xmit() leaves the frames it did not take to the
 * caller to free (before, the driver freed them: freeing them again
 * would be a double free).  Without it, xmit_mode xdp is refused.
 * linux/bpf.h declares XDP_PACKET_HEADROOM: before v6.3 net/xdp.h does
 * not bring it in, and the probe must fail only for want of the above.
 */
#include <linux/bpf.h>
#include <net/xdp.h>

void pg_probe(struct xdp_buff *xdp, struct xdp_rxq_info *rxq, struct xdp_frame *f);
void pg_probe(struct xdp_buff *xdp, struct xdp_rxq_info *rxq, struct xdp_frame *f)
{
	xdp_init_buff(xdp, PAGE_SIZE, rxq);
	xdp_prepare_buff(xdp, NULL, XDP_PACKET_HEADROOM, 0, false);
	f->flags = 0;
}
