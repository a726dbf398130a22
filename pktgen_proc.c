// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the device, thread (kpktgend_<cpu>), pgctrl and pgstats files of
 * /proc/net/pktgen.
 *
 * A write is one command: "name value", "name=value" or "name = value".
 * Parsing happens on a private copy of the user's bytes, so it can never
 * read past what was written; a command is applied to the device's
 * configuration under its lock, and every write leaves a Result behind
 * ("OK: ..." or an error that says what is accepted).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>

#include "pktgen.h"
#include "pktgen_build.h"
#include "pktgen_ipopt_tx.h"

/* Command names longer than these do not exist (upstream's limits). */
#define PG_DEV_CMD_MAX		15
#define PG_THREAD_CMD_MAX	39
#define PG_MAX_BURST		1000000

#define PG_MAX_FRAGS_CMD	INT_MAX
#define PG_MAX_VLAN_ID		(VLAN_N_VID - 1)

/* Flag names in bit order: the order of the Flags line and of the list. */
static const char * const pg_flag_names[PG_FB_NBITS] = {
	[PG_FB_IPV6]		= "IPV6",
	[PG_FB_IPSRC_RND]	= "IPSRC_RND",
	[PG_FB_IPDST_RND]	= "IPDST_RND",
	[PG_FB_TXSIZE_RND]	= "TXSIZE_RND",
	[PG_FB_UDPSRC_RND]	= "UDPSRC_RND",
	[PG_FB_UDPDST_RND]	= "UDPDST_RND",
	[PG_FB_UDPCSUM]		= "UDPCSUM",
	[PG_FB_NO_TIMESTAMP]	= "NO_TIMESTAMP",
	[PG_FB_MPLS_RND]	= "MPLS_RND",
	[PG_FB_QUEUE_MAP_RND]	= "QUEUE_MAP_RND",
	[PG_FB_QUEUE_MAP_CPU]	= "QUEUE_MAP_CPU",
	[PG_FB_FLOW_SEQ]	= "FLOW_SEQ",
	[PG_FB_IPSEC]		= IS_ENABLED(CONFIG_XFRM) ? "IPSEC" : NULL,
	[PG_FB_MACSRC_RND]	= "MACSRC_RND",
	[PG_FB_MACDST_RND]	= "MACDST_RND",
	[PG_FB_VID_RND]		= "VID_RND",
	[PG_FB_SVID_RND]	= "SVID_RND",
	[PG_FB_NODE]		= "NODE",
	[PG_FB_SHARED]		= "SHARED",
	[PG_FB_NS_TIMESTAMP]	= "NS_TIMESTAMP",
};

/* Names older documents use; they set the same bit. */
static const struct {
	const char *name;
	enum pg_flag_bit bit;
} pg_flag_aliases[] = {
	{ "UDPDEST_RND",	PG_FB_UDPDST_RND },	/* the 2005 paper */
	{ "NODE_ALLOC",		PG_FB_NODE },		/* the kernel HOWTO */
};

/* "flag FLOW_RND" is the absence of FLOW_SEQ. */
#define PG_FLOW_RND_NAME	"FLOW_RND"

static const char * const pg_xmit_mode_names[] = {
	[PG_XMIT_START]		= "start_xmit",
	[PG_XMIT_RECEIVE]	= "netif_receive",
	[PG_XMIT_QUEUE]		= "queue_xmit",
};

/* ---- device commands -------------------------------------------------------- */

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
	bool shared;
};

/* The command that changes one of them */
enum pg_shape_cmd {
	PG_SHAPE_CLONE_SKB,
	PG_SHAPE_BURST,
	PG_SHAPE_XMIT_MODE,
	PG_SHAPE_IMIX,
	PG_SHAPE_SHARED,
	PG_SHAPE_CMDS
};

static bool pg_receive_clones(const struct pg_shape *s, bool sharing)
{
	return s->xmit_mode == PG_XMIT_RECEIVE && s->clone_skb;
}

static bool pg_queue_bursts(const struct pg_shape *s, bool sharing)
{
	return s->xmit_mode == PG_XMIT_QUEUE && s->burst > 1;
}

/* netif_receive gives each skb away; a burst there is many skbs */
static bool pg_shares_unshareable(const struct pg_shape *s, bool sharing)
{
	return !sharing && ((s->clone_skb && s->xmit_mode != PG_XMIT_RECEIVE) ||
			    (s->burst > 1 && s->xmit_mode == PG_XMIT_START));
}

static bool pg_clones_imix(const struct pg_shape *s, bool sharing)
{
	return s->clone_skb && s->nr_imix;
}

static bool pg_shares_unflagged(const struct pg_shape *s, bool sharing)
{
	return (s->clone_skb || s->burst > 1) && !s->shared;
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
		[PG_SHAPE_SHARED] = "flag !SHARED needs clone_skb 0 and burst 1" } },
};

static void pg_shape_of(const struct pktgen_config *cfg, struct pg_shape *s)
{
	s->clone_skb = cfg->clone_skb;
	s->burst = cfg->burst;
	s->xmit_mode = cfg->xmit_mode;
	s->nr_imix = cfg->nr_imix;
	s->shared = cfg->flags & PG_F(SHARED);
}

/*
 * May @cmd set its setting to @val?  0, or the errno and *@why of the
 * first rule the change breaks.  A rule broken already (the device lost
 * IFF_TX_SKB_SHARING since) refuses nothing: undoing must stay possible.
 * @pkt_dev->lock held.
 */
