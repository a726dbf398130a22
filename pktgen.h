/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pktgen: in-kernel packet generator, out-of-tree drop-in for net/core/pktgen.
 *
 * Ownership of state (see README "Design"):
 *  - struct pktgen_config belongs to the proc side; it is written under
 *    pktgen_dev::lock and copied by the thread when it (re)starts a run or
 *    notices cfg_gen moved.
 *  - struct pktgen_run belongs to the device's thread while the device is
 *    running; readers of the proc file only peek at counters.
 *  - the net_device reference belongs to the device registry
 *    (pktgen_main.c): taken on add_device, dropped exactly once when the
 *    thread removes the device.
 */
#ifndef _PKTGEN_H
#define _PKTGEN_H

#include <linux/if_ether.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "pktgen_compat.h"

/* Text shown by pgctrl; scripts and the upstream samples expect it. */
#define PG_IFACE_VERSION	"2.75"

#define PG_NAME_LEN		32	/* pktgen device name, 31 chars + NUL */
#define PG_RESULT_LEN		512
#define PG_ADDR_TEXT_LEN	32	/* dst/src text as written, 31 + NUL */

/* Smallest configurable frame: Ethernet + IPv4 + UDP headers. */
#define PG_MIN_PKT_SIZE		(ETH_HLEN + 20 + 8)
/* Largest frame we are willing to build (linear data). */
#define PG_MAX_PKT_SIZE		65535
/* The 16-byte pktgen header that follows UDP. */
#define PG_HDR_LEN		16
#define PG_MAGIC		0xbe9be955

/* "delay 2147483647" means: stay running but never transmit. */
#define PG_DELAY_NEVER_CMD	0x7fffffffULL
#define PG_DELAY_NEVER		ULLONG_MAX

/* Flag bits; values match upstream so "OK: flags=0x..." is identical. */
enum pg_flag_bit {
	PG_FB_IPV6,
	PG_FB_IPSRC_RND,
	PG_FB_IPDST_RND,
	PG_FB_TXSIZE_RND,
	PG_FB_UDPSRC_RND,
	PG_FB_UDPDST_RND,
	PG_FB_UDPCSUM,
	PG_FB_NO_TIMESTAMP,
	PG_FB_MPLS_RND,
	PG_FB_QUEUE_MAP_RND,
	PG_FB_QUEUE_MAP_CPU,
	PG_FB_FLOW_SEQ,
	PG_FB_IPSEC,
	PG_FB_MACSRC_RND,
	PG_FB_MACDST_RND,
	PG_FB_VID_RND,
	PG_FB_SVID_RND,
	PG_FB_NODE,
	PG_FB_SHARED,
	PG_FB_NBITS
};

#define PG_F(name)	BIT(PG_FB_##name)

/* Configuration written through the device's proc file. */
struct pktgen_config {
	u64 count;		/* packets to send, 0 = until stopped */
	u64 delay_ns;		/* inter-slot gap, PG_DELAY_NEVER = never */
	u32 min_pkt_size;
	u32 max_pkt_size;
	int clone_skb;		/* slots per built skb */
	u32 burst;		/* packets per slot (xmit_more) */
	u32 flags;		/* PG_F(...) */

	/* IPv4 ranges: the text as written (shown in Params) and its value */
	char dst_min_text[PG_ADDR_TEXT_LEN];
	char dst_max_text[PG_ADDR_TEXT_LEN];
	char src_min_text[PG_ADDR_TEXT_LEN];
	char src_max_text[PG_ADDR_TEXT_LEN];
	__be32 daddr_min;
	__be32 daddr_max;
	__be32 saddr_min;
	__be32 saddr_max;

	u8 dst_mac[ETH_ALEN];
	u8 src_mac[ETH_ALEN];	/* all-zero: use the device's address */
	u32 src_mac_count;
	u32 dst_mac_count;

	u16 udp_src_min;
	u16 udp_src_max;
	u16 udp_dst_min;
	u16 udp_dst_max;
};

/* Values that vary per built packet ("cur_*" in the Current block). */
struct pktgen_cursor {
	u32 pkt_size;
	__be32 saddr;
	__be32 daddr;
	u16 udp_src;
	u16 udp_dst;
	u32 src_mac_offset;
	u32 dst_mac_offset;
};

/* Run state, owned by the device's thread while it runs. */
struct pktgen_run {
	struct pktgen_config cfg;	/* snapshot taken at start */
	u32 cfg_gen;			/* generation of that snapshot */

	/* resolved at start */
	u8 src_mac[ETH_ALEN];		/* effective source MAC */
	__be32 saddr_min;
	__be32 saddr_max;

	struct pktgen_cursor cur;
	u16 ip_id;			/* per device, never reset */

