// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the rules of a device's settings.  The numeric commands and the
 * check each applies, the rules that tie clone_skb, burst, xmit_mode,
 * imix_weights, frags and flags SHARED and IPSEC together, the values an idle write shows
 * in Current at once (the seed over the run's cursor), and what a change
 * of the configuration implies: Params settled as at a start, a running
 * thread told.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_vlan.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "pktgen.h"
#include "pktgen_rules.h"
#include "pktgen_thread.h"
#include "pktgen_ctl.h"
#include "pktgen_build.h"

#define PG_MAX_BURST		1000000
#define PG_MAX_FRAGS_CMD	INT_MAX
#define PG_MAX_VLAN_ID		(VLAN_N_VID - 1)

static int pg_apply_count(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	pkt_dev->cfg.count = *val;
	return 0;
}

static bool pg_skb_sharing(const struct pktgen_dev *pkt_dev)
{
	return pkt_dev->odev->priv_flags & IFF_TX_SKB_SHARING;
}

/* The settings that rules tie together: one skb sent many times, or a burst. */
struct pg_shape {
	u64 clone_skb;
	u64 burst;
	int xmit_mode;
	u32 nr_imix;
	u32 frags;
	bool shared;
	bool ipsec;
};

static bool pg_receive_clones(const struct pg_shape *s, bool sharing)
{
	return s->xmit_mode == PG_XMIT_RECEIVE && s->clone_skb;
}

static bool pg_queue_bursts(const struct pg_shape *s, bool sharing)
{
	return s->xmit_mode == PG_XMIT_QUEUE && s->burst > 1;
}

/* xdp sends every packet as a frame of its own, built for it */
static bool pg_xdp_clones(const struct pg_shape *s, bool sharing)
{
	return s->xmit_mode == PG_XMIT_XDP && s->clone_skb;
}

/* xdp frames are linear (a page each) and go out as built: no ESP */
static bool pg_xdp_frags(const struct pg_shape *s, bool sharing)
{
	return s->xmit_mode == PG_XMIT_XDP && s->frags;
}

static bool pg_xdp_ipsec(const struct pg_shape *s, bool sharing)
{
	return s->xmit_mode == PG_XMIT_XDP && s->ipsec;
}

/*
 * netif_receive gives each skb away; a burst there is many skbs; xdp
 * (never a clone, pg_xdp_clones()) copies each packet into a frame
 */
static bool pg_shares_unshareable(const struct pg_shape *s, bool sharing)
{
	return !sharing && ((s->clone_skb && s->xmit_mode != PG_XMIT_RECEIVE) ||
			    (s->burst > 1 && s->xmit_mode == PG_XMIT_START));
}

static bool pg_clones_imix(const struct pg_shape *s, bool sharing)
{
	return s->clone_skb && s->nr_imix;
}

/* an xdp burst is a bulk of frames of their own: nothing shared */
static bool pg_shares_unflagged(const struct pg_shape *s, bool sharing)
{
	return (s->clone_skb || (s->burst > 1 && s->xmit_mode != PG_XMIT_XDP)) && !s->shared;
}

/*
 * Every rule between those settings, in the order they are checked, and
 * what each command that would break one says (NULL: it cannot).
 */
static const struct pg_rule {
	bool (*broken)(const struct pg_shape *s, bool sharing);
	int err;
	const char *why[PG_SHAPE_CMDS];
} pg_rules[] = {
	{ pg_xdp_clones, -EOPNOTSUPP, {
		[PG_SHAPE_CLONE_SKB] = "clone_skb > 0 is not supported in xdp mode",
		[PG_SHAPE_XMIT_MODE] = "xdp mode needs clone_skb 0" } },
	{ pg_xdp_frags, -EOPNOTSUPP, {
		[PG_SHAPE_FRAGS] = "frags > 0 is not supported in xdp mode",
		[PG_SHAPE_XMIT_MODE] = "xdp mode needs frags 0" } },
	{ pg_xdp_ipsec, -EOPNOTSUPP, {
		[PG_SHAPE_IPSEC] = "flag IPSEC is not supported in xdp mode",
		[PG_SHAPE_XMIT_MODE] = "xdp mode needs flag !IPSEC" } },
	{ pg_receive_clones, -EOPNOTSUPP, {
		[PG_SHAPE_CLONE_SKB] = "clone_skb > 0 is not supported in netif_receive mode",
		[PG_SHAPE_XMIT_MODE] = "netif_receive mode needs clone_skb 0" } },
	{ pg_queue_bursts, -EOPNOTSUPP, {
		[PG_SHAPE_BURST] = "burst > 1 is not supported in queue_xmit mode",
		[PG_SHAPE_XMIT_MODE] = "queue_xmit mode needs burst 1" } },
	{ pg_shares_unshareable, -EOPNOTSUPP, {
		[PG_SHAPE_CLONE_SKB] = "clone_skb > 0 needs a device with IFF_TX_SKB_SHARING",
		[PG_SHAPE_BURST] = "burst > 1 needs a device with IFF_TX_SKB_SHARING",
		[PG_SHAPE_XMIT_MODE] =
			"clone_skb > 0 and burst > 1 need IFF_TX_SKB_SHARING in this mode" } },
	{ pg_clones_imix, -EINVAL, {
		[PG_SHAPE_CLONE_SKB] = "clone_skb > 0 needs imix_weights off",
		[PG_SHAPE_IMIX] = "imix_weights needs clone_skb 0" } },
	{ pg_shares_unflagged, -EINVAL, {
		[PG_SHAPE_CLONE_SKB] = "clone_skb needs flag SHARED",
		[PG_SHAPE_BURST] = "burst > 1 needs flag SHARED",
		[PG_SHAPE_XMIT_MODE] = "burst > 1 needs flag SHARED in this mode",
		[PG_SHAPE_SHARED] = "flag !SHARED needs clone_skb 0 and burst 1" } },
};

static void pg_shape_of(const struct pktgen_config *cfg, struct pg_shape *s)
{
	s->clone_skb = cfg->clone_skb;
	s->burst = cfg->burst;
	s->xmit_mode = cfg->xmit_mode;
	s->nr_imix = cfg->nr_imix;
	s->frags = cfg->frags;
	s->shared = cfg->flags & PG_F(SHARED);
	s->ipsec = cfg->flags & PG_F(IPSEC);
}

/*
 * May @cmd set its setting to @val?  0, or the errno and *@why of the
 * first rule the change breaks.  A rule broken already (the device lost
 * IFF_TX_SKB_SHARING since) refuses nothing: undoing must stay possible.
 * @pkt_dev->lock held.
 */
int pg_shape_check(const struct pktgen_dev *pkt_dev, enum pg_shape_cmd cmd, u64 val,
		   const char **why)
{
	bool sharing = pg_skb_sharing(pkt_dev);
	struct pg_shape now, next;
	int i;

	pg_shape_of(&pkt_dev->cfg, &now);
	next = now;
	switch (cmd) {
	case PG_SHAPE_CLONE_SKB:
		next.clone_skb = val;
		break;
	case PG_SHAPE_BURST:
		next.burst = val;
		break;
	case PG_SHAPE_XMIT_MODE:
		next.xmit_mode = val;
		break;
	case PG_SHAPE_IMIX:
		next.nr_imix = val;
		break;
	case PG_SHAPE_FRAGS:
		next.frags = val;
		break;
	case PG_SHAPE_IPSEC:
		next.ipsec = val;
		break;
	default:
		next.shared = val;
		break;
	}
	for (i = 0; i < ARRAY_SIZE(pg_rules); i++) {
		const struct pg_rule *rule = &pg_rules[i];

		if (rule->why[cmd] && rule->broken(&next, sharing) &&
		    !rule->broken(&now, sharing)) {
			*why = rule->why[cmd];
			return rule->err;
		}
	}
	return 0;
}

static int pg_apply_clone_skb(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	int err = pg_shape_check(pkt_dev, PG_SHAPE_CLONE_SKB, *val, why);

	if (!err)
		pkt_dev->cfg.clone_skb = *val;
	return err;
}

static int pg_apply_burst(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	int err;

	*val = max_t(u64, *val, 1);
	err = pg_shape_check(pkt_dev, PG_SHAPE_BURST, *val, why);
	if (!err)
		pkt_dev->cfg.burst = *val;
	return err;
}

/*
 * The seed to write field @f of, or NULL while the device runs (the run
 * starts from the configuration anyway).  A seed of an earlier idle spell
 * is dropped first.  @pkt_dev->lock held.
 */
struct pktgen_cursor *pg_seed(struct pktgen_dev *pkt_dev, enum pg_seed_field f)
{
	u32 starts = READ_ONCE(pkt_dev->run.starts);

	lockdep_assert_held(&pkt_dev->lock);
	if (pkt_dev->running)
		return NULL;
	if (pkt_dev->seed_run != starts) {
		pkt_dev->seed_mask = 0;
		pkt_dev->seed_run = starts;
	}
	pkt_dev->seed_mask |= BIT(f);
	return &pkt_dev->seed;
}

/* What Current shows: the run's cursor, with this idle spell's seed over it. */
void pg_shown_cursor(struct pktgen_dev *pkt_dev, struct pktgen_cursor *cur)
{
	const struct pktgen_cursor *seed = &pkt_dev->seed;
	u32 mask;

	/* the thread moves it per packet: a copy may mix two packets' values */
	*cur = data_race(pkt_dev->run.cur);
	spin_lock_bh(&pkt_dev->lock);
	mask = !pkt_dev->running && pkt_dev->seed_run == READ_ONCE(pkt_dev->run.starts) ?
	       pkt_dev->seed_mask : 0;
	if (mask & BIT(PG_SEED_PKT_SIZE))
		cur->pkt_size = seed->pkt_size;
	if (mask & BIT(PG_SEED_UDP_SRC))
		cur->udp_src = seed->udp_src;
	if (mask & BIT(PG_SEED_UDP_DST))
		cur->udp_dst = seed->udp_dst;
	if (mask & BIT(PG_SEED_SRC_MAC))
		cur->src_mac_offset = seed->src_mac_offset;
	if (mask & BIT(PG_SEED_DST_MAC))
		cur->dst_mac_offset = seed->dst_mac_offset;
	if (mask & BIT(PG_SEED_SADDR))
		cur->saddr = seed->saddr;
	if (mask & BIT(PG_SEED_DADDR))
		cur->daddr = seed->daddr;
	if (mask & BIT(PG_SEED_SADDR6))
		cur->saddr6 = seed->saddr6;
	if (mask & BIT(PG_SEED_DADDR6))
		cur->daddr6 = seed->daddr6;
	spin_unlock_bh(&pkt_dev->lock);
}

static void pg_cur_pkt_size(struct pktgen_dev *pkt_dev, u32 size)
{
	struct pktgen_cursor *seed = pg_seed(pkt_dev, PG_SEED_PKT_SIZE);

	if (seed)
		seed->pkt_size = size;
}

static int pg_apply_pkt_size(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	pkt_dev->cfg.min_pkt_size = *val;
	pkt_dev->cfg.max_pkt_size = *val;
	pg_cur_pkt_size(pkt_dev, *val);
	return 0;
}

static int pg_apply_min_pkt_size(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	pkt_dev->cfg.min_pkt_size = *val;
	pg_cur_pkt_size(pkt_dev, *val);
	return 0;
}

static int pg_apply_max_pkt_size(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	pkt_dev->cfg.max_pkt_size = *val;
	pg_cur_pkt_size(pkt_dev, *val);
	return 0;
}

static int pg_apply_delay(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	if (*val == PG_DELAY_NEVER_CMD)
		*val = PG_DELAY_NEVER;
	pkt_dev->cfg.delay_ns = *val;
	return 0;
}

/* "rate N": N Mb/s for frames of min_pkt_size (FCS excluded). */
static int pg_apply_rate(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	u32 size = pkt_dev->cfg.min_pkt_size ?: PG_MIN_PKT_SIZE + PG_HDR_LEN;

	if (!*val) {
		*why = "rate must be 1 or more Mb/s";
		return -EINVAL;
	}
	pkt_dev->cfg.delay_ns = div64_u64((u64)size * 8 * NSEC_PER_USEC, *val);
	return 0;
}

static int pg_apply_ratep(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	if (!*val) {
		*why = "ratep must be 1 or more packets/s";
		return -EINVAL;
	}
	pkt_dev->cfg.delay_ns = div64_u64(NSEC_PER_SEC, *val);
	return 0;
}

static int pg_apply_udp_src_min(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	struct pktgen_cursor *seed = pg_seed(pkt_dev, PG_SEED_UDP_SRC);

	pkt_dev->cfg.udp_src_min = *val;
	if (seed)
		seed->udp_src = *val;
	return 0;
}

static int pg_apply_udp_src_max(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	struct pktgen_cursor *seed = pg_seed(pkt_dev, PG_SEED_UDP_SRC);

	pkt_dev->cfg.udp_src_max = *val;
	if (seed)
		seed->udp_src = *val;
	return 0;
}

static int pg_apply_udp_dst_min(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	struct pktgen_cursor *seed = pg_seed(pkt_dev, PG_SEED_UDP_DST);

	pkt_dev->cfg.udp_dst_min = *val;
	if (seed)
		seed->udp_dst = *val;
	return 0;
}

static int pg_apply_udp_dst_max(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	struct pktgen_cursor *seed = pg_seed(pkt_dev, PG_SEED_UDP_DST);

	pkt_dev->cfg.udp_dst_max = *val;
	if (seed)
		seed->udp_dst = *val;
	return 0;
}

static int pg_apply_src_mac_count(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	struct pktgen_cursor *seed = pg_seed(pkt_dev, PG_SEED_SRC_MAC);

	pkt_dev->cfg.src_mac_count = *val;
	if (seed)
		seed->src_mac_offset = 0;
	return 0;
}

static int pg_apply_dst_mac_count(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	struct pktgen_cursor *seed = pg_seed(pkt_dev, PG_SEED_DST_MAC);

	pkt_dev->cfg.dst_mac_count = *val;
	if (seed)
		seed->dst_mac_offset = 0;
	return 0;
}

static int pg_apply_debug(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	WRITE_ONCE(pg_debug, *val);
	return 0;
}

static int pg_apply_frags(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	int err = pg_shape_check(pkt_dev, PG_SHAPE_FRAGS, *val, why);

	if (!err)
		pkt_dev->cfg.frags = *val;
	return err;
}

static int pg_apply_skb_priority(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	pkt_dev->cfg.skb_priority = *val;
	return 0;
}

static int pg_apply_queue_map_min(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	pkt_dev->cfg.queue_map_min = *val;
	return 0;
}

static int pg_apply_queue_map_max(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	pkt_dev->cfg.queue_map_max = *val;
	return 0;
}

static int pg_apply_flows(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	pkt_dev->cfg.flows = *val;
	return 0;
}

static int pg_apply_flowlen(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	pkt_dev->cfg.flowlen = *val;
	return 0;
}

static int pg_apply_spi(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	pkt_dev->cfg.spi = *val;
	return 0;
}

static int pg_apply_node(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	pkt_dev->cfg.node = *val;
	return 0;
}

static bool pg_vlan_on(const struct pktgen_config *cfg)
{
	return cfg->vlan_id != PG_VLAN_OFF;
}

static bool pg_svlan_on(const struct pktgen_config *cfg)
{
	return cfg->svlan_id != PG_VLAN_OFF;
}

/* vlan_id 0-4095: tag on (MPLS off); anything larger: both tags off. */
static int pg_apply_vlan_id(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	struct pktgen_config *cfg = &pkt_dev->cfg;

	if (*val > PG_MAX_VLAN_ID) {
		cfg->vlan_id = PG_VLAN_OFF;
		cfg->svlan_id = PG_VLAN_OFF;
		return 0;
	}
	cfg->vlan_id = *val;
	cfg->nr_mpls = 0;
	return 0;
}

/* svlan_id 0-4095 needs the inner tag; anything larger: both tags off. */
static int pg_apply_svlan_id(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	struct pktgen_config *cfg = &pkt_dev->cfg;

	if (*val > PG_MAX_VLAN_ID) {
		cfg->vlan_id = PG_VLAN_OFF;
		cfg->svlan_id = PG_VLAN_OFF;
		return 0;
	}
	if (!pg_vlan_on(cfg)) {
		*why = "svlan_id needs the inner tag: set vlan_id 0-4095 first";
		return -EINVAL;
	}
	cfg->svlan_id = *val;
	cfg->nr_mpls = 0;
	return 0;
}

/* Priority and CFI bits of a tag that must be on (upstream's wording). */
static int pg_set_tag_bits(u8 *field, u64 val, bool tag_on, const char *need,
			   const char **why)
{
	if (!tag_on) {
		*why = need;
		return -EINVAL;
	}
	*field = val;
	return 0;
}

static int pg_apply_vlan_p(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	return pg_set_tag_bits(&pkt_dev->cfg.vlan_p, *val, pg_vlan_on(&pkt_dev->cfg),
			       "vlan_p must be 0-7", why);
}

static int pg_apply_vlan_cfi(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	return pg_set_tag_bits(&pkt_dev->cfg.vlan_cfi, *val, pg_vlan_on(&pkt_dev->cfg),
			       "vlan_cfi must be 0-1", why);
}

static int pg_apply_svlan_p(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	return pg_set_tag_bits(&pkt_dev->cfg.svlan_p, *val, pg_svlan_on(&pkt_dev->cfg),
			       "svlan_p must be 0-7", why);
}

static int pg_apply_svlan_cfi(struct pktgen_dev *pkt_dev, u64 *val, const char **why)
{
	return pg_set_tag_bits(&pkt_dev->cfg.svlan_cfi, *val, pg_svlan_on(&pkt_dev->cfg),
			       "svlan_cfi must be 0-1", why);
}

#define PG_DIGITS_MAX	9999999999ULL

static const struct pg_num_cmd pg_num_cmds[] = {
	{ "count",		NULL,	0, PG_DIGITS_MAX,	pg_apply_count },
	{ "clone_skb",		NULL,	0, INT_MAX,		pg_apply_clone_skb },
	{ "burst",		NULL,	0, PG_MAX_BURST,	pg_apply_burst },
	{ "pkt_size",		NULL,	PG_MIN_PKT_SIZE, PG_MAX_PKT_SIZE, pg_apply_pkt_size },
	{ "min_pkt_size",	NULL,	PG_MIN_PKT_SIZE, PG_MAX_PKT_SIZE, pg_apply_min_pkt_size },
	{ "max_pkt_size",	NULL,	PG_MIN_PKT_SIZE, PG_MAX_PKT_SIZE, pg_apply_max_pkt_size },
	{ "delay",		NULL,	0, PG_DIGITS_MAX,	pg_apply_delay },
	{ "ipg",		"delay", 0, PG_DIGITS_MAX,	pg_apply_delay },
	{ "rate",		NULL,	0, PG_DIGITS_MAX,	pg_apply_rate },
	{ "ratep",		"rate",	0, PG_DIGITS_MAX,	pg_apply_ratep },
	{ "udp_src_min",	NULL,	0, U16_MAX,		pg_apply_udp_src_min },
	{ "udp_src_max",	NULL,	0, U16_MAX,		pg_apply_udp_src_max },
	{ "udp_dst_min",	NULL,	0, U16_MAX,		pg_apply_udp_dst_min },
	{ "udp_dst_max",	NULL,	0, U16_MAX,		pg_apply_udp_dst_max },
	{ "src_mac_count",	NULL,	0, INT_MAX,		pg_apply_src_mac_count },
	{ "dst_mac_count",	NULL,	0, INT_MAX,		pg_apply_dst_mac_count },
	{ "debug",		NULL,	0, INT_MAX,		pg_apply_debug },
	{ "frags",		NULL,	0, PG_MAX_FRAGS_CMD,	pg_apply_frags },
	{ "skb_priority",	NULL,	0, 999999999,		pg_apply_skb_priority },
	{ "queue_map_min",	NULL,	0, U16_MAX,		pg_apply_queue_map_min },
	{ "queue_map_max",	NULL,	0, U16_MAX,		pg_apply_queue_map_max },
	{ "flows",		NULL,	0, PG_MAX_FLOWS,	pg_apply_flows },
	{ "flowlen",		NULL,	0, U32_MAX,		pg_apply_flowlen },
#if IS_ENABLED(CONFIG_XFRM)
	{ "spi",		NULL,	0, U32_MAX,		pg_apply_spi },
#endif
	{ "node",		NULL,	0, U16_MAX,		pg_apply_node },
	{ "vlan_id",		NULL,	0, U16_MAX,		pg_apply_vlan_id },
	{ "vlan_p",		NULL,	0, 7,	pg_apply_vlan_p,	"vlan_p must be 0-7" },
	{ "vlan_cfi",		NULL,	0, 1,	pg_apply_vlan_cfi,	"vlan_cfi must be 0-1" },
	{ "svlan_id",		NULL,	0, U16_MAX,		pg_apply_svlan_id },
	{ "svlan_p",		NULL,	0, 7,	pg_apply_svlan_p,	"svlan_p must be 0-7" },
	{ "svlan_cfi",		NULL,	0, 1,	pg_apply_svlan_cfi,	"svlan_cfi must be 0-1" },
};

const struct pg_num_cmd *pg_num_cmd_find(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(pg_num_cmds); i++)
		if (!strcmp(name, pg_num_cmds[i].name))
			return &pg_num_cmds[i];
	return NULL;
}