static int pg_shape_check(const struct pktgen_dev *pkt_dev, enum pg_shape_cmd cmd, u64 val,
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

/*
 * The seed to write field @f of, or NULL while the device runs (the run
 * starts from the configuration anyway).  A seed of an earlier idle spell
 * is dropped first.  @pkt_dev->lock held.
 */
static struct pktgen_cursor *pg_seed(struct pktgen_dev *pkt_dev, enum pg_seed_field f)
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
static void pg_shown_cursor(struct pktgen_dev *pkt_dev, struct pktgen_cursor *cur)
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
	pkt_dev->cfg.frags = *val;
	return 0;
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

/*
 * What upstream writes back into Params when a run starts: a size left
 * at 0 becomes the smallest frame, a queue range beyond the device's TX
 * queues is clamped (and said so).  The run resolves its own copy the
 * same way, so what Params shows is what is sent.  @pkt_dev->lock held.
 */
static void pg_cfg_settle(struct pktgen_dev *pkt_dev)
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
static void pg_cfg_changed(struct pktgen_dev *pkt_dev)
{
	lockdep_assert_held(&pkt_dev->lock);
	if (pkt_dev->running)
		pg_cfg_settle(pkt_dev);
	pkt_dev->cfg_gen++;
}

static void pg_cfg_notify(struct pktgen_dev *pkt_dev)
{
	if (READ_ONCE(pkt_dev->running))
		pg_thread_kick(pkt_dev->thread);
}

static int pg_error(struct pktgen_dev *pkt_dev, int err, const char *fmt, ...) __printf(3, 4);

static int pg_error(struct pktgen_dev *pkt_dev, int err, const char *fmt, ...)
{
	char why[PG_RESULT_LEN - 8];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	pg_set_result(pkt_dev, "ERROR: %s", why);
	return err;
}

static int pg_exec_num_cmd(struct pktgen_dev *pkt_dev, const struct pg_num_cmd *cmd,
			   const char *val)
{
	const char *why = NULL;
	u64 v;
	int err;

	if (pg_parse_num(val, cmd->max, &v)) {
		if (cmd->range)
			return pg_error(pkt_dev, -EINVAL, "%s", cmd->range);
		return pg_error(pkt_dev, -EINVAL, "%s takes a decimal number %llu-%llu",
				cmd->name, cmd->min, cmd->max);
	}
	v = max(v, cmd->min);

	spin_lock_bh(&pkt_dev->lock);
	err = cmd->apply(pkt_dev, &v, &why);
	if (!err)
		pg_cfg_changed(pkt_dev);
	spin_unlock_bh(&pkt_dev->lock);

	if (err)
		return pg_error(pkt_dev, err, "%s", why);
	pg_cfg_notify(pkt_dev);
	pg_dbg("%s: %s %llu: delay now %llu ns\n", pkt_dev->name, cmd->name, v,
	       READ_ONCE(pkt_dev->cfg.delay_ns));
	pg_set_result(pkt_dev, "OK: %s=%llu", cmd->shown ?: cmd->name, v);
	return 0;
}

/* "rate 300M", as the kernel HOWTO writes it: the unit is Mb/s anyway. */
static void pg_strip_rate_unit(char *val)
{
	size_t n = 0;

	while (isdigit(val[n]))
		n++;
	if (n && (val[n] == 'M' || val[n] == 'm') &&
	    (!val[n + 1] || pg_is_sep(val[n + 1])))
		val[n] = '\0';
}

/* IPv4 range ends: dst, dst_min, dst_max, src_min, src_max. */
struct pg_ipv4_cmd {
	const char *name;
	const char *shown;
	size_t text;		/* offsetof the text in pktgen_config */
	size_t addr;		/* offsetof the __be32 */
	enum pg_seed_field seed;	/* PG_SEED_SADDR or PG_SEED_DADDR */
};

#define PG_IPV4_CMD(_name, _shown, _t, _a, _s) { _name, _shown,	\
	offsetof(struct pktgen_config, _t),				\
	offsetof(struct pktgen_config, _a), PG_SEED_ ## _s }

static const struct pg_ipv4_cmd pg_ipv4_cmds[] = {
	PG_IPV4_CMD("dst",	"dst_min", dst_min_text, daddr_min, DADDR),
	PG_IPV4_CMD("dst_min",	"dst_min", dst_min_text, daddr_min, DADDR),
	PG_IPV4_CMD("dst_max",	"dst_max", dst_max_text, daddr_max, DADDR),
	PG_IPV4_CMD("src_min",	"src_min", src_min_text, saddr_min, SADDR),
	PG_IPV4_CMD("src_max",	"src_max", src_max_text, saddr_max, SADDR),
};

static int pg_exec_ipv4_cmd(struct pktgen_dev *pkt_dev, const struct pg_ipv4_cmd *cmd,
			    char *val)
{
	size_t len = pg_word_len(val);
	struct pktgen_cursor *seed;
	const char *end;
	__be32 addr = 0;
	char *text;

	val[len] = '\0';
	if (len >= PG_ADDR_TEXT_LEN ||
	    (len && (!in4_pton(val, len, (u8 *)&addr, -1, &end) || end != val + len)))
		return pg_error(pkt_dev, -EINVAL, "%s takes an IPv4 address (a.b.c.d)",
				cmd->name);

	spin_lock_bh(&pkt_dev->lock);
	text = (char *)&pkt_dev->cfg + cmd->text;
	if (strcmp(text, val)) {
		strscpy(text, val, PG_ADDR_TEXT_LEN);
		*(__be32 *)((char *)&pkt_dev->cfg + cmd->addr) = addr;
		seed = pg_seed(pkt_dev, cmd->seed);
		if (seed && cmd->seed == PG_SEED_SADDR)
			seed->saddr = addr;
		else if (seed)
			seed->daddr = addr;
		pg_cfg_changed(pkt_dev);
	}
	spin_unlock_bh(&pkt_dev->lock);

	pg_cfg_notify(pkt_dev);
	pg_set_result(pkt_dev, "OK: %s=%s", cmd->shown, val);
	return 0;
}

/* IPv6 addresses: dst6, dst6_min, dst6_max, src6, src6_min, src6_max. */
struct pg_ipv6_cmd {
	const char *name;
	size_t addr;		/* offsetof the address in pktgen_config */
	int seed;		/* PG_SEED_SADDR6, PG_SEED_DADDR6 or -1: none */
};

#define PG_IPV6_CMD(_name, _a, _s) { _name, offsetof(struct pktgen_config, _a), _s }

static const struct pg_ipv6_cmd pg_ipv6_cmds[] = {
	PG_IPV6_CMD("dst6",	dst6,		PG_SEED_DADDR6),
	PG_IPV6_CMD("dst6_min",	dst6_min,	PG_SEED_DADDR6),
	PG_IPV6_CMD("dst6_max",	dst6_max,	-1),
	PG_IPV6_CMD("src6",	src6,		PG_SEED_SADDR6),
	PG_IPV6_CMD("src6_min",	src6_min,	PG_SEED_SADDR6),
	PG_IPV6_CMD("src6_max",	src6_max,	-1),
};

/* Writing any of them switches the device to IPv6; "" means "::". */
static int pg_exec_ipv6_cmd(struct pktgen_dev *pkt_dev, const struct pg_ipv6_cmd *cmd,
			    char *val)
{
	size_t len = pg_word_len(val);
	struct pktgen_cursor *seed;
	struct in6_addr addr = {};
	const char *end;

	val[len] = '\0';
	if (len && (!in6_pton(val, len, addr.s6_addr, -1, &end) || end != val + len))
		return pg_error(pkt_dev, -EINVAL, "%s takes an IPv6 address (e.g. fd00::1)",
				cmd->name);

	spin_lock_bh(&pkt_dev->lock);
	*(struct in6_addr *)((char *)&pkt_dev->cfg + cmd->addr) = addr;
	pkt_dev->cfg.flags |= PG_F(IPV6);
	seed = cmd->seed < 0 ? NULL : pg_seed(pkt_dev, cmd->seed);
	if (seed && cmd->seed == PG_SEED_SADDR6)
		seed->saddr6 = addr;
	else if (seed)
		seed->daddr6 = addr;
	pg_cfg_changed(pkt_dev);
	spin_unlock_bh(&pkt_dev->lock);

	pg_cfg_notify(pkt_dev);
	pg_set_result(pkt_dev, "OK: %s=%pI6c", cmd->name, &addr);
	return 0;
}

/* One or two hex digits: tos, traffic_class. */
static int pg_parse_hex_byte(char *val, u8 *out)
{
	size_t len = pg_word_len(val);

	val[len] = '\0';
	if (len < 1 || len > 2)
		return -EINVAL;
	return kstrtou8(val, 16, out);
}

static int pg_cmd_hex_byte(struct pktgen_dev *pkt_dev, char *val, const char *name, u8 *field)
{
	u8 v;

	if (pg_parse_hex_byte(val, &v))
		return pg_error(pkt_dev, -EINVAL, "%s must be 00-ff", name);
	spin_lock_bh(&pkt_dev->lock);
	*field = v;
	pg_cfg_changed(pkt_dev);
	spin_unlock_bh(&pkt_dev->lock);
	pg_cfg_notify(pkt_dev);
	pg_set_result(pkt_dev, "OK: %s=0x%02x", name, v);
	return 0;
}

static int pg_cmd_tos(struct pktgen_dev *pkt_dev, char *val)
{
	return pg_cmd_hex_byte(pkt_dev, val, "tos", &pkt_dev->cfg.tos);
}

static int pg_cmd_traffic_class(struct pktgen_dev *pkt_dev, char *val)
{
	return pg_cmd_hex_byte(pkt_dev, val, "traffic_class", &pkt_dev->cfg.traffic_class);
}

#define PG_MPLS_FORM	"mpls takes 1-16 label stack entries of 1-8 hex digits, joined by commas (mpls 0 clears)"

/* "W1,W2,...": 32-bit label stack entries in hex. */
static int pg_parse_mpls(char *val, u32 *words, u32 *n)
{
	char *p = val, *word;
	size_t len;

	*n = 0;
	while ((word = strsep(&p, ","))) {
		len = strlen(word);
		if (len < 1 || len > 8 || kstrtou32(word, 16, &words[*n]))
			return -EINVAL;
		if (++*n == PG_MAX_MPLS && p)
			return -E2BIG;
	}
	return 0;
}

static int pg_cmd_mpls(struct pktgen_dev *pkt_dev, char *val)
{
	char shown[PG_MAX_MPLS * 9 + 1] = "";
	u32 words[PG_MAX_MPLS], n, i;
	size_t len = pg_word_len(val), used = 0;
	int err;

	val[len] = '\0';
	err = len ? pg_parse_mpls(val, words, &n) : -EINVAL;
	if (err == -E2BIG)
		return pg_error(pkt_dev, err, "mpls takes at most %d labels", PG_MAX_MPLS);
	if (err)
		return pg_error(pkt_dev, err, PG_MPLS_FORM);
	if (n == 1 && !words[0])
		n = 0;

	spin_lock_bh(&pkt_dev->lock);
	memcpy(pkt_dev->cfg.mpls, words, n * sizeof(words[0]));
	pkt_dev->cfg.nr_mpls = n;
	for (i = 0; i < n; i++) {
		/* a label written with the S bit is a random one */
		if (words[i] & 0x100)
			pkt_dev->cfg.flags |= PG_F(MPLS_RND);
	}
	if (n) {
		pkt_dev->cfg.vlan_id = PG_VLAN_OFF;
		pkt_dev->cfg.svlan_id = PG_VLAN_OFF;
	}
	pg_cfg_changed(pkt_dev);
	spin_unlock_bh(&pkt_dev->lock);

	for (i = 0; i < n; i++)
		used += scnprintf(shown + used, sizeof(shown) - used, "%s%08x",
				  i ? "," : "", words[i]);
	pg_cfg_notify(pkt_dev);
	pg_set_result(pkt_dev, "OK: mpls=%s", shown);
	return 0;
}

#define PG_IMIX_FORM	"imix_weights takes 1-20 entries size,weight (size 42-65535, weight 1-4294967295) separated by spaces, or off"

/* "S,W S,W ...": the value is the rest of the write. */
static int pg_parse_imix(char *val, struct pktgen_config *cfg, u32 *n)
{
	char *p = val, *entry, *weight;
	u32 size, w;

	*n = 0;
	while ((entry = strsep(&p, " \t"))) {
		if (!*entry)
			continue;	/* runs of blanks */
		if (*n == PG_MAX_IMIX)
			return -E2BIG;
		weight = strchr(entry, ',');
		if (!weight)
			return -EINVAL;
		*weight++ = '\0';
		if (!isdigit(*entry) || !isdigit(*weight) ||
		    kstrtou32(entry, 10, &size) || kstrtou32(weight, 10, &w) ||
		    size > PG_MAX_PKT_SIZE || !w)
			return -EINVAL;
		cfg->imix[*n].size = max_t(u32, size, PG_MIN_PKT_SIZE);
		cfg->imix[*n].weight = w;
		++*n;
	}
	return *n ? 0 : -EINVAL;
}

static int pg_cmd_imix_weights(struct pktgen_dev *pkt_dev, char *val)
{
	char shown[PG_RESULT_LEN - 32] = "";
	struct pktgen_config *tmp;
	const char *why;
	size_t used = 0;
	u32 n, i;
	int err;

	val = strim(val);
	tmp = kzalloc(sizeof(*tmp), GFP_KERNEL);
	if (!tmp)
		return -ENOMEM;
	n = 0;
	err = strcmp(val, "off") ? pg_parse_imix(val, tmp, &n) : 0;
	if (err) {
		kfree(tmp);
		if (err == -E2BIG)
			return pg_error(pkt_dev, err, "imix_weights takes at most %d entries",
					PG_MAX_IMIX);
		return pg_error(pkt_dev, err, PG_IMIX_FORM);
	}

	spin_lock_bh(&pkt_dev->lock);
	err = pg_shape_check(pkt_dev, PG_SHAPE_IMIX, n, &why);
	if (!err) {
		memcpy(pkt_dev->cfg.imix, tmp->imix, sizeof(tmp->imix));
		pkt_dev->cfg.nr_imix = n;
		pg_cfg_changed(pkt_dev);
	}
	spin_unlock_bh(&pkt_dev->lock);

	for (i = 0; i < n; i++)
		used += scnprintf(shown + used, sizeof(shown) - used, "%s%u,%u",
				  i ? " " : "", tmp->imix[i].size, tmp->imix[i].weight);
	kfree(tmp);
	if (err)
		return pg_error(pkt_dev, err, "%s", why);
	pg_cfg_notify(pkt_dev);
	pg_set_result(pkt_dev, "OK: imix_weights=%s", n ? shown : "off");
	return 0;
}

static int pg_cmd_xmit_mode(struct pktgen_dev *pkt_dev, char *val)
{
	size_t len = pg_word_len(val);
	const char *why;
	int mode, err;

	val[len] = '\0';
	mode = match_string(pg_xmit_mode_names, ARRAY_SIZE(pg_xmit_mode_names), val);
	if (mode < 0) {
		pg_set_result(pkt_dev, "xmit_mode -:%s:- unknown\nAvailable modes: %s, %s, %s",
			      val, pg_xmit_mode_names[0], pg_xmit_mode_names[1],
			      pg_xmit_mode_names[2]);
		return -EINVAL;
	}

	spin_lock_bh(&pkt_dev->lock);
	err = pg_shape_check(pkt_dev, PG_SHAPE_XMIT_MODE, mode, &why);
	if (!err) {
		pkt_dev->cfg.xmit_mode = mode;
		pg_cfg_changed(pkt_dev);
	}
	spin_unlock_bh(&pkt_dev->lock);

	if (err)
		return pg_error(pkt_dev, err, "%s", why);
	pg_cfg_notify(pkt_dev);
	pg_set_result(pkt_dev, "OK: xmit_mode=%s", pg_xmit_mode_names[mode]);
	return 0;
}

static const struct {
	const char *suffix;
	u64 ns;
} pg_time_units[] = {
	{ "s",	NSEC_PER_SEC },
	{ "ms",	NSEC_PER_MSEC },
	{ "us",	NSEC_PER_USEC },
	{ "ns",	1 },
};

/* A duration in ns as the largest unit that divides it: "10s", "250ms". */
static void pg_format_duration(char *buf, size_t len, u64 ns)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(pg_time_units) - 1; i++)
		if (!(ns % pg_time_units[i].ns))
			break;
	snprintf(buf, len, "%llu%s", div64_u64(ns, pg_time_units[i].ns),
		 pg_time_units[i].suffix);
}

