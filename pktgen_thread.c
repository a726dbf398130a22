// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: one kthread per CPU, runs, pacing, the transmit slot, results.
 *
 * A thread owns the run state of its devices: only it starts, transmits
 * on, stops and removes them.  Writers post requests and, where the
 * interface promises it, wait for the thread to have acted on them
 * (pktgen_ctl.c); the thread acts on them in pg_thread_control().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/freezer.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/proc_fs.h>
#include <linux/sched/signal.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/dst.h>

#include "pktgen.h"
#include "pktgen_build.h"
#include "pktgen_build_vary.h"
#include "pktgen_thread.h"
#include "pktgen_dev.h"
#include "pktgen_ctl.h"
#include "pktgen_xdp.h"

/* Closer than this to the deadline the thread spins instead of sleeping. */
#define PG_SPIN_NS		(100 * NSEC_PER_USEC)
/*
 * start_at: the thread sleeps on a CLOCK_REALTIME hrtimer until
 * start_spin_us before the target, then spins on the realtime clock: the
 * window covers the timer's wake-up latency (a few us on hardware, up to
 * milliseconds in a loaded TCG guest).  At most PG_START_SPIN_MAX_US.
 */
#define PG_START_SPIN_MAX_US	10000U
static unsigned int pg_start_spin_us = 50;

module_param_named(start_spin_us, pg_start_spin_us, uint, 0644);
MODULE_PARM_DESC(start_spin_us, "start_at: spin this long before the target (50 us, at most 10000)");
/* How long to wait at the end of a run for the driver to free the skb. */
#define PG_SKB_DRAIN_NS		NSEC_PER_SEC
/* Unpaced slots a device gets per pick before the thread looks around. */
#define PG_UNPACED_SLOTS	32

int pg_debug;

module_param_named(debug, pg_debug, int, 0);
MODULE_PARM_DESC(debug, "Extra logging (0)");

/* A thread file's ops: pktgen_proc.c's, handed down by pg_thread_files_init() */
static const struct proc_ops *pg_thread_file_ops __ro_after_init;

void pg_thread_files_init(const struct proc_ops *ops)
{
	pg_thread_file_ops = ops;
}

/* ---- results ----------------------------------------------------------------- */

static void pg_store_stats(struct pktgen_dev *pkt_dev, int nr_frags)
{
	const struct pktgen_run *r = &pkt_dev->run;
	u64 elapsed = ktime_to_ns(ktime_sub(r->stopped_at, r->started_at));
	u64 idle = min(r->idle_ns, elapsed);
	u64 pps = 0, bps = 0;

	if (elapsed) {
		pps = div64_u64(r->sofar * NSEC_PER_SEC, elapsed);
		/* imix: sizes vary, so count the bytes actually sent */
		if (r->cfg.nr_imix)
			bps = mul_u64_u64_div_u64(r->tx_bytes * 8, NSEC_PER_SEC, elapsed);
	}
	if (!r->cfg.nr_imix)
		bps = pps * 8 * r->cur.pkt_size;

	pg_set_result(pkt_dev,
		      "OK: %llu(c%llu+d%llu) usec, %llu (%ubyte,%dfrags)\n"
		      "  %llupps %lluMb/sec (%llubps) errors: %llu",
		      div_u64(elapsed, NSEC_PER_USEC),
		      div_u64(elapsed - idle, NSEC_PER_USEC),
		      div_u64(idle, NSEC_PER_USEC),
		      r->sofar, r->cur.pkt_size, nr_frags,
		      pps, div_u64(bps, 1000000), bps, r->errors);
}

/* ---- runs -------------------------------------------------------------------- */

static void pg_clear_counters(struct pktgen_run *r)
{
	int i;

	WRITE_ONCE(r->sofar, 0);
	WRITE_ONCE(r->errors, 0);
	WRITE_ONCE(r->tx_bytes, 0);
	WRITE_ONCE(r->seq_num, 1);
	WRITE_ONCE(r->idle_ns, 0);
	WRITE_ONCE(r->flow_starts, 0);
	for (i = 0; i < PG_MAX_IMIX; i++)
		WRITE_ONCE(r->imix_counts[i], 0);
}

/* Copy the configuration into the run; @pkt_dev->lock held. */
/*
 * The send the settings ask for, taken with them (pg_run_snapshot()),
 * and what the device is known to do with an skb it is given.
 */
static enum pg_send pg_send_wanted(const struct pktgen_config *cfg, bool dev_forwards)
{
	if (!(cfg->flags & PG_F(SHARED)))
		return PG_SEND_GIVE;
	switch (cfg->xmit_mode) {
	case PG_XMIT_RECEIVE:
		return cfg->burst > 1 ? PG_SEND_CLONE : PG_SEND_GIVE;
	case PG_XMIT_QUEUE:
		return cfg->clone_skb > 1 ? PG_SEND_CLONE : PG_SEND_GIVE;
	case PG_XMIT_XDP:	/* the skb never leaves: its bytes are copied */
		return PG_SEND_GIVE;
	default:
		return dev_forwards ? PG_SEND_GIVE : PG_SEND_SHARE;
	}
}

static void pg_run_snapshot(struct pktgen_dev *pkt_dev)
{
	struct pktgen_run *r = &pkt_dev->run;

	lockdep_assert_held(&pkt_dev->lock);
	r->cfg = pkt_dev->cfg;
	r->cfg_gen = pkt_dev->cfg_gen;
	r->stream = pkt_dev->stream;
	r->send_wanted = pg_send_wanted(&r->cfg, pkt_dev->odev_forwards);
}

