/* SPDX-License-Identifier: GPL-2.0 */
/* pktgen_set.c: the commands of a device file. */
#ifndef _PKTGEN_SET_H
#define _PKTGEN_SET_H

#include "pktgen.h"

/* Flag names in bit order (NULL: no such flag in this build) */
extern const char * const pg_flag_names[PG_FB_NBITS];

/* Apply command @name with value @val to @pkt_dev and leave its Result */
int pg_dev_command(struct pktgen_dev *pkt_dev, const char *name, char *val);
void pg_format_duration(char *buf, size_t len, u64 ns);

#endif /* _PKTGEN_SET_H */
