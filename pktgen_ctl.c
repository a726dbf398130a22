// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the requests posted to a thread (PG_CTL_*) and the waits for it
 * to have acted on them, for the thread files, pgctrl (start, start_at,
 * stop, reset), a device's inject
 * and clear_counters, and the registry.  A writer sets a bit and takes a
 * ticket; the thread takes every bit in pg_thread_control()
 * (pktgen_thread.c) and publishes the last ticket it covered.  Calls
 * nothing of pktgen's.
 */
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "pktgen.h"
#include "pktgen_ctl.h"

unsigned long pg_thread_post(struct pktgen_thread *t, enum pg_thread_ctl ctl)
{
	unsigned long ticket;

	struct task_struct *task;

	spin_lock_bh(&t->ctl_lock);
	ticket = ++t->ctl_posted;
	task = t->task;
	/*
	 * Requests are a sequence: a stop cancels a start the thread has not
	 * taken yet, whose writer may already be gone (Ctrl-C in pgctrl).
	 */
	if (ctl == PG_CTL_STOP)
		t->control &= ~(BIT(PG_CTL_RUN) | BIT(PG_CTL_RUN_AT));
	if (task)
		t->control |= BIT(ctl);
	else	/* no kthread yet, so no device: nothing to do */
		WRITE_ONCE(t->ctl_done, ticket);
	spin_unlock_bh(&t->ctl_lock);
	if (task)
		wake_up_process(task);
	return ticket;
}

/* Wake the thread so it notices a configuration change. */
void pg_thread_kick(struct pktgen_thread *t)
{
	wake_up_process(t->task);
}

static bool pg_thread_done(struct pktgen_thread *t, unsigned long ticket)
{
	return (long)(READ_ONCE(t->ctl_done) - ticket) >= 0;
}

/* Post and wait until the thread has acted (a signal ends the wait). */
void pg_thread_post_wait(struct pktgen_thread *t, enum pg_thread_ctl ctl)
{
	unsigned long ticket = pg_thread_post(t, ctl);
	struct pktgen_net *pn = t->pn;

	wait_event_interruptible(pn->wq, pg_thread_done(t, ticket) ||
				 READ_ONCE(pn->exiting));
}

static bool pg_all_done(struct pktgen_net *pn, unsigned long *tickets, int n)
{
	struct pktgen_thread *t;
	int i = 0;

	list_for_each_entry_rcu(t, &pn->threads, list) {
		if (i < n && !pg_thread_done(t, tickets[i]))
			return false;
		i++;
	}
	return true;
}

static bool pg_any_running(struct pktgen_net *pn)
{
	struct pktgen_thread *t;
	struct pktgen_dev *pkt_dev;

	list_for_each_entry_rcu(t, &pn->threads, list)
		list_for_each_entry_rcu(pkt_dev, &t->devs, list)
			if (READ_ONCE(pkt_dev->running))
				return true;
	return false;
}

static bool pg_ctrl_settled(struct pktgen_net *pn, unsigned long *tickets, int n,
			    bool until_idle)
{
	bool settled;

	if (READ_ONCE(pn->exiting))
		return true;
	rcu_read_lock();
	settled = pg_all_done(pn, tickets, n) && !(until_idle && pg_any_running(pn));
	rcu_read_unlock();
	return settled;
}

/*
 * Post @ctl to every thread of the namespace and wait until all acted on
 * it; with @until_idle also until no device runs any more.  Returns
 * -ERESTARTSYS when a signal ended the wait.
 */
static int pg_ctrl_post_wait(struct pktgen_net *pn, enum pg_thread_ctl ctl,
			     bool until_idle)
{
	struct pktgen_thread *t;
	unsigned long *tickets;
	int n = 0, err;

	/* Threads are created once per online CPU when the netns starts. */
	tickets = kcalloc(nr_cpu_ids, sizeof(*tickets), GFP_KERNEL);
	if (!tickets)
		return -ENOMEM;

	rcu_read_lock();
	list_for_each_entry_rcu(t, &pn->threads, list)
		if (n < nr_cpu_ids)
			tickets[n++] = pg_thread_post(t, ctl);
	rcu_read_unlock();

	err = wait_event_interruptible(pn->wq, pg_ctrl_settled(pn, tickets, n, until_idle));
	kfree(tickets);
	return err;
}

void pg_ctrl_post_all(struct pktgen_net *pn, enum pg_thread_ctl ctl)
{
	pg_ctrl_post_wait(pn, ctl, false);
}

/* Run every device (@ctl RUN or RUN_AT), return when all have stopped. */
static void pg_ctrl_run(struct pktgen_net *pn, enum pg_thread_ctl ctl)
{
	if (pg_ctrl_post_wait(pn, ctl, true) == -ERESTARTSYS) {
		/* Ctrl-C: stop the run; results are computed by the threads. */
		struct pktgen_thread *t;

		rcu_read_lock();
		list_for_each_entry_rcu(t, &pn->threads, list)
			pg_thread_post(t, PG_CTL_STOP);
		rcu_read_unlock();
	}
}

static __printf(2, 3) void pg_ctrl_set_result(struct pktgen_net *pn, const char *fmt, ...)
{
	va_list ap;

	mutex_lock(&pn->lock);
	va_start(ap, fmt);
	vscnprintf(pn->ctrl_result, sizeof(pn->ctrl_result), fmt, ap);
	va_end(ap);
	mutex_unlock(&pn->lock);
}

/*
 * pgctrl "start": run every device, return when all have stopped.
 * -EBUSY while a start_at waits or runs: its gate holds whole threads,
 * so devices started now would not send until then.
 */