/* "inject" progress; @pkt_dev->lock held.  Wakes the waiting writer at DONE. */
static void pg_inject_set(struct pktgen_dev *pkt_dev, enum pg_inject_state from,
			  enum pg_inject_state to)
{
	lockdep_assert_held(&pkt_dev->lock);
	if (pkt_dev->inject == from)
		WRITE_ONCE(pkt_dev->inject, to);
}

static void pg_set_deadline(struct pktgen_run *r)
{
	r->deadline = r->cfg.duration_ns ?
		      ktime_add_safe(r->started_at, ns_to_ktime(r->cfg.duration_ns)) :
		      KTIME_MAX;
}

/* When the thread has to act on @r next: its slot or its deadline. */
static ktime_t pg_due(const struct pktgen_run *r)
{
	return min(r->next_tx, r->deadline);
}

/*
 * What the run's mode needs beyond the build's resources (xmit_mode xdp:
 * a device that takes frames, settings it can send, its page ring), taken
 * at start and whenever the settings change; released otherwise.  0, or
 * an errno with the Result to show in @why (@len bytes).
 */
static int pg_mode_prepare(struct pktgen_dev *pkt_dev, char *why, size_t len)
{
	struct pktgen_run *r = &pkt_dev->run;
	const char *refusal;
	int err;

	if (r->cfg.xmit_mode != PG_XMIT_XDP) {
		pg_xdp_release(r);
		return 0;
	}
	refusal = pg_xdp_refusal(pkt_dev->odev);
	if (refusal) {
		snprintf(why, len, "ERROR: %s", refusal);
		return -EOPNOTSUPP;
	}
	strscpy(why, "ERROR: ", len);
	err = pg_xdp_config_check(&r->cfg, pkt_dev->odev, why + strlen(why), len - strlen(why));
	if (err)
		return err;
	err = pg_xdp_prepare(r);
	if (err)
		strscpy(why, "No memory", len);
	return err;
}

static void pg_start_device(struct pktgen_dev *pkt_dev)
{
	struct pktgen_run *r = &pkt_dev->run;
	char why[PG_RESULT_LEN];

	if (pkt_dev->running)
		return;

	spin_lock_bh(&pkt_dev->lock);
	pg_run_snapshot(pkt_dev);
	spin_unlock_bh(&pkt_dev->lock);

	if (pg_build_prepare(r, pkt_dev->odev)) {
		pg_set_result(pkt_dev, "No memory");
		return;
	}
	if (pg_mode_prepare(pkt_dev, why, sizeof(why))) {
		pg_build_release(r);
		pg_set_result(pkt_dev, "%s", why);
		return;
	}
	pg_cursor_reset(r);
	pg_clear_counters(r);
	r->skb = NULL;
	r->clone_count = 0;
	r->last_ok = true;
	r->given_frags = -1;
	WRITE_ONCE(r->started_at, ktime_get());
	WRITE_ONCE(r->stopped_at, r->started_at);
	WRITE_ONCE(r->started_real_ns, ktime_get_real_ns());
	WRITE_ONCE(r->start_at_ns, 0);
	r->gated = false;
	r->next_tx = r->started_at;
	pg_set_deadline(r);
	pg_set_result(pkt_dev, "Starting");
	pg_dbg("%s: starting on cpu %u: %u-%u byte frames, delay %llu ns, count %llu\n",
	       pkt_dev->name, pkt_dev->thread->cpu, r->cfg.min_pkt_size, r->cfg.max_pkt_size,
	       r->cfg.delay_ns, r->cfg.count);

	spin_lock_bh(&pkt_dev->lock);
	pkt_dev->clear_pending = false;
	pkt_dev->stop_pending = false;
	WRITE_ONCE(r->starts, r->starts + 1);
	WRITE_ONCE(pkt_dev->running, true);
	pg_inject_set(pkt_dev, PG_INJECT_PENDING, PG_INJECT_RUNNING);
	spin_unlock_bh(&pkt_dev->lock);
}

/*
 * The end of a run, in two halves: the teardown, which writes the
 * counts' Result (false if @pkt_dev was not running), then running
 * cleared and the waiters woken (a pgctrl start or an inject returns and
 * reads the Result).  A reason for the end goes in between.
 */
static bool pg_stop_begin(struct pktgen_dev *pkt_dev)
{
	struct pktgen_run *r = &pkt_dev->run;
	int nr_frags;

	if (!pkt_dev->running)
		return false;

	nr_frags = r->skb ? skb_shinfo(r->skb)->nr_frags : r->given_frags;
	WRITE_ONCE(r->stopped_at, ktime_get());
	consume_skb(r->skb);
	r->skb = NULL;
	pg_build_release(r);
	pg_xdp_release(r);
	pg_store_stats(pkt_dev, nr_frags);
	pg_dbg("%s: stopped after %llu packets, %llu errors\n",
	       pkt_dev->name, r->sofar, r->errors);
	return true;
}

static void pg_stop_finish(struct pktgen_dev *pkt_dev)
{
	spin_lock_bh(&pkt_dev->lock);
	WRITE_ONCE(pkt_dev->running, false);
	pg_inject_set(pkt_dev, PG_INJECT_RUNNING, PG_INJECT_DONE);
	spin_unlock_bh(&pkt_dev->lock);
	wake_up_all(&pkt_dev->thread->pn->wq);
}

