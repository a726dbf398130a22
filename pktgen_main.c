// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: module init/exit, per-namespace state, the device registry,
 * the netdevice notifier and /proc/net/pktgen/pgctrl.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/proc_fs.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "pktgen.h"

static int pg_count_d = 1000;
static int pg_delay_d;
static int pg_clone_skb_d;
int pg_debug;

module_param(pg_count_d, int, 0);
MODULE_PARM_DESC(pg_count_d, "Default number of packets to send (1000)");
module_param(pg_delay_d, int, 0);
MODULE_PARM_DESC(pg_delay_d, "Default inter-packet delay in ns (0)");
module_param(pg_clone_skb_d, int, 0);
MODULE_PARM_DESC(pg_clone_skb_d, "Default clone_skb on devices that allow shared skbs (0)");
module_param_named(debug, pg_debug, int, 0);
MODULE_PARM_DESC(debug, "Extra logging (0)");

static unsigned int pg_net_id __read_mostly;

struct pktgen_net *pg_net(struct net *net)
{
	return net_generic(net, pg_net_id);
}

static __printf(3, 0) void pg_vset(char *buf, spinlock_t *lock, const char *fmt, va_list ap)
{
	char tmp[PG_RESULT_LEN];

	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	spin_lock_bh(lock);
	strscpy(buf, tmp, PG_RESULT_LEN);
	spin_unlock_bh(lock);
}

void pg_set_result(struct pktgen_dev *pkt, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pg_vset(pkt->result, &pkt->lock, fmt, ap);
	va_end(ap);
}

void pg_thread_set_result(struct pktgen_thread *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pg_vset(t->result, &t->result_lock, fmt, ap);
	va_end(ap);
}

void pg_default_config(struct pktgen_config *cfg, const struct net_device *odev)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->count = pg_count_d > 0 ? pg_count_d : 0;
	cfg->delay_ns = pg_delay_d > 0 ? pg_delay_d : 0;
	if (odev->priv_flags & IFF_TX_SKB_SHARING)
		cfg->clone_skb = max(pg_clone_skb_d, 0);
	cfg->burst = 1;
	cfg->flags = PG_F(SHARED);
	cfg->udp_src_min = 9;	/* discard port */
	cfg->udp_src_max = 9;
	cfg->udp_dst_min = 9;
	cfg->udp_dst_max = 9;
	cfg->vlan_id = PG_VLAN_OFF;
	cfg->svlan_id = PG_VLAN_OFF;
	cfg->node = NUMA_NO_NODE;
}

/* ---- device registry ---------------------------------------------------- */

static struct pktgen_dev *pg_find_by_name(struct pktgen_net *pn, const char *name)
{
	struct pktgen_thread *t;
	struct pktgen_dev *pkt;

	lockdep_assert_held(&pn->lock);
	list_for_each_entry(t, &pn->threads, list)
		list_for_each_entry(pkt, &t->devs, list)
			if (!strcmp(pkt->name, name))
				return pkt;
	return NULL;
}

/*
 * "eth0" or "eth0@<anything>": the part before '@' names the net_device,
 * the whole string names the pktgen device (several per interface).
 */
static int pg_ifname_of(const char *name, char *ifname)
{
	size_t len = strcspn(name, "@");

	/* the whole name becomes a file of /proc/net/pktgen (proc WARNs on '/') */
	if (len == 0 || len >= IFNAMSIZ || strchr(name, '/'))
		return -EINVAL;
	memcpy(ifname, name, len);
	ifname[len] = '\0';
	return 0;
}

/* @name is, or could become, one of pktgen's own files. */
static bool pg_name_reserved(const char *name)
{
	static const char * const own[] = {
		PG_CTRL_NAME, PG_STATS_NAME, PG_RX_NAME, PG_IPOPT_NAME,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(own); i++)
		if (!strcmp(name, own[i]))
			return true;
	return !strncmp(name, PG_THREAD_PREFIX, strlen(PG_THREAD_PREFIX));
}

static int pg_check_netdev(struct net_device *odev)
{
	if (odev->type != ARPHRD_ETHER && odev->type != ARPHRD_LOOPBACK)
		return -EINVAL;
	if (!netif_running(odev))
		return -ENETDOWN;
	return 0;
}

