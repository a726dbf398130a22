/* SPDX-License-Identifier: GPL-2.0 */
/* pktgen_dev.c: the device registry, the Result lines. */
#ifndef _PKTGEN_DEV_H
#define _PKTGEN_DEV_H

#include <linux/proc_fs.h>

#include "pktgen.h"
#include "pktgen_ctl.h"

void pg_dev_files_init(const struct proc_ops *ops);
int pg_add_device(struct pktgen_thread *t, const char *name);
void pg_remove_device(struct pktgen_dev *pkt_dev);
void pg_set_result(struct pktgen_dev *pkt_dev, const char *fmt, ...) __printf(2, 3);
void pg_vset_result(struct pktgen_dev *pkt_dev, const char *fmt, va_list ap) __printf(2, 0);
void pg_thread_set_result(struct pktgen_thread *t, const char *fmt, ...) __printf(2, 3);
bool pg_netdev_in_use(struct pktgen_net *pn, struct net_device *dev);
bool pg_netdev_post(struct pktgen_net *pn, struct net_device *dev, enum pg_thread_ctl ctl);
void pg_dev_rename_file(struct pktgen_dev *pkt_dev);
bool pg_netdev_renames_done(struct pktgen_net *pn, struct net_device *dev);
void pg_netdev_abandoned(struct pktgen_net *pn, struct net_device *dev);

#endif /* _PKTGEN_DEV_H */
