/* SPDX-License-Identifier: GPL-2.0 */
/* pktgen_proc.c: the device, thread, pgctrl and pgstats files. */
#ifndef _PKTGEN_PROC_H
#define _PKTGEN_PROC_H

#include <linux/proc_fs.h>

extern const struct proc_ops pg_thread_proc_ops;
extern const struct proc_ops pg_dev_proc_ops;
extern const struct proc_ops pg_ctrl_proc_ops;

#endif /* _PKTGEN_PROC_H */
