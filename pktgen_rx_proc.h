/* SPDX-License-Identifier: GPL-2.0 */
/* pktgen: the receiver's file, /proc/net/pktgen/pgrx (pktgen_rx_proc.c). */
#ifndef _PKTGEN_RX_PROC_H
#define _PKTGEN_RX_PROC_H

struct pktgen_net;

int pg_rx_net_init(struct pktgen_net *pn);
void pg_rx_net_exit(struct pktgen_net *pn);

#endif /* _PKTGEN_RX_PROC_H */
