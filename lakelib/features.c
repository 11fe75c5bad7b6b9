// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel glue of the feature registry (include/lake/features.h): an
 * irq-safe spinlock and a debugfs file around each registry core
 * (common/registry_core.c). The core allocates everything at create, so
 * nothing under the lock allocates or sleeps. The lock is raw: callers may
 * be in hard irq, where a spinlock_t would sleep on PREEMPT_RT.
 */
#define pr_fmt(fmt) "lakelib: " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <lake/features.h>
#include <lake/shm.h>
#include "lakelib.h"

/* What debugfs shows: the newest records, in a buffer this large. */
#define SHOW_NEWEST	16
#define SHOW_BYTES	(16 * 1024)

struct lake_features {
	raw_spinlock_t lock;
	struct lake_reg *core;
	struct list_head node;
	struct dentry *file;
};

static DEFINE_MUTEX(registries_lock);
static LIST_HEAD(registries);
static struct dentry *registry_dir;

static int registry_show(struct seq_file *m, void *unused)
{
	struct lake_features *fr = m->private;
	unsigned long flags;
	size_t len;
	char *buf;

	buf = kvmalloc(SHOW_BYTES, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	raw_spin_lock_irqsave(&fr->lock, flags);
	len = lake_reg_format(fr->core, buf, SHOW_BYTES, SHOW_NEWEST);
	raw_spin_unlock_irqrestore(&fr->lock, flags);
	seq_write(m, buf, min_t(size_t, len, SHOW_BYTES - 1));
	kvfree(buf);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(registry);

int lake_features_visit_nth(u32 idx, lake_features_visit_t fn, void *arg)
{
	struct lake_reg_stats st;
	struct lake_features *fr;
	unsigned long flags;
	int ret = -ENOENT;

	/* Under the list mutex: the registry cannot be destroyed meanwhile. */
	mutex_lock(&registries_lock);
	list_for_each_entry(fr, &registries, node) {
		if (idx--)
			continue;
		raw_spin_lock_irqsave(&fr->lock, flags);
		lake_reg_get_stats(fr->core, &st);
		raw_spin_unlock_irqrestore(&fr->lock, flags);
		ret = fn(fr->core, &st, arg);
		break;
	}
	mutex_unlock(&registries_lock);
	return ret;
}

struct lake_features *lake_features_create(const char *name,
					   const struct lake_feature_desc *schema,
					   u32 nr_features, u32 capacity,
					   u32 max_open)
{
	struct lake_features *fr, *other;
	int ret;

	if (!name || strchr(name, '/'))
		return ERR_PTR(-EINVAL);
	fr = kzalloc(sizeof(*fr), GFP_KERNEL);
	if (!fr)
		return ERR_PTR(-ENOMEM);
	ret = lake_reg_create(name, schema, nr_features, capacity, max_open,
			      &fr->core);
	if (ret)
		goto err_free;
	raw_spin_lock_init(&fr->lock);

	mutex_lock(&registries_lock);
	list_for_each_entry(other, &registries, node) {
		if (!strcmp(lake_reg_name(other->core), name)) {
			mutex_unlock(&registries_lock);
			ret = -EEXIST;
			goto err_core;
		}
	}
	list_add_tail(&fr->node, &registries);
	fr->file = debugfs_create_file(name, 0444, registry_dir, fr,
				       &registry_fops);
	mutex_unlock(&registries_lock);
	return fr;

err_core:
	lake_reg_destroy(fr->core);
err_free:
	kfree(fr);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(lake_features_create);

void lake_features_destroy(struct lake_features *fr)
{
	if (!fr)
		return;
	mutex_lock(&registries_lock);
	/* Waits for readers of the file to leave. */
	debugfs_remove(fr->file);
	list_del(&fr->node);
	mutex_unlock(&registries_lock);
	lake_reg_destroy(fr->core);
	kfree(fr);
}
EXPORT_SYMBOL_GPL(lake_features_destroy);

int lake_features_index(const struct lake_features *fr, const char *name)
{
	return lake_reg_feature_index(fr->core, name);
}
EXPORT_SYMBOL_GPL(lake_features_index);

size_t lake_features_record_size(const struct lake_features *fr)
{
	return lake_reg_record_size(fr->core);
}
EXPORT_SYMBOL_GPL(lake_features_record_size);

const u8 *lake_features_record_feature(const struct lake_features *fr,
				       const struct lake_reg_record *rec,
				       u32 idx, u32 entry)
{
	return lake_reg_record_feature(fr->core, rec, idx, entry);
}
EXPORT_SYMBOL_GPL(lake_features_record_feature);

struct lake_reg_vec *lake_features_begin(struct lake_features *fr)
{
	u64 now = ktime_get_ns();
	struct lake_reg_vec *vec;
	unsigned long flags;

	raw_spin_lock_irqsave(&fr->lock, flags);
	vec = lake_reg_begin(fr->core, now);
	raw_spin_unlock_irqrestore(&fr->lock, flags);
	return vec;
}
EXPORT_SYMBOL_GPL(lake_features_begin);

int lake_features_capture(struct lake_features *fr, struct lake_reg_vec *vec,
			  u32 idx, const void *val, u32 len)
{
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&fr->lock, flags);
	ret = lake_reg_capture(fr->core, vec, idx, val, len);
	raw_spin_unlock_irqrestore(&fr->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(lake_features_capture);

int lake_features_commit(struct lake_features *fr, struct lake_reg_vec *vec)
{
	/* Read outside the lock: the core keeps ts_end in commit order. */
	u64 now = ktime_get_ns();
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&fr->lock, flags);
	ret = lake_reg_commit(fr->core, vec, now);
	raw_spin_unlock_irqrestore(&fr->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(lake_features_commit);

int lake_features_abort(struct lake_features *fr, struct lake_reg_vec *vec)
{
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&fr->lock, flags);
	ret = lake_reg_abort(fr->core, vec);
	raw_spin_unlock_irqrestore(&fr->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(lake_features_abort);

int lake_features_fetch(struct lake_features *fr, u64 since_ns, void *buf,
			size_t buf_len, u32 max)
{
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&fr->lock, flags);
	ret = lake_reg_fetch(fr->core, since_ns, buf, buf_len, max);
	raw_spin_unlock_irqrestore(&fr->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(lake_features_fetch);

u32 lake_features_truncate(struct lake_features *fr, u64 before_ns)
{
	unsigned long flags;
	u32 n;

	raw_spin_lock_irqsave(&fr->lock, flags);
	n = lake_reg_truncate(fr->core, before_ns);
	raw_spin_unlock_irqrestore(&fr->lock, flags);
	return n;
}
EXPORT_SYMBOL_GPL(lake_features_truncate);

void lake_features_get_stats(struct lake_features *fr, struct lake_reg_stats *st)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&fr->lock, flags);
	lake_reg_get_stats(fr->core, st);
	raw_spin_unlock_irqrestore(&fr->lock, flags);
}
EXPORT_SYMBOL_GPL(lake_features_get_stats);

/* --- the exporter (features.h) -------------------------------------------- */

#define READER_TEXT	((LAKE_FEATURES_READER_CHUNK + 1) * LAKE_FEATURES_LINE_MAX)

struct lake_features_reader {
	struct mutex lock;
	struct lake_features *fr;
	lake_features_fmt_t fmt;
	void *arg;
	u64 since_ns, last_seq;	/* the cursor: the last record given */
	bool header_done;
	size_t header_len;
	size_t len, off;	/* text[off..len) not read yet */
	void *recs;
	char header[LAKE_FEATURES_LINE_MAX];
	char text[READER_TEXT];
};

struct lake_features_reader *lake_features_reader_open(struct lake_features *fr,
						       const char *header,
						       lake_features_fmt_t fmt,
						       void *arg)
{
	struct lake_features_reader *rd;

	if (!fr || !fmt || (header && strlen(header) >= LAKE_FEATURES_LINE_MAX))
		return ERR_PTR(-EINVAL);
	rd = kvzalloc(sizeof(*rd), GFP_KERNEL);
	if (!rd)
		return ERR_PTR(-ENOMEM);
	rd->recs = kvmalloc_array(LAKE_FEATURES_READER_CHUNK,
				  lake_features_record_size(fr), GFP_KERNEL);
	if (!rd->recs) {
		kvfree(rd);
		return ERR_PTR(-ENOMEM);
	}
	mutex_init(&rd->lock);
	rd->fr = fr;
	rd->fmt = fmt;
	rd->arg = arg;
	if (header) {
		rd->header_len = strlen(header);
		memcpy(rd->header, header, rd->header_len);
	} else {
		rd->header_done = true;
	}
	return rd;
}
EXPORT_SYMBOL_GPL(lake_features_reader_open);

/* The next chunk as text in rd->text; under rd->lock. */
static int reader_fill(struct lake_features_reader *rd)
{
	size_t rs = lake_features_record_size(rd->fr), n = 0, w;
	int got, i, skipped = 0;

	rd->len = rd->off = 0;
	if (!rd->header_done) {
		memcpy(rd->text, rd->header, rd->header_len);
		n = rd->header_len;
		rd->header_done = true;
	}
	got = lake_features_fetch(rd->fr, rd->since_ns, rd->recs,
				  LAKE_FEATURES_READER_CHUNK * rs,
				  LAKE_FEATURES_READER_CHUNK);
	if (got < 0)
		return got;
	for (i = 0; i < got; i++) {
		const struct lake_reg_record *r = rd->recs + i * rs;

		/* Fetch starts at since_ns itself: the records given already. */
		if (r->seq <= rd->last_seq) {
			skipped++;
			continue;
		}
		rd->last_seq = r->seq;
		rd->since_ns = r->ts_end;
		/* READER_TEXT leaves a line's room for each record of the chunk. */
		w = rd->fmt(rd->fr, r, rd->text + n, LAKE_FEATURES_LINE_MAX, rd->arg);
		if (w >= LAKE_FEATURES_LINE_MAX) {
			pr_warn_ratelimited("%s: a record's line of %zu bytes skipped (at most %u)\n",
					    lake_reg_name(rd->fr->core), w,
					    LAKE_FEATURES_LINE_MAX - 1);
			/* The lines before it are still given, the next read. */
			rd->len = n;
			return -EOVERFLOW;
		}
		n += w;
	}
	/*
	 * A whole chunk sharing the cursor's ts_end, every one given already,
	 * would stall the cursor: step past that nanosecond.
	 */
	if (got == LAKE_FEATURES_READER_CHUNK && skipped == got)
		rd->since_ns++;
	rd->len = n;
	return 0;
}

ssize_t lake_features_reader_read(struct lake_features_reader *rd,
				  char __user *ubuf, size_t len, loff_t *ppos)
{
	ssize_t ret;
	size_t n;

	if (mutex_lock_interruptible(&rd->lock))
		return -ERESTARTSYS;
	if (rd->off >= rd->len) {
		ret = reader_fill(rd);
		if (ret)
			goto out;
		if (!rd->len)
			goto out;
	}
	n = min(len, rd->len - rd->off);
	if (copy_to_user(ubuf, rd->text + rd->off, n)) {
		ret = -EFAULT;
		goto out;
	}
	rd->off += n;
	*ppos += n;
	ret = n;
out:
	mutex_unlock(&rd->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(lake_features_reader_read);

void lake_features_reader_release(struct lake_features_reader *rd)
{
	if (!rd)
		return;
	mutex_destroy(&rd->lock);
	kvfree(rd->recs);
	kvfree(rd);
}
EXPORT_SYMBOL_GPL(lake_features_reader_release);

void lake_features_init(void)
{
	registry_dir = debugfs_create_dir("registry", lake_debugfs_dir());
}

void lake_features_exit(void)
{
	/* Consumers hold lakelib until they unload; a leftover is a leak. */
	if (!list_empty(&registries))
		pr_warn("feature registries left behind at unload\n");
	debugfs_remove_recursive(registry_dir);
}
