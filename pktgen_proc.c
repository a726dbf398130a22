// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: the device, thread (kpktgend_<cpu>), pgctrl and pgstats files of
 * /proc/net/pktgen: their proc_ops, opening, reading and writing.  A
 * device file's commands are pktgen_set.c's, what it shows pktgen_show.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>

#include "pktgen.h"
#include "pktgen_proc.h"
#include "pktgen_set.h"
#include "pktgen_show.h"
#include "pktgen_rules.h"
#include "pktgen_thread.h"
#include "pktgen_dev.h"
#include "pktgen_ctl.h"
#include "pktgen_cmd.h"

/* Command names longer than these do not exist (upstream's limits). */
#define PG_DEV_CMD_MAX		15
#define PG_THREAD_CMD_MAX	39

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

static const struct proc_ops pg_dev_proc_ops = {
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

static const struct proc_ops pg_thread_proc_ops = {
	.proc_open	= pg_thread_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_write	= pg_thread_write,
	.proc_release	= single_release,
};

/* ---- pgctrl --------------------------------------------------------------- */

/* upstream's one line; a Result line only once a start_at was written */
static int pg_ctrl_show(struct seq_file *seq, void *v)
{
	struct pktgen_net *pn = seq->private;

	seq_puts(seq, "Packet Generator for packet performance testing. Version: "
		 PG_IFACE_VERSION "\n");
	mutex_lock(&pn->lock);
	if (pn->ctrl_result[0])
		seq_printf(seq, "Result: %s\n", pn->ctrl_result);
	mutex_unlock(&pn->lock);
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

/*
 * "start_at NS" (CLOCK_REALTIME ns) or "start_at +NS" (from now): decimal
 * digits only.  Range and state are pg_ctrl_start_at_claim()'s to judge.
 */
static int pg_ctrl_start_at_cmd(struct pktgen_net *pn, const char *arg)
{
	bool relative = *arg == '+';
	const char *p = arg + relative;
	u64 ns;
	int err;

	err = *p ? 0 : -EINVAL;
	for (; *p && !err; p++)
		if (!isdigit(*p))
			err = -EINVAL;
	if (!err)
		err = kstrtou64(arg + relative, 10, &ns);
	if (err) {
		mutex_lock(&pn->lock);
		scnprintf(pn->ctrl_result, sizeof(pn->ctrl_result),
			  "ERROR: start_at: %s: want NS or +NS (CLOCK_REALTIME nanoseconds)",
			  err == -ERANGE ? "too large" : "not a number");
		mutex_unlock(&pn->lock);
		return err;
	}
	err = pg_ctrl_start_at_claim(pn, ns, relative, &ns);
	if (err)
		return err;
	pg_ctrl_settle_all(pn);
	pg_ctrl_start_at_run(pn, ns);
	return 0;
}

static ssize_t pg_ctrl_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct pktgen_net *pn = pde_data(file_inode(file));
	size_t len;
	char *cmd;
	int err = 0;

	/*
	 * pgctrl has no Result: a refused or unknown command is its errno
	 * (start_at, pktgen's own, also leaves a Result line for a reader)
	 */
	cmd = pg_cmd_fetch(file, ubuf, count);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	/* upstream's exact words: "start\n" (echo), "start" (echo -n), "start\0" */
	len = strlen(cmd);
	if (len && cmd[len - 1] == '\n')
		cmd[--len] = '\0';

	if (!strcmp(cmd, "start")) {
		pg_ctrl_settle_all(pn);
		err = pg_ctrl_start(pn);
	} else if (!strncmp(cmd, "start_at ", 9)) {
		err = pg_ctrl_start_at_cmd(pn, cmd + 9);
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

static const struct proc_ops pg_ctrl_proc_ops = {
	.proc_open	= pg_ctrl_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_write	= pg_ctrl_write,
	.proc_release	= single_release,
};

/* ---- the files' owner ------------------------------------------------------ */

/*
 * The registry and the threads create the device and thread files (a
 * device's again on a rename) with these ops, handed down once at module
 * load, before any namespace exists.
 */
void pg_proc_init(void)
{
	pg_dev_files_init(&pg_dev_proc_ops);
	pg_thread_files_init(&pg_thread_proc_ops);
}

/* A namespace's /proc/net/pktgen with pgctrl and pgstats. */
int pg_proc_net_init(struct pktgen_net *pn)
{
	pn->proc_dir = pg_proc_own(proc_mkdir(PG_PROC_DIR, pn->net->proc_net));
	if (!pn->proc_dir)
		return -ENOMEM;
	if (!pg_proc_own(proc_create_data(PG_CTRL_NAME, 0600, pn->proc_dir,
					  &pg_ctrl_proc_ops, pn)) ||
	    !pg_proc_own(proc_create_single_data(PG_STATS_NAME, 0600, pn->proc_dir,
						 pg_stats_show, pn))) {
		proc_remove(pn->proc_dir);
		return -ENOMEM;
	}
	return 0;
}

/* The directory and every file left in it. */
void pg_proc_net_exit(struct pktgen_net *pn)
{
	proc_remove(pn->proc_dir);
}
