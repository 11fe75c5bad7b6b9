// SPDX-License-Identifier: GPL-2.0
/*
 * The target's counters and read-latency histogram, its status line, and
 * debugfs lake/linnos/NAME/{status,trace,bench,compare}.
 *
 * The histogram has 8 buckets per power of two of nanoseconds (values
 * below 8 ns get one each), so a percentile is exact to 1/8 of its power of
 * two, about 6%; it is printed as the bucket's midpoint. Counters are
 * atomics bumped from map and completion without a lock, so a status read
 * while reads run is a consistent-enough snapshot, not an atomic one.
 *
 * The trace exporter. Reading lake/linnos/NAME/trace returns, as CSV, the
 * reads completed since the last read of the file (from the feature
 * registries, one per replica), and forgets them: a reader polling the file
 * during a workload gets each read once. A read that does not fit the
 * caller's buffer stays for the next call. The first call on an open file
 * starts with the header line. The format is the one train.py reads:
 *
 *	ts_ns		when the read was issued (ktime_get_ns)
 *	dev		0 PRIMARY, 1 REPLICA: where the read went
 *	pending		reads and writes outstanding on dev when it was issued
 *	lat_us		this read's observed latency on dev (issue to completion)
 *	hist_lat0..3	latency (us) of dev's last 4 completed reads, newest first
 *	hist_pend0..3	their pending counts at issue
 *
 * Rows come per call device by device, each in completion order; sort on
 * ts_ns for issue order (make linnos-trace does).
 *
 * The ring keeps 32768 reads per replica; a reader that falls further
 * behind loses the oldest (counted as dropped in lake/registry/NAME).
 */
#include <linux/debugfs.h>
#include <linux/dm-ioctl.h>
#include <linux/log2.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <lake/shm.h>
#include "target.h"

#define TRACE_BATCH	32
#define TRACE_LINE_MAX	128
#define STATUS_LINE_MAX	2048

static struct dentry *linnos_dir;

static u32 bucket_of(u64 ns)
{
	u32 b;

	if (ns < 8)
		return ns;
	b = ilog2(ns);
	return (b - 2) * 8 + ((ns >> (b - 3)) & 7);
}

/* The midpoint of bucket i, in ns. */
static u64 bucket_mid(u32 i)
{
	u32 b, m;

	if (i < 8)
		return i;
	b = i / 8 + 2;
	m = i % 8;
	return ((16ull + 2 * m + 1) << (b - 3)) / 2;
}

void linnos_stats_latency(struct linnos_stats *st, u64 ns)
{
	atomic64_inc(&st->hist[min_t(u32, bucket_of(ns), LINNOS_HIST_BUCKETS - 1)]);
}

void linnos_stats_reset(struct linnos_stats *st)
{
	atomic64_t *a = (atomic64_t *)st;
	size_t i;

	for (i = 0; i < sizeof(*st) / sizeof(*a); i++)
		atomic64_set(&a[i], 0);
}

/* Percentiles in per mille of the reads in the histogram, in us. */
static void percentiles(struct linnos_stats *st, const u32 *permille, u64 *us, int n)
{
	u64 total = 0, seen = 0, rank;
	int i, k = 0;

	for (i = 0; i < LINNOS_HIST_BUCKETS; i++)
		total += atomic64_read(&st->hist[i]);
	for (i = 0; i < n; i++)
		us[i] = 0;
	if (!total)
		return;
	for (i = 0; i < LINNOS_HIST_BUCKETS && k < n; i++) {
		seen += atomic64_read(&st->hist[i]);
		while (k < n) {
			rank = div_u64(total * permille[k] + 999, 1000);
			if (seen < rank)
				break;
			us[k++] = div_u64(bucket_mid(i), NSEC_PER_USEC);
		}
	}
}

static u64 avg(atomic64_t *sum, atomic64_t *count)
{
	u64 c = atomic64_read(count);

	return c ? div64_u64(atomic64_read(sum), c) : 0;
}

/* Accuracy in per mille of the judged reads. */
static u32 accuracy(struct linnos_stats *st)
{
	u64 good = atomic64_read(&st->true_slow) + atomic64_read(&st->true_fast);
	u64 all = good + atomic64_read(&st->false_submit) + atomic64_read(&st->false_revoke);

	return all ? div64_u64(good * 1000, all) : 0;
}

