/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pktgen: in-kernel packet generator, out-of-tree drop-in for net/core/pktgen.
 *
 * Ownership of state (Documentation/design.rst, "Who owns what"):
 *  - struct pktgen_config belongs to the proc side; it is written under
 *    pktgen_dev::lock and copied by the thread when it (re)starts a run or
 *    notices cfg_gen moved.
 *  - struct pktgen_run belongs to the device's thread while the device is
 *    running; readers of the proc file only peek at counters.
 *  - the net_device reference belongs to the device registry
 *    (pktgen_dev.c): taken on add_device, dropped exactly once when the
 *    thread removes the device.
 */
#ifndef _PKTGEN_H
#define _PKTGEN_H

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/in6.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/proc_fs.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "pktgen_compat.h"

/* Text shown by pgctrl; scripts and the upstream samples expect it. */
#define PG_IFACE_VERSION	"2.75"

/* pktgen's own files in /proc/net/pktgen; device files get other names */
#define PG_PROC_DIR		"pktgen"
#define PG_CTRL_NAME		"pgctrl"
#define PG_STATS_NAME		"pgstats"
#define PG_RX_NAME		"pgrx"
#define PG_RX_SAMPLES_NAME	"pgrx_samples"
#define PG_THREAD_PREFIX	"kpktgend_"	/* kpktgend_<cpu> */

#define PG_NAME_LEN		32	/* pktgen device name, 31 chars + NUL */
#define PG_RESULT_LEN		512
#define PG_ADDR_TEXT_LEN	32	/* dst/src text as written, 31 + NUL */

/* Smallest configurable frame: Ethernet + IPv4 + UDP headers. */
#define PG_MIN_PKT_SIZE		(ETH_HLEN + 20 + 8)
/* Largest frame we are willing to build. */
#define PG_MAX_PKT_SIZE		65535
/* The 16-byte pktgen header that follows UDP. */
#define PG_HDR_LEN		16
#define PG_MAGIC		0xbe9be955

/* The 16-byte header every pktgen packet carries after UDP. */
struct pktgen_hdr {
	__be32 magic;
	__be32 seq;
	__be32 tv_sec;		/* CLOCK_REALTIME, truncated to 32 bits */
	__be32 tv_usec;
};

/*
 * Extension after struct pktgen_hdr with flag NS_TIMESTAMP (ours only):
 * lets a receiver tell senders apart and measure latency in ns.
 */
#define PG_EXT_MAGIC		0xbe9be956
struct pktgen_hdr_ext {
	__be32 magic;		/* PG_EXT_MAGIC */
	__be32 stream;		/* random per pktgen device */
	__be32 tv_nsec;		/* same instant as tv_sec / tv_usec */
	__be32 flags;		/* PG_EXT_F_*: how the stamp was taken */
};

/*
 * The extension's flags (0 from a sender that stamps at build time):
 * SENT, the stamp was written as this packet was handed to the driver
 * or the stack; COPIES, the bytes went out as several copies of one skb,
 * and a copy whose data someone else still held carries the stamp an
 * earlier copy was given (the receiver sees the same stamp twice).
 */
#define PG_EXT_F_SENT		0x1
#define PG_EXT_F_COPIES		0x2

#define PG_MAX_MPLS		16
#define PG_IP_OPT_MAX		40	/* IPv4 options, bytes */
#define PG_IP_OPT_TEXT		192	/* ip_opt spec as written */
#define PG_MAX_IMIX		20
#define PG_MAX_FLOWS		65536
#define PG_VLAN_OFF		0xffff

enum pg_xmit_mode {
	PG_XMIT_START,		/* ndo_start_xmit under the queue lock */
	PG_XMIT_RECEIVE,	/* netif_receive_skb on the device */
	PG_XMIT_QUEUE,		/* dev_queue_xmit, through the qdisc */
	PG_XMIT_XDP,		/* ours: xdp_frames through ndo_xdp_xmit */
};

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
	PG_FB_NS_TIMESTAMP,	/* ours: struct pktgen_hdr_ext after the header */
	PG_FB_NBITS
};

#define PG_F(name)	BIT(PG_FB_##name)

struct xfrm_state;
struct pg_xdp;

/* Configuration written through the device's proc file. */
struct pktgen_config {
	u64 count;		/* packets to send, 0 = until stopped */
	u64 duration_ns;	/* ours: stop after this long, 0 = no limit */
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