/*
 * What upstream writes back into Params when a run starts: a size left
 * at 0 becomes the smallest frame, a queue range beyond the device's TX
 * queues is clamped (and said so).  The run resolves its own copy the
 * same way, so what Params shows is what is sent.  @pkt_dev->lock held.
 */
void pg_cfg_settle(struct pktgen_dev *pkt_dev)
{
	struct pktgen_config *cfg = &pkt_dev->cfg;
	unsigned int nq = pkt_dev->odev->real_num_tx_queues;
	u16 last = nq ? nq - 1 : 0;

	lockdep_assert_held(&pkt_dev->lock);
	pg_resolve_sizes(cfg);
	if (cfg->queue_map_min <= last && cfg->queue_map_max <= last)
		return;
	pr_warn("%s: queue_map_min/max %u/%u beyond %s's %u TX queues, using %u/%u\n",
		pkt_dev->name, cfg->queue_map_min, cfg->queue_map_max, pkt_dev->odev->name,
		last + 1, min(cfg->queue_map_min, last), min(cfg->queue_map_max, last));
	cfg->queue_map_min = min(cfg->queue_map_min, last);
	cfg->queue_map_max = min(cfg->queue_map_max, last);
}

/*
 * A successful change of the configuration: a running thread picks it
 * up, settled as at a start.
 */
void pg_cfg_changed(struct pktgen_dev *pkt_dev)
{
	lockdep_assert_held(&pkt_dev->lock);
	if (pkt_dev->running)
		pg_cfg_settle(pkt_dev);
	pkt_dev->cfg_gen++;
}

void pg_cfg_notify(struct pktgen_dev *pkt_dev)
{
	if (READ_ONCE(pkt_dev->running))
		pg_thread_kick(pkt_dev->thread);
}