static void pg_stop_device(struct pktgen_dev *pkt_dev)
{
	if (pg_stop_begin(pkt_dev))
		pg_stop_finish(pkt_dev);
}

/* A run ended by an error: its reason, not the counts, is the Result. */
static __printf(2, 3) void pg_stop_device_why(struct pktgen_dev *pkt_dev, const char *fmt, ...)
{
	bool was_running = pg_stop_begin(pkt_dev);
	va_list ap;

	va_start(ap, fmt);
	pg_vset_result(pkt_dev, fmt, ap);
	va_end(ap);
	if (was_running)
		pg_stop_finish(pkt_dev);
}

/* The configuration changed while running: take it from the next packet. */
static void pg_run_refresh(struct pktgen_dev *pkt_dev)
{
	struct pktgen_run *r = &pkt_dev->run;
	char why[PG_RESULT_LEN];
	u64 old_delay = r->cfg.delay_ns;
	ktime_t now;

	spin_lock_bh(&pkt_dev->lock);
	pg_run_snapshot(pkt_dev);
	spin_unlock_bh(&pkt_dev->lock);

	/*
	 * The skb held was built, and perhaps shared, under the old settings
	 * (mode, frags, clone_skb, burst, SHARED): never send it under the new.
	 * The Result shows its frags, as if it were still held.
	 */
	if (r->skb)
		r->given_frags = skb_shinfo(r->skb)->nr_frags;
	consume_skb(r->skb);
	r->skb = NULL;
	r->last_ok = true;

	if (pg_build_prepare(r, pkt_dev->odev)) {
		pg_stop_device_why(pkt_dev, "No memory");
		return;
	}
	if (pg_mode_prepare(pkt_dev, why, sizeof(why))) {
		pg_stop_device_why(pkt_dev, "%s", why);
		return;
	}
	pg_cursor_reset(r);
	pg_set_deadline(r);
	if (r->cfg.delay_ns < old_delay) {
		now = ktime_get();
		if (ktime_after(r->next_tx, now))
			r->next_tx = now;
	}
}

/* ---- transmit ------------------------------------------------------------------ */

static void pg_account_idle(struct pktgen_run *r, ktime_t since)
{
	pg_counter_add(&r->idle_ns, ktime_to_ns(ktime_sub(ktime_get(), since)));
}

/*
 * A burst's outcome goes into the run's counters once, not per copy: the
 * proc side reads them locklessly and a burst is microseconds long.
 */
static void pg_count_burst(struct pktgen_run *r, unsigned int sent,
			   unsigned int failed, unsigned int len)
{
	pg_counter_add(&r->sofar, sent);
	pg_counter_add(&r->seq_num, sent);
	pg_counter_add(&r->tx_bytes, (u64)sent * len);
	pg_counter_add(&r->errors, failed);
}

/* The decision for each pick of a device: it may say no to sharing. */
static enum pg_send pg_send_how(const struct pktgen_dev *pkt_dev)
{
	enum pg_send how = pkt_dev->run.send_wanted;

	if (how == PG_SEND_SHARE && unlikely(!pg_dev_flags_share(pkt_dev->odev)))
		return PG_SEND_GIVE;
	return how;
}

/*
 * Let go of the skb built: it is the stack's or the driver's now.  With
 * flag SHARED the stock module would have kept it, and its Result shows
 * its frags: so does ours.
 */
static struct sk_buff *pg_give_skb(struct pktgen_run *r)
{
	struct sk_buff *skb = r->skb;

	r->skb = NULL;
	r->given_frags = r->cfg.flags & PG_F(SHARED) ? skb_shinfo(skb)->nr_frags : -1;
	return skb;
}

/*
 * Whether @skb's data is provably ours alone, @refs being the references
 * we hold: no other reference (a driver's ring, a qdisc, DMA not yet
 * completed) and no clone of its data.  Those who held it let go of it
 * by dropping their references, after their last read; reading the
 * counts and then writing the data is ordered behind that by the control
 * dependency, made explicit for loads too.
 */
static bool pg_data_ours(const struct sk_buff *skb, unsigned int refs)
{
	if (refcount_read(&skb->users) != refs ||
	    atomic_read(&skb_shinfo(skb)->dataref) != 1)
		return false;
	smp_acquire__after_ctrl_dep();
	return true;
}

/*
 * The stamp of the copy about to go: written where the data is ours
 * (@refs references held, pg_data_ours()), else left as an earlier copy
 * or the build wrote it.  Every copy of a GIVE send is its own skb.
 */
static void pg_stamp_copy(const struct pktgen_run *r, struct sk_buff *skb,
			  unsigned int refs, enum pg_send how)
{
	if (r->stamp_late && pg_data_ours(skb, refs))
		pg_stamp_skb(r, skb, how == PG_SEND_GIVE ? PG_EXT_F_SENT :
				     PG_EXT_F_SENT | PG_EXT_F_COPIES);
}

/*
 * Hand the skb to the driver @burst times under the queue lock (more than
 * once only when @how is PG_SEND_SHARE); the "more" hint is set on all
 * but the last.  Returns true when the skb was consumed (sent or
 * dropped), false when the queue pushed back.  BH off.
 */