	/* IPv6: fixed addresses and (ours) real ranges; :: = unset */
	struct in6_addr dst6;
	struct in6_addr dst6_min;
	struct in6_addr dst6_max;
	struct in6_addr src6;
	struct in6_addr src6_min;
	struct in6_addr src6_max;

	u8 tos;
	u8 traffic_class;
	u32 skb_priority;

	u16 vlan_id;		/* PG_VLAN_OFF: no tag */
	u8 vlan_p;
	u8 vlan_cfi;
	u16 svlan_id;		/* PG_VLAN_OFF: no outer tag */
	u8 svlan_p;
	u8 svlan_cfi;

	u32 mpls[PG_MAX_MPLS];	/* raw label stack entries, as written */
	u32 nr_mpls;

	int frags;		/* page fragments wanted for the payload */
	int node;		/* NUMA node for allocations, -1 = local */
	u16 queue_map_min;
	u16 queue_map_max;
	u32 flows;		/* concurrent flows, 0 = none */
	u32 flowlen;		/* packets per flow */
	u32 spi;		/* IPsec SA, with flag IPSEC */
	enum pg_xmit_mode xmit_mode;

	struct {
		u32 size;
		u32 weight;
	} imix[PG_MAX_IMIX];
	u32 nr_imix;

	u8 ip_opt[PG_IP_OPT_MAX];	/* IPv4 options, EOL-padded */
	u32 ip_opt_len;			/* multiple of 4, 0 = none */
	char ip_opt_text[PG_IP_OPT_TEXT];
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
	struct in6_addr saddr6;
	struct in6_addr daddr6;
	u16 queue_map;
	u32 flow;		/* flow in use */
};

/* A flow: one destination kept for flowlen packets. */
struct pktgen_flow {
	__be32 daddr;
	u32 count;
	bool running;
	struct xfrm_state *xfrm;
};

/* Run state, owned by the device's thread while it runs. */
/*
 * How a slot hands its skb over: the one decision of whether anything
 * outside pktgen may get an skb that pktgen still holds (design.rst,
 * "Who may write an skb"), made for every pick of a device (up to
 * PG_UNPACED_SLOTS slots) by pg_send_how(): the
 * device's flags may change mid-run (the settings' part is taken with
 * them, pg_send_wanted()).
 * PG_SEND_GIVE: the skb itself, which pktgen lets go of.
 * PG_SEND_SHARE: the skb itself with one reference per copy, to the
 *	driver's own ndo_start_xmit only, on a device whose
 *	IFF_TX_SKB_SHARING promises that start_xmit neither writes the skb
 *	nor keeps it beyond that reference.
 * PG_SEND_CLONE: every copy an skb_clone() of the one pktgen keeps, the
 *	stack's own: the kernel's unclone rules (skb_cloned() before any
 *	write of the data) leave the data pktgen sends again intact.
 */
enum pg_send {
	PG_SEND_GIVE,
	PG_SEND_SHARE,
	PG_SEND_CLONE,
};

struct pktgen_run {
	struct pktgen_config cfg;	/* snapshot taken at start */
	u32 cfg_gen;			/* generation of that snapshot */

	/* resolved at start */
	u8 src_mac[ETH_ALEN];		/* effective source MAC */
	__be32 saddr_min;
	__be32 saddr_max;
	struct in6_addr saddr6_min;	/* == max: fixed source */
	struct in6_addr saddr6_max;
	struct in6_addr daddr6_min;
	struct in6_addr daddr6_max;
	u16 queue_map_min;		/* clamped to the device's queues */
	u16 queue_map_max;
	int node;			/* NUMA_NO_NODE or an online node */
	u32 stream;			/* copied from the device */
	unsigned int l2_len;		/* Ethernet + tags + labels */
	unsigned int vlan_off;		/* template offsets of the TCIs and */
	unsigned int svlan_off;		/* the label stack, 0 = none */
	unsigned int mpls_off;
	unsigned int l3_len;		/* 20 or 40 */
	unsigned int min_data;		/* UDP payload never shorter */
	unsigned int pgh_off;		/* the pktgen header in the frame */
	/*
	 * The stamp is written as each copy is handed over (pg_stamp_skb()),
	 * not at build: a stamp asked for, and no ESP over it.
	 */
	bool stamp_late;
	u64 imix_weight_sum;
	struct pktgen_flow *flows;	/* cfg.flows entries */
	u32 nr_flows;			/* size of @flows */
	struct page *frag_page;		/* zeroed, shared by every fragment */
	u64 flow_starts;
	u64 imix_counts[PG_MAX_IMIX];
	struct xfrm_state *xfrm;	/* IPSEC without flows */
	bool xfrm_looked_up;

