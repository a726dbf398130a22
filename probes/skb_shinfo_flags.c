// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_SKB_SHINFO_FLAGS: skb_shared_info.flags and SKBFL_SHARED_FRAG,
 * "net: group skb_shinfo zerocopy related bits together"
 * (v5.12; SKBTX_SHARED_FRAG in tx_flags before).
 */
#include <linux/skbuff.h>

void pg_probe(struct sk_buff *skb);
void pg_probe(struct sk_buff *skb)
{
	skb_shinfo(skb)->flags |= SKBFL_SHARED_FRAG;
}
