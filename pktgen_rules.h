/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pktgen_rules.c: the rules of a device's settings, the numeric commands,
 * the Current overlay of idle writes, and what a change implies.
 */
#ifndef _PKTGEN_RULES_H
#define _PKTGEN_RULES_H

#include "pktgen.h"

/*
 * A numeric command.  apply() runs under pkt_dev->lock with the parsed value;
 * it may change *val to the value the Result shows, or refuse with an
 * errno and a reason.
 */
struct pg_num_cmd {
	const char *name;
	const char *shown;	/* name in "OK: <shown>=<n>"; NULL: name */
	u64 min;		/* smaller values are raised to this */
	u64 max;
	int (*apply)(struct pktgen_dev *pkt_dev, u64 *val, const char **why);
	const char *range;	/* error text for a bad value; NULL: generic */
};

/* The command that changes one of them */
enum pg_shape_cmd {
	PG_SHAPE_CLONE_SKB,
	PG_SHAPE_BURST,
	PG_SHAPE_XMIT_MODE,
	PG_SHAPE_IMIX,
	PG_SHAPE_SHARED,
	PG_SHAPE_FRAGS,
	PG_SHAPE_IPSEC,
	PG_SHAPE_CMDS
};

/* The cursor fields an idle write shows at once (pktgen_dev.seed). */
enum pg_seed_field {
	PG_SEED_PKT_SIZE,
	PG_SEED_UDP_SRC,
	PG_SEED_UDP_DST,
	PG_SEED_SRC_MAC,
	PG_SEED_DST_MAC,
	PG_SEED_SADDR,
	PG_SEED_DADDR,
	PG_SEED_SADDR6,
	PG_SEED_DADDR6,
};

/* The numeric command called @name, NULL if there is none. */
const struct pg_num_cmd *pg_num_cmd_find(const char *name);
int pg_shape_check(const struct pktgen_dev *pkt_dev, enum pg_shape_cmd cmd, u64 val,
		   const char **why);
struct pktgen_cursor *pg_seed(struct pktgen_dev *pkt_dev, enum pg_seed_field f);
void pg_shown_cursor(struct pktgen_dev *pkt_dev, struct pktgen_cursor *cur);
void pg_cfg_settle(struct pktgen_dev *pkt_dev);
void pg_cfg_changed(struct pktgen_dev *pkt_dev);
void pg_cfg_notify(struct pktgen_dev *pkt_dev);

#endif /* _PKTGEN_RULES_H */