#define PG_DURATION_FORM	"duration takes a number of ms, or N followed by s, ms, us or ns (0: no limit)"

/* "duration N[s|ms|us|ns]" (ms without a unit): run that long at most. */
static int pg_cmd_duration(struct pktgen_dev *pkt_dev, char *val)
{
	size_t len = pg_word_len(val), digits = 0;
	u64 n, unit = NSEC_PER_MSEC;
	char shown[32];
	int i;

	val[len] = '\0';
	while (isdigit(val[digits]))
		digits++;
	if (!digits || digits > PG_DIGITS)
		return pg_error(pkt_dev, -EINVAL, PG_DURATION_FORM);
	if (val[digits]) {
		for (i = 0; i < ARRAY_SIZE(pg_time_units); i++)
			if (!strcmp(val + digits, pg_time_units[i].suffix))
				break;
		if (i == ARRAY_SIZE(pg_time_units))
			return pg_error(pkt_dev, -EINVAL, PG_DURATION_FORM);
		unit = pg_time_units[i].ns;
		val[digits] = '\0';
	}
	if (kstrtou64(val, 10, &n) || check_mul_overflow(n, unit, &n))
		return pg_error(pkt_dev, -EINVAL, PG_DURATION_FORM);
	/* the deadline is a ktime_t: signed 64-bit ns, 292 years */
	if (n > KTIME_MAX)
		return pg_error(pkt_dev, -ERANGE, "duration must be at most %llus (292 years)",
				div_u64(KTIME_MAX, NSEC_PER_SEC));

	spin_lock_bh(&pkt_dev->lock);
	pkt_dev->cfg.duration_ns = n;
	pg_cfg_changed(pkt_dev);
	spin_unlock_bh(&pkt_dev->lock);

	pg_cfg_notify(pkt_dev);
	pg_format_duration(shown, sizeof(shown), n);
	pg_set_result(pkt_dev, "OK: duration=%s", n ? shown : "0");
	return 0;
}

