// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the table of contents.  Module init and exit in their order,
 * each namespace's /proc/net/pktgen and threads (pernet init/exit), CPU
 * hotplug, and the netdevice notifier handing events to the registry,
 * the threads and pgrx.  The layers below are listed in pktgen.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/netdevice.h>
#include <linux/rculist.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "pktgen.h"
#include "pktgen_ctl.h"
#include "pktgen_dev.h"
#include "pktgen_proc.h"
#include "pktgen_rx.h"
#include "pktgen_rx_proc.h"
#include "pktgen_thread.h"

static unsigned int pg_net_id __read_mostly;

static struct pktgen_net *pg_net(struct net *net)
{
	return net_generic(net, pg_net_id);
}

/*
 * How long the notifier waits, under RTNL, for a thread to act on an
 * unregister or a rename of a device it owns: upstream pktgen's 1.25 s
 * (ten tries of 125 ms).  A thread may be held up for as long as user
 * space likes: removing a file waits for its readers (proc_remove()).
 */
#define PG_RELEASE_WAIT		(HZ * 5 / 4)

/*
 * The net_device is going away: have each owning thread drop it, and
 * wait for that at most PG_RELEASE_WAIT.  A device its thread did not
 * let go of in time stays bound: its Result says so, its thread stops it
 * (the net_device is down) and removes it when it next looks at its
 * requests, and only then drops the reference.  Returning with the
 * reference still held is safe: unregister_netdevice() leaves the
 * net_device to netdev_run_todo(), which frees it only after every
 * reference is gone (netdev_wait_allrefs_any()), and it waits for them
 * after it has released RTNL.  So the caller of the unregister (`ip link
 * del`, a netns exit) waits for pktgen, but no one waits for RTNL.
 * netdev_run_todo() sends NETDEV_UNREGISTER again while it waits: a
 * device already marked is not waited for twice.
 */
static void pg_netdev_unregister(struct pktgen_net *pn, struct net_device *dev)
{
	if (!pg_netdev_post(pn, dev, PG_CTL_REMDEV))
		return;

	/* Threads never take RTNL; they may wait for a file's readers. */
	if (wait_event_timeout(pn->wq, !pg_netdev_in_use(pn, dev), PG_RELEASE_WAIT))
		return;
	pg_netdev_abandoned(pn, dev);
	pr_warn("%s unregistered while its thread did not release it; it keeps its reference until its thread removes the device\n",
		dev->name);
}

/*
 * The net_device was renamed: the threads re-create the files of its
 * devices (pg_dev_rename_file()).  Waits, at most PG_RELEASE_WAIT, for
 * the new files only, never for the old ones' readers.
 */
static void pg_netdev_renamed(struct pktgen_net *pn, struct net_device *dev)
{
	if (pg_netdev_post(pn, dev, PG_CTL_RENAME) &&
	    !wait_event_timeout(pn->wq, pg_netdev_renames_done(pn, dev), PG_RELEASE_WAIT))
		pr_warn("%s renamed while its thread is busy: its pktgen files follow later\n",
			dev->name);
}

static int pg_netdev_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct pktgen_net *pn = pg_net(dev_net(dev));

	/* The receiver copes with a namespace on its way out by itself. */
	if (event == NETDEV_UNREGISTER)
		pg_rx_netdev_unregister(pn, dev);
	if (READ_ONCE(pn->exiting))
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_CHANGENAME:
		pg_netdev_renamed(pn, dev);
		break;
	case NETDEV_UNREGISTER:
		pg_netdev_unregister(pn, dev);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block pg_notifier = {
	.notifier_call = pg_netdev_event,
};

/* ---- namespaces ------------------------------------------------------------ */

/* One at a time: pg_thread_destroy() waits for the file's writers. */
static void pg_net_stop_threads(struct pktgen_net *pn)
{
	struct pktgen_thread *t;

	for (;;) {
		mutex_lock(&pn->lock);
		t = list_first_entry_or_null(&pn->threads, struct pktgen_thread, list);
		if (t)
			list_del_rcu(&t->list);
		mutex_unlock(&pn->lock);
		if (!t)
			return;
		pg_thread_destroy(t);
	}
}