	/* counters, read locklessly by the proc side */
	u64 sofar;
	u64 errors;
	u64 tx_bytes;
	u64 seq_num;
	u64 idle_ns;
	ktime_t started_at;
	ktime_t stopped_at;

	/* Ethernet + IPv4 + UDP header with the fields that never vary */
	u8 tmpl[ETH_HLEN + 20 + 8];

	/* transmit state */
	ktime_t next_tx;
	struct sk_buff *skb;
	unsigned int clone_count;
	bool last_ok;
};

struct pktgen_net;
struct pktgen_thread;

/* One pktgen device: a /proc/net/pktgen/<name> file bound to a netdev. */
struct pktgen_dev {
	struct list_head list;		/* thread->devs, RCU */
	struct pktgen_thread *thread;
	struct net_device *odev;
	netdevice_tracker odev_tracker;
	struct proc_dir_entry *entry;

	/* Protects cfg, cfg_gen, name, result and the running transition. */
	spinlock_t lock;
	struct pktgen_config cfg;
	u32 cfg_gen;
	char name[PG_NAME_LEN];
	char result[PG_RESULT_LEN];

	bool running;			/* written by the thread */
	bool remove_pending;		/* netdev is going away */
	bool clear_pending;		/* clear_counters while running */

	struct pktgen_run run;
	struct rcu_head rcu;
};

/* Control requests posted to a thread (bits in pktgen_thread::control). */
enum pg_thread_ctl {
	PG_CTL_STOP,
	PG_CTL_RUN,
	PG_CTL_REMDEVALL,
	PG_CTL_REMDEV,
};

struct pktgen_thread {
	struct list_head list;		/* pn->threads, RCU */
	struct pktgen_net *pn;
	struct task_struct *task;
	struct proc_dir_entry *entry;
	unsigned int cpu;
	/*
	 * Requests: a writer sets bits and takes a ticket under ctl_lock; the
	 * thread takes all bits, acts, then publishes the last ticket it
	 * covered in ctl_done, so writers can wait for their own request.
	 */
	spinlock_t ctl_lock;
	unsigned long control;		/* BIT(PG_CTL_*) */
	unsigned long ctl_posted;
	unsigned long ctl_done;
	struct list_head devs;		/* pktgen_dev, RCU; changes under pn->lock */

	spinlock_t result_lock;		/* protects result */
	char result[PG_RESULT_LEN];
};

/* Per network namespace state. */
struct pktgen_net {
	struct net *net;
	struct proc_dir_entry *proc_dir;
	struct list_head threads;
	/* Serialises device add/remove/rename and proc entry changes. */
	struct mutex lock;
	/* Woken whenever a thread finished a control request or a run ended. */
	wait_queue_head_t wq;
	bool exiting;
};

extern int pg_debug;

/* Extra logging, switched on by the "debug" command or module parameter. */
#define pg_dbg(fmt, ...)					\
	do {							\
		if (READ_ONCE(pg_debug))			\
			pr_info(fmt, ##__VA_ARGS__);		\
	} while (0)

/* pktgen_main.c: namespaces, device registry, pgctrl */
struct pktgen_net *pg_net(struct net *net);
int pg_add_device(struct pktgen_thread *t, const char *name);
void pg_remove_device(struct pktgen_dev *pkt);
void pg_set_result(struct pktgen_dev *pkt, const char *fmt, ...) __printf(2, 3);
void pg_thread_set_result(struct pktgen_thread *t, const char *fmt, ...) __printf(2, 3);
void pg_default_config(struct pktgen_config *cfg, const struct net_device *odev);

/* pktgen_thread.c: threads, runs, transmit, results */
int pg_thread_create(struct pktgen_net *pn, unsigned int cpu);
void pg_thread_destroy(struct pktgen_thread *t);
unsigned long pg_thread_post(struct pktgen_thread *t, enum pg_thread_ctl ctl);
void pg_thread_post_wait(struct pktgen_thread *t, enum pg_thread_ctl ctl);
void pg_thread_kick(struct pktgen_thread *t);
void pg_ctrl_start(struct pktgen_net *pn);
void pg_ctrl_post_all(struct pktgen_net *pn, enum pg_thread_ctl ctl);

/* pktgen_proc.c: thread and device files */
extern const struct proc_ops pg_thread_proc_ops;
extern const struct proc_ops pg_dev_proc_ops;

/* pktgen_build.c: packets */
void pg_build_prepare(struct pktgen_run *r, const struct net_device *odev);
void pg_cursor_reset(struct pktgen_run *r);
struct sk_buff *pg_build_skb(struct pktgen_run *r, struct net_device *odev);

#endif /* _PKTGEN_H */
