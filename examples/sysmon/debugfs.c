// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs lake/sysmon/ (sysmon.c's essay has what each view means):
 *	status	the probe's and the worker's counters, the reference's figures
 *	flagged	the last FLAGGED_MAX processes flagged
 *	bench	the last "bench N..." results
 *	ctl	(write) tick | reset | ref FILE|none | calibrate | bench N...
 *	windows	the exporter (below)
 * A command that fails returns its -errno to the write, with a log line.
 */
#define pr_fmt(fmt) "lake_sysmon: " fmt

#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <lake/shm.h>
#include "sysmon.h"

static struct dentry *dir;

static int status_show(struct seq_file *m, void *unused)
{
	u64 calls, dropped;

	sm_probe_totals(&calls, &dropped);
	seq_printf(m, "probe %s\ncalls %llu\ndropped %llu\n", sm_probe_on() ? "on" : "off",
		   calls, dropped);
#define SHOW(x) seq_printf(m, #x " %lld\n", atomic64_read(&sm_st.x))
	SHOW(ticks);
	SHOW(windows);
	SHOW(small);
	SHOW(scored_cpu);
	SHOW(scored_gpu);
	SHOW(flagged);
	SHOW(batches_cpu);
	SHOW(batches_gpu);
	SHOW(gpu_errors);
	SHOW(redone_cpu);
	SHOW(deferred);
	SHOW(deferred_scored);
	SHOW(overflow);
#undef SHOW
	/* The reference's figures, as the last load set them (never waits for a tick). */
	if (READ_ONCE(shown.count))
		seq_printf(m, "ref %u\nk %u\nthreshold %u\n", READ_ONCE(shown.count),
			   READ_ONCE(shown.k), READ_ONCE(shown.threshold));
	else
		seq_puts(m, "ref none\n");
	seq_printf(m, "period_ms %u\nmin_calls %u\nmax_batch %u\n", READ_ONCE(period_ms),
		   READ_ONCE(min_calls), max_batch);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(status);

static int flagged_show(struct seq_file *m, void *unused)
{
	struct sm_flag *copy;
	u32 i;

	copy = kmalloc_array(FLAGGED_MAX, sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	sm_flagged_copy(copy);
	seq_puts(m, "tgid comm score windows last_ns\n");
	for (i = 0; i < FLAGGED_MAX; i++)
		if (copy[i].windows)
			seq_printf(m, "%u %.16s %u %u %llu\n", copy[i].tgid, copy[i].comm,
				   copy[i].score, copy[i].windows, copy[i].last_ns);
	kfree(copy);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(flagged);

static int bench_show(struct seq_file *m, void *unused)
{
	if (mutex_lock_killable(&sm_lock))
		return -EINTR;
	seq_puts(m, bench_text);
	mutex_unlock(&sm_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(bench);

static int ctl_cmd(char *cmd)
{
	u32 sizes[BENCH_SIZES], n = 0;
	char *arg, *tok;
	int ret;

	cmd = strim(cmd);
	if (!strcmp(cmd, "tick")) {
		sm_tick();
		return 0;
	}
	if (!strcmp(cmd, "reset")) {
		sm_reset();
		return 0;
	}
	if (!strncmp(cmd, "ref ", 4))
		return sm_load_ref(strim(cmd + 4));
	if (!cur_ref && (!strcmp(cmd, "calibrate") || !strncmp(cmd, "bench ", 6))) {
		pr_err("%s needs a reference\n", cmd);
		return -ENODATA;
	}
	if (!strcmp(cmd, "calibrate")) {
		ret = lake_fallback_calibrate(sm_fb, CALIB_ROUNDS, sm_calib_run, NULL);
		if (ret)
			pr_err("calibrate failed: %d\n", ret);
		return ret;
	}
	if (!strncmp(cmd, "bench ", 6)) {
		arg = cmd + 6;
		while ((tok = strsep(&arg, " ")) && n < BENCH_SIZES) {
			if (!*tok)
				continue;
			if (kstrtou32(tok, 10, &sizes[n]) || !sizes[n] || sizes[n] > max_batch) {
				pr_err("bench: batch sizes are 1..%u\n", max_batch);
				return -EINVAL;
			}
			n++;
		}
		if (!n || tok)
			return -EINVAL;
		return sm_bench(sizes, n);
	}
	pr_err("unknown command (tick, reset, ref FILE|none, calibrate, bench N...)\n");
	return -EINVAL;
}

static ssize_t ctl_write(struct file *f, const char __user *ubuf, size_t len, loff_t *ppos)
{
	char cmd[128];
	int ret;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = '\0';
	if (mutex_lock_killable(&sm_lock))
		return -EINTR;
	ret = ctl_cmd(cmd);
	mutex_unlock(&sm_lock);
	return ret ? ret : len;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.write = ctl_write,
	.llseek = noop_llseek,
};

/*
 * The exporter (lakelib's lake_features_reader): each open of
 * lake/sysmon/windows reads, as CSV, the windows the registry holds (its
 * ring keeps the newest REG_CAPACITY), oldest first, then those recorded
 * while it reads, each once; an empty read means nothing new (train.py's
 * input):
 *	ts_ns,tgid,comm,calls,score,c0..c63
 * c0..c47 the classes' counts, c48..c63 the bigram buckets', over the
 * window (two periods); score 0 without a reference. Each open has its
 * own cursor, so readers do not take windows from one another.
 */
static char export_header[16 + 5 * SYSMON_DIMS];

/* One record's CSV line; snprintf's return: the length it needs. */
static size_t export_line(const struct lake_features *fr, const struct lake_reg_record *rec,
			  char *p, size_t cap, void *arg)
{
	char comm[TASK_COMM_LEN + 1] = "";
	const u32 *c;
	u32 tgid, sc;
	size_t len;
	int j;

	memcpy(&tgid, lake_features_record_feature(fr, rec, F_TGID, 0), sizeof(tgid));
	memcpy(comm, lake_features_record_feature(fr, rec, F_COMM, 0), TASK_COMM_LEN);
	memcpy(&sc, lake_features_record_feature(fr, rec, F_SCORE, 0), sizeof(sc));
	c = (const u32 *)lake_features_record_feature(fr, rec, F_CALLS, 0);
	for (j = 0; comm[j]; j++)
		if (comm[j] == ',' || comm[j] < ' ' || comm[j] > '~')
			comm[j] = '_';
	len = snprintf(p, cap, "%llu,%u,%s,%u,%u", rec->ts_end, tgid, comm, sm_win_calls(c), sc);
	for (j = 0; j < SYSMON_DIMS; j++)
		len += snprintf(p + min(len, cap), cap - min(len, cap), ",%u", c[j]);
	len += snprintf(p + min(len, cap), cap - min(len, cap), "\n");
	return len;
}

static int windows_open(struct inode *inode, struct file *f)
{
	struct lake_features_reader *rd;

	rd = lake_features_reader_open(sm_reg, export_header, export_line, NULL);
	if (IS_ERR(rd))
		return PTR_ERR(rd);
	f->private_data = rd;
	return nonseekable_open(inode, f);
}

static ssize_t windows_read(struct file *f, char __user *ubuf, size_t len, loff_t *ppos)
{
	return lake_features_reader_read(f->private_data, ubuf, len, ppos);
}

static int windows_release(struct inode *inode, struct file *f)
{
	lake_features_reader_release(f->private_data);
	return 0;
}

static const struct file_operations windows_fops = {
	.owner = THIS_MODULE,
	.open = windows_open,
	.read = windows_read,
	.release = windows_release,
};

void sm_debugfs_init(void)
{
	size_t n;
	int j;

	n = scnprintf(export_header, sizeof(export_header), "ts_ns,tgid,comm,calls,score");
	for (j = 0; j < SYSMON_DIMS; j++)
		n += scnprintf(export_header + n, sizeof(export_header) - n, ",c%d", j);
	scnprintf(export_header + n, sizeof(export_header) - n, "\n");
	dir = debugfs_create_dir("sysmon", lake_debugfs_dir());
	debugfs_create_file("status", 0400, dir, NULL, &status_fops);
	debugfs_create_file("flagged", 0400, dir, NULL, &flagged_fops);
	debugfs_create_file("bench", 0400, dir, NULL, &bench_fops);
	debugfs_create_file("windows", 0400, dir, NULL, &windows_fops);
	debugfs_create_file("ctl", 0200, dir, NULL, &ctl_fops);
}

void sm_debugfs_exit(void)
{
	debugfs_remove_recursive(dir);
	dir = NULL;
}
