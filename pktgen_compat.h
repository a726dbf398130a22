/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel differences, in one place.  Nothing here tests a version
 * number: Kbuild probes the target kernel's headers for each interface
 * that differs (a file in probes/ for each, naming the release that
 * brought it) and writes .probes/pktgen_probes.h with a HAVE_* macro
 * for each one present; below, each maps to the spelling the sources
 * use, the newest kernel's.
 * Built and tested from 5.10 (Debian 11) to 7.3.
 */
#ifndef _PKTGEN_COMPAT_H
#define _PKTGEN_COMPAT_H

#include ".probes/pktgen_probes.h"

#include <linux/kthread.h>
#include <linux/netdevice.h>
#include <linux/proc_fs.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <net/sock.h>

/* get_unaligned_be16() and friends */
#ifdef HAVE_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * hex2bin(), mac_pton(): <linux/hex.h> where the kernel has it (newer
 * <linux/kernel.h> no longer includes it), <linux/kernel.h> before.
 */
#ifdef HAVE_HEX_H
#include <linux/hex.h>
#endif

/*
 * Refcount trackers: before them a plain reference; the tracker is an
 * empty struct, as in a kernel built without CONFIG_NET_DEV_REFCNT_TRACKER.
 */
#ifndef HAVE_NETDEV_TRACKER
typedef struct {} netdevice_tracker;

static inline void netdev_tracker_alloc(struct net_device *dev,
					netdevice_tracker *tracker, gfp_t gfp)
{
}
#endif

#ifndef HAVE_NETDEV_HOLD
static inline void netdev_hold(struct net_device *dev,
			       netdevice_tracker *tracker, gfp_t gfp)
{
#ifdef HAVE_NETDEV_TRACKER
	dev_hold_track(dev, tracker, gfp);
#else
	dev_hold(dev);
#endif
}

static inline void netdev_put(struct net_device *dev,
			      netdevice_tracker *tracker)
{
#ifdef HAVE_NETDEV_TRACKER
	dev_put_track(dev, tracker);
#else
	dev_put(dev);
#endif
}
#endif

#ifndef HAVE_PDE_DATA
static inline void *pde_data(const struct inode *inode)
{
	return PDE_DATA(inode);
}
#endif

/*
 * napi_build_skb() takes the head from the per-CPU NAPI cache;
 * build_skb() is the same frame from the slab.
 */
#ifndef HAVE_NAPI_BUILD_SKB
static inline struct sk_buff *napi_build_skb(void *data, unsigned int frag_size)
{
	return build_skb(data, frag_size);
}
#endif

/* a debugging check only: without it, no check */
#ifndef HAVE_LOCKDEP_ASSERT_IN_SOFTIRQ
#define lockdep_assert_in_softirq() do { } while (0)
#endif

/*
 * Bounded random numbers: before get_random_u32_below(), those kernels'
 * prandom_u32_max(): a multiply-and-shift without rejection, slightly
 * biased for large ranges.
 */
#ifndef HAVE_GET_RANDOM_U32_BELOW
static inline u32 get_random_u32_below(u32 ceil)
{
	return prandom_u32_max(ceil);
}

static inline u32 get_random_u32_inclusive(u32 floor, u32 ceil)
{
	u32 span = ceil - floor + 1;

	/* the whole u32 range: span wrapped to 0 */
	return floor + (span ? prandom_u32_max(span) : prandom_u32());
}
#endif

/* Mark an skb's frags as shared with others (its head pages are). */
static inline void pg_skb_mark_shared_frag(struct sk_buff *skb)
{
#ifdef HAVE_SKB_SHINFO_FLAGS
	skb_shinfo(skb)->flags |= SKBFL_SHARED_FRAG;
#else
	skb_shinfo(skb)->tx_flags |= SKBTX_SHARED_FRAG;
#endif
}

/* A datagram from a socket's queue; MSG_DONTWAIT in flags: no waiting. */
static inline struct sk_buff *pg_skb_recv_datagram(struct sock *sk,
						   unsigned int flags, int *err)
{
#ifdef HAVE_SKB_RECV_DATAGRAM_3ARGS
	return skb_recv_datagram(sk, flags, err);
#else
	return skb_recv_datagram(sk, flags, flags & MSG_DONTWAIT, err);
#endif
}

/*
 * A kernel thread bound to one CPU, named NAMEFMT with the CPU's number.
 * Where kthread_create_on_cpu() is not exported, what stock pktgen does:
 * create on the CPU's node and bind (no per-CPU kthread mark, which
 * only CPU hotplug's parking reads).
 */
#ifdef HAVE_KTHREAD_CREATE_ON_CPU
#define pg_kthread_create_on_cpu(fn, data, cpu, namefmt) \
	kthread_create_on_cpu(fn, data, cpu, namefmt)
#else
#define pg_kthread_create_on_cpu(fn, data, cpu, namefmt) ({		\
	unsigned int __cpu = (cpu);					\
	struct task_struct *__p;					\
									\
	__p = kthread_create_on_node(fn, data, cpu_to_node(__cpu),	\
				     namefmt, __cpu);			\
	if (!IS_ERR(__p))						\
		kthread_bind(__p, __cpu);				\
	__p;								\
})
#endif

/*
 * Look a net_device up by name and take a tracked reference.  6.5 added
 * netdev_get_by_name(); dev_get_by_name() + netdev_tracker_alloc() is the
 * spelling every kernel here has.
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
 * The receiving device's hardware stamp of @skb, 0 if it has none.  A
 * driver that resolves its stamps late (HAVE_NETDEV_GET_TSTAMP) keeps
 * its own data in hwtstamps, which only its ndo_get_tstamp() turns into
 * a time: on a device without one (a VLAN above it) there is no stamp.
 */
static inline ktime_t pg_skb_rx_hwtstamp(struct sk_buff *skb)
{
#ifdef HAVE_NETDEV_GET_TSTAMP
	if (skb_shinfo(skb)->tx_flags & SKBTX_HW_TSTAMP_NETDEV)
		return skb->dev->netdev_ops->ndo_get_tstamp ?
		       netdev_get_tstamp(skb->dev, skb_hwtstamps(skb), false) : 0;
#endif
	return skb_hwtstamps(skb)->hwtstamp;
}

/*
 * A socket's drop counter (sk_drops): an atomic_t on every kernel built
 * here; the one place to change if it stops being one.
 */
static inline void pg_sk_drops_inc(struct sock *sk)
{
	atomic_inc(&sk->sk_drops);
}

static inline int pg_sk_drops_read(const struct sock *sk)
{
	return atomic_read(&sk->sk_drops);
}

/*
 * Whether @dev takes frames through ndo_xdp_xmit() now, as devmap asks
 * before it calls it: its xdp_features say so where the kernel has them
 * (probes/xdp_features.c); before 6.3 only the driver knows, and says
 * so with an errno.
 */
#ifdef HAVE_XDP_FEATURES
static inline bool pg_xdp_xmit_on(const struct net_device *dev)
{
	return READ_ONCE(dev->xdp_features) & NETDEV_XDP_ACT_NDO_XMIT;
}
#else
static inline bool pg_xdp_xmit_on(const struct net_device *dev)
{
	return true;
}
#endif

#endif /* _PKTGEN_COMPAT_H */