static bool pg_xmit_start(struct pktgen_run *r, struct net_device *odev,
			  unsigned int burst, enum pg_send how)
{
	bool shared = how == PG_SEND_SHARE;
	struct sk_buff *skb = r->skb;
	struct netdev_queue *txq = skb_get_tx_queue(odev, skb);
	unsigned int len = skb->len, left = burst, sent = 0, failed = 0;
	bool consumed = false;
	netdev_tx_t ret;

	HARD_TX_LOCK(odev, txq, smp_processor_id());
	if (unlikely(netif_xmit_frozen_or_drv_stopped(txq)))
		goto out_unlock;

	if (shared)
		refcount_add(burst, &skb->users);
	else
		left = 1;
	do {
		/* ours: 1 and, when shared, one for each copy still to go */
		pg_stamp_copy(r, skb, shared ? 1 + left : 1, how);
		ret = netdev_start_xmit(skb, odev, txq, --left > 0);
		if (!dev_xmit_complete(ret)) {
			/* BUSY: this attempt's reference was not taken */
			if (shared)
				refcount_dec(&skb->users);
			break;
		}
		consumed = true;
		if (ret == NETDEV_TX_OK)
			sent++;
		else
			failed++;
		if (!shared) {
			pg_give_skb(r);
			break;
		}
	} while (left && !netif_xmit_frozen_or_drv_stopped(txq));

	/*
	 * Drop the references taken for copies that were not sent; ours is
	 * still held, so this never frees the skb.
	 */
	if (shared && left)
		WARN_ON_ONCE(refcount_sub_and_test(left, &skb->users));
	pg_count_burst(r, sent, failed, len);
out_unlock:
	HARD_TX_UNLOCK(odev, txq);
	return consumed;
}

/*
 * The next copy to hand the stack, stamped: a clone of the skb kept
 * (PG_SEND_CLONE) or the skb itself (PG_SEND_GIVE).  NULL when no memory
 * was free.
 */
static struct sk_buff *pg_stack_copy(struct pktgen_run *r, enum pg_send how)
{
	/* a clone's stamp is written into the data kept, while no clone holds it */
	pg_stamp_copy(r, r->skb, 1, how);
	if (how == PG_SEND_CLONE)
		return skb_clone(r->skb, GFP_ATOMIC);
	return pg_give_skb(r);
}

/*
 * xmit_mode netif_receive: inject into the device's receive path, @burst
 * copies (clones, PG_SEND_CLONE) or the skb itself once.  Every
 * injection counts as sent; those the stack dropped are errors too (as
 * upstream), and so are copies no memory was left for.
 */
static bool pg_xmit_receive(struct pktgen_run *r, struct net_device *odev,
			    unsigned int burst, enum pg_send how)
{
	unsigned int len = r->skb->len, sent = 0, dropped = 0;
	struct sk_buff *skb;

	while (sent < burst) {
		skb = pg_stack_copy(r, how);
		if (unlikely(!skb)) {
			dropped += burst - sent;
			break;
		}
		/*
		 * The transmit queue chosen is no receive queue: recorded,
		 * RPS and generic XDP would look for a queue the device may
		 * not have (and warn).
		 */
		skb->queue_mapping = 0;
		skb->protocol = eth_type_trans(skb, odev);
		if (netif_receive_skb(skb) == NET_RX_DROP)
			dropped++;
		sent++;
	}
	/* what pktgen keeps of a clone's data is as built: it may be patched */
	r->frame_intact = how == PG_SEND_CLONE;
	pg_count_burst(r, sent, dropped, len);
	return true;
}

/*
 * xmit_mode queue_xmit: through dev_queue_xmit() and the qdisc, a clone
 * of the skb kept where it is sent again (clone_skb > 1), else the skb
 * itself.
 */
static bool pg_xmit_queue(struct pktgen_dev *pkt_dev, enum pg_send how)
{
	struct pktgen_run *r = &pkt_dev->run;
	unsigned int len = r->skb->len;
	struct sk_buff *skb;
	int ret;

	skb = pg_stack_copy(r, how);
	if (unlikely(!skb)) {
		pg_counter_add(&r->errors, 1);
		return true;
	}
	r->frame_intact = how == PG_SEND_CLONE;
	ret = dev_queue_xmit(skb);

	/* per counter: a WRITE_ONCE() of errors += 0 would still be a store */
	switch (ret) {
	case NET_XMIT_SUCCESS:
		pg_counter_add(&r->sofar, 1);
		pg_counter_add(&r->seq_num, 1);
		pg_counter_add(&r->tx_bytes, len);
		break;
	case NET_XMIT_DROP:
	case NET_XMIT_CN:
		pg_counter_add(&r->errors, 1);
		break;
	default:
		pg_counter_add(&r->errors, 1);
		net_info_ratelimited("%s xmit error: %d\n", pkt_dev->name, ret);
	}
	return true;
}

/* At the end of a run, give the driver a moment to release the skb. */
static void pg_drain_skb(struct pktgen_thread *t, struct pktgen_run *r)
{
	ktime_t start = ktime_get();
	ktime_t deadline = ktime_add_ns(start, PG_SKB_DRAIN_NS);

	while (r->skb && refcount_read(&r->skb->users) > 1) {
		if (kthread_should_stop() || READ_ONCE(t->control) ||
		    ktime_after(ktime_get(), deadline))
			break;
		if (need_resched())
			schedule();
		else
			cpu_relax();
	}
	pg_account_idle(r, start);
}

