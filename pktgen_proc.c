// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the thread (kpktgend_<cpu>) and device files of /proc/net/pktgen.
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
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>

#include "pktgen.h"

/* Longest command we look at; the rest of a longer write is ignored. */
#define PG_WRITE_MAX		1024
/* Command names longer than these do not exist (upstream's limits). */
#define PG_DEV_CMD_MAX		15
#define PG_THREAD_CMD_MAX	39
#define PG_DIGITS		10
#define PG_MAX_BURST		1000000

static const char * const pg_flag_names[PG_FB_NBITS] = {
	[PG_FB_IPSRC_RND]	= "IPSRC_RND",
	[PG_FB_IPDST_RND]	= "IPDST_RND",
	[PG_FB_TXSIZE_RND]	= "TXSIZE_RND",
	[PG_FB_UDPSRC_RND]	= "UDPSRC_RND",
	[PG_FB_UDPDST_RND]	= "UDPDST_RND",
	[PG_FB_NO_TIMESTAMP]	= "NO_TIMESTAMP",
	[PG_FB_MACSRC_RND]	= "MACSRC_RND",
	[PG_FB_MACDST_RND]	= "MACDST_RND",
	[PG_FB_SHARED]		= "SHARED",
};

/* ---- parsing helpers ------------------------------------------------------ */

static bool pg_is_sep(char c)
{
	return c == '"' || c == '\n' || c == '\r' || c == '\t' || c == ' ' || c == '=';
}

static const char *pg_skip_seps(const char *p)
{
	while (*p && pg_is_sep(*p))
		p++;
	return p;
}

/* Length of the word at @p: up to a separator or the end of the string. */
static size_t pg_word_len(const char *p)
{
	size_t n = 0;

	while (p[n] && !pg_is_sep(p[n]))
		n++;
	return n;
}

/*
 * Copy a write into a NUL-terminated kernel string.  A NUL inside the
 * write ends the command, like the C string upstream parsed.
 */