	struct pktgen_cursor cur;
	u32 starts;			/* runs begun, for pktgen_dev.seed */
	u16 ip_id;			/* per device, never reset */

	/*
	 * Counters: written by the thread only, each store one
	 * pg_counter_add()/WRITE_ONCE(), read locklessly with READ_ONCE() by
	 * the proc side (a read of a running device mixes moments).
	 */
	u64 sofar;
	u64 errors;
	u64 tx_bytes;
	u64 seq_num;
	u64 idle_ns;
	ktime_t started_at;
	ktime_t stopped_at;
	/*
	 * CLOCK_REALTIME ns: the start_at target (0: plain start) and the
	 * moment the run actually began (its first packet's slot)
	 */
	u64 start_at_ns;
	u64 started_real_ns;
	bool gated;			/* waits for the thread's start gate */

	/* Every header up to UDP, with the fields that never vary */
	u8 tmpl[ETH_HLEN + 2 * VLAN_HLEN + PG_MAX_MPLS * 4 + 60 + 8];

	/* transmit state */
	ktime_t next_tx;
	ktime_t deadline;		/* end of "duration", KTIME_MAX: none */
	struct sk_buff *skb;
	unsigned int clone_count;
	bool last_ok;
	/*
	 * Every byte of @skb's frame is as built (the send says so), and
	 * where: pg_build_skb() may then patch it (pg_patch_frame()).
	 */
	bool frame_intact;
	bool frame_fixed;		/* pg_vary() changes no byte of the frame */
	unsigned int frame_headroom;
	enum pg_send send_wanted;	/* what the settings ask for */
	enum pg_send built_for;		/* how @skb was built to be sent */
	/* the Result's frags when no skb is held at the end (pg_give_skb()) */
	int given_frags;
	struct pg_xdp *xdp;		/* xmit_mode xdp: pages, frames (pktgen_xdp.c) */
};

struct pktgen_net;
struct pktgen_thread;
struct seq_file;

/* One pktgen device: a /proc/net/pktgen/<name> file bound to a netdev. */
struct pktgen_dev {
	struct list_head list;		/* thread->devs, RCU */
	struct pktgen_thread *thread;
	struct net_device *odev;
	netdevice_tracker odev_tracker;
	bool odev_forwards;		/* never shares: pg_dev_forwards() */
	struct proc_dir_entry *entry;

	/* Protects cfg, cfg_gen, name, result and the running transition. */
	spinlock_t lock;
	struct pktgen_config cfg;
	u32 cfg_gen;
	char name[PG_NAME_LEN];
	char result[PG_RESULT_LEN];

	bool running;			/* written by the thread */
	bool remove_pending;		/* netdev is going away */
	bool clear_pending;		/* clear_counters: for the thread to do */
	bool stop_pending;		/* stop this device only */
	bool file_closing;		/* @entry goes: no writer may wait */
	/*
	 * Rename: the notifier (under RTNL) leaves the new interface name
	 * here and bumps @rename_gen; the thread re-creates the file
	 * (pg_dev_rename_file()) and sets @rename_done to the generation it
	 * covered.  All under @lock.
	 */
	char rename_to[IFNAMSIZ];
	u32 rename_gen;
	u32 rename_done;
	/*
	 * While a file of this device is being removed (proc_remove() waits
	 * for its readers with no lock held), its name stays taken: the
	 * device is on pn->closing with the name in @closing_name.
	 */
	struct list_head closing;
	char closing_name[PG_NAME_LEN];
	u8 inject;			/* PG_INJECT_*: "inject" progress */
	u32 stream;			/* id in struct pktgen_hdr_ext */

	/*
	 * Upstream's Current shows a range end written while idle as the
	 * cursor's next value at once.  The cursor is the run's, so the proc
	 * side keeps such values here (under @lock) and shows them over the
	 * run's until the thread begins another run (@seed_run != starts).
	 */
	struct pktgen_cursor seed;
	u32 seed_mask;			/* BIT(PG_SEED_*) of the fields kept */
	u32 seed_run;