static void pg_build_failed(struct pktgen_dev *pkt_dev, int err)
{
	struct pktgen_run *r = &pkt_dev->run;

	r->skb = NULL;
	r->last_ok = false;
	r->given_frags = -1;
	if (err == -ENOENT) {
		pg_stop_device_why(pkt_dev,
				   "ERROR: IPSEC: no usable SA (IPv4 ESP, transport mode, synchronous cipher) for spi %u; the kernel log says why",
				   r->cfg.spi);
		return;
	}
	net_info_ratelimited("%s: couldn't allocate skb\n", pkt_dev->name);
	pg_set_result(pkt_dev, "No memory");
	schedule();
}

/*
 * xmit_mode xdp: a slot's burst as frames of their own (pktgen_xdp.c),
 * a bulk at a time with BH off for each bulk only: the NAPI a send
 * schedules on this CPU (veth's peer, a NIC's TX completions) runs in
 * between, so a large burst does not fill the device's ring against its
 * own consumer nor keep BH off for long.  The burst ends early, with
 * what went, when the CPU is wanted or the thread has a request.
 * False when the slot failed: no memory left for a build (the skb is
 * gone then), or a device that took nothing and said why, which ends
 * the run (its errno in the Result: veth without an XDP program on its
 * peer, a virtio_net without one on itself, a link down).  The two
 * errnos come apart: a driver's -ENOMEM is no build failure.
 */
static bool pg_xmit_xdp(struct pktgen_thread *t, struct pktgen_dev *pkt_dev)
{
	struct pktgen_run *r = &pkt_dev->run;
	char why[PG_RESULT_LEN];
	u64 left = r->cfg.burst, refused;
	int done, drv_err = 0;

	/* what devmap checks before each call: the device may have stopped taking frames */
	if (unlikely(pg_xdp_dev_check(pkt_dev->odev, why, sizeof(why)))) {
		pg_stop_device_why(pkt_dev, "ERROR: %s after %llu packets, %llu errors",
				   why, r->sofar, r->errors);
		return false;
	}

	/* built to be copied: never a clone's companion (pg_alloc_skb()) */
	r->built_for = PG_SEND_GIVE;
	r->last_ok = true;
	if (r->cfg.count)
		left = min(left, r->cfg.count - min(r->sofar, r->cfg.count));
	while (left) {
		local_bh_disable();
		done = pg_xdp_send(r, pkt_dev->odev, min_t(u64, left, UINT_MAX), &drv_err);
		local_bh_enable();
		if (unlikely(done < 0)) {
			/* r->skb is gone (pg_xdp_send()); -ENOENT: IPSEC, refused here */
			pg_build_failed(pkt_dev, done);
			return false;
		}
		if (unlikely(drv_err))
			break;
		left -= min_t(u64, left, done);
		if (!done || need_resched() || READ_ONCE(t->control))
			break;
	}
	if (unlikely(!drv_err && pg_xdp_stuck(r, &refused))) {
		pg_stop_device_why(pkt_dev,
				   "ERROR: %s took none of the last %llu frames (ndo_xdp_xmit refused them, or they were over its MTU %u) after %llu packets, %llu errors",
				   pkt_dev->odev->name, refused, READ_ONCE(pkt_dev->odev->mtu),
				   r->sofar, r->errors);
		return false;
	}
	if (likely(!drv_err))
		return true;
	pg_stop_device_why(pkt_dev,
			   "ERROR: %s took no frame (ndo_xdp_xmit: %d) after %llu packets, %llu errors",
			   pkt_dev->odev->name, drv_err, r->sofar, r->errors);
	return false;
}

/* One slot of @pkt_dev, sent as *@how says (pg_xmit_slots()). */
static void pg_xmit_slot(struct pktgen_thread *t, struct pktgen_dev *pkt_dev,
			 enum pg_send *how_p)
{
	struct net_device *odev = pkt_dev->odev;
	struct pktgen_run *r = &pkt_dev->run;
	enum pg_send how = *how_p;
	unsigned int burst;

	if (unlikely(READ_ONCE(pkt_dev->cfg_gen) != r->cfg_gen)) {
		pg_run_refresh(pkt_dev);
		if (!pkt_dev->running)
			return;
		how = pg_send_how(pkt_dev);
		*how_p = how;
	}
	if (unlikely(!netif_running(odev) || !netif_carrier_ok(odev))) {
		pg_stop_device(pkt_dev);
		return;
	}
	if (unlikely(r->deadline != KTIME_MAX) && !ktime_before(ktime_get(), r->deadline)) {
		pg_stop_device(pkt_dev);
		return;
	}
	if (unlikely(r->cfg.delay_ns == PG_DELAY_NEVER)) {
		r->next_tx = KTIME_MAX;
		return;
	}

	if (r->cfg.xmit_mode == PG_XMIT_XDP) {
		if (!pg_xmit_xdp(t, pkt_dev))
			return;
		goto sent;
	}

