/* SPDX-License-Identifier: GPL-2.0 */
/* pktgen_ctl.c: requests posted to a thread, and the waits for them. */
#ifndef _PKTGEN_CTL_H
#define _PKTGEN_CTL_H

#include "pktgen.h"

/* Control requests posted to a thread (bits in pktgen_thread::control). */
enum pg_thread_ctl {
	PG_CTL_STOP,
	PG_CTL_RUN,
	PG_CTL_REMDEVALL,
	PG_CTL_REMDEV,
	PG_CTL_RUNDEV,		/* start devices whose inject is PENDING */
	PG_CTL_STOPDEV,		/* stop devices with stop_pending */
	PG_CTL_CLEAR,		/* clear the counters of devices with clear_pending */
	PG_CTL_RENAME,		/* re-create the files of renamed devices */
	PG_CTL_RUN_AT,		/* run every device from pn->start_at_ns on */
};

/* pktgen_net::ctrl_flags */
#define PG_NET_START_AT		0	/* a start_at writer is in pgctrl */

/*
 * start_at refuses a time further ahead than this: hosts are started
 * seconds to minutes apart, and a wrong unit (us, or ns from another
 * clock) lands in the past or years ahead, not within the hour.
 */
#define PG_START_AT_MAX_NS	(3600ULL * NSEC_PER_SEC)

unsigned long pg_thread_post(struct pktgen_thread *t, enum pg_thread_ctl ctl);
void pg_thread_post_wait(struct pktgen_thread *t, enum pg_thread_ctl ctl);
void pg_thread_kick(struct pktgen_thread *t);
int pg_ctrl_start(struct pktgen_net *pn);
int pg_ctrl_start_at_claim(struct pktgen_net *pn, u64 ns, bool relative, u64 *target);
void pg_ctrl_start_at_run(struct pktgen_net *pn, u64 target);
void pg_ctrl_post_all(struct pktgen_net *pn, enum pg_thread_ctl ctl);
int pg_dev_inject(struct pktgen_dev *pkt_dev);
void pg_dev_clear_counters(struct pktgen_dev *pkt_dev);

#endif /* _PKTGEN_CTL_H */
