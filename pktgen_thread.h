/* SPDX-License-Identifier: GPL-2.0 */
/* pktgen_thread.c: the per-CPU threads, runs, transmit, results. */
#ifndef _PKTGEN_THREAD_H
#define _PKTGEN_THREAD_H

#include <linux/proc_fs.h>

#include "pktgen.h"

/* Extra logging, switched on by the "debug" command or module parameter. */
extern int pg_debug;
#define pg_dbg(fmt, ...)					\
	do {							\
		if (READ_ONCE(pg_debug))			\
			pr_info(fmt, ##__VA_ARGS__);		\
	} while (0)

void pg_thread_files_init(const struct proc_ops *ops);
int pg_thread_create(struct pktgen_net *pn, unsigned int cpu, bool start);
int pg_thread_start(struct pktgen_thread *t);
void pg_thread_destroy(struct pktgen_thread *t);
void pg_thread_rebind(struct pktgen_net *pn, unsigned int cpu);

#endif /* _PKTGEN_THREAD_H */
