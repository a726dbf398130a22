/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, in one place.  Supported: 6.1 to 6.12
 * (Debian bookworm's 6.1 and bookworm-backports/trixie's 6.12).
 */
#ifndef _PKTGEN_COMPAT_H
#define _PKTGEN_COMPAT_H

#include <linux/version.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/sch_generic.h>
#include <net/sock.h>

/* get_unaligned_be16() and friends moved to <linux/unaligned.h> in 6.12. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * hex2bin(), mac_pton(): <linux/hex.h>, which <linux/kernel.h> includes
 * up to 6.12 at least and no longer in 7.2 (Debian's 6.13-7.1 headers are
 * gone from the archive: the first release that needs the include is
 * not pinned).  6.12 has the header, 6.1 not; sparse 0.6.4 has no
 * __has_include.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/hex.h>
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "pktgen needs Linux 6.1 or newer (netdev refcount trackers, pde_data, get_random_u32_*)"
#endif

/*
 * Look a net_device up by name and take a tracked reference.  6.5 added
 * netdev_get_by_name(); dev_get_by_name() + netdev_tracker_alloc() is the
 * spelling both 6.1 and 6.12 have.
 */
static inline struct net_device *
pg_netdev_get_by_name(struct net *net, const char *name, netdevice_tracker *tracker)
{
	struct net_device *dev = dev_get_by_name(net, name);

	if (dev)
		netdev_tracker_alloc(dev, tracker, GFP_KERNEL);
	return dev;
}

/*
 * Whether tc's ingress hook (an ingress or clsact qdisc, or tcx BPF
 * links) is attached to @dev, or may be before the caller's BH-off
 * section ends, but for a tcx link (PG_TC_INGRESS_AT_ONCE).  6.6 moved
 * it to tcx_ingress, behind CONFIG_NET_XGRESS, published by the qdisc's
 * init, before the grace period of dev_deactivate() that its first
 * filter does not wait for again.  Before, miniq_ingress was set only by
 * the first filter, and the qdisc became visible (grafted on the ingress
 * queue) only after that grace period: a section that began during it
 * saw no qdisc and met the filter.  A qdisc is added under RTNL, taken
 * before that grace period: RTNL held counts as hooked.  The ingress
 * queue is freed only with the device.
 */
static inline bool pg_dev_tc_ingress(const struct net_device *dev)
{
#if IS_ENABLED(CONFIG_NET_XGRESS)
	return rcu_access_pointer(dev->tcx_ingress);
#elif IS_ENABLED(CONFIG_NET_CLS_ACT)
	const struct netdev_queue *ingress = rcu_dereference_protected(dev->ingress_queue, 1);

	return rcu_access_pointer(dev->miniq_ingress) ||
	       (ingress && rcu_access_pointer(ingress->qdisc_sleeping) != &noop_qdisc) ||
	       rtnl_is_locked();
#else
	return false;
#endif
}

/*
 * Whether tc's ingress hook, missing at the start of a BH-off section,
 * may act before it ends: from 6.6 a tcx BPF link publishes its program
 * at once (tcx_link_prog_attach(): the grace period comes after), as
 * generic XDP does; before, tc acted only through a qdisc's filter.
 */
#define PG_TC_INGRESS_AT_ONCE IS_ENABLED(CONFIG_NET_XGRESS)

/*
 * Nonzero when a receive hook that acts as soon as it is published is
 * attached to @dev: generic XDP, an rx_handler, netfilter ingress and,
 * from 6.6, a tcx link (PG_TC_INGRESS_AT_ONCE).  The pointers are ORed
 * into one word to test, not tested one by one: a netif_receive burst
 * looks after every injection.
 */
static inline unsigned long pg_dev_rx_hooks_at_once(const struct net_device *dev)
{
	unsigned long hooks = (unsigned long)rcu_access_pointer(dev->xdp_prog) |
			      (unsigned long)rcu_access_pointer(dev->rx_handler);

#if IS_ENABLED(CONFIG_NETFILTER_INGRESS)
	hooks |= (unsigned long)rcu_access_pointer(dev->nf_hooks_ingress);
#endif
#if IS_ENABLED(CONFIG_NET_XGRESS)
	hooks |= (unsigned long)rcu_access_pointer(dev->tcx_ingress);
#endif
	return hooks;
}

/*
 * A socket's drop counter (sk_drops): an atomic_t on every kernel built
 * here (6.1 to 7.3.4); the one place to change if it stops being one.
 */
static inline void pg_sk_drops_inc(struct sock *sk)
{
	atomic_inc(&sk->sk_drops);
}

static inline int pg_sk_drops_read(const struct sock *sk)
{
	return atomic_read(&sk->sk_drops);
}

#endif /* _PKTGEN_COMPAT_H */
