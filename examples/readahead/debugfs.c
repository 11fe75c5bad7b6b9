// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs lake/readahead/: the control file and the views.
 *
 *   ctl     (write) add PATH | remove PATH | model FILE | model none |
 *           label N | label none | decide on|off | calibrate
 *   status  the model, counters, then a line per device:
 *           dev NAME MAJ:MIN ra_kib K saved_kib K windows N decisions N
 *           changes N class C inflight F pages P inputs I0,..,I7
 *           (F: reads issued and not completed, now)
 *   log     the last RA_LOG_ENTRIES readahead changes, oldest first
 *   trace   the exporter (lakelib's lake_features_reader): the registry's
 *           records this open has not read, each once, as CSV (ts_ns,dev,
 *           label,pages,seq,stride,gap_mean,gap_std,run_len,rate,inflight,
 *           ra,recent); an empty read means nothing new
 *
 * A command that fails returns its -errno to the write, with a log line.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <lake/fallback.h>
#include <lake/features.h>
#include <lake/shm.h>
#include "readahead.h"

static struct dentry *dir;

static int do_command(char *cmd)
{
	char *arg = strim(cmd), *verb = strsep(&arg, " \t");
	u16 label;

	arg = arg ? strim(arg) : NULL;
	if (!strcmp(verb, "add") && arg && *arg)
		return ra_add_dev(arg);
	if (!strcmp(verb, "remove") && arg && *arg)
		return ra_remove_dev(arg);
	if (!strcmp(verb, "model") && arg && *arg)
		return ra_load_model(strcmp(arg, "none") ? arg : NULL);
	if (!strcmp(verb, "label") && arg) {
		if (!strcmp(arg, "none"))
			label = RA_NO_LABEL;
		else if (kstrtou16(arg, 0, &label) || label == RA_NO_LABEL)
			goto bad;
		/* A window begun under another label is not recorded. */
		mutex_lock(&ra.work_lock);
		if (ra.label != label)
			ra.label_fresh = true;
		ra.label = label;
		mutex_unlock(&ra.work_lock);
		return 0;
	}
	if (!strcmp(verb, "decide") && arg && (!strcmp(arg, "on") || !strcmp(arg, "off"))) {
		mutex_lock(&ra.work_lock);
		ra.decide = !strcmp(arg, "on");
		mutex_unlock(&ra.work_lock);
		return 0;
	}
	if (!strcmp(verb, "calibrate") && !arg)
		return ra_calibrate();
bad:
	pr_err("lake_readahead: bad command (add PATH, remove PATH, model FILE|none, label N|none, decide on|off, calibrate)\n");
	return -EINVAL;
}

static ssize_t ctl_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	char *buf;
	int ret;

	if (len == 0 || len > 256)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&ra.ctl_lock);
	ret = do_command(buf);
	mutex_unlock(&ra.ctl_lock);
	kfree(buf);
	return ret ? ret : len;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.write = ctl_write,
	.llseek = noop_llseek,
};

