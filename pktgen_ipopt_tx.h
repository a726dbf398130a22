/* SPDX-License-Identifier: GPL-2.0 */
/* pktgen: the ip_opt command's option bytes (pktgen_ipopt_tx.c). */
#ifndef _PKTGEN_IPOPT_TX_H
#define _PKTGEN_IPOPT_TX_H

#include <linux/types.h>

int pg_ip_opt_parse(char *spec, u8 *opt, unsigned int *len, const char **why);

#endif /* _PKTGEN_IPOPT_TX_H */
