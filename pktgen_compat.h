/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, in one place.  Supported: 6.1 to 7.3,
 * the kernels the suite runs: Debian 12's 6.1 and 6.12, Debian 13's 6.12
 * and the newest Debian builds (trixie-backports' 7.3).
 */
#ifndef _PKTGEN_COMPAT_H
#define _PKTGEN_COMPAT_H

#include <linux/version.h>
#include <linux/netdevice.h>
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