/* "ip_opt <spec>": IPv4 options in every packet (pktgen_ipopt_tx.c). */
static int pg_cmd_ip_opt(struct pktgen_dev *pkt_dev, char *val)
{
	size_t len = pg_word_len(val);
	char spec[PG_IP_OPT_TEXT], *work;
	u8 opt[PG_IP_OPT_MAX];
	const char *why = NULL;
	unsigned int opt_len;
	int err;

	val[len] = '\0';
	if (!len || len >= sizeof(spec))
		return pg_error(pkt_dev, -EINVAL,
				"ip_opt takes none or an option list of at most %zu characters",
				sizeof(spec) - 1);
	strscpy(spec, val, sizeof(spec));
	work = val;		/* parsed in place; spec keeps the text */
	err = pg_ip_opt_parse(work, opt, &opt_len, &why);
	if (err)
		return pg_error(pkt_dev, err, "%s", why);
	/* "none" is always fine: it is how a script makes sure of no options */
	if (opt_len && (READ_ONCE(pkt_dev->cfg.flags) & PG_F(IPV6)))
		return pg_error(pkt_dev, -EINVAL, "ip_opt: IPv4 options need IPv4 (flag !IPV6)");

	spin_lock_bh(&pkt_dev->lock);
	memcpy(pkt_dev->cfg.ip_opt, opt, sizeof(opt));
	pkt_dev->cfg.ip_opt_len = opt_len;
	strscpy(pkt_dev->cfg.ip_opt_text, opt_len ? spec : "", sizeof(pkt_dev->cfg.ip_opt_text));
	pg_cfg_changed(pkt_dev);
	spin_unlock_bh(&pkt_dev->lock);

	pg_cfg_notify(pkt_dev);
	pg_set_result(pkt_dev, "OK: ip_opt=%s (%u bytes)", opt_len ? spec : "none", opt_len);
	return 0;
}

static int pg_cmd_inject(struct pktgen_dev *pkt_dev, char *val)
{
	int err;

	spin_lock_bh(&pkt_dev->lock);
	if (!pkt_dev->running)
		pg_cfg_settle(pkt_dev);
	spin_unlock_bh(&pkt_dev->lock);
	err = pg_dev_inject(pkt_dev);

	if (err == -EBUSY)
		return pg_error(pkt_dev, err, "inject: %s is already running", pkt_dev->name);
	if (err)
		return pg_error(pkt_dev, err, "inject: %s is being renamed or removed",
				pkt_dev->name);
	/* the run's statistics are the Result */
	return 0;
}

