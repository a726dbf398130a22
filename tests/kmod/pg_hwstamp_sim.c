// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: gives packets arriving on one device a receive hardware
 * stamp, as a NIC with receive timestamping on does, so that
 * tests/rx-clock.sh can run pgrx's "clock hardware" path on machines
 * whose NICs (QEMU's among them) stamp nothing.  Never installed.
 *
 * At the device's netdev ingress hook, ahead of pgrx's, every Nth IPv4
 * packet (every) gets hwtstamp = CLOCK_REALTIME + offset_ns; "stamped"
 * counts them.  Packets others hold too (shared skbs, clones) are left
 * alone.  The device is looked up, by ifname, in the namespace of the
 * process that loads the module.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <net/net_namespace.h>

static char *ifname;
module_param(ifname, charp, 0444);
MODULE_PARM_DESC(ifname, "device to stamp on, in the loader's namespace");

static long offset_ns;
module_param(offset_ns, long, 0444);
MODULE_PARM_DESC(offset_ns, "stamp = CLOCK_REALTIME + offset_ns");

static unsigned int every = 1;
module_param(every, uint, 0444);
MODULE_PARM_DESC(every, "stamp every Nth IPv4 packet (1: all)");

static atomic_long_t stamped_count;
static atomic_long_t seen_count;

static int stamped_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&stamped_count));
}

static const struct kernel_param_ops stamped_ops = {
	.get = stamped_get,
};
module_param_cb(stamped, &stamped_ops, NULL, 0444);
MODULE_PARM_DESC(stamped, "packets stamped so far");

static struct net_device *sim_dev;	/* RTNL */
static struct nf_hook_ops sim_ops;

static unsigned int sim_hook(void *priv, struct sk_buff *skb, const struct nf_hook_state *state)
{
	if (skb->protocol != htons(ETH_P_IP) || skb_cloned(skb) || skb_shared(skb))
		return NF_ACCEPT;
	if (atomic_long_inc_return(&seen_count) % every)
		return NF_ACCEPT;
	skb_hwtstamps(skb)->hwtstamp = ktime_add_ns(ktime_get_real(), offset_ns);
	atomic_long_inc(&stamped_count);
	return NF_ACCEPT;
}

/* RTNL held. */
static void sim_detach(void)
{
	if (!sim_dev)
		return;
	nf_unregister_net_hook(dev_net(sim_dev), &sim_ops);
	dev_put(sim_dev);
	sim_dev = NULL;
}

static int sim_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	if (event == NETDEV_UNREGISTER && netdev_notifier_info_to_dev(ptr) == sim_dev)
		sim_detach();
	return NOTIFY_DONE;
}

static struct notifier_block sim_nb = {
	.notifier_call = sim_event,
};

static int __init sim_init(void)
{
	struct net_device *dev;
	int err;

	if (!ifname || !every)
		return -EINVAL;
	/* the notifier takes RTNL itself */
	err = register_netdevice_notifier(&sim_nb);
	if (err)
		return err;
	dev = dev_get_by_name(current->nsproxy->net_ns, ifname);
	if (!dev) {
		unregister_netdevice_notifier(&sim_nb);
		return -ENODEV;
	}
	sim_ops.hook = sim_hook;
	sim_ops.pf = NFPROTO_NETDEV;
	sim_ops.hooknum = NF_NETDEV_INGRESS;
	sim_ops.priority = INT_MIN;
	sim_ops.dev = dev;
	rtnl_lock();
	/* going away already: its NETDEV_UNREGISTER came before sim_dev was set */
	err = dev->reg_state == NETREG_REGISTERED ? nf_register_net_hook(dev_net(dev), &sim_ops) :
						    -ENODEV;
	if (!err)
		sim_dev = dev;
	rtnl_unlock();
	if (err) {
		dev_put(dev);
		unregister_netdevice_notifier(&sim_nb);
	}
	return err;
}

static void __exit sim_exit(void)
{
	unregister_netdevice_notifier(&sim_nb);
	rtnl_lock();
	sim_detach();
	rtnl_unlock();
}

module_init(sim_init);
module_exit(sim_exit);
MODULE_DESCRIPTION("pktgen tests: simulated receive hardware stamps");
MODULE_LICENSE("GPL");
