// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the commands of a device file.
 *
 * A write is one command: "name value", "name=value" or "name = value".
 * Parsing happens on a private copy of the user's bytes, so it can never
 * read past what was written; a command is applied to the device's
 * configuration under its lock (the rules are pktgen_rules.c's), and every
 * write leaves a Result behind ("OK: ..." or an error that says what is
 * accepted).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/etherdevice.h>
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "pktgen.h"
#include "pktgen_set.h"
#include "pktgen_rules.h"
#include "pktgen_thread.h"
#include "pktgen_xdp.h"
#include "pktgen_dev.h"
#include "pktgen_ctl.h"
#include "pktgen_cmd.h"
#include "pktgen_ipopt_tx.h"

/* Flag names in bit order: the order of the Flags line and of the list. */
const char * const pg_flag_names[PG_FB_NBITS] = {
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
	[PG_XMIT_XDP]		= "xdp",
};

/* ---- device commands -------------------------------------------------------- */

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
		/* upstream's text, which lists its own three modes, not xdp */
		pg_set_result(pkt_dev, "xmit_mode -:%s:- unknown\nAvailable modes: %s, %s, %s",
			      val, pg_xmit_mode_names[PG_XMIT_START],
			      pg_xmit_mode_names[PG_XMIT_RECEIVE],
			      pg_xmit_mode_names[PG_XMIT_QUEUE]);
		return -EINVAL;
	}
	why = mode == PG_XMIT_XDP ? pg_xdp_refusal(pkt_dev->odev) : NULL;
	if (why)
		return pg_error(pkt_dev, -EOPNOTSUPP, "%s", why);

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
void pg_format_duration(char *buf, size_t len, u64 ns)
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
		return pg_error(pkt_dev, err, "inject: %s is already running, or a start_at waits",
				pkt_dev->name);
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
	else if (bit == PG_FB_IPSEC)
		err = pg_shape_check(pkt_dev, PG_SHAPE_IPSEC, !clear, &why);
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

int pg_dev_command(struct pktgen_dev *pkt_dev, const char *name, char *val)
{
	const struct pg_num_cmd *num;
	int i;

	if (!strcmp(name, "rate"))
		pg_strip_rate_unit(val);
	num = pg_num_cmd_find(name);
	if (num)
		return pg_exec_num_cmd(pkt_dev, num, val);
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
