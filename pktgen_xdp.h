/* SPDX-License-Identifier: GPL-2.0 */
/* pktgen: xmit_mode xdp, frames through ndo_xdp_xmit() (pktgen_xdp.c). */
#ifndef _PKTGEN_XDP_H
#define _PKTGEN_XDP_H

#include <linux/types.h>

struct net_device;
struct pktgen_config;
struct pktgen_run;

const char *pg_xdp_refusal(const struct net_device *odev);
int pg_xdp_dev_check(const struct net_device *odev, char *why, size_t len);
int pg_xdp_config_check(const struct pktgen_config *cfg, const struct net_device *odev,
			char *why, size_t len);
int pg_xdp_prepare(struct pktgen_run *r);
void pg_xdp_release(struct pktgen_run *r);
int pg_xdp_send(struct pktgen_run *r, struct net_device *odev, unsigned int want,
		int *drv_err);
bool pg_xdp_stuck(const struct pktgen_run *r, u64 *frames);

#endif /* _PKTGEN_XDP_H */