void linnos_status_line(struct linnos_target *lt, char *result, unsigned int maxlen)
{
	static const u32 pm[3] = { 500, 990, 999 };
	struct linnos_stats *st = &lt->st;
	unsigned int sz = 0;
	u64 p[3];
	u32 acc = accuracy(st);
	int d;

	percentiles(st, pm, p, 3);
	DMEMIT("reads %lld writes %lld predicted %lld predicted_slow %lld redirected %lld both_slow %lld probes %lld ",
	       atomic64_read(&st->reads), atomic64_read(&st->writes),
	       atomic64_read(&st->predicted), atomic64_read(&st->predicted_slow),
	       atomic64_read(&st->redirected), atomic64_read(&st->both_slow),
	       atomic64_read(&st->probes));
	DMEMIT("true_slow %lld true_fast %lld false_submit %lld false_revoke %lld accuracy %u.%u ",
	       atomic64_read(&st->true_slow), atomic64_read(&st->true_fast),
	       atomic64_read(&st->false_submit), atomic64_read(&st->false_revoke),
	       acc / 10, acc % 10);
	DMEMIT("cpu_inferences %lld gpu_inferences %lld cpu_ns_per_inference %llu gpu_ns_per_inference %llu gpu_batches %lld gpu_failures %lld gpu_late %lld ",
	       atomic64_read(&st->cpu_inferences), atomic64_read(&st->gpu_inferences),
	       avg(&st->cpu_ns, &st->cpu_inferences), avg(&st->gpu_ns, &st->gpu_inferences),
	       atomic64_read(&st->gpu_batches), atomic64_read(&st->gpu_failures),
	       atomic64_read(&st->gpu_late));
	/* The legs as dm-raid1 shows them: A alive, D dead (failed). */
	DMEMIT("legs %c%c retried %lld read_failed %lld write_errors %lld ",
	       linnos_leg_ok(lt, 0) ? 'A' : 'D', linnos_leg_ok(lt, 1) ? 'A' : 'D',
	       atomic64_read(&st->retried), atomic64_read(&st->read_failed),
	       atomic64_read(&st->write_errors));
	for (d = 0; d < LINNOS_NR_DEVS; d++)
		DMEMIT("leg%d_reads %lld leg%d_read_errors %lld leg%d_write_errors %lld ",
		       d, atomic64_read(&st->leg_reads[d]), d,
		       atomic64_read(&st->leg_read_errors[d]), d,
		       atomic64_read(&st->leg_write_errors[d]));
	DMEMIT("p50_us %llu p99_us %llu p999_us %llu mode %s threshold_us %u",
	       p[0], p[1], p[2], linnos_mode_name(READ_ONCE(lt->mode)),
	       READ_ONCE(lt->threshold_us));
}