int pg_add_device(struct pktgen_thread *t, const char *name)
{
	struct pktgen_net *pn = t->pn;
	char ifname[IFNAMSIZ];
	struct pktgen_dev *pkt;
	int err;

	if (strlen(name) >= PG_NAME_LEN)
		return -E2BIG;
	err = pg_ifname_of(name, ifname);
	if (err)
		return err;
	if (pg_name_reserved(name))
		return -EEXIST;

	pkt = kzalloc_node(sizeof(*pkt), GFP_KERNEL, cpu_to_node(t->cpu));
	if (!pkt)
		return -ENOMEM;
	spin_lock_init(&pkt->lock);
	strscpy(pkt->name, name, sizeof(pkt->name));
	pkt->thread = t;
	pkt->stream = get_random_u32();

	mutex_lock(&pn->lock);
	if (pn->exiting) {
		err = -ENODEV;
		goto err_unlock;
	}
	if (pg_find_by_name(pn, name)) {
		err = -EBUSY;
		goto err_unlock;
	}
	pkt->odev = pg_netdev_get_by_name(pn->net, ifname, &pkt->odev_tracker);
	if (!pkt->odev) {
		err = -ENODEV;
		goto err_unlock;
	}
	err = pg_check_netdev(pkt->odev);
	if (err)
		goto err_put_dev;

	pg_default_config(&pkt->cfg, pkt->odev);

	pkt->entry = pg_proc_own(proc_create_data(name, 0600, pn->proc_dir,
						  &pg_dev_proc_ops, pkt));
	if (!pkt->entry) {
		err = -EINVAL;
		goto err_put_dev;
	}
	list_add_rcu(&pkt->list, &t->devs);
	mutex_unlock(&pn->lock);
	return 0;

err_put_dev:
	netdev_put(pkt->odev, &pkt->odev_tracker);
err_unlock:
	mutex_unlock(&pn->lock);
	kfree(pkt);
	return err;
}

/*
 * proc_remove() waits for the file's writers: before it, every writer
 * that waits for something ("inject") is let go and new ones refused, so
 * that no rename or removal, under RTNL or not, waits on a writer.
 */
void pg_dev_file_closing(struct pktgen_dev *pkt, bool closing)
{
	spin_lock_bh(&pkt->lock);
	WRITE_ONCE(pkt->file_closing, closing);
	spin_unlock_bh(&pkt->lock);
	if (closing)
		wake_up_all(&pkt->thread->pn->wq);
}

/*
 * Called only by the device's own thread (or while it is being torn
 * down), so nothing transmits on @pkt concurrently.  The device must be
 * stopped.
 */
void pg_remove_device(struct pktgen_dev *pkt)
{
	struct pktgen_net *pn = pkt->thread->pn;

	/* under pn->lock: a rename, which reopens the file, is done or not begun */
	mutex_lock(&pn->lock);
	pg_dev_file_closing(pkt, true);
	list_del_rcu(&pkt->list);
	/* Waits for in-flight reads and writes of the file. */
	proc_remove(pkt->entry);
	mutex_unlock(&pn->lock);

	kfree_skb(pkt->run.skb);
	pkt->run.skb = NULL;
	netdev_put(pkt->odev, &pkt->odev_tracker);
	kfree_rcu(pkt, rcu);
	wake_up_all(&pn->wq);
}

static bool pg_netdev_in_use(struct pktgen_net *pn, struct net_device *dev)
{
	struct pktgen_thread *t;
	struct pktgen_dev *pkt;
	bool used = false;

	rcu_read_lock();
	list_for_each_entry_rcu(t, &pn->threads, list)
		list_for_each_entry_rcu(pkt, &t->devs, list)
			if (pkt->odev == dev)
				used = true;
	rcu_read_unlock();
	return used;
}

/* The net_device is going away: have each owning thread drop it. */
static void pg_netdev_unregister(struct pktgen_net *pn, struct net_device *dev)
{
	struct pktgen_thread *t;
	struct pktgen_dev *pkt;
	bool posted = false;
	int waited = 0;

	mutex_lock(&pn->lock);
	list_for_each_entry(t, &pn->threads, list) {
		list_for_each_entry(pkt, &t->devs, list) {
			if (pkt->odev != dev)
				continue;
			WRITE_ONCE(pkt->remove_pending, true);
			pg_thread_post(t, PG_CTL_REMDEV);
			posted = true;
		}
	}
	mutex_unlock(&pn->lock);
	if (!posted)
		return;

	/* Threads never take RTNL, so they always get here. */
	while (!wait_event_timeout(pn->wq, !pg_netdev_in_use(pn, dev), HZ))
		if (++waited % 10 == 0)
			pr_warn("still waiting for %s to be released (%d s)\n",
				dev->name, waited);
}

/* Keep the proc file named after the interface: new ifname + old "@..." */
static void pg_netdev_renamed(struct pktgen_net *pn, struct net_device *dev)
{
	struct pktgen_thread *t;
	struct pktgen_dev *pkt;
	char name[PG_NAME_LEN];
	struct proc_dir_entry *entry;

	mutex_lock(&pn->lock);
	list_for_each_entry(t, &pn->threads, list) {
		list_for_each_entry(pkt, &t->devs, list) {
			const char *at = strchr(pkt->name, '@');

			if (pkt->odev != dev)
				continue;
			if (snprintf(name, sizeof(name), "%s%s", dev->name, at ?: "") >=
			    sizeof(name) || pg_find_by_name(pn, name) ||
			    pg_name_reserved(name)) {
				pr_info("%s renamed to %s: keeping file name %s\n",
					pkt->name, dev->name, pkt->name);
				continue;
			}
			pg_dev_file_closing(pkt, true);
			proc_remove(pkt->entry);
			entry = pg_proc_own(proc_create_data(name, 0600, pn->proc_dir,
							     &pg_dev_proc_ops, pkt));
			spin_lock_bh(&pkt->lock);
			strscpy(pkt->name, name, sizeof(pkt->name));
			pkt->entry = entry;
			spin_unlock_bh(&pkt->lock);
			pg_dev_file_closing(pkt, false);
			if (!entry)
				pr_err("cannot create /proc/net/pktgen/%s\n", name);
		}
	}
	mutex_unlock(&pn->lock);
}