	/*
	 * One BH-off section from building to sending: the build reuses the
	 * skb built before where the stack has finished with it, or takes
	 * head and skb from the per-CPU NAPI caches, where the one we let go
	 * of goes back, as a driver's completions do (pg_build_skb()).
	 */
	local_bh_disable();
	if (!r->skb || how != r->built_for ||
	    (r->last_ok && ++r->clone_count >= (how == PG_SEND_GIVE ? 0 : r->cfg.clone_skb))) {
		r->built_for = how;
		r->skb = pg_build_skb(r, odev, r->skb);
		r->clone_count = 0;
		if (IS_ERR(r->skb)) {
			local_bh_enable();
			pg_build_failed(pkt_dev, PTR_ERR(r->skb));
			return;
		}
	}

	burst = how == PG_SEND_GIVE ? 1 : r->cfg.burst;
	switch (r->cfg.xmit_mode) {
	case PG_XMIT_RECEIVE:
		r->last_ok = pg_xmit_receive(r, odev, burst, how);
		break;
	case PG_XMIT_QUEUE:
		r->last_ok = pg_xmit_queue(pkt_dev, how);
		break;
	default:
		r->last_ok = pg_xmit_start(r, odev, burst, how);
	}
	local_bh_enable();
sent:
	if (r->last_ok && r->cfg.delay_ns)
		r->next_tx = ktime_add_ns(r->next_tx, r->cfg.delay_ns);

	if (r->cfg.count && r->sofar >= r->cfg.count) {
		pg_drain_skb(t, r);
		pg_stop_device(pkt_dev);
	}
}

/*
 * A device without a delay keeps its slot time, so it is picked again
 * and again until it stops, its delay changes or a request arrives (as in
 * the stock module, it keeps the thread to itself).  Its next slots are
 * sent here, without the pick and the thread loop's checks in between,
 * which are a large share of a clone_skb packet's cost.
 */
static void pg_xmit_slots(struct pktgen_thread *t, struct pktgen_dev *pkt_dev)
{
	/*
	 * The send decision once per pick (and again after a settings
	 * change): nothing holds the device's flags still between a test of
	 * them and a send, so a test per slot would close no window, and a
	 * pick lasts microseconds.
	 */
	enum pg_send how = pg_send_how(pkt_dev);
	unsigned int n = PG_UNPACED_SLOTS;

	do {
		pg_xmit_slot(t, pkt_dev, &how);
	} while (--n && pkt_dev->running && !pkt_dev->run.cfg.delay_ns &&
		 !READ_ONCE(t->control) && !need_resched());
}

/* ---- the thread ---------------------------------------------------------------- */

/* The running device whose next slot is due first. */
static struct pktgen_dev *pg_next_device(struct pktgen_thread *t)
{
	struct pktgen_dev *pkt_dev, *best = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(pkt_dev, &t->devs, list) {
		if (!pkt_dev->running)
			continue;
		if (!best || ktime_before(pg_due(&pkt_dev->run), pg_due(&best->run)))
			best = pkt_dev;
	}
	rcu_read_unlock();
	/* Only this thread frees its devices, so @best stays valid. */
	return best;
}

/*
 * Wait for @pkt_dev's next slot.  Returns false when the thread slept and
 * should look at its requests again before transmitting.
 */
static bool pg_pace(struct pktgen_thread *t, struct pktgen_dev *pkt_dev)
{
	struct pktgen_run *r = &pkt_dev->run;
	ktime_t now, wake, due = pg_due(r);

	if (!r->cfg.delay_ns)
		return true;
	now = ktime_get();
	if (!ktime_before(now, due))
		return true;

	if (ktime_to_ns(ktime_sub(due, now)) > PG_SPIN_NS) {
		wake = due == KTIME_MAX ? KTIME_MAX : ktime_sub_ns(due, PG_SPIN_NS / 2);
		set_current_state(TASK_INTERRUPTIBLE);
		if (!READ_ONCE(t->control) && !kthread_should_stop() &&
		    READ_ONCE(pkt_dev->cfg_gen) == r->cfg_gen)
			schedule_hrtimeout_range(&wake, 0, HRTIMER_MODE_ABS);
		__set_current_state(TASK_RUNNING);
		pg_account_idle(r, now);
		return false;
	}

	while (ktime_before(ktime_get(), due) && !READ_ONCE(t->control))
		cpu_relax();
	pg_account_idle(r, now);
	return !READ_ONCE(t->control);
}

static void pg_thread_remove(struct pktgen_thread *t, bool only_pending)
{
	struct pktgen_dev *pkt_dev, *tmp;

	list_for_each_entry_safe(pkt_dev, tmp, &t->devs, list) {
		if (only_pending && !READ_ONCE(pkt_dev->remove_pending))
			continue;
		pg_stop_device(pkt_dev);
		pg_remove_device(pkt_dev);
	}
}

/* ---- start_at: the start gate -------------------------------------------- */

/* PG_CTL_RUN_AT: start as for RUN, but hold the device at the gate. */
static void pg_start_gated(struct pktgen_dev *pkt_dev)
{
	struct pktgen_run *r = &pkt_dev->run;

	if (pkt_dev->running)
		return;
	pg_start_device(pkt_dev);
	if (!pkt_dev->running)
		return;
	r->gated = true;
	WRITE_ONCE(r->start_at_ns, pkt_dev->thread->gate_ns);
}

static bool pg_thread_gated(struct pktgen_thread *t)
{
	struct pktgen_dev *pkt_dev;

	list_for_each_entry_rcu(pkt_dev, &t->devs, list, current == t->task)
		if (pkt_dev->running && pkt_dev->run.gated)
			return true;
	return false;
}

