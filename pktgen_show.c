// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: what the files of /proc/net/pktgen show of a device: Params
 * (its configuration), Current (its run's counters and cursor) and its
 * Result, and the same for every device as key=value lines in pgstats.
 * Counters are the thread's, read with READ_ONCE() and never written here.
 */
#include <linux/etherdevice.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "pktgen.h"
#include "pktgen_show.h"
#include "pktgen_set.h"
#include "pktgen_rules.h"

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
	else if (cfg->xmit_mode == PG_XMIT_XDP)
		seq_puts(seq, "     xmit_mode: xdp\n");
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
	/* pktgen's own line, only after a start_at: target and actual start */
	if (READ_ONCE(r->start_at_ns))
		seq_printf(seq, "     start_at: %lluns  started_real: %lluns\n",
			   READ_ONCE(r->start_at_ns), READ_ONCE(r->started_real_ns));
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

int pg_dev_show(struct seq_file *seq, void *v)
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
	seq_printf(seq, "start_at_ns=%llu\nstarted_real_ns=%llu\n",
		   READ_ONCE(r->start_at_ns), READ_ONCE(r->started_real_ns));
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
