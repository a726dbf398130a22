/* SPDX-License-Identifier: GPL-2.0 */
/* pktgen: building packets (pktgen_build.c). */
#ifndef _PKTGEN_BUILD_H
#define _PKTGEN_BUILD_H

#include <linux/types.h>

struct net_device;
struct pktgen_config;
struct pktgen_run;
struct sk_buff;

int pg_build_prepare(struct pktgen_run *r, struct net_device *odev);
void pg_build_release(struct pktgen_run *r);
struct sk_buff *pg_build_skb(struct pktgen_run *r, struct net_device *odev,
			     struct sk_buff *old);
void pg_stamp_skb(const struct pktgen_run *r, struct sk_buff *skb, u32 flags);
void pg_stamp_frame(const struct pktgen_run *r, void *frame, bool sum_done, u32 flags);
u32 pg_min_frame(const struct pktgen_config *cfg);
void pg_resolve_sizes(struct pktgen_config *cfg);

#endif /* _PKTGEN_BUILD_H */