	struct pktgen_run run;
	struct rcu_head rcu;
};

/*
 * Whether @dev's start_xmit may be handed an skb pktgen keeps
 * (PG_SEND_SHARE): IFF_TX_SKB_SHARING promises a start_xmit that neither
 * writes nor keeps it.  ether_setup() gives it every Ethernet device and
 * those that forward what they send are meant to clear it; macsec and
 * l3mdev masters (VRF) keep it, and so does netdevsim
 * (pktgen_dev::odev_forwards).  Read at every pick: flags may change.
 */
static inline bool pg_dev_flags_share(const struct net_device *dev)
{
	return (dev->priv_flags & (IFF_TX_SKB_SHARING | IFF_MACSEC | IFF_L3MDEV_MASTER)) ==
	       IFF_TX_SKB_SHARING;
}

/* "inject": run one device alone; the writer waits for DONE. */
enum pg_inject_state {
	PG_INJECT_NONE,
	PG_INJECT_PENDING,
	PG_INJECT_RUNNING,
	PG_INJECT_DONE,
};

struct pktgen_thread {
	struct list_head list;		/* pn->threads, RCU */
	struct pktgen_net *pn;
	struct task_struct *task;	/* from the first write (pg_thread_start()) */
	struct rcu_head rcu;
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
	/* start_at: CLOCK_REALTIME ns its gated devices start at, 0 = none */
	u64 gate_ns;

	spinlock_t result_lock;		/* protects result */
	char result[PG_RESULT_LEN];
};

/* Per network namespace state. */
struct pktgen_net {
	struct net *net;
	struct proc_dir_entry *proc_dir;
	struct list_head threads;
	/*
	 * Serialises changes of the thread and device lists, device names
	 * and pn->closing.  Taken by the netdevice notifier under RTNL, so
	 * never held across anything that waits for a file's readers
	 * (proc_remove()) or for a thread.  Lock order: RTNL, pn->lock,
	 * pkt_dev->lock.
	 */
	struct mutex lock;
	/* pktgen_dev::closing: names of files still being removed */
	struct list_head closing;
	/* Woken whenever a thread finished a control request or a run ended. */
	wait_queue_head_t wq;
	bool exiting;
	/*
	 * pgctrl "start_at": the writer that owns PG_NET_START_AT sets
	 * @start_at_ns before posting PG_CTL_RUN_AT; the threads read it.
	 * @ctrl_result (under @lock) is pgctrl's Result line, shown once a
	 * start_at was written.
	 */
	unsigned long ctrl_flags;
	u64 start_at_ns;
	char ctrl_result[128];
	/* pktgen_rx.c: the receiver's state (/proc/net/pktgen/pgrx) */
	struct pg_rx_net *rx;
};

/*
 * Who may write a pktgen file: CAP_NET_ADMIN in the initial user
 * namespace, held by whoever opened the file and by the writer.  Its
 * threads spin outside any cgroup and its memory is charged to nobody, so
 * the root of a user namespace (which owns that namespace's netns) may
 * not drive it.
 */
static inline bool pg_may_write(const struct file *file)
{
	return file_ns_capable(file, &init_user_ns, CAP_NET_ADMIN) &&
	       capable(CAP_NET_ADMIN);
}

/*
 * A new file or directory of /proc/net/pktgen: owned by the initial
 * namespace's root whatever netns it is in (proc would give it to the
 * root of the netns's user namespace).  Returns @pde.
 */
static inline struct proc_dir_entry *pg_proc_own(struct proc_dir_entry *pde)
{
	if (pde)
		proc_set_user(pde, GLOBAL_ROOT_UID, GLOBAL_ROOT_GID);
	return pde;
}

/* A run counter's update: see struct pktgen_run. */
static inline void pg_counter_add(u64 *counter, u64 n)
{
	WRITE_ONCE(*counter, *counter + n);
}

/*
 * The files as layers, a file using only those below it (the proc_ops,
 * hooks and notifiers it registers aside): Documentation/design.rst's
 * table, the one list of them (tests/host/layers.sh checks the sources
 * against it).  Each file declares what it offers in a header of its own
 * (pktgen_dev.h, ...), so a file's includes show what it uses; this one
 * holds the structures they share.
 */

#endif /* _PKTGEN_H */
