/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pf_ipoption: what its files share.  main.c owns the module and the
 * per-namespace state; classify.c the classifier (/proc/net/ipopt);
 * socket.c the PF_IPOPTION family; options.c the option walk both use.
 */
#ifndef _PF_IPOPTION_H
#define _PF_IPOPTION_H

#include <linux/bits.h>
#include <linux/types.h>

struct net;
struct net_device;

/* The counted types; the order of the classifier's columns and verdicts. */
enum ipo_type {
	IPO_RR,
	IPO_TS,
	IPO_LSRR,
	IPO_SSRR,
	IPO_SEC,
	IPO_RA,			/* router alert, value 0 */
	IPO_RA_OTHER,		/* router alert, any other value */
	IPO_OTHER,		/* any other option type */
	IPO_MALFORMED,		/* the option list does not parse */
	IPO_ANY,		/* IHL > 5 */
	IPO_NTYPES
};

/* What the walk found in one packet. */
struct ipo_pkt {
	u32 seen;				/* BIT(type) */
	unsigned int n;				/* types in packet order */
	u8 order[IPO_NTYPES];
};

/* Note @t in @p, once, in the order types appear. */
static inline void ipo_seen(struct ipo_pkt *p, enum ipo_type t)
{
	if (p->seen & BIT(t))
		return;
	p->seen |= BIT(t);
	p->order[p->n++] = t;
}

/* options.c: the walk of an IPv4 header's @len option bytes */
void ipo_parse(const u8 *opt, unsigned int len, struct ipo_pkt *p);

struct ipo_cls_net;
struct ipo_sock_net;

/* One namespace's state (net_generic()), owned by main.c. */
struct ipo_net {
	struct net *net;
	/* the classifier; cleared under RTNL as the namespace exits */
	struct ipo_cls_net *cls;
	/* the sockets of the namespace */
	struct ipo_sock_net *sock;
};

/* classify.c */
int ipo_cls_net_init(struct ipo_net *in);
void ipo_cls_net_exit(struct ipo_net *in);
void ipo_cls_netdev_unregister(struct ipo_net *in, struct net_device *dev);

/* socket.c */
int ipo_sock_init(unsigned int net_id);
void ipo_sock_exit(void);
int ipo_sock_net_init(struct ipo_net *in);
void ipo_sock_net_exit(struct ipo_net *in);

#endif /* _PF_IPOPTION_H */