static int pg_cmd_mac(struct pktgen_dev *pkt_dev, char *val, bool dst)
{
	size_t len = pg_word_len(val);
	u8 mac[ETH_ALEN];

	val[len] = '\0';
	if (len != 3 * ETH_ALEN - 1 || !mac_pton(val, mac))
		return pg_error(pkt_dev, -EINVAL, "%s takes a MAC address (xx:xx:xx:xx:xx:xx)",
				dst ? "dst_mac" : "src_mac");

	spin_lock_bh(&pkt_dev->lock);
	ether_addr_copy(dst ? pkt_dev->cfg.dst_mac : pkt_dev->cfg.src_mac, mac);
	pg_cfg_changed(pkt_dev);
	spin_unlock_bh(&pkt_dev->lock);

	pg_cfg_notify(pkt_dev);
	pg_set_result(pkt_dev, "OK: %s %pM", dst ? "dstmac" : "srcmac", mac);
	return 0;
}

static int pg_cmd_dst_mac(struct pktgen_dev *pkt_dev, char *val)
{
	return pg_cmd_mac(pkt_dev, val, true);
}

static int pg_cmd_src_mac(struct pktgen_dev *pkt_dev, char *val)
{
	return pg_cmd_mac(pkt_dev, val, false);
}

/* A flag's bit, -1 if unknown; *invert for the FLOW_RND pseudo-flag. */
static int pg_flag_lookup(const char *name, bool *invert)
{
	int bit, i;

	*invert = false;
	for (bit = 0; bit < PG_FB_NBITS; bit++)
		if (pg_flag_names[bit] && !strcmp(pg_flag_names[bit], name))
			return bit;
	for (i = 0; i < ARRAY_SIZE(pg_flag_aliases); i++)
		if (!strcmp(pg_flag_aliases[i].name, name))
			return pg_flag_aliases[i].bit;
	if (!strcmp(name, PG_FLOW_RND_NAME)) {
		*invert = true;
		return PG_FB_FLOW_SEQ;
	}
	return -1;
}

static int pg_unknown_flag(struct pktgen_dev *pkt_dev, const char *name)
{
	char list[PG_RESULT_LEN] = "";
	size_t used = 0;
	int bit;

	for (bit = 0; bit < PG_FB_NBITS; bit++)
		if (pg_flag_names[bit])
			used += scnprintf(list + used, sizeof(list) - used, "%s%s",
					  used ? ", " : "", pg_flag_names[bit]);
	pg_set_result(pkt_dev,
		      "Flag -:%s:- unknown\nAvailable flags, (prepend ! to un-set flag):\n%s",
		      name, list);
	return -EINVAL;
}

static int pg_cmd_flag(struct pktgen_dev *pkt_dev, char *val)
{
	size_t len = pg_word_len(val);
	bool clear = val[0] == '!';
	const char *name = val + clear;
	const char *why;
	bool invert;
	int bit, err = 0;
	u32 flags;

	val[len] = '\0';
	bit = pg_flag_lookup(name, &invert);
	if (bit < 0)
		return pg_unknown_flag(pkt_dev, val);
	clear ^= invert;

	spin_lock_bh(&pkt_dev->lock);
	if (bit == PG_FB_SHARED)
		err = pg_shape_check(pkt_dev, PG_SHAPE_SHARED, !clear, &why);
	if (!err) {
		if (clear)
			pkt_dev->cfg.flags &= ~BIT(bit);
		else
			pkt_dev->cfg.flags |= BIT(bit);
		pg_cfg_changed(pkt_dev);
	}
	flags = pkt_dev->cfg.flags;
	spin_unlock_bh(&pkt_dev->lock);

	if (err)
		return pg_error(pkt_dev, err, "%s", why);
	pg_cfg_notify(pkt_dev);
	pg_set_result(pkt_dev, "OK: flags=0x%x", flags);
	return 0;
}

static int pg_cmd_clear_counters(struct pktgen_dev *pkt_dev, char *val)
{
	pg_dev_clear_counters(pkt_dev);
	pg_set_result(pkt_dev, "OK: Clearing counters.\n");
	return 0;
}

struct pg_str_cmd {
	const char *name;
	int (*exec)(struct pktgen_dev *pkt_dev, char *val);
};

static const struct pg_str_cmd pg_str_cmds[] = {
	{ "dst_mac",		pg_cmd_dst_mac },
	{ "dstmac",		pg_cmd_dst_mac },	/* the HOWTOs' spelling */
	{ "src_mac",		pg_cmd_src_mac },
	{ "srcmac",		pg_cmd_src_mac },
	{ "flag",		pg_cmd_flag },
	{ "clear_counters",	pg_cmd_clear_counters },
	{ "tos",		pg_cmd_tos },
	{ "traffic_class",	pg_cmd_traffic_class },
	{ "mpls",		pg_cmd_mpls },
	{ "imix_weights",	pg_cmd_imix_weights },
	{ "xmit_mode",		pg_cmd_xmit_mode },
	{ "inject",		pg_cmd_inject },
	{ "duration",		pg_cmd_duration },
	{ "ip_opt",		pg_cmd_ip_opt },
};

static int pg_dev_command(struct pktgen_dev *pkt_dev, const char *name, char *val)
{
	int i;

	if (!strcmp(name, "rate"))
		pg_strip_rate_unit(val);
	for (i = 0; i < ARRAY_SIZE(pg_num_cmds); i++)
		if (!strcmp(name, pg_num_cmds[i].name))
			return pg_exec_num_cmd(pkt_dev, &pg_num_cmds[i], val);
	for (i = 0; i < ARRAY_SIZE(pg_ipv4_cmds); i++)
		if (!strcmp(name, pg_ipv4_cmds[i].name))
			return pg_exec_ipv4_cmd(pkt_dev, &pg_ipv4_cmds[i], val);
	for (i = 0; i < ARRAY_SIZE(pg_ipv6_cmds); i++)
		if (!strcmp(name, pg_ipv6_cmds[i].name))
			return pg_exec_ipv6_cmd(pkt_dev, &pg_ipv6_cmds[i], val);
	for (i = 0; i < ARRAY_SIZE(pg_str_cmds); i++)
		if (!strcmp(name, pg_str_cmds[i].name))
			return pg_str_cmds[i].exec(pkt_dev, val);

	pg_set_result(pkt_dev, "No such parameter \"%s\"", name);
	return -EINVAL;
}

