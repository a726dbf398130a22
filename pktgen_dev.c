// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the device registry.  Adds, finds, renames and removes the
 * pktgen devices of a namespace (each bound to a net_device and owning a
 * file of /proc/net/pktgen), gives a new one its default config, and
 * sets the Result lines of devices and threads.  Calls nothing above it
 * (it posts requests to threads through pktgen_ctl.c): the files, the
 * threads and the notifier call in.
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
#include "pktgen_dev.h"
#include "pktgen_ctl.h"

static int pg_count_d = 1000;
static int pg_delay_d;
static int pg_clone_skb_d;

module_param(pg_count_d, int, 0);
MODULE_PARM_DESC(pg_count_d, "Default number of packets to send (1000)");
module_param(pg_delay_d, int, 0);
MODULE_PARM_DESC(pg_delay_d, "Default inter-packet delay in ns (0)");
module_param(pg_clone_skb_d, int, 0);
MODULE_PARM_DESC(pg_clone_skb_d, "Default clone_skb on devices that allow shared skbs (0)");

/* A device file's ops: pktgen_proc.c's, handed down by pg_dev_files_init() */
static const struct proc_ops *pg_dev_file_ops __ro_after_init;

void pg_dev_files_init(const struct proc_ops *ops)
{
	pg_dev_file_ops = ops;
}

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

void pg_vset_result(struct pktgen_dev *pkt_dev, const char *fmt, va_list ap)
{
	pg_vset(pkt_dev->result, &pkt_dev->lock, fmt, ap);
}

void pg_thread_set_result(struct pktgen_thread *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pg_vset(t->result, &t->result_lock, fmt, ap);
	va_end(ap);
}

static void pg_default_config(struct pktgen_config *cfg, const struct net_device *odev)
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

/*
 * @name is a device's, or the name of a file still being removed: a file
 * of that name may exist, and proc_create() of it again would WARN.
 */
static bool pg_name_taken(struct pktgen_net *pn, const char *name)
{
	struct pktgen_thread *t;
	struct pktgen_dev *pkt_dev;

	lockdep_assert_held(&pn->lock);
	list_for_each_entry(t, &pn->threads, list)
		list_for_each_entry(pkt_dev, &t->devs, list)
			if (!strcmp(pkt_dev->name, name))
				return true;
	list_for_each_entry(pkt_dev, &pn->closing, closing)
		if (!strcmp(pkt_dev->closing_name, name))
			return true;
	return false;
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
		PG_CTRL_NAME, PG_STATS_NAME, PG_RX_NAME, PG_RX_SAMPLES_NAME,
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
 * (dev_forward_skb()) and keeps IFF_TX_SKB_SHARING (pg_dev_flags_share()).
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
	INIT_LIST_HEAD(&pkt_dev->closing);
	strscpy(pkt_dev->name, name, sizeof(pkt_dev->name));
	pkt_dev->thread = t;
	pkt_dev->stream = get_random_u32();

	mutex_lock(&pn->lock);
	if (pn->exiting) {
		err = -ENODEV;
		goto err_unlock;
	}
	if (pg_name_taken(pn, name)) {
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
						      pg_dev_file_ops, pkt_dev));
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
static void pg_dev_file_closing(struct pktgen_dev *pkt_dev, bool closing)
{
	spin_lock_bh(&pkt_dev->lock);
	WRITE_ONCE(pkt_dev->file_closing, closing);
	spin_unlock_bh(&pkt_dev->lock);
	if (closing)
		wake_up_all(&pkt_dev->thread->pn->wq);
}

/* Under pn->lock: @pkt_dev's file named @name goes; keep the name taken. */
static void pg_closing_begin(struct pktgen_net *pn, struct pktgen_dev *pkt_dev,
			     const char *name)
{
	lockdep_assert_held(&pn->lock);
	strscpy(pkt_dev->closing_name, name, sizeof(pkt_dev->closing_name));
	list_add(&pkt_dev->closing, &pn->closing);
}