/* The gate opened at @mono (CLOCK_MONOTONIC) = @real (CLOCK_REALTIME). */
static void pg_gate_open(struct pktgen_thread *t, ktime_t mono, u64 real)
{
	struct pktgen_dev *pkt_dev;
	struct pktgen_run *r;

	list_for_each_entry_rcu(pkt_dev, &t->devs, list, current == t->task) {
		r = &pkt_dev->run;
		if (!pkt_dev->running || !r->gated)
			continue;
		r->gated = false;
		WRITE_ONCE(r->started_at, mono);
		WRITE_ONCE(r->stopped_at, mono);
		WRITE_ONCE(r->started_real_ns, real);
		r->next_tx = mono;
		pg_set_deadline(r);
	}
}

/*
 * Hold the thread's gated devices until CLOCK_REALTIME reaches gate_ns:
 * an hrtimer on CLOCK_REALTIME up to start_spin_us before it, then a
 * spin.  A realtime clock step while waiting moves the timer with the
 * clock (clock_was_set() reprograms realtime timers): the run starts
 * when the stepped clock reads the target, at once if it jumped past.
 * Returns false, the gate still closed, when a request, kthread_stop()
 * or the freezer wants the thread first; the thread comes back here.
 */
static bool pg_start_gate(struct pktgen_thread *t)
{
	ktime_t target = ns_to_ktime(t->gate_ns), wake, now;
	u64 spin = min(READ_ONCE(pg_start_spin_us), PG_START_SPIN_MAX_US) * NSEC_PER_USEC;

	if (!pg_thread_gated(t)) {	/* stopped or removed while waiting */
		t->gate_ns = 0;
		return true;
	}
	for (;;) {
		now = ktime_get_real();
		if (!ktime_before(now, target))
			break;
		if (READ_ONCE(t->control) || kthread_should_stop() || freezing(current))
			return false;
		if (ktime_to_ns(ktime_sub(target, now)) <= spin) {
			cpu_relax();
			continue;
		}
		wake = ktime_sub_ns(target, spin);
		set_current_state(TASK_INTERRUPTIBLE);
		/* after the state: a request, a stop or freezing set since wakes us */
		if (!READ_ONCE(t->control) && !kthread_should_stop() && !freezing(current))
			schedule_hrtimeout_range_clock(&wake, 0, HRTIMER_MODE_ABS,
						       CLOCK_REALTIME);
		__set_current_state(TASK_RUNNING);
	}
	pg_gate_open(t, ktime_get(), ktime_get_real_ns());
	t->gate_ns = 0;
	return true;
}

static void pg_start_injected(struct pktgen_dev *pkt_dev)
{
	bool pending;

	spin_lock_bh(&pkt_dev->lock);
	pending = pkt_dev->inject == PG_INJECT_PENDING && !pkt_dev->stop_pending;
	spin_unlock_bh(&pkt_dev->lock);
	if (pending)
		pg_start_device(pkt_dev);
	/* not started (no memory): the writer must not wait forever */
	spin_lock_bh(&pkt_dev->lock);
	pg_inject_set(pkt_dev, PG_INJECT_PENDING, PG_INJECT_DONE);
	spin_unlock_bh(&pkt_dev->lock);
	wake_up_all(&pkt_dev->thread->pn->wq);
}

static void pg_stop_requested(struct pktgen_dev *pkt_dev)
{
	if (READ_ONCE(pkt_dev->stop_pending))
		pg_stop_device(pkt_dev);
}

static void pg_clear_requested(struct pktgen_dev *pkt_dev)
{
	bool clear;

	spin_lock_bh(&pkt_dev->lock);
	clear = pkt_dev->clear_pending;
	pkt_dev->clear_pending = false;
	spin_unlock_bh(&pkt_dev->lock);
	if (clear)
		pg_clear_counters(&pkt_dev->run);
}

/*
 * Only the thread itself removes its devices (pg_thread_remove()), so it
 * walks its list without the RCU read lock, and @fn may sleep: starting a
 * device allocates with GFP_KERNEL.  Writers only add, with list_add_rcu().
 */
static void pg_thread_for_each(struct pktgen_thread *t, void (*fn)(struct pktgen_dev *))
{
	struct pktgen_dev *pkt_dev;

	list_for_each_entry_rcu(pkt_dev, &t->devs, list, current == t->task)
		fn(pkt_dev);
}

static void pg_thread_control(struct pktgen_thread *t)
{
	unsigned long control, ticket;

	spin_lock_bh(&t->ctl_lock);
	control = t->control;
	t->control = 0;
	ticket = t->ctl_posted;
	spin_unlock_bh(&t->ctl_lock);

	if (control & BIT(PG_CTL_STOP))
		pg_thread_for_each(t, pg_stop_device);
	if (control & BIT(PG_CTL_STOPDEV))
		pg_thread_for_each(t, pg_stop_requested);
	if (control & BIT(PG_CTL_CLEAR))
		pg_thread_for_each(t, pg_clear_requested);
	if (control & BIT(PG_CTL_RUN))
		pg_thread_for_each(t, pg_start_device);
	if (control & BIT(PG_CTL_RUN_AT)) {
		t->gate_ns = READ_ONCE(t->pn->start_at_ns);
		pg_thread_for_each(t, pg_start_gated);
	}
	if (control & BIT(PG_CTL_RUNDEV))
		pg_thread_for_each(t, pg_start_injected);
	if (control & BIT(PG_CTL_RENAME))
		pg_thread_for_each(t, pg_dev_rename_file);
	if (control & BIT(PG_CTL_REMDEVALL))
		pg_thread_remove(t, false);
	if (control & BIT(PG_CTL_REMDEV))
		pg_thread_remove(t, true);

	/* Pairs with READ_ONCE() in pg_thread_done(): results before ticket. */
	smp_store_release(&t->ctl_done, ticket);
	wake_up_all(&t->pn->wq);
}

