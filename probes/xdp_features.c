// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_XDP_FEATURES: net_device.xdp_features and NETDEV_XDP_ACT_NDO_XMIT,
 * "netdev-genl: create a simple family for netdev stuff" (v6.3): whether
 * a device takes frames through ndo_xdp_xmit() now (veth: while its peer
 * has an XDP program or GRO on).  devmap has checked the bit before
 * calling ndo_xdp_xmit() since "bpf: devmap: check XDP features in
 * __xdp_enqueue routine" (v6.3); xmit_mode xdp checks it too.
 */
#include <linux/netdevice.h>

bool pg_probe(const struct net_device *dev);
bool pg_probe(const struct net_device *dev)
{
	return READ_ONCE(dev->xdp_features) & NETDEV_XDP_ACT_NDO_XMIT;
}