/*
 * Remove @entry, a file of @pkt_dev that pg_closing_begin() put on
 * pn->closing, and free its name.  proc_remove() waits for the file's
 * readers and writers, which may be held for as long as user space
 * likes (a read into a userfaultfd or FUSE page): no lock is held here,
 * and in particular not pn->lock, which the netdevice notifier takes
 * under RTNL.
 */
static void pg_closing_end(struct pktgen_net *pn, struct pktgen_dev *pkt_dev,
			   struct proc_dir_entry *entry)
{
	might_sleep();
	pg_dev_file_closing(pkt_dev, true);
	proc_remove(entry);
	mutex_lock(&pn->lock);
	list_del_init(&pkt_dev->closing);
	mutex_unlock(&pn->lock);
}

/*
 * Called only by the device's own thread (or while it is being torn
 * down), so nothing transmits on @pkt_dev concurrently.  The device must be
 * stopped.  Once it is off its thread's list (and the notifier's
 * pg_netdev_in_use() is false) the file goes, then the net_device
 * reference: a reader of the file may use @odev until proc_remove()
 * returns, and an unregister waits for the reference in
 * netdev_run_todo(), after RTNL is released.
 */
void pg_remove_device(struct pktgen_dev *pkt_dev)
{
	struct pktgen_net *pn = pkt_dev->thread->pn;

	mutex_lock(&pn->lock);
	list_del_rcu(&pkt_dev->list);
	pg_closing_begin(pn, pkt_dev, pkt_dev->name);
	mutex_unlock(&pn->lock);
	/* the notifier waits for the unlink, not for the file */
	wake_up_all(&pn->wq);

	pg_closing_end(pn, pkt_dev, pkt_dev->entry);

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

/*
 * The notifier gave up waiting for the threads to let @dev go (under
 * RTNL): say so in the Result of every pktgen device still bound to it.
 * They keep their reference until their thread removes them.
 */
void pg_netdev_abandoned(struct pktgen_net *pn, struct net_device *dev)
{
	struct pktgen_thread *t;
	struct pktgen_dev *pkt_dev;

	rcu_read_lock();
	list_for_each_entry_rcu(t, &pn->threads, list)
		list_for_each_entry_rcu(pkt_dev, &t->devs, list)
			if (pkt_dev->odev == dev)
				pg_set_result(pkt_dev,
					      "ERROR: %s unregistered while its thread did not release it",
					      dev->name);
	rcu_read_unlock();
}

/*
 * Under RTNL and pn->lock (the notifier): @pkt_dev's interface is now
 * called @ifname; its thread is to re-create the file.
 */
static void pg_dev_rename_request(struct pktgen_dev *pkt_dev, const char *ifname)
{
	lockdep_assert_held(&pkt_dev->thread->pn->lock);
	spin_lock_bh(&pkt_dev->lock);
	strscpy(pkt_dev->rename_to, ifname, sizeof(pkt_dev->rename_to));
	WRITE_ONCE(pkt_dev->rename_gen, pkt_dev->rename_gen + 1);
	spin_unlock_bh(&pkt_dev->lock);
}

/*
 * Ask the thread of every pktgen device bound to @dev to act on @ctl:
 * PG_CTL_REMDEV (once per device) or PG_CTL_RENAME (to @dev's new name).
 * True if any was asked.
 */
bool pg_netdev_post(struct pktgen_net *pn, struct net_device *dev, enum pg_thread_ctl ctl)
{
	struct pktgen_thread *t;
	struct pktgen_dev *pkt_dev;
	bool posted = false;

	mutex_lock(&pn->lock);
	list_for_each_entry(t, &pn->threads, list) {
		list_for_each_entry(pkt_dev, &t->devs, list) {
			if (pkt_dev->odev != dev)
				continue;
			if (ctl == PG_CTL_RENAME) {
				pg_dev_rename_request(pkt_dev, dev->name);
			} else {
				if (READ_ONCE(pkt_dev->remove_pending))
					continue;
				WRITE_ONCE(pkt_dev->remove_pending, true);
			}
			pg_thread_post(t, ctl);
			posted = true;
		}
	}
	mutex_unlock(&pn->lock);
	return posted;
}

/* Every pktgen device of @dev has a file named after its latest name. */
bool pg_netdev_renames_done(struct pktgen_net *pn, struct net_device *dev)
{
	struct pktgen_thread *t;
	struct pktgen_dev *pkt_dev;
	bool done = true;

	rcu_read_lock();
	list_for_each_entry_rcu(t, &pn->threads, list)
		list_for_each_entry_rcu(pkt_dev, &t->devs, list)
			if (pkt_dev->odev == dev &&
			    READ_ONCE(pkt_dev->rename_done) != READ_ONCE(pkt_dev->rename_gen))
				done = false;
	rcu_read_unlock();
	return done;
}

/*
 * Keep the proc file named after the interface: new ifname + old "@...".
 * Run by the device's thread (PG_CTL_RENAME), which alone removes its
 * devices, so @pkt_dev and its file stay while this runs.  The new file
 * is created, the name switched and the notifier told before the old
 * file goes: its removal waits for the old file's readers, with no lock
 * held (pg_closing_end()), and the notifier does not wait for it.  From
 * the switch on the old file refuses to be opened (pg_dev_open()), so it
 * is gone for user space as soon as `ip link set name` returns.
 */
void pg_dev_rename_file(struct pktgen_dev *pkt_dev)
{
	struct pktgen_net *pn = pkt_dev->thread->pn;
	struct proc_dir_entry *entry, *old = NULL;
	char ifname[IFNAMSIZ], name[PG_NAME_LEN];
	const char *at;
	u32 gen;

	spin_lock_bh(&pkt_dev->lock);
	gen = pkt_dev->rename_gen;
	strscpy(ifname, pkt_dev->rename_to, sizeof(ifname));
	spin_unlock_bh(&pkt_dev->lock);
	if (gen == READ_ONCE(pkt_dev->rename_done))
		return;

	mutex_lock(&pn->lock);
	at = strchr(pkt_dev->name, '@');
	if (snprintf(name, sizeof(name), "%s%s", ifname, at ?: "") >= sizeof(name) ||
	    pg_name_reserved(name)) {
		pr_info("%s renamed to %s: keeping file name %s\n",
			pkt_dev->name, ifname, pkt_dev->name);
	} else if (strcmp(name, pkt_dev->name)) {
		if (pg_name_taken(pn, name)) {
			pr_info("%s renamed to %s: keeping file name %s\n",
				pkt_dev->name, ifname, pkt_dev->name);
			goto done;
		}
		entry = pg_proc_own(proc_create_data(name, 0600, pn->proc_dir,
						     pg_dev_file_ops, pkt_dev));
		if (!entry) {
			pr_err("cannot create /proc/net/pktgen/%s: keeping %s\n",
			       name, pkt_dev->name);
			goto done;
		}
		old = pkt_dev->entry;
		pg_closing_begin(pn, pkt_dev, pkt_dev->name);
		spin_lock_bh(&pkt_dev->lock);
		strscpy(pkt_dev->name, name, sizeof(pkt_dev->name));
		pkt_dev->entry = entry;
		spin_unlock_bh(&pkt_dev->lock);
	}
done:
	spin_lock_bh(&pkt_dev->lock);
	WRITE_ONCE(pkt_dev->rename_done, gen);
	spin_unlock_bh(&pkt_dev->lock);
	mutex_unlock(&pn->lock);
	wake_up_all(&pn->wq);

	if (old) {
		pg_closing_end(pn, pkt_dev, old);
		pg_dev_file_closing(pkt_dev, false);
	}
}