int pg_ctrl_start(struct pktgen_net *pn)
{
	if (test_bit(PG_NET_START_AT, &pn->ctrl_flags)) {
		pg_ctrl_set_result(pn, "ERROR: start: a start_at is waiting or running");
		return -EBUSY;
	}
	pg_ctrl_run(pn, PG_CTL_RUN);
	return 0;
}

static bool pg_any_device(struct pktgen_net *pn, bool *running)
{
	struct pktgen_thread *t;
	struct pktgen_dev *pkt_dev;
	bool any = false;

	*running = false;
	rcu_read_lock();
	list_for_each_entry_rcu(t, &pn->threads, list)
		list_for_each_entry_rcu(pkt_dev, &t->devs, list) {
			any = true;
			if (READ_ONCE(pkt_dev->running))
				*running = true;
		}
	rcu_read_unlock();
	return any;
}

/*
 * pgctrl "start_at": like "start", but every thread holds its devices
 * until CLOCK_REALTIME reaches the target.  pg_ctrl_start_at_claim()
 * judges @ns (@relative: that many ns from now) and takes the one
 * start_at slot of the namespace; on success the caller must call
 * pg_ctrl_start_at_run() with *@target.  Refusals set pgctrl's Result:
 * -ERANGE for a time not in the future or more than PG_START_AT_MAX_NS
 * ahead, -EBUSY while another start_at or a run goes on, -ENODEV
 * without devices.
 */
int pg_ctrl_start_at_claim(struct pktgen_net *pn, u64 ns, bool relative, u64 *target)
{
	u64 now = ktime_get_real_ns();
	bool running;
	int err = 0;

	if (test_and_set_bit_lock(PG_NET_START_AT, &pn->ctrl_flags)) {
		pg_ctrl_set_result(pn, "ERROR: start_at: another start_at is waiting or running");
		return -EBUSY;
	}
	if (relative)	/* saturating: U64_MAX is refused as too far ahead */
		ns = ns > U64_MAX - now ? U64_MAX : ns + now;
	if (ns <= now) {
		pg_ctrl_set_result(pn, "ERROR: start_at: %llu is not in the future (now %llu)",
				   ns, now);
		err = -ERANGE;
	} else if (ns - now > PG_START_AT_MAX_NS) {
		pg_ctrl_set_result(pn, "ERROR: start_at: %llu is more than %llu s ahead (now %llu)",
				   ns, PG_START_AT_MAX_NS / NSEC_PER_SEC, now);
		err = -ERANGE;
	} else if (!pg_any_device(pn, &running)) {
		pg_ctrl_set_result(pn, "ERROR: start_at: no device to run");
		err = -ENODEV;
	} else if (running) {
		pg_ctrl_set_result(pn, "ERROR: start_at: a run is going on (stop it first)");
		err = -EBUSY;
	}
	if (err)
		clear_bit_unlock(PG_NET_START_AT, &pn->ctrl_flags);
	*target = ns;
	return err;
}

/* Run from @target on and return when every device has stopped. */
void pg_ctrl_start_at_run(struct pktgen_net *pn, u64 target)
{
	pg_ctrl_set_result(pn, "OK: start_at=%llu", target);
	WRITE_ONCE(pn->start_at_ns, target);
	pg_ctrl_run(pn, PG_CTL_RUN_AT);
	clear_bit_unlock(PG_NET_START_AT, &pn->ctrl_flags);
}

/*
 * Device command "inject": run this device alone and return when it has
 * finished (a signal stops it; a rename or removal of its file ends the
 * wait, not the run).  -EBUSY if it already runs or a start_at waits or
 * runs (its gate would hold this device too), -ENODEV if the file is
 * going away.
 */
int pg_dev_inject(struct pktgen_dev *pkt_dev)
{
	struct pktgen_thread *t = pkt_dev->thread;
	struct pktgen_net *pn = t->pn;
	int err = 0;

	spin_lock_bh(&pkt_dev->lock);
	if (pkt_dev->file_closing)
		err = -ENODEV;
	else if (pkt_dev->running || pkt_dev->inject == PG_INJECT_PENDING ||
		 pkt_dev->inject == PG_INJECT_RUNNING ||
		 test_bit(PG_NET_START_AT, &pn->ctrl_flags))
		err = -EBUSY;
	else
		WRITE_ONCE(pkt_dev->inject, PG_INJECT_PENDING);
	spin_unlock_bh(&pkt_dev->lock);
	if (err)
		return err;

	pg_thread_post(t, PG_CTL_RUNDEV);
	if (wait_event_interruptible(pn->wq, READ_ONCE(pkt_dev->inject) == PG_INJECT_DONE ||
				     READ_ONCE(pkt_dev->file_closing) ||
				     READ_ONCE(pn->exiting))) {
		WRITE_ONCE(pkt_dev->stop_pending, true);
		pg_thread_post(t, PG_CTL_STOPDEV);
	}
	return 0;
}

/*
 * Device command "clear_counters": the thread, which owns the counters,
 * clears them; return once it has (or the file goes, or a signal).
 */
void pg_dev_clear_counters(struct pktgen_dev *pkt_dev)
{
	struct pktgen_thread *t = pkt_dev->thread;
	struct pktgen_net *pn = t->pn;
	unsigned long ticket;

	spin_lock_bh(&pkt_dev->lock);
	pkt_dev->clear_pending = true;
	spin_unlock_bh(&pkt_dev->lock);
	ticket = pg_thread_post(t, PG_CTL_CLEAR);
	wait_event_interruptible(pn->wq, pg_thread_done(t, ticket) ||
				 READ_ONCE(pkt_dev->file_closing) || READ_ONCE(pn->exiting));
}
