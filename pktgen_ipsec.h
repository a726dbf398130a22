/* SPDX-License-Identifier: GPL-2.0 */
/* pktgen: ESP through a user-installed SA, flag IPSEC (pktgen_ipsec.c). */
#ifndef _PKTGEN_IPSEC_H
#define _PKTGEN_IPSEC_H

#include <linux/errno.h>
#include <linux/types.h>

#include "pktgen.h"

struct net;
struct sk_buff;
struct xfrm_state;

/* Whether the run's packets go through ESP (IPv4 only). */
static inline bool pg_ipsec_on(const struct pktgen_run *r)
{
	return IS_ENABLED(CONFIG_XFRM) && (r->cfg.flags & PG_F(IPSEC)) &&
	       !(r->cfg.flags & PG_F(IPV6));
}

#if IS_ENABLED(CONFIG_XFRM)
struct xfrm_state *pg_ipsec_lookup(struct pktgen_run *r, struct net *net, __be32 daddr);
void pg_ipsec_put(struct xfrm_state *x);
unsigned int pg_ipsec_header_len(const struct xfrm_state *x);
int pg_ipsec_output(struct xfrm_state *x, struct sk_buff *skb, unsigned int l2_len);
#else
static inline struct xfrm_state *pg_ipsec_lookup(struct pktgen_run *r, struct net *net,
						 __be32 daddr)
{
	return NULL;
}

static inline void pg_ipsec_put(struct xfrm_state *x) {}

static inline unsigned int pg_ipsec_header_len(const struct xfrm_state *x)
{
	return 0;
}

static inline int pg_ipsec_output(struct xfrm_state *x, struct sk_buff *skb,
				  unsigned int l2_len)
{
	return -EOPNOTSUPP;
}
#endif

#endif /* _PKTGEN_IPSEC_H */
