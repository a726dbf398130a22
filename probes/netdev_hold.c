// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_NETDEV_HOLD: netdev_hold()/netdev_put(), "net:
 * rename reference+tracking helpers" (v6.0; dev_hold_track() before).
 */
#include <linux/netdevice.h>

void pg_probe(struct net_device *dev, netdevice_tracker *t);
void pg_probe(struct net_device *dev, netdevice_tracker *t)
{
	netdev_hold(dev, t, GFP_KERNEL);
	netdev_put(dev, t);
}
