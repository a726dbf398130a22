// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_NETDEV_GET_TSTAMP: a receive hardware stamp the driver resolves
 * only when asked (SKBTX_HW_TSTAMP_NETDEV set, hwtstamps holding the
 * driver's netdev_data, netdev_get_tstamp() giving the time), "ptp:
 * Support late timestamp determination" (v5.18).
 */
#include <linux/netdevice.h>
#include <linux/skbuff.h>

ktime_t pg_probe(struct sk_buff *skb);
ktime_t pg_probe(struct sk_buff *skb)
{
	if (skb_shinfo(skb)->tx_flags & SKBTX_HW_TSTAMP_NETDEV)
		return netdev_get_tstamp(skb->dev, skb_hwtstamps(skb), false);
	return skb_hwtstamps(skb)->hwtstamp;
}
