// SPDX-License-Identifier: GPL-2.0
/*
 * pktgen: /proc/net/pktgen/pgrx_samples, the receiver's sampled latencies
 * as CSV (Documentation/receiver.rst, "Sampled latencies"): a header,
 * then per stream, in the order of pgrx, the samples its ring holds, the
 * oldest first (the first PG_RX_RING_STREAMS streams have a ring).
 *
 * A read takes the file's lock (rxn->lock) for one seq_file fill (about
 * a page of output, never across copy_to_user()) and copies a ring 64
 * samples at a time under the stream's lock, the one the hook takes per
 * packet: the receive path waits at most for one such copy.  A stream is
 * read up to the samples it had when the read reached it, so a read ends
 * however fast samples come; samples overwritten meanwhile are skipped
 * (the sample numbers show the gap).  An rx_reset during a read ends it.
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "pktgen.h"
#include "pktgen_rx.h"
#include "pktgen_rx_ring.h"
#include "pktgen_rx_samples.h"
#include "pktgen_rx_streams.h"

#define PG_RX_SAMPLES_CHUNK	64

/* A read's place: the chunk of samples its current record shows. */
struct pg_rx_samples_iter {
	struct pg_rx_net *rxn;
	u64 gen;			/* rxn->table_gen when the read began */
	loff_t pos;			/* the record chunk[] holds */
	int stream;			/* its stream (-1: none yet) */
	u64 next, end;			/* that stream's samples left: [next, end) */
	u64 first;			/* the number of chunk[0] */
	unsigned int len;
	char name[48];
	struct pg_rx_sample chunk[PG_RX_SAMPLES_CHUNK];
};

/* The next chunk into it->chunk, for record @pos; false at the end. */
static bool pg_rx_samples_fill(struct pg_rx_samples_iter *it, loff_t pos)
{
	struct pg_rx_net *rxn = it->rxn;
	struct pg_rx_table *t = pg_rx_table(rxn);
	int n;

	if (!t || it->gen != rxn->table_gen)
		return false;
	/* only the first PG_RX_RING_STREAMS streams have a ring */
	n = min(pg_rx_table_streams(t), PG_RX_RING_STREAMS);
	while (it->stream < n) {
		if (it->stream >= 0) {
			it->len = pg_rx_stream_samples(t->streams[it->stream], &it->next,
						       it->end, it->chunk, PG_RX_SAMPLES_CHUNK);
			if (it->len) {
				it->first = it->next - it->len;
				it->pos = pos;
				return true;
			}
		}
		if (++it->stream >= n)
			break;
		it->next = 0;
		it->end = pg_rx_stream_sampled(t->streams[it->stream]);
		pg_rx_stream_name(rxn->pn->net, t->streams[it->stream], it->name,
				  sizeof(it->name));
	}
	return false;
}

static void *pg_rx_samples_start(struct seq_file *seq, loff_t *pos)
{
	struct pg_rx_samples_iter *it = seq->private;
	struct pg_rx_net *rxn = it->rxn;

	mutex_lock(&rxn->lock);
	if (!*pos) {
		it->gen = rxn->table_gen;
		it->stream = -1;
		it->pos = 0;
		return SEQ_START_TOKEN;
	}
	/* the record the last read stopped before (or a reset: the end) */
	if (*pos != it->pos || it->gen != rxn->table_gen)
		return NULL;
	return it;
}

static void *pg_rx_samples_next(struct seq_file *seq, void *v, loff_t *pos)
{
	struct pg_rx_samples_iter *it = seq->private;

	++*pos;
	return pg_rx_samples_fill(it, *pos) ? it : NULL;
}

static void pg_rx_samples_stop(struct seq_file *seq, void *v)
{
	struct pg_rx_samples_iter *it = seq->private;

	mutex_unlock(&it->rxn->lock);
}

/* The stream's name as a CSV field: quoted, quotes doubled. */
static void pg_rx_samples_name(struct seq_file *seq, const char *s)
{
	seq_putc(seq, '"');
	for (; *s; s++) {
		if (*s == '"')
			seq_putc(seq, '"');
		seq_putc(seq, *s);
	}
	seq_putc(seq, '"');
}

static int pg_rx_samples_show(struct seq_file *seq, void *v)
{
	struct pg_rx_samples_iter *it = seq->private;
	unsigned int i;

	if (v == SEQ_START_TOKEN) {
		seq_puts(seq, "stream,name,sample,rx_ns,seq,latency_ns\n");
		return 0;
	}
	for (i = 0; i < it->len; i++) {
		const struct pg_rx_sample *e = &it->chunk[i];

		seq_printf(seq, "%d,", it->stream);
		pg_rx_samples_name(seq, it->name);
		seq_printf(seq, ",%llu,%llu,%u,%lld\n", it->first + i, e->rx_ns, e->seq, e->lat_ns);
	}
	return 0;
}

static const struct seq_operations pg_rx_samples_seq_ops = {
	.start	= pg_rx_samples_start,
	.next	= pg_rx_samples_next,
	.stop	= pg_rx_samples_stop,
	.show	= pg_rx_samples_show,
};

static int pg_rx_samples_open(struct inode *inode, struct file *file)
{
	struct pg_rx_samples_iter *it;

	it = __seq_open_private(file, &pg_rx_samples_seq_ops, sizeof(*it));
	if (!it)
		return -ENOMEM;
	it->rxn = pde_data(inode);
	return 0;
}

static const struct proc_ops pg_rx_samples_proc_ops = {
	.proc_open	= pg_rx_samples_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= seq_release_private,
};

/* The file of @rxn's namespace, with pgrx's permissions; NULL on failure. */
struct proc_dir_entry *pg_rx_samples_create(struct pg_rx_net *rxn, struct proc_dir_entry *dir)
{
	return pg_proc_own(proc_create_data(PG_RX_SAMPLES_NAME, 0600, dir,
					    &pg_rx_samples_proc_ops, rxn));
}