static int status_show(struct seq_file *m, void *unused)
{
	u32 i, j;

	mutex_lock(&ra.work_lock);
	seq_printf(m, "model %s\n", ra.model ? ra.model_name : "none");
	if (ra.model) {
		seq_puts(m, "classes_kib");
		for (i = 0; i < ra.model->classes; i++)
			seq_printf(m, " %u", ra.model->kib[i]);
		seq_putc(m, '\n');
	}
	seq_printf(m, "decide %s\nwindow_ms %u\nprobes %u\ndevices %u\n",
		   ra.decide ? "on" : "off", READ_ONCE(ra_window_ms), hweight32(ra.attached),
		   ra.nr_devs);
	seq_printf(m, "cpu_batches %llu\ngpu_batches %llu\ngpu_failures %llu\n"
		   "gpu_verified %llu\ngpu_mismatches %llu\nlabel %u\n", ra.cpu_batches,
		   ra.gpu_batches, ra.gpu_failures, ra.gpu_verified, ra.gpu_mismatches,
		   READ_ONCE(ra.label));
	for (i = 0; i < RA_MAX_DEVS; i++) {
		struct ra_dev *d = rcu_dereference_protected(ra.devs[i],
							     lockdep_is_held(&ra.work_lock));

		if (!d)
			continue;
		seq_printf(m, "dev %s %u:%u ra_kib %lu saved_kib %lu windows %llu decisions %llu "
			   "changes %llu class %u inflight %d pages %llu inputs", d->name, MAJOR(d->dev),
			   MINOR(d->dev), READ_ONCE(d->bdi->ra_pages) * PAGE_SIZE / SZ_1K,
			   d->saved_ra_pages * PAGE_SIZE / SZ_1K, d->windows, d->decisions,
			   d->changes, d->last_cls, atomic_read(&d->inflight), d->last_pages);
		for (j = 0; j < RA_INPUTS; j++)
			seq_printf(m, "%c%u", j ? ',' : ' ', d->last_in[j]);
		seq_putc(m, '\n');
	}
	mutex_unlock(&ra.work_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(status);

static int log_show(struct seq_file *m, void *unused)
{
	u64 i;

	/* seq_printf never sleeps: its buffer is there already. */
	spin_lock(&ra.log_lock);
	for (i = ra.log_next > RA_LOG_ENTRIES ? ra.log_next - RA_LOG_ENTRIES : 0;
	     i < ra.log_next; i++) {
		struct ra_log_entry *e = &ra.log[i % RA_LOG_ENTRIES];

		seq_printf(m, "%llu %u:%u %u -> %u KiB class %u %s\n", e->ts_ns, MAJOR(e->dev),
			   MINOR(e->dev), e->from_kib, e->to_kib, e->cls, e->gpu ? "gpu" : "cpu");
	}
	spin_unlock(&ra.log_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(log);

/* --- the exporter: lakelib's, with this registry's line ------------------- */

#define TRACE_HEADER	"ts_ns,dev,label,pages,seq,stride,gap_mean,gap_std,run_len,rate,inflight,ra,recent\n"

static u64 rec_u(const struct lake_reg_record *r, u32 idx, u32 size)
{
	const u8 *p = lake_features_record_feature(ra.fr, r, idx, 0);
	u32 v32;
	u16 v16;

	if (size == 2) {
		memcpy(&v16, p, 2);
		return v16;
	}
	memcpy(&v32, p, 4);
	return v32;
}

/* One record's CSV line; snprintf's return: the length it needs. */
static size_t trace_line(const struct lake_features *fr, const struct lake_reg_record *r,
			 char *buf, size_t len, void *arg)
{
	const u8 *in = lake_features_record_feature(fr, r, RA_REC_IN, 0);
	dev_t dev = (dev_t)rec_u(r, RA_REC_DEV, 4);
	size_t n;
	u32 j;
	u16 v;

	n = snprintf(buf, len, "%llu,%u:%u,%llu,%llu", r->ts_end, MAJOR(dev), MINOR(dev),
		     rec_u(r, RA_REC_LABEL, 2), rec_u(r, RA_REC_PAGES, 4));
	for (j = 0; j < RA_INPUTS; j++) {
		memcpy(&v, in + 2 * j, 2);
		n += snprintf(buf + min(n, len), len - min(n, len), ",%u", v);
	}
	n += snprintf(buf + min(n, len), len - min(n, len), "\n");
	return n;
}

static int trace_open(struct inode *inode, struct file *file)
{
	struct lake_features_reader *rd;

	rd = lake_features_reader_open(ra.fr, TRACE_HEADER, trace_line, NULL);
	if (IS_ERR(rd))
		return PTR_ERR(rd);
	file->private_data = rd;
	return nonseekable_open(inode, file);
}

static int trace_release(struct inode *inode, struct file *file)
{
	lake_features_reader_release(file->private_data);
	return 0;
}

static ssize_t trace_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	return lake_features_reader_read(file->private_data, ubuf, len, ppos);
}

static const struct file_operations trace_fops = {
	.owner = THIS_MODULE,
	.open = trace_open,
	.release = trace_release,
	.read = trace_read,
};

int ra_debugfs_init(void)
{
	dir = debugfs_create_dir("readahead", lake_debugfs_dir());
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	debugfs_create_file("ctl", 0200, dir, NULL, &ctl_fops);
	debugfs_create_file("status", 0444, dir, NULL, &status_fops);
	debugfs_create_file("log", 0444, dir, NULL, &log_fops);
	debugfs_create_file("trace", 0400, dir, NULL, &trace_fops);
	return 0;
}

void ra_debugfs_exit(void)
{
	debugfs_remove_recursive(dir);
}