static int __net_init pg_net_init(struct net *net)
{
	struct pktgen_net *pn = pg_net(net);
	unsigned int cpu;
	int err;

	pn->net = net;
	INIT_LIST_HEAD(&pn->threads);
	INIT_LIST_HEAD(&pn->closing);
	mutex_init(&pn->lock);
	init_waitqueue_head(&pn->wq);

	err = pg_proc_net_init(pn);
	if (err)
		return err;
	err = pg_rx_net_init(pn);
	if (err)
		goto err_proc_exit;

	for_each_online_cpu(cpu) {
		err = pg_thread_create(pn, cpu, net_eq(net, &init_net));
		if (err)
			goto err_stop_threads;
	}
	return 0;

err_stop_threads:
	pn->exiting = true;
	pg_net_stop_threads(pn);
	pg_rx_net_exit(pn);
err_proc_exit:
	pg_proc_net_exit(pn);
	return err;
}

/*
 * Every namespace's senders stop before any namespace's hooks go: the
 * core runs .pre_exit for all namespaces of an rmmod (or of a batch of
 * deleted ones) before the first .exit, so no pktgen thread is left
 * sending into a receiver hook as it is removed.
 */
static void __net_exit pg_net_pre_exit(struct net *net)
{
	struct pktgen_net *pn = pg_net(net);

	WRITE_ONCE(pn->exiting, true);
	/* Lets a blocked "start" return; threads stop their devices. */
	wake_up_all(&pn->wq);
	pg_net_stop_threads(pn);
}

static void __net_exit pg_net_exit(struct net *net)
{
	struct pktgen_net *pn = pg_net(net);

	pg_rx_net_exit(pn);
	pg_proc_net_exit(pn);
}

static struct pernet_operations pg_net_ops = {
	.init		= pg_net_init,
	.pre_exit	= pg_net_pre_exit,
	.exit		= pg_net_exit,
	.id	= &pg_net_id,
	.size	= sizeof(struct pktgen_net),
};

/* ---- CPU hotplug ------------------------------------------------------------ */

static enum cpuhp_state pg_cpuhp_state;

static int pg_cpu_online(unsigned int cpu)
{
	struct net *net;

	down_read(&net_rwsem);
	for_each_net(net)
		pg_thread_rebind(pg_net(net), cpu);
	up_read(&net_rwsem);
	return 0;
}

/* ---- module ---------------------------------------------------------------- */

/* The kernel's own pktgen (built in, or a module under another name). */
static bool pg_stock_pktgen_present(void)
{
	struct path path;

	if (kern_path("/proc/net/" PG_PROC_DIR, LOOKUP_FOLLOW, &path))
		return false;
	path_put(&path);
	return true;
}

static int __init pg_init(void)
{
	int err;

	if (pg_stock_pktgen_present()) {
		pr_err("/proc/net/pktgen already exists: the kernel's own pktgen is loaded; unload it first (rmmod pktgen)\n");
		return -EEXIST;
	}

	pg_proc_init();
	err = register_pernet_subsys(&pg_net_ops);
	if (err)
		return err;
	err = register_netdevice_notifier(&pg_notifier);
	if (err)
		goto err_unregister_pernet;
	err = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "net/pktgen:online",
					pg_cpu_online, NULL);
	if (err < 0)
		goto err_unregister_notifier;
	pg_cpuhp_state = err;

	pr_info("Packet Generator for packet performance testing. Version: %s (%s)\n",
		PG_IFACE_VERSION, PKTGEN_VERSION);
	return 0;

err_unregister_notifier:
	unregister_netdevice_notifier(&pg_notifier);
err_unregister_pernet:
	unregister_pernet_subsys(&pg_net_ops);
	return err;
}

static void __exit pg_exit(void)
{
	cpuhp_remove_state_nocalls(pg_cpuhp_state);
	unregister_netdevice_notifier(&pg_notifier);
	unregister_pernet_subsys(&pg_net_ops);
	/* Devices are freed with kfree_rcu(). */
	rcu_barrier();
}

module_init(pg_init);
module_exit(pg_exit);

MODULE_DESCRIPTION("Packet Generator tool (out-of-tree drop-in for net/core/pktgen)");
MODULE_AUTHOR("pktgen developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(PKTGEN_VERSION);
