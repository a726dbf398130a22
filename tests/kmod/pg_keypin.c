// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: holds on, for as long as it is loaded, the netfilter static
 * keys that pgrx ("rx", netdev ingress) and pf_ipoption (the IPv4 hooks)
 * switch, by registering an accept-all hook at each.  Never installed.
 *
 * Under TCG (QEMU 7.2) patching a jump label while the other vCPU runs
 * through it can leave that vCPU on a stale int3: an "Oops: int3" in
 * __netif_receive_skb_core(), or both vCPUs trapping forever.  A test
 * that unloads pktgen or pf_ipoption while packets arrive unregisters
 * the last hook of a key; with this module loaded (tests/lib/run.sh,
 * Documentation/testing.rst, "A hang under TCG") no key ever switches.
 *
 * The netdev hook goes on one device, by ifname, in the namespace of the
 * process that loads the module; the IPv4 hooks in that namespace.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>

static char *ifname;
module_param(ifname, charp, 0444);
MODULE_PARM_DESC(ifname, "device for the netdev ingress hook, in the loader's namespace");

static unsigned int pin_accept(void *priv, struct sk_buff *skb, const struct nf_hook_state *state)
{
	return NF_ACCEPT;
}

static struct net *pin_net;
static struct net_device *pin_dev;	/* RTNL */
static struct nf_hook_ops pin_dev_ops = {
	.hook = pin_accept,
	.pf = NFPROTO_NETDEV,
	.hooknum = NF_NETDEV_INGRESS,
	.priority = INT_MAX,
};

#define PIN_IPV4_HOOK(h) { .hook = pin_accept, .pf = NFPROTO_IPV4, .hooknum = (h), \
			   .priority = INT_MAX }
static struct nf_hook_ops pin_ipv4_ops[] = {
	PIN_IPV4_HOOK(NF_INET_PRE_ROUTING),
	PIN_IPV4_HOOK(NF_INET_LOCAL_IN),
	PIN_IPV4_HOOK(NF_INET_FORWARD),
	PIN_IPV4_HOOK(NF_INET_LOCAL_OUT),
	PIN_IPV4_HOOK(NF_INET_POST_ROUTING),
};

/* RTNL held.  The device's hook must go before the device does. */
static void pin_dev_detach(void)
{
	if (!pin_dev)
		return;
	nf_unregister_net_hook(dev_net(pin_dev), &pin_dev_ops);
	dev_put(pin_dev);
	pin_dev = NULL;
}

static int pin_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	if (event == NETDEV_UNREGISTER && netdev_notifier_info_to_dev(ptr) == pin_dev) {
		pr_warn("%s is going away: the netdev ingress key may switch now\n", ifname);
		pin_dev_detach();
	}
	return NOTIFY_DONE;
}

static struct notifier_block pin_nb = {
	.notifier_call = pin_event,
};

static int __init pin_init(void)
{
	struct net_device *dev;
	int err;

	if (!ifname)
		return -EINVAL;
	pin_net = get_net(current->nsproxy->net_ns);
	err = nf_register_net_hooks(pin_net, pin_ipv4_ops, ARRAY_SIZE(pin_ipv4_ops));
	if (err)
		goto put_net;
	/* the notifier takes RTNL itself */
	err = register_netdevice_notifier(&pin_nb);
	if (err)
		goto ipv4;
	dev = dev_get_by_name(pin_net, ifname);
	if (!dev) {
		err = -ENODEV;
		goto notifier;
	}
	pin_dev_ops.dev = dev;
	rtnl_lock();
	/* going away already: its NETDEV_UNREGISTER came before pin_dev was set */
	err = dev->reg_state == NETREG_REGISTERED ? nf_register_net_hook(pin_net, &pin_dev_ops) :
						    -ENODEV;
	if (!err)
		pin_dev = dev;
	rtnl_unlock();
	if (!err)
		return 0;
	dev_put(dev);
notifier:
	unregister_netdevice_notifier(&pin_nb);
ipv4:
	nf_unregister_net_hooks(pin_net, pin_ipv4_ops, ARRAY_SIZE(pin_ipv4_ops));
put_net:
	put_net(pin_net);
	return err;
}

static void __exit pin_exit(void)
{
	/* before the notifier goes: its removal replays NETDEV_UNREGISTER */
	rtnl_lock();
	pin_dev_detach();
	rtnl_unlock();
	unregister_netdevice_notifier(&pin_nb);
	nf_unregister_net_hooks(pin_net, pin_ipv4_ops, ARRAY_SIZE(pin_ipv4_ops));
	put_net(pin_net);
}

module_init(pin_init);
module_exit(pin_exit);
MODULE_DESCRIPTION("pktgen tests: netfilter static keys held on under TCG");
MODULE_LICENSE("GPL");