static int status_show(struct seq_file *sf, void *unused)
{
	struct linnos_target *lt = sf->private;
	char *line = kmalloc(STATUS_LINE_MAX, GFP_KERNEL);
	char *s, *tok;
	u64 c;
	int i;

	if (!line)
		return -ENOMEM;
	linnos_status_line(lt, line, STATUS_LINE_MAX);
	/* "key value key value ..." -> one "key value" per line */
	for (s = line, i = 0; (tok = strsep(&s, " ")); i++)
		seq_printf(sf, "%s%s", tok, i % 2 ? "\n" : " ");
	kfree(line);
	mutex_lock(&lt->model_lock);
	seq_printf(sf, "model %s\n", lt->model_name);
	mutex_unlock(&lt->model_lock);
	seq_printf(sf, "worker_batches %lld\npolicy %s\nregistries %s %s\n",
		   atomic64_read(&lt->st.worker_batches),
		   lt->fb_name, lt->dev[0].reg_name, lt->dev[1].reg_name);
	seq_printf(sf, "pending %d %d\n", atomic_read(&lt->dev[0].pending),
		   atomic_read(&lt->dev[1].pending));
	seq_puts(sf, "latency_hist_us");
	for (i = 0; i < LINNOS_HIST_BUCKETS; i++) {
		c = atomic64_read(&lt->st.hist[i]);
		if (c)
			seq_printf(sf, " %llu:%llu", div_u64(bucket_mid(i), NSEC_PER_USEC), c);
	}
	seq_putc(sf, '\n');
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(status);

static u32 rec_u32(struct linnos_dev *dv, const struct lake_reg_record *rec, u32 f, u32 e)
{
	const u8 *p = lake_features_record_feature(dv->reg, rec, f, e);
	u32 v = 0;

	if (p)
		memcpy(&v, p, sizeof(v));
	return v;
}

static int trace_line(struct linnos_dev *dv, int d, const struct lake_reg_record *rec,
		      char *buf, size_t len)
{
	return scnprintf(buf, len, "%llu,%d,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u\n", rec->ts_begin, d,
			 rec_u32(dv, rec, LINNOS_F_PENDING, 0), rec_u32(dv, rec, LINNOS_F_LATENCY, 0),
			 rec_u32(dv, rec, LINNOS_F_LAT_HIST, 0), rec_u32(dv, rec, LINNOS_F_LAT_HIST, 1),
			 rec_u32(dv, rec, LINNOS_F_LAT_HIST, 2), rec_u32(dv, rec, LINNOS_F_LAT_HIST, 3),
			 rec_u32(dv, rec, LINNOS_F_PEND_HIST, 0), rec_u32(dv, rec, LINNOS_F_PEND_HIST, 1),
			 rec_u32(dv, rec, LINNOS_F_PEND_HIST, 2), rec_u32(dv, rec, LINNOS_F_PEND_HIST, 3));
}

static const char trace_header[] =
	"ts_ns,dev,pending,lat_us,hist_lat0,hist_lat1,hist_lat2,hist_lat3,"
	"hist_pend0,hist_pend1,hist_pend2,hist_pend3\n";

/* Append dev @d's unexported records to out[*used, cap); consume what fits. */
static int trace_dev(struct linnos_target *lt, int d, void *recs, char *out, size_t cap,
		     size_t *used)
{
	struct linnos_dev *dv = &lt->dev[d];
	size_t rsz = lake_features_record_size(dv->reg);
	char line[TRACE_LINE_MAX];
	int n, i, len;

	for (;;) {
		n = lake_features_fetch(dv->reg, dv->trace_ts, recs, rsz * TRACE_BATCH,
					TRACE_BATCH);
		if (n <= 0)
			return n;
		for (i = 0; i < n; i++) {
			const struct lake_reg_record *rec = recs + i * rsz;

			if (rec->seq <= dv->trace_seq)
				continue;
			len = trace_line(dv, d, rec, line, sizeof(line));
			if (*used + len > cap)
				return 0;
			memcpy(out + *used, line, len);
			*used += len;
			dv->trace_seq = rec->seq;
			dv->trace_ts = rec->ts_end;
		}
		/* Keep those at trace_ts: others may share it, seq tells them apart. */
		lake_features_truncate(dv->reg, dv->trace_ts);
		if (n < TRACE_BATCH)
			return 0;
	}
}

static ssize_t trace_read(struct file *f, char __user *ubuf, size_t len, loff_t *ppos)
{
	struct linnos_target *lt = f->private_data;
	size_t cap = min_t(size_t, len, 64 * 1024), used = 0;
	void *recs = NULL;
	char *out;
	int d, ret = 0;

	out = kvmalloc(cap, GFP_KERNEL);
	recs = kmalloc_array(TRACE_BATCH, lake_features_record_size(lt->dev[0].reg),
			     GFP_KERNEL);
	if (!out || !recs) {
		ret = -ENOMEM;
		goto out;
	}
	mutex_lock(&lt->trace_lock);
	if (!*ppos) {
		if (cap < sizeof(trace_header) - 1) {
			ret = -EINVAL;
			goto unlock;
		}
		memcpy(out, trace_header, sizeof(trace_header) - 1);
		used = sizeof(trace_header) - 1;
	}
	for (d = 0; d < LINNOS_NR_DEVS && !ret; d++)
		ret = trace_dev(lt, d, recs, out, cap, &used);
unlock:
	mutex_unlock(&lt->trace_lock);
	if (!ret && copy_to_user(ubuf, out, used))
		ret = -EFAULT;
	if (!ret)
		*ppos += used;
out:
	kfree(recs);
	kvfree(out);
	return ret ? ret : used;
}

static const struct file_operations trace_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = trace_read,
	.llseek = noop_llseek,
};

