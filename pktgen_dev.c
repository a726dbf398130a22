// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the device registry.  Adds, finds, renames and removes the
 * pktgen devices of a namespace (each bound to a net_device and owning a
 * file of /proc/net/pktgen), gives a new one its default config, and
 * sets the Result lines of devices and threads.  Calls nothing above it:
 * the files and the threads call in.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/proc_fs.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "pktgen.h"

static int pg_count_d = 1000;
static int pg_delay_d;
static int pg_clone_skb_d;

module_param(pg_count_d, int, 0);
MODULE_PARM_DESC(pg_count_d, "Default number of packets to send (1000)");
module_param(pg_delay_d, int, 0);
MODULE_PARM_DESC(pg_delay_d, "Default inter-packet delay in ns (0)");
module_param(pg_clone_skb_d, int, 0);
MODULE_PARM_DESC(pg_clone_skb_d, "Default clone_skb on devices that allow shared skbs (0)");

static __printf(3, 0) void pg_vset(char *buf, spinlock_t *lock, const char *fmt, va_list ap)
{
	char tmp[PG_RESULT_LEN];

	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	spin_lock_bh(lock);
	strscpy(buf, tmp, PG_RESULT_LEN);
	spin_unlock_bh(lock);
}

void pg_set_result(struct pktgen_dev *pkt_dev, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pg_vset(pkt_dev->result, &pkt_dev->lock, fmt, ap);
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
	struct pktgen_dev *pkt_dev;

	lockdep_assert_held(&pn->lock);
	list_for_each_entry(t, &pn->threads, list)
		list_for_each_entry(pkt_dev, &t->devs, list)
			if (!strcmp(pkt_dev->name, name))
				return pkt_dev;
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

/*
 * netdevsim hands what it sends to its linked peer's stack
 * (dev_forward_skb()) and keeps IFF_TX_SKB_SHARING (pg_dev_may_share()).
 */
static bool pg_dev_forwards(const struct net_device *dev)
{
	const struct device *parent = dev->dev.parent;

	return parent && parent->bus && !strcmp(parent->bus->name, "netdevsim");
}

int pg_add_device(struct pktgen_thread *t, const char *name)
{
	struct pktgen_net *pn = t->pn;
	char ifname[IFNAMSIZ];
	struct pktgen_dev *pkt_dev;
	int err;

	if (strlen(name) >= PG_NAME_LEN)
		return -E2BIG;
	err = pg_ifname_of(name, ifname);
	if (err)
		return err;
	if (pg_name_reserved(name))
		return -EEXIST;

	pkt_dev = kzalloc_node(sizeof(*pkt_dev), GFP_KERNEL, cpu_to_node(t->cpu));
	if (!pkt_dev)
		return -ENOMEM;
	spin_lock_init(&pkt_dev->lock);
	strscpy(pkt_dev->name, name, sizeof(pkt_dev->name));
	pkt_dev->thread = t;
	pkt_dev->stream = get_random_u32();

	mutex_lock(&pn->lock);
	if (pn->exiting) {
		err = -ENODEV;
		goto err_unlock;
	}
	if (pg_find_by_name(pn, name)) {
		err = -EBUSY;
		goto err_unlock;
	}
	pkt_dev->odev = pg_netdev_get_by_name(pn->net, ifname, &pkt_dev->odev_tracker);
	if (!pkt_dev->odev) {
		err = -ENODEV;
		goto err_unlock;
	}
	err = pg_check_netdev(pkt_dev->odev);
	if (err)
		goto err_put_dev;

	pkt_dev->odev_forwards = pg_dev_forwards(pkt_dev->odev);
	pg_default_config(&pkt_dev->cfg, pkt_dev->odev);

	pkt_dev->entry = pg_proc_own(proc_create_data(name, 0600, pn->proc_dir,
						      &pg_dev_proc_ops, pkt_dev));
	if (!pkt_dev->entry) {
		err = -EINVAL;
		goto err_put_dev;
	}
	list_add_rcu(&pkt_dev->list, &t->devs);
	mutex_unlock(&pn->lock);
	return 0;

err_put_dev:
	netdev_put(pkt_dev->odev, &pkt_dev->odev_tracker);
err_unlock:
	mutex_unlock(&pn->lock);
	kfree(pkt_dev);
	return err;
}

/*
 * proc_remove() waits for the file's writers: before it, every writer
 * that waits for something ("inject") is let go and new ones refused, so
 * that no rename or removal, under RTNL or not, waits on a writer.
 */
void pg_dev_file_closing(struct pktgen_dev *pkt_dev, bool closing)
{
	spin_lock_bh(&pkt_dev->lock);
	WRITE_ONCE(pkt_dev->file_closing, closing);
	spin_unlock_bh(&pkt_dev->lock);
	if (closing)
		wake_up_all(&pkt_dev->thread->pn->wq);
}

/*
 * Called only by the device's own thread (or while it is being torn
 * down), so nothing transmits on @pkt_dev concurrently.  The device must be
 * stopped.
 */
void pg_remove_device(struct pktgen_dev *pkt_dev)
{
	struct pktgen_net *pn = pkt_dev->thread->pn;

	/* under pn->lock: a rename, which reopens the file, is done or not begun */
	mutex_lock(&pn->lock);
	pg_dev_file_closing(pkt_dev, true);
	list_del_rcu(&pkt_dev->list);
	/* Waits for in-flight reads and writes of the file. */
	proc_remove(pkt_dev->entry);
	mutex_unlock(&pn->lock);

	kfree_skb(pkt_dev->run.skb);
	pkt_dev->run.skb = NULL;
	netdev_put(pkt_dev->odev, &pkt_dev->odev_tracker);
	kfree_rcu(pkt_dev, rcu);
	wake_up_all(&pn->wq);
}

bool pg_netdev_in_use(struct pktgen_net *pn, struct net_device *dev)
{
	struct pktgen_thread *t;
	struct pktgen_dev *pkt_dev;
	bool used = false;

	rcu_read_lock();
	list_for_each_entry_rcu(t, &pn->threads, list)
		list_for_each_entry_rcu(pkt_dev, &t->devs, list)
			if (pkt_dev->odev == dev)
				used = true;
	rcu_read_unlock();
	return used;
}

/* Keep the proc file named after the interface: new ifname + old "@..." */
void pg_netdev_renamed(struct pktgen_net *pn, struct net_device *dev)
{
	struct pktgen_thread *t;
	struct pktgen_dev *pkt_dev;
	char name[PG_NAME_LEN];
	struct proc_dir_entry *entry;

	mutex_lock(&pn->lock);
	list_for_each_entry(t, &pn->threads, list) {
		list_for_each_entry(pkt_dev, &t->devs, list) {
			const char *at = strchr(pkt_dev->name, '@');

			if (pkt_dev->odev != dev)
				continue;
			if (snprintf(name, sizeof(name), "%s%s", dev->name, at ?: "") >=
			    sizeof(name) || pg_find_by_name(pn, name) ||
			    pg_name_reserved(name)) {
				pr_info("%s renamed to %s: keeping file name %s\n",
					pkt_dev->name, dev->name, pkt_dev->name);
				continue;
			}
			pg_dev_file_closing(pkt_dev, true);
			proc_remove(pkt_dev->entry);
			entry = pg_proc_own(proc_create_data(name, 0600, pn->proc_dir,
							     &pg_dev_proc_ops, pkt_dev));
			spin_lock_bh(&pkt_dev->lock);
			strscpy(pkt_dev->name, name, sizeof(pkt_dev->name));
			pkt_dev->entry = entry;
			spin_unlock_bh(&pkt_dev->lock);
			pg_dev_file_closing(pkt_dev, false);
			if (!entry)
				pr_err("cannot create /proc/net/pktgen/%s\n", name);
		}
	}
	mutex_unlock(&pn->lock);
}