static void pg_thread_idle(struct pktgen_thread *t)
{
	set_current_state(TASK_INTERRUPTIBLE);
	if (!READ_ONCE(t->control) && !kthread_should_stop())
		schedule();
	__set_current_state(TASK_RUNNING);
}

static int pg_thread_fn(void *arg)
{
	struct pktgen_thread *t = arg;
	struct pktgen_dev *pkt_dev;
	ktime_t since;

	set_freezable();
	while (!kthread_should_stop()) {
		if (READ_ONCE(t->control))
			pg_thread_control(t);
		if (t->gate_ns && !pg_start_gate(t)) {
			try_to_freeze();
			continue;
		}

		pkt_dev = pg_next_device(t);
		if (!pkt_dev) {
			pg_thread_idle(t);
		} else if (pg_pace(t, pkt_dev)) {
			pg_xmit_slots(t, pkt_dev);
			if (need_resched()) {
				since = ktime_get();
				schedule();
				if (pkt_dev->running)
					pg_account_idle(&pkt_dev->run, since);
			}
		}
		try_to_freeze();
	}

	pg_thread_remove(t, false);
	/* Anyone waiting on a request is answered by the namespace exit. */
	return 0;
}

/*
 * A thread's file exists from the namespace's start, its kthread from
 * the first write to that file (pg_thread_start()): a namespace nobody
 * drives costs no kthread.  The initial namespace starts them at once,
 * where users and scripts expect to see them from module load.
 */
int pg_thread_create(struct pktgen_net *pn, unsigned int cpu, bool start)
{
	char name[sizeof(PG_THREAD_PREFIX) + 10];
	struct pktgen_thread *t;

	t = kzalloc_node(sizeof(*t), GFP_KERNEL, cpu_to_node(cpu));
	if (!t)
		return -ENOMEM;
	t->pn = pn;
	t->cpu = cpu;
	INIT_LIST_HEAD(&t->devs);
	spin_lock_init(&t->ctl_lock);
	spin_lock_init(&t->result_lock);

	snprintf(name, sizeof(name), PG_THREAD_PREFIX "%u", cpu);
	t->entry = pg_proc_own(proc_create_data(name, 0600, pn->proc_dir,
						pg_thread_file_ops, t));
	if (!t->entry) {
		kfree(t);
		return -ENOMEM;
	}

	mutex_lock(&pn->lock);
	list_add_tail_rcu(&t->list, &pn->threads);
	mutex_unlock(&pn->lock);
	return start ? pg_thread_start(t) : 0;
}

/*
 * Give @t its kthread if it has none yet; -ENODEV once the namespace
 * exits.  Created outside pn->lock (the notifier takes that lock under
 * RTNL, and kthread creation may wait on memory), published under it
 * and under ctl_lock, which pg_thread_post() reads it under.
 */
int pg_thread_start(struct pktgen_thread *t)
{
	struct pktgen_net *pn = t->pn;
	struct task_struct *task;
	int err = 0;

	if (READ_ONCE(t->task))
		return 0;
	task = pg_kthread_create_on_cpu(pg_thread_fn, t, t->cpu, PG_THREAD_PREFIX "%u");
	if (IS_ERR(task))
		return PTR_ERR(task);

	mutex_lock(&pn->lock);
	if (READ_ONCE(pn->exiting)) {
		err = -ENODEV;
	} else if (!t->task) {
		spin_lock_bh(&t->ctl_lock);
		WRITE_ONCE(t->task, task);
		spin_unlock_bh(&t->ctl_lock);
		wake_up_process(task);
		task = NULL;
	}
	mutex_unlock(&pn->lock);
	/* a kthread never woken stops without running pg_thread_fn() */
	if (task)
		kthread_stop(task);
	return err;
}

/*
 * CPU @cpu is online again: taking it offline moved its threads to other
 * CPUs (the scheduler breaks a bound thread's affinity rather than strand
 * it); put them back.
 */
void pg_thread_rebind(struct pktgen_net *pn, unsigned int cpu)
{
	struct pktgen_thread *t;

	mutex_lock(&pn->lock);
	list_for_each_entry(t, &pn->threads, list)
		if (t->task && t->cpu == cpu && set_cpus_allowed_ptr(t->task, cpumask_of(cpu)))
			pr_warn("cannot move %s back to CPU %u\n", t->task->comm, cpu);
	mutex_unlock(&pn->lock);
}

/* @t is off pn->threads. */
void pg_thread_destroy(struct pktgen_thread *t)
{
	/* Writers of the file start or wake the task: none may be left. */
	proc_remove(t->entry);
	if (t->task) {
		/* nor anyone who found @t on the list and may post to it */
		synchronize_rcu();
		kthread_stop(t->task);
	}
	kfree_rcu(t, rcu);
}