static char *pg_copy_cmd(const char __user *ubuf, size_t count)
{
	size_t len = min_t(size_t, count, PG_WRITE_MAX - 1);
	char *buf;

	buf = kmalloc(len + 1, GFP_KERNEL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	if (copy_from_user(buf, ubuf, len)) {
		kfree(buf);
		return ERR_PTR(-EFAULT);
	}
	buf[len] = '\0';
	return buf;
}

/*
 * Split "name<seps>value" in place.  Returns the value (possibly "") and
 * stores the name, or NULL when the name is longer than @max_name.
 */
static char *pg_split_cmd(char *buf, const char **name, size_t max_name)
{
	char *p = (char *)pg_skip_seps(buf);
	size_t len = pg_word_len(p);
	char *val;

	*name = p;
	val = (char *)pg_skip_seps(p + len);
	p[len] = '\0';
	return len > max_name ? NULL : val;
}

/*
 * A decimal number of at most @digits digits, ending at a separator or
 * the end.  No value at all reads as 0, as upstream (and its selftest)
 * expects; anything else that is not a number is refused.
 */
static int pg_parse_num(const char *val, u64 max, u64 *out)
{
	unsigned int n = 0;
	u64 v = 0;

	while (isdigit(val[n])) {
		if (n == PG_DIGITS)
			return -EINVAL;
		v = v * 10 + (val[n] - '0');
		n++;
	}
	if (val[n] && !pg_is_sep(val[n]))
		return -EINVAL;
	if (v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static bool pg_may_write(struct pktgen_net *pn)
{
	return ns_capable(pn->net->user_ns, CAP_NET_ADMIN);
}

/* ---- device commands -------------------------------------------------------- */

/*
 * A numeric command.  apply() runs under pkt->lock with the parsed value;
 * it may change *val to the value the Result shows, or refuse with an
 * errno and a reason.
 */
struct pg_num_cmd {
	const char *name;
	const char *shown;	/* name in "OK: <shown>=<n>"; NULL: name */
	u64 min;		/* smaller values are raised to this */
	u64 max;
	int (*apply)(struct pktgen_dev *pkt, u64 *val, const char **why);
};

static int pg_apply_count(struct pktgen_dev *pkt, u64 *val, const char **why)
{
	pkt->cfg.count = *val;
	return 0;
}

static bool pg_skb_sharing(const struct pktgen_dev *pkt)
{
	return pkt->odev->priv_flags & IFF_TX_SKB_SHARING;
}

static int pg_apply_clone_skb(struct pktgen_dev *pkt, u64 *val, const char **why)
{
	if (*val && !pg_skb_sharing(pkt)) {
		*why = "clone_skb > 0 needs a device with IFF_TX_SKB_SHARING";
		return -EOPNOTSUPP;
	}
	if (*val && !(pkt->cfg.flags & PG_F(SHARED))) {
		*why = "clone_skb needs flag SHARED";
		return -EINVAL;
	}
	pkt->cfg.clone_skb = *val;
	return 0;
}

static int pg_apply_burst(struct pktgen_dev *pkt, u64 *val, const char **why)
{
	if (*val > 1 && !pg_skb_sharing(pkt)) {
		*why = "burst > 1 needs a device with IFF_TX_SKB_SHARING";
		return -EOPNOTSUPP;
	}
	if (*val > 1 && !(pkt->cfg.flags & PG_F(SHARED))) {
		*why = "burst > 1 needs flag SHARED";
		return -EINVAL;
	}
	*val = max_t(u64, *val, 1);
	pkt->cfg.burst = *val;
	return 0;
}

static void pg_cur_pkt_size(struct pktgen_dev *pkt, u32 size)
{
	if (!pkt->running)
		pkt->run.cur.pkt_size = size;
}

static int pg_apply_pkt_size(struct pktgen_dev *pkt, u64 *val, const char **why)
{
	pkt->cfg.min_pkt_size = *val;
	pkt->cfg.max_pkt_size = *val;
	pg_cur_pkt_size(pkt, *val);
	return 0;
}

static int pg_apply_min_pkt_size(struct pktgen_dev *pkt, u64 *val, const char **why)
{
	pkt->cfg.min_pkt_size = *val;
	pg_cur_pkt_size(pkt, *val);
	return 0;
}

static int pg_apply_max_pkt_size(struct pktgen_dev *pkt, u64 *val, const char **why)
{
	pkt->cfg.max_pkt_size = *val;
	pg_cur_pkt_size(pkt, *val);
	return 0;
}

static int pg_apply_delay(struct pktgen_dev *pkt, u64 *val, const char **why)
{
	if (*val == PG_DELAY_NEVER_CMD)
		*val = PG_DELAY_NEVER;
	pkt->cfg.delay_ns = *val;
	return 0;
}

/* "rate N": N Mb/s for frames of min_pkt_size (FCS excluded). */
static int pg_apply_rate(struct pktgen_dev *pkt, u64 *val, const char **why)
{
	u32 size = pkt->cfg.min_pkt_size ?: PG_MIN_PKT_SIZE + PG_HDR_LEN;

	if (!*val) {
		*why = "rate must be 1 or more Mb/s";
		return -EINVAL;
	}
	pkt->cfg.delay_ns = div64_u64((u64)size * 8 * NSEC_PER_USEC, *val);
	return 0;
}

static int pg_apply_ratep(struct pktgen_dev *pkt, u64 *val, const char **why)
{
	if (!*val) {
		*why = "ratep must be 1 or more packets/s";
		return -EINVAL;
	}
	pkt->cfg.delay_ns = div64_u64(NSEC_PER_SEC, *val);
	return 0;
}

static int pg_apply_udp_src_min(struct pktgen_dev *pkt, u64 *val, const char **why)
{
	pkt->cfg.udp_src_min = *val;
	if (!pkt->running)
		pkt->run.cur.udp_src = *val;
	return 0;
}

static int pg_apply_udp_src_max(struct pktgen_dev *pkt, u64 *val, const char **why)
{
	pkt->cfg.udp_src_max = *val;
	if (!pkt->running)
		pkt->run.cur.udp_src = *val;
	return 0;
}

static int pg_apply_udp_dst_min(struct pktgen_dev *pkt, u64 *val, const char **why)
{
	pkt->cfg.udp_dst_min = *val;
	if (!pkt->running)
		pkt->run.cur.udp_dst = *val;
	return 0;
}

static int pg_apply_udp_dst_max(struct pktgen_dev *pkt, u64 *val, const char **why)
{
	pkt->cfg.udp_dst_max = *val;
	if (!pkt->running)
		pkt->run.cur.udp_dst = *val;
	return 0;
}

static int pg_apply_src_mac_count(struct pktgen_dev *pkt, u64 *val, const char **why)
{
	pkt->cfg.src_mac_count = *val;
	if (!pkt->running)
		pkt->run.cur.src_mac_offset = 0;
	return 0;
}

static int pg_apply_dst_mac_count(struct pktgen_dev *pkt, u64 *val, const char **why)
{
	pkt->cfg.dst_mac_count = *val;
	if (!pkt->running)
		pkt->run.cur.dst_mac_offset = 0;
	return 0;
}

static int pg_apply_debug(struct pktgen_dev *pkt, u64 *val, const char **why)
{
	WRITE_ONCE(pg_debug, *val);
	return 0;
}

static const struct pg_num_cmd pg_num_cmds[] = {
	{ "count",		NULL,	0, 9999999999ULL,	pg_apply_count },
	{ "clone_skb",		NULL,	0, INT_MAX,		pg_apply_clone_skb },
	{ "burst",		NULL,	0, PG_MAX_BURST,	pg_apply_burst },
	{ "pkt_size",		NULL,	PG_MIN_PKT_SIZE, PG_MAX_PKT_SIZE, pg_apply_pkt_size },
	{ "min_pkt_size",	NULL,	PG_MIN_PKT_SIZE, PG_MAX_PKT_SIZE, pg_apply_min_pkt_size },
	{ "max_pkt_size",	NULL,	PG_MIN_PKT_SIZE, PG_MAX_PKT_SIZE, pg_apply_max_pkt_size },
	{ "delay",		NULL,	0, 9999999999ULL,	pg_apply_delay },
	{ "rate",		NULL,	0, 9999999999ULL,	pg_apply_rate },
	{ "ratep",		"rate",	0, 9999999999ULL,	pg_apply_ratep },
	{ "udp_src_min",	NULL,	0, U16_MAX,		pg_apply_udp_src_min },
	{ "udp_src_max",	NULL,	0, U16_MAX,		pg_apply_udp_src_max },
	{ "udp_dst_min",	NULL,	0, U16_MAX,		pg_apply_udp_dst_min },
	{ "udp_dst_max",	NULL,	0, U16_MAX,		pg_apply_udp_dst_max },
	{ "src_mac_count",	NULL,	0, INT_MAX,		pg_apply_src_mac_count },
	{ "dst_mac_count",	NULL,	0, INT_MAX,		pg_apply_dst_mac_count },
	{ "debug",		NULL,	0, INT_MAX,		pg_apply_debug },
};

/* A successful change of the configuration: a running thread picks it up. */
static void pg_cfg_changed(struct pktgen_dev *pkt)
{
	lockdep_assert_held(&pkt->lock);
	pkt->cfg_gen++;
}

static void pg_cfg_notify(struct pktgen_dev *pkt)
{
	if (READ_ONCE(pkt->running))
		pg_thread_kick(pkt->thread);
}

static int pg_error(struct pktgen_dev *pkt, int err, const char *fmt, ...) __printf(3, 4);

static int pg_error(struct pktgen_dev *pkt, int err, const char *fmt, ...)
{
	char why[PG_RESULT_LEN - 8];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	pg_set_result(pkt, "ERROR: %s", why);
	return err;
}

static int pg_run_num_cmd(struct pktgen_dev *pkt, const struct pg_num_cmd *cmd,
			  const char *val)
{
	const char *why = NULL;
	u64 v;
	int err;

	if (pg_parse_num(val, cmd->max, &v))
		return pg_error(pkt, -EINVAL, "%s takes a decimal number %llu-%llu",
				cmd->name, cmd->min, cmd->max);
	v = max(v, cmd->min);

	spin_lock_bh(&pkt->lock);
	err = cmd->apply(pkt, &v, &why);
	if (!err)
		pg_cfg_changed(pkt);
	spin_unlock_bh(&pkt->lock);

	if (err)
		return pg_error(pkt, err, "%s", why);
	pg_cfg_notify(pkt);
	pg_dbg("%s: %s %llu: delay now %llu ns\n", pkt->name, cmd->name, v,
	       READ_ONCE(pkt->cfg.delay_ns));
	pg_set_result(pkt, "OK: %s=%llu", cmd->shown ?: cmd->name, v);
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
	size_t cur;		/* offsetof the cursor field */
};

#define PG_IPV4_CMD(_name, _shown, _t, _a, _c) { _name, _shown,	\
	offsetof(struct pktgen_config, _t),				\
	offsetof(struct pktgen_config, _a),				\
	offsetof(struct pktgen_cursor, _c) }

static const struct pg_ipv4_cmd pg_ipv4_cmds[] = {
	PG_IPV4_CMD("dst",	"dst_min", dst_min_text, daddr_min, daddr),
	PG_IPV4_CMD("dst_min",	"dst_min", dst_min_text, daddr_min, daddr),
	PG_IPV4_CMD("dst_max",	"dst_max", dst_max_text, daddr_max, daddr),
	PG_IPV4_CMD("src_min",	"src_min", src_min_text, saddr_min, saddr),
	PG_IPV4_CMD("src_max",	"src_max", src_max_text, saddr_max, saddr),
};

static int pg_run_ipv4_cmd(struct pktgen_dev *pkt, const struct pg_ipv4_cmd *cmd,
			   char *val)
{
	size_t len = pg_word_len(val);
	const char *end;
	__be32 addr = 0;
	char *text;

	val[len] = '\0';
	if (len >= PG_ADDR_TEXT_LEN ||
	    (len && (!in4_pton(val, len, (u8 *)&addr, -1, &end) || end != val + len)))
		return pg_error(pkt, -EINVAL, "%s takes an IPv4 address (a.b.c.d)",
				cmd->name);

	spin_lock_bh(&pkt->lock);
	text = (char *)&pkt->cfg + cmd->text;
	if (strcmp(text, val)) {
		strscpy(text, val, PG_ADDR_TEXT_LEN);
		*(__be32 *)((char *)&pkt->cfg + cmd->addr) = addr;
		if (!pkt->running)
			*(__be32 *)((char *)&pkt->run.cur + cmd->cur) = addr;
		pg_cfg_changed(pkt);
	}
	spin_unlock_bh(&pkt->lock);

	pg_cfg_notify(pkt);
	pg_set_result(pkt, "OK: %s=%s", cmd->shown, val);
	return 0;
}

static int pg_cmd_mac(struct pktgen_dev *pkt, char *val, bool dst)
{
	size_t len = pg_word_len(val);
	u8 mac[ETH_ALEN];

	val[len] = '\0';
	if (len != 3 * ETH_ALEN - 1 || !mac_pton(val, mac))
		return pg_error(pkt, -EINVAL, "%s takes a MAC address (xx:xx:xx:xx:xx:xx)",
				dst ? "dst_mac" : "src_mac");

	spin_lock_bh(&pkt->lock);
	ether_addr_copy(dst ? pkt->cfg.dst_mac : pkt->cfg.src_mac, mac);
	pg_cfg_changed(pkt);
	spin_unlock_bh(&pkt->lock);

	pg_cfg_notify(pkt);
	pg_set_result(pkt, "OK: %s %pM", dst ? "dstmac" : "srcmac", mac);
	return 0;
}

static int pg_cmd_dst_mac(struct pktgen_dev *pkt, char *val)
{
	return pg_cmd_mac(pkt, val, true);
}

static int pg_cmd_src_mac(struct pktgen_dev *pkt, char *val)
{
	return pg_cmd_mac(pkt, val, false);
}

static int pg_flag_lookup(const char *name)
{
	int bit;

	for (bit = 0; bit < PG_FB_NBITS; bit++)
		if (pg_flag_names[bit] && !strcmp(pg_flag_names[bit], name))
			return bit;
	return -1;
}

static int pg_unknown_flag(struct pktgen_dev *pkt, const char *name)
{
	char list[PG_RESULT_LEN] = "";
	size_t used = 0;
	int bit;

	for (bit = 0; bit < PG_FB_NBITS; bit++)
		if (pg_flag_names[bit])
			used += scnprintf(list + used, sizeof(list) - used, "%s%s",
					  used ? ", " : "", pg_flag_names[bit]);
	pg_set_result(pkt, "Flag -:%s:- unknown\nAvailable flags, (prepend ! to un-set flag):\n%s",
		      name, list);
	return -EINVAL;
}

static int pg_cmd_flag(struct pktgen_dev *pkt, char *val)
{
	size_t len = pg_word_len(val);
	bool clear = val[0] == '!';
	const char *name = val + clear;
	int bit, err = 0;
	u32 flags;

	val[len] = '\0';
	bit = pg_flag_lookup(name);
	if (bit < 0)
		return pg_unknown_flag(pkt, val);

	spin_lock_bh(&pkt->lock);
	if (bit == PG_FB_SHARED && clear &&
	    (pkt->cfg.clone_skb || pkt->cfg.burst > 1)) {
		err = -EINVAL;
	} else {
		if (clear)
			pkt->cfg.flags &= ~BIT(bit);
		else
			pkt->cfg.flags |= BIT(bit);
		pg_cfg_changed(pkt);
	}
	flags = pkt->cfg.flags;
	spin_unlock_bh(&pkt->lock);

	if (err)
		return pg_error(pkt, err, "flag !SHARED needs clone_skb 0 and burst 1");
	pg_cfg_notify(pkt);
	pg_set_result(pkt, "OK: flags=0x%x", flags);
	return 0;
}

static int pg_cmd_clear_counters(struct pktgen_dev *pkt, char *val)
{
	struct pktgen_run *r = &pkt->run;

	spin_lock_bh(&pkt->lock);
	if (pkt->running) {
		/* The thread owns the counters while it runs. */
		WRITE_ONCE(pkt->clear_pending, true);
	} else {
		r->sofar = 0;
		r->errors = 0;
		r->tx_bytes = 0;
		r->seq_num = 1;
		r->idle_ns = 0;
	}
	spin_unlock_bh(&pkt->lock);
	pg_set_result(pkt, "OK: Clearing counters.\n");
	return 0;
}

struct pg_str_cmd {
	const char *name;
	int (*run)(struct pktgen_dev *pkt, char *val);
};

static const struct pg_str_cmd pg_str_cmds[] = {
	{ "dst_mac",		pg_cmd_dst_mac },
	{ "src_mac",		pg_cmd_src_mac },
	{ "flag",		pg_cmd_flag },
	{ "clear_counters",	pg_cmd_clear_counters },
};

static int pg_dev_command(struct pktgen_dev *pkt, const char *name, char *val)
{
	int i;

	if (!strcmp(name, "rate"))
		pg_strip_rate_unit(val);
	for (i = 0; i < ARRAY_SIZE(pg_num_cmds); i++)
		if (!strcmp(name, pg_num_cmds[i].name))
			return pg_run_num_cmd(pkt, &pg_num_cmds[i], val);
	for (i = 0; i < ARRAY_SIZE(pg_ipv4_cmds); i++)
		if (!strcmp(name, pg_ipv4_cmds[i].name))
			return pg_run_ipv4_cmd(pkt, &pg_ipv4_cmds[i], val);
	for (i = 0; i < ARRAY_SIZE(pg_str_cmds); i++)
		if (!strcmp(name, pg_str_cmds[i].name))
			return pg_str_cmds[i].run(pkt, val);

	pg_set_result(pkt, "No such parameter \"%s\"", name);
	return -EINVAL;
}

static ssize_t pg_dev_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct pktgen_dev *pkt = pde_data(file_inode(file));
	const char *name;
	char *buf, *val;
	int err;

	if (!pg_may_write(pkt->thread->pn))
		return -EPERM;
	if (!count)
		return pg_error(pkt, -EINVAL, "empty write");

	buf = pg_copy_cmd(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	val = pg_split_cmd(buf, &name, PG_DEV_CMD_MAX);
	if (!val) {
		pg_set_result(pkt, "No such parameter \"%.*s\"", PG_DEV_CMD_MAX, name);
		err = -EINVAL;
	} else {
		err = pg_dev_command(pkt, name, val);
	}
	kfree(buf);
	return err ?: count;
}

/* ---- device file: Params / Current / Result --------------------------------- */

static void pg_show_flags(struct seq_file *seq, u32 flags)
{
	int bit;

	seq_puts(seq, "     Flags: ");
	for (bit = 0; bit < PG_FB_NBITS; bit++)
		if ((flags & BIT(bit)) && pg_flag_names[bit])
			seq_printf(seq, "%s  ", pg_flag_names[bit]);
	seq_puts(seq, "\n");
}

static void pg_show_params(struct seq_file *seq, const struct pktgen_config *cfg,
			   const char *name, const u8 *dev_addr)
{
	seq_printf(seq, "Params: count %llu  min_pkt_size: %u  max_pkt_size: %u\n",
		   cfg->count, cfg->min_pkt_size, cfg->max_pkt_size);
	seq_printf(seq, "     frags: %d  delay: %llu  clone_skb: %d  ifname: %s\n",
		   0, cfg->delay_ns, cfg->clone_skb, name);
	seq_printf(seq, "     flows: %u flowlen: %u\n", 0, 0);
	seq_printf(seq, "     queue_map_min: %u  queue_map_max: %u\n", 0, 0);
	seq_printf(seq, "     dst_min: %s  dst_max: %s\n",
		   cfg->dst_min_text, cfg->dst_max_text);
	seq_printf(seq, "     src_min: %s  src_max: %s\n",
		   cfg->src_min_text, cfg->src_max_text);
	seq_printf(seq, "     src_mac: %pM dst_mac: %pM\n",
		   is_zero_ether_addr(cfg->src_mac) ? dev_addr : cfg->src_mac,
		   cfg->dst_mac);
	seq_printf(seq, "     udp_src_min: %u  udp_src_max: %u  udp_dst_min: %u  udp_dst_max: %u\n",
		   cfg->udp_src_min, cfg->udp_src_max, cfg->udp_dst_min, cfg->udp_dst_max);
	seq_printf(seq, "     src_mac_count: %u  dst_mac_count: %u\n",
		   cfg->src_mac_count, cfg->dst_mac_count);
	if (cfg->burst > 1)
		seq_printf(seq, "     burst: %u\n", cfg->burst);
	pg_show_flags(seq, cfg->flags);
}

/* Counters are written by the thread only; a read may see them mid-run. */
static void pg_show_current(struct seq_file *seq, const struct pktgen_dev *pkt)
{
	const struct pktgen_run *r = &pkt->run;
	bool running = READ_ONCE(pkt->running);
	ktime_t stopped = running ? ktime_get() : READ_ONCE(r->stopped_at);

	seq_puts(seq, "Current:\n");
	seq_printf(seq, "     pkts-sofar: %llu  errors: %llu\n",
		   READ_ONCE(r->sofar), READ_ONCE(r->errors));
	seq_printf(seq, "     started: %lluus  stopped: %lluus idle: %lluus\n",
		   (u64)ktime_to_us(READ_ONCE(r->started_at)), (u64)ktime_to_us(stopped),
		   div_u64(READ_ONCE(r->idle_ns), NSEC_PER_USEC));
	seq_printf(seq, "     seq_num: %llu  cur_dst_mac_offset: %u  cur_src_mac_offset: %u\n",
		   READ_ONCE(r->seq_num), READ_ONCE(r->cur.dst_mac_offset),
		   READ_ONCE(r->cur.src_mac_offset));
	seq_printf(seq, "     cur_saddr: %pI4  cur_daddr: %pI4\n",
		   &r->cur.saddr, &r->cur.daddr);
	seq_printf(seq, "     cur_udp_dst: %u  cur_udp_src: %u\n",
		   READ_ONCE(r->cur.udp_dst), READ_ONCE(r->cur.udp_src));
	seq_printf(seq, "     cur_queue_map: %u\n", 0);
	seq_printf(seq, "     flows: %u\n", 0);
}

static int pg_dev_show(struct seq_file *seq, void *v)
{
	struct pktgen_dev *pkt = seq->private;
	struct pktgen_config *cfg;
	char name[PG_NAME_LEN];
	char *result;

	cfg = kmalloc(sizeof(*cfg), GFP_KERNEL);
	result = kmalloc(PG_RESULT_LEN, GFP_KERNEL);
	if (!cfg || !result)
		goto out;

	spin_lock_bh(&pkt->lock);
	*cfg = pkt->cfg;
	strscpy(name, pkt->name, sizeof(name));
	strscpy(result, pkt->result, PG_RESULT_LEN);
	spin_unlock_bh(&pkt->lock);

	pg_show_params(seq, cfg, name, pkt->odev->dev_addr);
	pg_show_current(seq, pkt);
	seq_printf(seq, "Result: %s\n", result[0] ? result : "Idle");
out:
	kfree(result);
	kfree(cfg);
	return 0;
}

static int pg_dev_open(struct inode *inode, struct file *file)
{
	return single_open(file, pg_dev_show, pde_data(inode));
}

const struct proc_ops pg_dev_proc_ops = {
	.proc_open	= pg_dev_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_write	= pg_dev_write,
	.proc_release	= single_release,
};

/* ---- thread file (kpktgend_<cpu>) ------------------------------------------ */

static int pg_thread_show(struct seq_file *seq, void *v)
{
	struct pktgen_thread *t = seq->private;
	struct pktgen_dev *pkt;

	seq_puts(seq, "Running: ");
	rcu_read_lock();
	list_for_each_entry_rcu(pkt, &t->devs, list)
		if (READ_ONCE(pkt->running))
			seq_printf(seq, "%s ", pkt->name);
	seq_puts(seq, "\nStopped: ");
	list_for_each_entry_rcu(pkt, &t->devs, list)
		if (!READ_ONCE(pkt->running))
			seq_printf(seq, "%s ", pkt->name);
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
	if (err)
		pg_thread_set_result(t, "ERROR: can not add device %s", val);
	else
		pg_thread_set_result(t, "OK: add_device=%s", val);
	return err;
}

static ssize_t pg_thread_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct pktgen_thread *t = pde_data(file_inode(file));
	const char *name;
	char *buf, *val;
	int err = 0;

	if (!pg_may_write(t->pn))
		return -EPERM;
	if (!count)
		return -EINVAL;

	buf = pg_copy_cmd(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	val = pg_split_cmd(buf, &name, PG_THREAD_CMD_MAX);

	if (val && !strcmp(name, "add_device")) {
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
