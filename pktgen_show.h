/* SPDX-License-Identifier: GPL-2.0 */
/* pktgen_show.c: a device's Params, Current and Result; pgstats. */
#ifndef _PKTGEN_SHOW_H
#define _PKTGEN_SHOW_H

#include "pktgen.h"

struct seq_file;

/* seq_file show of a device file (seq->private: the pktgen_dev) */
int pg_dev_show(struct seq_file *seq, void *v);
/* seq_file show of pgstats (seq->private: the pktgen_net) */
int pg_stats_show(struct seq_file *seq, void *v);

#endif /* _PKTGEN_SHOW_H */