static int pg_netdev_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct pktgen_net *pn = pg_net(dev_net(dev));

	/* The receiver copes with a namespace on its way out by itself. */
	if (event == NETDEV_UNREGISTER) {
		pg_rx_netdev_unregister(pn, dev);
		pg_ipopt_netdev_unregister(pn, dev);
	}
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

/* ---- pgctrl --------------------------------------------------------------- */

static int pg_ctrl_show(struct seq_file *seq, void *v)
{
	seq_puts(seq, "Packet Generator for packet performance testing. Version: "
		 PG_IFACE_VERSION "\n");
	return 0;
}

static int pg_ctrl_open(struct inode *inode, struct file *file)
{
	return single_open(file, pg_ctrl_show, pde_data(inode));
}

static ssize_t pg_ctrl_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct pktgen_net *pn = pde_data(file_inode(file));
	char cmd[128];
	size_t len;

	if (!pg_may_write(file))
		return -EPERM;
	if (count == 0 || count > sizeof(cmd) - 1)
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';
	/* "start\n" (echo), "start" (echo -n) and "start\0" all mean start */
	len = strnlen(cmd, count);
	if (len && cmd[len - 1] == '\n')
		cmd[--len] = '\0';

	if (!strcmp(cmd, "start"))
		pg_ctrl_start(pn);
	else if (!strcmp(cmd, "stop"))
		pg_ctrl_post_all(pn, PG_CTL_STOP);
	else if (!strcmp(cmd, "reset"))
		pg_ctrl_post_all(pn, PG_CTL_REMDEVALL);
	else
		return -EINVAL;
	return count;
}

static const struct proc_ops pg_ctrl_proc_ops = {
	.proc_open	= pg_ctrl_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_write	= pg_ctrl_write,
	.proc_release	= single_release,
};

/* ---- namespaces ------------------------------------------------------------ */

static void pg_net_stop_threads(struct pktgen_net *pn)
{
	struct pktgen_thread *t, *tmp;
	LIST_HEAD(threads);

	/* Waits until nobody can be posting to or looking at them. */
	mutex_lock(&pn->lock);
	list_splice_init_rcu(&pn->threads, &threads, synchronize_rcu);
	mutex_unlock(&pn->lock);

	list_for_each_entry_safe(t, tmp, &threads, list)
		pg_thread_destroy(t);
}

static int __net_init pg_net_init(struct net *net)
{
	struct pktgen_net *pn = pg_net(net);
	unsigned int cpu;
	int err;

	pn->net = net;
	INIT_LIST_HEAD(&pn->threads);
	mutex_init(&pn->lock);
	init_waitqueue_head(&pn->wq);

	pn->proc_dir = pg_proc_own(proc_mkdir(PG_PROC_DIR, net->proc_net));
	if (!pn->proc_dir)
		return -ENOMEM;
	if (!pg_proc_own(proc_create_data(PG_CTRL_NAME, 0600, pn->proc_dir,
					  &pg_ctrl_proc_ops, pn)) ||
	    !pg_proc_own(proc_create_single_data(PG_STATS_NAME, 0600, pn->proc_dir,
						 pg_stats_show, pn))) {
		err = -ENOMEM;
		goto err_remove_dir;
	}
	err = pg_rx_net_init(pn);
	if (err)
		goto err_remove_dir;
	err = pg_ipopt_net_init(pn);
	if (err)
		goto err_rx_exit;

	for_each_online_cpu(cpu) {
		err = pg_thread_create(pn, cpu);
		if (err)
			goto err_stop_threads;
	}
	return 0;

err_stop_threads:
	pn->exiting = true;
	pg_net_stop_threads(pn);
	pg_ipopt_net_exit(pn);
err_rx_exit:
	pg_rx_net_exit(pn);
err_remove_dir:
	proc_remove(pn->proc_dir);
	return err;
}

static void __net_exit pg_net_exit(struct net *net)
{
	struct pktgen_net *pn = pg_net(net);

	WRITE_ONCE(pn->exiting, true);
	/* Lets a blocked "start" return; threads stop their devices. */
	wake_up_all(&pn->wq);
	pg_net_stop_threads(pn);
	pg_ipopt_net_exit(pn);
	pg_rx_net_exit(pn);
	proc_remove(pn->proc_dir);
}

static struct pernet_operations pg_net_ops = {
	.init	= pg_net_init,
	.exit	= pg_net_exit,
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
