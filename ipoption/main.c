// SPDX-License-Identifier: GPL-2.0
/*
 * pf_ipoption: IPv4 options for user space, after the PF_IPOPTION memo
 * (Documentation/ipopt.rst, Documentation/ipoption-sock.rst).  Two
 * services share the option walk and nothing else:
 *
 *	classify.c	/proc/net/ipopt: counts option packets by interface
 *			and type, gives a type a verdict (drop, NFQUEUE)
 *	socket.c	the PF_IPOPTION socket family
 *	options.c	the walk of a header's options, for both
 *
 * This file is their table of contents: the module, the state of each
 * network namespace, and the netdevice notifier.  Independent of pktgen.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "ipoption.h"

static unsigned int ipo_net_id __read_mostly;

static struct ipo_net *ipo_net(struct net *net)
{
	return net_generic(net, ipo_net_id);
}

static int __net_init ipo_net_init(struct net *net)
{
	struct ipo_net *in = ipo_net(net);
	int err;

	in->net = net;
	err = ipo_cls_net_init(in);
	if (err)
		return err;
	err = ipo_sock_net_init(in);
	if (err)
		ipo_cls_net_exit(in);
	return err;
}

/* No socket is open in @net: each holds its namespace. */
static void __net_exit ipo_net_exit(struct net *net)
{
	struct ipo_net *in = ipo_net(net);

	ipo_sock_net_exit(in);
	ipo_cls_net_exit(in);
}

static struct pernet_operations ipo_net_ops = {
	.init	= ipo_net_init,
	.exit	= ipo_net_exit,
	.id	= &ipo_net_id,
	.size	= sizeof(struct ipo_net),
};

/* RTNL held: a device leaves its namespace, or goes. */
static int ipo_netdev_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	if (event == NETDEV_UNREGISTER)
		ipo_cls_netdev_unregister(ipo_net(dev_net(dev)), dev);
	return NOTIFY_DONE;
}

static struct notifier_block ipo_notifier = {
	.notifier_call = ipo_netdev_event,
};

static int __init ipo_init(void)
{
	int err;

	err = register_pernet_subsys(&ipo_net_ops);
	if (err)
		return err;
	err = register_netdevice_notifier(&ipo_notifier);
	if (err)
		goto err_unregister_pernet;
	/* last: sockets may be created from here on */
	err = ipo_sock_init(ipo_net_id);
	if (err)
		goto err_unregister_notifier;
	return 0;

err_unregister_notifier:
	unregister_netdevice_notifier(&ipo_notifier);
err_unregister_pernet:
	unregister_pernet_subsys(&ipo_net_ops);
	return err;
}

/* Every socket is closed: each holds the module. */
static void __exit ipo_exit(void)
{
	ipo_sock_exit();
	unregister_netdevice_notifier(&ipo_notifier);
	unregister_pernet_subsys(&ipo_net_ops);
}

module_init(ipo_init);
module_exit(ipo_exit);

MODULE_DESCRIPTION("IPv4 option classifier and the PF_IPOPTION socket family");
MODULE_AUTHOR("pktgen developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(PKTGEN_VERSION);
