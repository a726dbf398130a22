/* SPDX-License-Identifier: GPL-2.0 */
/* pktgen: the receiver's sample file, /proc/net/pktgen/pgrx_samples (pktgen_rx_samples.c). */
#ifndef _PKTGEN_RX_SAMPLES_H
#define _PKTGEN_RX_SAMPLES_H

struct pg_rx_net;
struct proc_dir_entry;

struct proc_dir_entry *pg_rx_samples_create(struct pg_rx_net *rxn, struct proc_dir_entry *dir);

#endif /* _PKTGEN_RX_SAMPLES_H */