/*
 * debugfs bench: "run" times a batch of 1, 2, 4 ... LINNOS_MAX_VECTORS
 * vectors through each side with the current model, BENCH_ROUNDS times
 * each after one untimed run (the first GPU call sets the path up), and
 * keeps the fastest, the one least disturbed by other work; reading prints one line per size and the crossover, the
 * smallest size from which on the GPU side was faster at every size ("never" when it was not
 * at the largest).
 */
#define BENCH_ROUNDS	5
#define BENCH_SIZES	9	/* 1 .. 256 */

static int bench_side(struct linnos_target *lt, struct linnos_model *m, bool gpu,
		      u32 n, u64 *ns)
{
	u64 t0, t, best = U64_MAX;
	int r, ret;

	for (r = -1; r < BENCH_ROUNDS; r++) {
		t0 = ktime_get_ns();
		if (gpu) {
			ret = linnos_gpu_infer(lt, m, lt->tool_in[0], n, lt->tool_slow);
			if (ret)
				return ret;
		} else {
			linnos_infer_batch(m, lt->tool_in[0], n, lt->tool_slow);
		}
		t = ktime_get_ns() - t0;
		if (r >= 0)
			best = min(best, t);
	}
	*ns = best;
	return 0;
}

static ssize_t bench_write(struct file *f, const char __user *ubuf, size_t len, loff_t *ppos)
{
	struct linnos_target *lt = ((struct seq_file *)f->private_data)->private;
	struct linnos_model *m;
	char cmd[8] = "";
	u32 i, n;
	int ret = 0;

	if (len >= sizeof(cmd) || copy_from_user(cmd, ubuf, len))
		return -EINVAL;
	if (strcmp(strim(cmd), "run"))
		return -EINVAL;
	m = linnos_model_ref(lt);
	if (!m)
		return -ENOENT;
	mutex_lock(&lt->gpu_lock);
	linnos_fake_inputs(lt->tool_in);
	for (i = 0, n = 1; i < BENCH_SIZES && !ret; i++, n *= 2) {
		lt->bench[i].batch = n;
		ret = bench_side(lt, m, false, n, &lt->bench[i].cpu_ns);
		if (!ret)
			ret = bench_side(lt, m, true, n, &lt->bench[i].gpu_ns);
	}
	lt->bench_sizes = ret ? 0 : BENCH_SIZES;
	mutex_unlock(&lt->gpu_lock);
	linnos_model_free(m);
	return ret ? ret : len;
}

static int bench_show(struct seq_file *sf, void *unused)
{
	struct linnos_target *lt = sf->private;
	u32 i, cross = 0;

	mutex_lock(&lt->gpu_lock);
	for (i = 0; i < lt->bench_sizes; i++)
		seq_printf(sf, "batch %u cpu_ns %llu gpu_ns %llu\n", lt->bench[i].batch,
			   lt->bench[i].cpu_ns, lt->bench[i].gpu_ns);
	/* From which size on the GPU side stays faster: one disturbed size is no crossover. */
	for (i = lt->bench_sizes; i > 0 && lt->bench[i - 1].gpu_ns < lt->bench[i - 1].cpu_ns; i--)
		cross = lt->bench[i - 1].batch;
	if (lt->bench_sizes) {
		if (cross)
			seq_printf(sf, "crossover %u\n", cross);
		else
			seq_puts(sf, "crossover never\n");
	}
	mutex_unlock(&lt->gpu_lock);
	return 0;
}

static int bench_open(struct inode *inode, struct file *f)
{
	return single_open(f, bench_show, inode->i_private);
}