static ssize_t pg_dev_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct pktgen_dev *pkt_dev = pde_data(file_inode(file));
	const char *name, *why;
	char *buf, *val;
	int err;

	buf = pg_cmd_fetch(file, ubuf, count);
	if (IS_ERR(buf)) {
		why = pg_cmd_refusal(PTR_ERR(buf));
		if (why)
			pg_set_result(pkt_dev, "ERROR: %s", why);
		return PTR_ERR(buf);
	}
	val = pg_split_cmd(buf, &name, PG_DEV_CMD_MAX);
	if (!val) {
		pg_set_result(pkt_dev, "No such parameter \"%.*s\"", PG_DEV_CMD_MAX, name);
		err = -EINVAL;
	} else {
		err = pg_dev_command(pkt_dev, name, val);
	}
	kfree(buf);
	return err ?: count;
}

/* ---- device file: Params / Current / Result --------------------------------- */

static void pg_show_flags(struct seq_file *seq, const struct pktgen_config *cfg)
{
	int bit;

	seq_puts(seq, "     Flags: ");
	for (bit = 0; bit < PG_FB_NBITS; bit++) {
		/* flow order is shown only when there are flows */
		if (bit == PG_FB_FLOW_SEQ) {
			if (cfg->flows)
				seq_puts(seq, cfg->flags & BIT(bit) ? "FLOW_SEQ  " : "FLOW_RND  ");
			continue;
		}
		if (!(cfg->flags & BIT(bit)) || !pg_flag_names[bit])
			continue;
		seq_printf(seq, "%s  ", pg_flag_names[bit]);
		if (bit == PG_FB_IPSEC && cfg->spi)
			seq_printf(seq, "spi:%u  ", cfg->spi);
	}
	seq_puts(seq, "\n");
}

static void pg_show_addresses(struct seq_file *seq, const struct pktgen_config *cfg)
{
	if (cfg->flags & PG_F(IPV6)) {
		seq_printf(seq, "     saddr: %pI6c  min_saddr: %pI6c  max_saddr: %pI6c\n",
			   &cfg->src6, &cfg->src6_min, &cfg->src6_max);
		seq_printf(seq, "     daddr: %pI6c  min_daddr: %pI6c  max_daddr: %pI6c\n",
			   &cfg->dst6, &cfg->dst6_min, &cfg->dst6_max);
		return;
	}
	seq_printf(seq, "     dst_min: %s  dst_max: %s\n",
		   cfg->dst_min_text, cfg->dst_max_text);
	seq_printf(seq, "     src_min: %s  src_max: %s\n",
		   cfg->src_min_text, cfg->src_max_text);
}

/* The optional lines after the MAC counts, in upstream's order. */
static void pg_show_encap(struct seq_file *seq, const struct pktgen_config *cfg)
{
	u32 i;

	if (cfg->nr_mpls) {
		seq_puts(seq, "     mpls: ");
		for (i = 0; i < cfg->nr_mpls; i++)
			seq_printf(seq, "%08x%s", cfg->mpls[i],
				   i + 1 == cfg->nr_mpls ? "\n" : ", ");
	}
	if (cfg->vlan_id != PG_VLAN_OFF)
		seq_printf(seq, "     vlan_id: %u  vlan_p: %u  vlan_cfi: %u\n",
			   cfg->vlan_id, cfg->vlan_p, cfg->vlan_cfi);
	/* upstream labels the outer tag's bits vlan_p/vlan_cfi too */
	if (cfg->svlan_id != PG_VLAN_OFF)
		seq_printf(seq, "     svlan_id: %u  vlan_p: %u  vlan_cfi: %u\n",
			   cfg->svlan_id, cfg->svlan_p, cfg->svlan_cfi);
	if (cfg->tos)
		seq_printf(seq, "     tos: 0x%02x\n", cfg->tos);
	if (cfg->traffic_class)
		seq_printf(seq, "     traffic_class: 0x%02x\n", cfg->traffic_class);
	if (cfg->burst > 1)
		seq_printf(seq, "     burst: %u\n", cfg->burst);
	if (cfg->node >= 0)
		seq_printf(seq, "     node: %d\n", cfg->node);
	/* upstream shows queue_xmit as "xmit_queue" */
	if (cfg->xmit_mode == PG_XMIT_RECEIVE)
		seq_puts(seq, "     xmit_mode: netif_receive\n");
	else if (cfg->xmit_mode == PG_XMIT_QUEUE)
		seq_puts(seq, "     xmit_mode: xmit_queue\n");
	if (cfg->duration_ns) {
		char shown[32];

		pg_format_duration(shown, sizeof(shown), cfg->duration_ns);
		seq_printf(seq, "     duration: %s\n", shown);
	}
	if (cfg->ip_opt_len)
		seq_printf(seq, "     ip_opt: %s (%u bytes)\n", cfg->ip_opt_text, cfg->ip_opt_len);
}

static void pg_show_params(struct seq_file *seq, const struct pktgen_config *cfg,
			   const char *name, const u8 *dev_addr)
{
	u32 i;

	seq_printf(seq, "Params: count %llu  min_pkt_size: %u  max_pkt_size: %u\n",
		   cfg->count, cfg->min_pkt_size, cfg->max_pkt_size);
	if (cfg->nr_imix) {
		seq_puts(seq, "     imix_weights: ");
		for (i = 0; i < cfg->nr_imix; i++)
			seq_printf(seq, "%u,%u ", cfg->imix[i].size, cfg->imix[i].weight);
		seq_puts(seq, "\n");
	}
	seq_printf(seq, "     frags: %d  delay: %llu  clone_skb: %d  ifname: %s\n",
		   cfg->frags, cfg->delay_ns, cfg->clone_skb, name);
	seq_printf(seq, "     flows: %u flowlen: %u\n", cfg->flows, cfg->flowlen);
	seq_printf(seq, "     queue_map_min: %u  queue_map_max: %u\n",
		   cfg->queue_map_min, cfg->queue_map_max);
	if (cfg->skb_priority)
		seq_printf(seq, "     skb_priority: %u\n", cfg->skb_priority);
	pg_show_addresses(seq, cfg);
	seq_printf(seq, "     src_mac: %pM dst_mac: %pM\n",
		   is_zero_ether_addr(cfg->src_mac) ? dev_addr : cfg->src_mac,
		   cfg->dst_mac);
	seq_printf(seq, "     udp_src_min: %u  udp_src_max: %u  udp_dst_min: %u  udp_dst_max: %u\n",
		   cfg->udp_src_min, cfg->udp_src_max, cfg->udp_dst_min, cfg->udp_dst_max);
	seq_printf(seq, "     src_mac_count: %u  dst_mac_count: %u\n",
		   cfg->src_mac_count, cfg->dst_mac_count);
	pg_show_encap(seq, cfg);
	pg_show_flags(seq, cfg);
}

