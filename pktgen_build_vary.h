/* SPDX-License-Identifier: GPL-2.0 */
/* pktgen: the fields that vary per packet (pktgen_build_vary.c). */
#ifndef _PKTGEN_BUILD_VARY_H
#define _PKTGEN_BUILD_VARY_H

#include <linux/types.h>

struct net_device;
struct pktgen_run;
struct xfrm_state;

/* MPLS label stack entries, in the template and where labels vary */
#define PG_MPLS_S		0x100		/* bottom of stack */
#define PG_MPLS_LABEL_SHIFT	12

/* Label stack entry @i as sent: S set on the last entry only. */
static inline u32 pg_mpls_entry(u32 word, u32 i, u32 n)
{
	return i + 1 == n ? word | PG_MPLS_S : word & ~PG_MPLS_S;
}

void pg_cursor_reset(struct pktgen_run *r);
void pg_vary(struct pktgen_run *r, const struct net_device *odev);
void pg_vary_queue(struct pktgen_run *r, const struct net_device *odev);
struct xfrm_state *pg_current_sa(struct pktgen_run *r, const struct net_device *odev);
bool pg_frame_fixed(const struct pktgen_run *r);

#endif /* _PKTGEN_BUILD_VARY_H */
