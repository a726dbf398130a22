// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_NETDEV_TRACKER: netdevice_tracker and netdev_tracker_alloc(),
 * "net: add net device refcount tracker infrastructure"
 * (v5.17).
 */
#include <linux/netdevice.h>

void pg_probe(struct net_device *dev, netdevice_tracker *t);
void pg_probe(struct net_device *dev, netdevice_tracker *t)
{
	netdev_tracker_alloc(dev, t, GFP_KERNEL);
}