/* Counters are written by the thread only; a read may see them mid-run. */
static void pg_show_current(struct seq_file *seq, struct pktgen_dev *pkt_dev,
			    const struct pktgen_config *cfg)
{
	const struct pktgen_run *r = &pkt_dev->run;
	bool running = READ_ONCE(pkt_dev->running);
	ktime_t stopped = running ? ktime_get() : READ_ONCE(r->stopped_at);
	struct pktgen_cursor cur;
	u32 i;

	pg_shown_cursor(pkt_dev, &cur);

	seq_puts(seq, "Current:\n");
	seq_printf(seq, "     pkts-sofar: %llu  errors: %llu\n",
		   READ_ONCE(r->sofar), READ_ONCE(r->errors));
	if (cfg->nr_imix) {
		seq_puts(seq, "     imix_size_counts: ");
		for (i = 0; i < cfg->nr_imix; i++)
			seq_printf(seq, "%u,%llu ", cfg->imix[i].size,
				   READ_ONCE(r->imix_counts[i]));
		seq_puts(seq, "\n");
	}
	seq_printf(seq, "     started: %lluus  stopped: %lluus idle: %lluus\n",
		   (u64)ktime_to_us(READ_ONCE(r->started_at)), (u64)ktime_to_us(stopped),
		   div_u64(READ_ONCE(r->idle_ns), NSEC_PER_USEC));
	seq_printf(seq, "     seq_num: %llu  cur_dst_mac_offset: %u  cur_src_mac_offset: %u\n",
		   READ_ONCE(r->seq_num), cur.dst_mac_offset, cur.src_mac_offset);
	if (cfg->flags & PG_F(IPV6))
		seq_printf(seq, "     cur_saddr: %pI6c  cur_daddr: %pI6c\n",
			   &cur.saddr6, &cur.daddr6);
	else
		seq_printf(seq, "     cur_saddr: %pI4  cur_daddr: %pI4\n",
			   &cur.saddr, &cur.daddr);
	seq_printf(seq, "     cur_udp_dst: %u  cur_udp_src: %u\n", cur.udp_dst, cur.udp_src);
	seq_printf(seq, "     cur_queue_map: %u\n", cur.queue_map);
	seq_printf(seq, "     flows: %llu\n", READ_ONCE(r->flow_starts));
}

static int pg_dev_show(struct seq_file *seq, void *v)
{
	struct pktgen_dev *pkt_dev = seq->private;
	struct pktgen_config *cfg;
	char name[PG_NAME_LEN];
	char *result;

	cfg = kmalloc(sizeof(*cfg), GFP_KERNEL);
	result = kmalloc(PG_RESULT_LEN, GFP_KERNEL);
	if (!cfg || !result)
		goto out;

	spin_lock_bh(&pkt_dev->lock);
	*cfg = pkt_dev->cfg;
	strscpy(name, pkt_dev->name, sizeof(name));
	strscpy(result, pkt_dev->result, PG_RESULT_LEN);
	spin_unlock_bh(&pkt_dev->lock);

	pg_show_params(seq, cfg, name, pkt_dev->odev->dev_addr);
	pg_show_current(seq, pkt_dev, cfg);
	seq_printf(seq, "Result: %s\n", result[0] ? result : "Idle");
out:
	kfree(result);
	kfree(cfg);
	return 0;
}

/*
 * A file whose name is no longer its device's is the old file of a
 * rename, going away (pg_dev_rename_file()): it opens no more.
 */
static int pg_dev_open(struct inode *inode, struct file *file)
{
	struct pktgen_dev *pkt_dev = pde_data(inode);
	bool stale;

	spin_lock_bh(&pkt_dev->lock);
	stale = strcmp(file_dentry(file)->d_name.name, pkt_dev->name);
	spin_unlock_bh(&pkt_dev->lock);
	if (stale)
		return -ENOENT;
	return single_open(file, pg_dev_show, pkt_dev);
}

const struct proc_ops pg_dev_proc_ops = {
	.proc_open	= pg_dev_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_write	= pg_dev_write,
	.proc_release	= single_release,
};

/* ---- pgstats: every device's counters as key=value ----------------------- */

/* The Result on one line, for a key=value reader. */
static void pg_stats_result(struct seq_file *seq, const char *result)
{
	const char *p;

	seq_puts(seq, "result=");
	for (p = result[0] ? result : "Idle"; *p; p++)
		if (*p != '\n')
			seq_putc(seq, *p);
		else if (p[1])
			seq_putc(seq, ' ');
	seq_putc(seq, '\n');
}

static void pg_stats_device(struct seq_file *seq, struct pktgen_dev *pkt_dev,
			    const struct pktgen_thread *t, char *result)
{
	const struct pktgen_run *r = &pkt_dev->run;
	bool running = READ_ONCE(pkt_dev->running);
	ktime_t stopped = running ? ktime_get() : READ_ONCE(r->stopped_at);
	u64 elapsed = ktime_to_ns(ktime_sub(stopped, READ_ONCE(r->started_at)));
	u64 sofar = READ_ONCE(r->sofar), bytes = READ_ONCE(r->tx_bytes);
	struct pktgen_cursor cur;
	u64 pps = 0, bps = 0;
	u64 count;

	pg_shown_cursor(pkt_dev, &cur);

	spin_lock_bh(&pkt_dev->lock);
	strscpy(result, pkt_dev->result, PG_RESULT_LEN);
	count = pkt_dev->cfg.count;
	spin_unlock_bh(&pkt_dev->lock);

	if (elapsed) {
		pps = mul_u64_u64_div_u64(sofar, NSEC_PER_SEC, elapsed);
		bps = mul_u64_u64_div_u64(bytes * 8, NSEC_PER_SEC, elapsed);
	}
	/* not odev->name: the netdev may be going away under RCU */
	seq_printf(seq, "device=%s\nifname=%.*s\nthread=%u\nrunning=%d\n",
		   pkt_dev->name, (int)strcspn(pkt_dev->name, "@"), pkt_dev->name, t->cpu, running);
	seq_printf(seq, "count=%llu\npkts_sofar=%llu\nerrors=%llu\ntx_bytes=%llu\n",
		   count, sofar, READ_ONCE(r->errors), bytes);
	seq_printf(seq, "seq_num=%llu\npkt_size=%u\n", READ_ONCE(r->seq_num), cur.pkt_size);
	seq_printf(seq, "started_us=%llu\nelapsed_us=%llu\nidle_us=%llu\n",
		   (u64)ktime_to_us(READ_ONCE(r->started_at)), div_u64(elapsed, NSEC_PER_USEC),
		   div_u64(READ_ONCE(r->idle_ns), NSEC_PER_USEC));
	seq_printf(seq, "pps=%llu\nbps=%llu\n", pps, bps);
	pg_stats_result(seq, result);
}

