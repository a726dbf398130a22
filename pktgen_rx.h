/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pktgen: the receiver's hook and the devices it is on (pktgen_rx.c), and
 * the per-namespace state that the file (pktgen_rx_proc.c) drives.
 *
 * Ownership and locking:
 *  - struct pg_rx_net (one per netns) is created with the namespace and
 *    freed at its exit (pktgen_rx_proc.c).  The device list changes under
 *    RTNL and rxn->lock (RTNL first): commands, the NETDEV_UNREGISTER
 *    notifier (RTNL held) and the namespace exit all take both.
 *  - struct pg_rx_table holds the streams; the hook finds it with RCU.
 *    rx_reset publishes a fresh table and frees the old one after a grace
 *    period.  Readers of the file hold rxn->lock, so the table they look
 *    at cannot go away.
 *  - the streams, their counters and their locks: pktgen_rx_streams.c.
 */
#ifndef _PKTGEN_RX_H
#define _PKTGEN_RX_H

#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/rcupdate.h>

#include "pktgen.h"
#include "pktgen_rx_streams.h"

#define PG_RX_MAX_DEVS		64

/* What a read of pgrx shows ("display"). */
enum pg_rx_display {
	PG_RX_DISPLAY_HUMAN,
	PG_RX_DISPLAY_SCRIPT,
	PG_RX_DISPLAY_JSON,
};

struct pg_rx_dev {
	struct list_head list;		/* rxn->devs */
	struct pg_rx_net *rxn;
	struct net_device *dev;
	netdevice_tracker tracker;
	struct nf_hook_ops ops;
	struct rcu_head rcu;
};

struct pg_rx_net {
	struct pktgen_net *pn;
	struct proc_dir_entry *entry;
	/* Serialises commands and reads; device list changes also hold RTNL. */
	struct mutex lock;
	struct list_head devs;
	unsigned int ndevs;
	struct pg_rx_table __rcu *table;
	bool hooked;			/* a hook was ever registered */
	int stats_mode;			/* enum pg_rx_stats_mode, read per packet */
	u32 copies;			/* packets per number, taken by new streams */
	/*
	 * "clock hardware": arrival times from the device's receive stamps
	 * (plus hw_offset_ns) where a packet has one; read per packet
	 */
	bool hw_clock;
	s64 hw_offset_ns;
	int display;			/* enum pg_rx_display */
	u32 sample;			/* sampling setting (pktgen_rx_ring.h) */
	u64 table_gen;			/* tables published so far */
	struct proc_dir_entry *samples;	/* pgrx_samples */
	char result[PG_RESULT_LEN];
};

/* The table of streams, for a holder of rxn->lock. */
static inline struct pg_rx_table *pg_rx_table(struct pg_rx_net *rxn)
{
	return rcu_dereference_protected(rxn->table, lockdep_is_held(&rxn->lock));
}

void pg_rx_table_replace(struct pg_rx_net *rxn, struct pg_rx_table *t);
struct pg_rx_dev *pg_rx_find_dev(struct pg_rx_net *rxn, const struct net_device *dev);
void pg_rx_dev_remove(struct pg_rx_net *rxn, struct pg_rx_dev *rxd);
int pg_rx_dev_add(struct pg_rx_net *rxn, struct net_device *dev);
void pg_rx_netdev_unregister(struct pktgen_net *pn, struct net_device *dev);

#endif /* _PKTGEN_RX_H */
