/* SPDX-License-Identifier: GPL-2.0 */
/* pktgen_proc.c: the device, thread, pgctrl and pgstats files. */
#ifndef _PKTGEN_PROC_H
#define _PKTGEN_PROC_H

#include "pktgen.h"

void pg_proc_init(void);
int pg_proc_net_init(struct pktgen_net *pn);
void pg_proc_net_exit(struct pktgen_net *pn);

#endif /* _PKTGEN_PROC_H */