/*
 * /proc/net/pktgen/pgstats: one block per device, blank-line separated,
 * stable key names (Documentation: "Results for scripts").
 */
int pg_stats_show(struct seq_file *seq, void *v)
{
	struct pktgen_net *pn = seq->private;
	struct pktgen_thread *t;
	struct pktgen_dev *pkt_dev;
	char *result;

	result = kmalloc(PG_RESULT_LEN, GFP_KERNEL);
	if (!result)
		return -ENOMEM;
	seq_puts(seq, "pgstats_version=1\n");
	rcu_read_lock();
	list_for_each_entry_rcu(t, &pn->threads, list)
		list_for_each_entry_rcu(pkt_dev, &t->devs, list) {
			seq_putc(seq, '\n');
			pg_stats_device(seq, pkt_dev, t, result);
		}
	rcu_read_unlock();
	kfree(result);
	return 0;
}

/* ---- thread file (kpktgend_<cpu>) ------------------------------------------ */

static int pg_thread_show(struct seq_file *seq, void *v)
{
	struct pktgen_thread *t = seq->private;
	struct pktgen_dev *pkt_dev;

	seq_puts(seq, "Running: ");
	rcu_read_lock();
	list_for_each_entry_rcu(pkt_dev, &t->devs, list)
		if (READ_ONCE(pkt_dev->running))
			seq_printf(seq, "%s ", pkt_dev->name);
	seq_puts(seq, "\nStopped: ");
	list_for_each_entry_rcu(pkt_dev, &t->devs, list)
		if (!READ_ONCE(pkt_dev->running))
			seq_printf(seq, "%s ", pkt_dev->name);
	rcu_read_unlock();

	spin_lock_bh(&t->result_lock);
	seq_printf(seq, "\nResult: %s\n", t->result[0] ? t->result : "NA");
	spin_unlock_bh(&t->result_lock);
	return 0;
}

static int pg_thread_add_device(struct pktgen_thread *t, char *val)
{
	size_t len = pg_word_len(val);
	int err;

	val[len] = '\0';
	err = len ? pg_add_device(t, val) : -EINVAL;
	if (err == -EEXIST)
		pg_thread_set_result(t, "ERROR: can not add device %s: %s", val,
				     "one of pktgen's own files has that name");
	else if (err)
		pg_thread_set_result(t, "ERROR: can not add device %s", val);
	else
		pg_thread_set_result(t, "OK: add_device=%s", val);
	return err;
}

static ssize_t pg_thread_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct pktgen_thread *t = pde_data(file_inode(file));
	const char *name, *why;
	char *buf, *val;
	int err = 0;

	buf = pg_cmd_fetch(file, ubuf, count);
	if (IS_ERR(buf)) {
		why = pg_cmd_refusal(PTR_ERR(buf));
		if (why)
			pg_thread_set_result(t, "ERROR: %s", why);
		return PTR_ERR(buf);
	}
	val = pg_split_cmd(buf, &name, PG_THREAD_CMD_MAX);

	err = pg_thread_start(t);
	if (err) {
		pg_thread_set_result(t, "ERROR: cannot start %s%u: error %d",
				     PG_THREAD_PREFIX, t->cpu, err);
	} else if (val && !strcmp(name, "add_device")) {
		err = pg_thread_add_device(t, val);
	} else if (val && !strcmp(name, "rem_device_all")) {
		pg_thread_post_wait(t, PG_CTL_REMDEVALL);
		pg_thread_set_result(t, "OK: rem_device_all");
	} else if (val && !strcmp(name, "max_before_softirq")) {
		/* Obsolete since 2.6; accepted so old scripts keep working. */
		pg_thread_set_result(t, "OK: Note! max_before_softirq is obsoleted -- Do not use");
	} else {
		pg_thread_set_result(t, "No such parameter \"%.*s\"",
				     PG_THREAD_CMD_MAX, name);
		err = -EINVAL;
	}
	kfree(buf);
	return err ?: count;
}

static int pg_thread_open(struct inode *inode, struct file *file)
{
	return single_open(file, pg_thread_show, pde_data(inode));
}

const struct proc_ops pg_thread_proc_ops = {
	.proc_open	= pg_thread_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_write	= pg_thread_write,
	.proc_release	= single_release,
};

/* ---- pgctrl --------------------------------------------------------------- */

static int pg_ctrl_show(struct seq_file *seq, void *v)
{
	seq_puts(seq, "Packet Generator for packet performance testing. Version: "
		 PG_IFACE_VERSION "\n");
	return 0;
}

static int pg_ctrl_open(struct inode *inode, struct file *file)
{
	return single_open(file, pg_ctrl_show, pde_data(inode));
}

/* pgctrl "start" settles the Params of every device it will run. */
static void pg_ctrl_settle_all(struct pktgen_net *pn)
{
	struct pktgen_thread *t;
	struct pktgen_dev *pkt_dev;

	rcu_read_lock();
	list_for_each_entry_rcu(t, &pn->threads, list) {
		list_for_each_entry_rcu(pkt_dev, &t->devs, list) {
			spin_lock_bh(&pkt_dev->lock);
			if (!pkt_dev->running)
				pg_cfg_settle(pkt_dev);
			spin_unlock_bh(&pkt_dev->lock);
		}
	}
	rcu_read_unlock();
}

static ssize_t pg_ctrl_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct pktgen_net *pn = pde_data(file_inode(file));
	size_t len;
	char *cmd;
	int err = 0;

	/* pgctrl has no Result: a refused or unknown command is its errno */
	cmd = pg_cmd_fetch(file, ubuf, count);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	/* upstream's exact words: "start\n" (echo), "start" (echo -n), "start\0" */
	len = strlen(cmd);
	if (len && cmd[len - 1] == '\n')
		cmd[--len] = '\0';

	if (!strcmp(cmd, "start")) {
		pg_ctrl_settle_all(pn);
		pg_ctrl_start(pn);
	} else if (!strcmp(cmd, "stop")) {
		pg_ctrl_post_all(pn, PG_CTL_STOP);
	} else if (!strcmp(cmd, "reset")) {
		pg_ctrl_post_all(pn, PG_CTL_REMDEVALL);
	} else {
		err = -EINVAL;
	}
	kfree(cmd);
	return err ?: count;
}

const struct proc_ops pg_ctrl_proc_ops = {
	.proc_open	= pg_ctrl_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_write	= pg_ctrl_write,
	.proc_release	= single_release,
};