static const struct file_operations bench_fops = {
	.owner = THIS_MODULE,
	.open = bench_open,
	.read = seq_read,
	.write = bench_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/*
 * debugfs compare: the current model on a fixed set of inputs on both
 * sides, through the GPU path the worker uses (its weights loaded once per
 * model), and how many verdicts differ: 0 unless the GPU runs other
 * weights than the CPU, e.g. a model's left there after a swap. The inputs
 * are encoded histories from 3 us to 9.9 ms with 0..8 reads pending, so
 * that any model answers some fast and some slow. One line:
 * "vectors N cpu_slow A gpu_slow B mismatches M", or "gpu_error E".
 */
static void compare_inputs(u8 (*in)[LINNOS_INPUTS])
{
	static const u32 lat[16] = {
		3, 5, 8, 12, 20, 35, 60, 100, 200, 400, 800, 1500, 2500, 4000, 7000, 9999,
	};
	struct linnos_history h;
	u32 i, k;

	for (i = 0; i < LINNOS_MAX_VECTORS; i++) {
		for (k = 0; k < LINNOS_HISTORY; k++) {
			h.latency_us[k] = lat[(i * 5 + k * (i / 16 + 1)) % 16];
			h.pending_at_issue[k] = (i + k) % 7;
		}
		linnos_encode(&h, i % 9, in[i]);
	}
}

static int compare_show(struct seq_file *sf, void *unused)
{
	struct linnos_target *lt = sf->private;
	u32 i, cpu_slow = 0, gpu_slow = 0, diff = 0;
	struct linnos_model *m;
	u8 *cpu;
	int ret;

	cpu = kmalloc(LINNOS_MAX_VECTORS, GFP_KERNEL);
	if (!cpu)
		return -ENOMEM;
	m = linnos_model_ref(lt);
	if (!m) {
		kfree(cpu);
		return -ENOENT;
	}
	mutex_lock(&lt->gpu_lock);
	compare_inputs(lt->tool_in);
	linnos_infer_batch(m, lt->tool_in[0], LINNOS_MAX_VECTORS, cpu);
	ret = linnos_gpu_infer(lt, m, lt->tool_in[0], LINNOS_MAX_VECTORS, lt->tool_slow);
	for (i = 0; i < LINNOS_MAX_VECTORS && !ret; i++) {
		cpu_slow += cpu[i];
		gpu_slow += lt->tool_slow[i];
		diff += cpu[i] != lt->tool_slow[i];
	}
	mutex_unlock(&lt->gpu_lock);
	linnos_model_free(m);
	kfree(cpu);
	if (ret)
		seq_printf(sf, "gpu_error %d\n", ret);
	else
		seq_printf(sf, "vectors %u cpu_slow %u gpu_slow %u mismatches %u\n",
			   LINNOS_MAX_VECTORS, cpu_slow, gpu_slow, diff);
	return 0;
}

static int compare_open(struct inode *inode, struct file *f)
{
	return single_open(f, compare_show, inode->i_private);
}

static const struct file_operations compare_fops = {
	.owner = THIS_MODULE,
	.open = compare_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

/* Named after the dm device (dmsetup's NAME), else after the policy. */
void linnos_debugfs_add(struct linnos_target *lt, struct dm_target *ti)
{
	char name[DM_NAME_LEN], dname[DM_NAME_LEN + 16];
	struct dentry *old;

	if (dm_copy_name_and_uuid(dm_table_get_md(ti->table), name, NULL))
		strscpy(name, lt->fb_name, sizeof(name));
	/* A reload builds a new target while the old one lives: number it. */
	snprintf(dname, sizeof(dname), "%s", name);
	old = debugfs_lookup(dname, linnos_dir);
	if (old) {
		dput(old);
		snprintf(dname, sizeof(dname), "%s.%u", name, lt->id);
	}
	lt->dbg = debugfs_create_dir(dname, linnos_dir);
	debugfs_create_file("status", 0400, lt->dbg, lt, &status_fops);
	debugfs_create_file("trace", 0400, lt->dbg, lt, &trace_fops);
	debugfs_create_file("bench", 0600, lt->dbg, lt, &bench_fops);
	debugfs_create_file("compare", 0400, lt->dbg, lt, &compare_fops);
}

void linnos_debugfs_remove(struct linnos_target *lt)
{
	debugfs_remove(lt->dbg);
}

int linnos_debugfs_init(void)
{
	linnos_dir = debugfs_create_dir("linnos", lake_debugfs_dir());
	return 0;
}

void linnos_debugfs_exit(void)
{
	debugfs_remove(linnos_dir);
}

