// SPDX-License-Identifier: GPL-2.0
/*
 * lake_readahead: each block device's readahead sized by a small network,
 * after KML (Akgun et al., "A Machine Learning Framework to Improve Storage
 * System Performance"), on a stock kernel.
 *
 * What. For each block device it is told to manage (debugfs lake/readahead/
 * ctl: "add /dev/NAME"), every window (window_ms, 1 s) the module describes
 * the window's page-cache traffic in eight numbers, a network picks one of a
 * few readahead sizes for the next window, and the module sets it where
 * `blockdev --setra` does (the disk's bdi->ra_pages) and logs each change
 * (the kernel log and lake/readahead/log). "remove /dev/NAME" and module
 * removal put back the readahead the device had when it was added.
 *
 * Features. Probes attached by tracepoint name (no kernel patch):
 * mm_filemap_add_to_page_cache gives each folio added (its mapping's
 * device: i_rdev for a block device's own cache, s_dev for a filesystem's
 * files); the reads in flight are counted where the disk's completions are
 * traced: on a bio-based disk (dm, brd: no requests) from block_bio_queue
 * to block_bio_complete, on a blk-mq disk (nvme, virtio, scsi) from
 * block_rq_issue to the block_rq_complete of a request's last byte, or its
 * block_rq_requeue, since a bio that went through a request is never traced
 * at completion (blk_update_request clears BIO_TRACE_COMPLETION). The
 * exporter is lakelib's (lake_features_reader_*). A probe only
 * adds to its device's counts under a raw spinlock (model.c's
 * ra_stream_add: runs of consecutive pages, the gaps between them); the
 * window's end turns them into the inputs (model.h: the share of pages in
 * runs longer than the readahead, repeated gaps, mean and spread of log2
 * gap, run length, add rate, reads in flight, the readahead in force, and
 * the largest sequential share of the device's last RA_HISTORY windows
 * that added pages:
 * readers that alternate between streams and random reads want the
 * streams' readahead even in a random spell, since a stream keeps the
 * value it opened under) and
 * captures them with the device, the window's page count and a label
 * ("label N": the phase a recorder is in) into the feature registry
 * "readahead" (lake/features.h). debugfs lake/readahead/trace is its
 * exporter: the records not yet read by this open, as CSV, which `make
 * readahead-trace` collects and examples/readahead/train.py learns from.
 *
 * Model. LKRA weight files (model.c: 9 inputs, one ReLU layer of up to 64,
 * up to 8 classes each naming a readahead in KiB; bounded and checksummed,
 * refused whole with the reason logged), loaded with request_firmware
 * ("model FILE", or the weights parameter at load). A window with fewer
 * than min_pages pages added keeps the readahead it has: too little to
 * judge, and an idle device needs no change.
 *
 * Policy. One worker pass is one batch: the windows of every managed device
 * that had traffic. lake/fallback.h's policy "readahead" picks the side
 * per batch size (LAKE's KML crossover was at a few hundred inputs: a
 * machine with a handful of disks stays on the CPU unless calibrated or
 * forced otherwise); the GPU side (gpu.c) copies the inputs through a
 * lakeshm buffer and runs readahead.cu's one kernel. verify_gpu=1 runs the
 * CPU on every GPU batch too and counts disagreements.
 *
 * When laked dies. A GPU call fails within lakelib's timeout_ms; the
 * batch is then inferred on the CPU, the failure is reported to the policy
 * (which trips to the CPU and probes later), and the next GPU batch sets
 * its context up afresh. Decisions never wait for laked beyond that
 * timeout; with mode cpu they never touch it.
 *
 * Limits. The readahead a file uses is copied from the bdi when it is
 * opened (file_ra_state_init), as with blockdev --setra: a decision reaches
 * files opened after it, not a reader holding its file open. One stream
 * per device: interleaved readers of one device look random. Up to
 * RA_MAX_DEVS devices. One entry per disk: a partition and its disk share
 * one bdi (one readahead), so adding a partition of a managed disk, or the
 * disk of a managed partition, is refused (-EEXIST); and pages are matched
 * by device number, so a filesystem on a partition of a managed disk is not
 * seen (its s_dev is the partition's): manage the partition. A managed
 * device is held open; hot-unplug still proceeds (del_gendisk does not wait
 * for openers), the reference keeping the disk and its bdi's memory alive
 * until "remove" or rmmod, which then write a readahead nobody reads.
 */
#include <linux/debugfs.h>
#include <linux/firmware.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/backing-dev-defs.h>
#include <linux/blk-mq.h>
#include <lake/compat.h>
#include <lake/fallback.h>
#include <lake/features.h>
#include "readahead.h"

unsigned int ra_window_ms = 1000;
static unsigned int min_pages = 64;
static char *weights = "readahead/readahead.lkra";
static bool verify_gpu;

static int set_window(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int ret = kstrtouint(val, 0, &v);

	if (ret || v < 50 || v > 60000)
		return -EINVAL;
	*(unsigned int *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops window_ops = {
	.set = set_window,
	.get = param_get_uint,
};
module_param_cb(window_ms, &window_ops, &ra_window_ms, 0644);
MODULE_PARM_DESC(window_ms, "feature window and decision period (ms, 50..60000)");
module_param(min_pages, uint, 0644);
MODULE_PARM_DESC(min_pages, "pages a window must add for a decision");
module_param(weights, charp, 0444);
MODULE_PARM_DESC(weights, "weight file under /lib/firmware loaded at start (empty: none)");
module_param(verify_gpu, bool, 0644);
MODULE_PARM_DESC(verify_gpu, "also infer every GPU batch on the CPU and count disagreements");

struct ra_state ra;

/* --- probes --------------------------------------------------------------- */

static struct ra_dev *find_dev(dev_t dev)
{
	u32 i;

	for (i = 0; i < RA_MAX_DEVS; i++) {
		struct ra_dev *d = rcu_dereference(ra.devs[i]);

		if (d && d->dev == dev)
			return d;
	}
	return NULL;
}

static struct ra_dev *find_disk(const struct gendisk *disk)
{
	u32 i;

	for (i = 0; i < RA_MAX_DEVS; i++) {
		struct ra_dev *d = rcu_dereference(ra.devs[i]);

		if (d && d->disk == disk)
			return d;
	}
	return NULL;
}

/*
 * The readahead the device's readers may be using: a file takes the bdi's
 * when it is opened, so after a change the files opened before it still
 * read with an old value. A run is judged sequential against the largest
 * value of the last RA_HISTORY windows, or a reader that opened under a
 * larger one would have its read-arounds taken for a stream, and the
 * model would swing back and forth (a reader open for longer than that
 * still can).
 */
static u32 effective_ra(const struct ra_dev *d)
{
	return max_t(u32, READ_ONCE(d->bdi->ra_pages), READ_ONCE(d->ra_recent));
}

/* Under d->lock, at a window's end: the value its files may have opened with. */
static void remember_ra(struct ra_dev *d)
{
	u32 i, m = 0;

	d->ra_hist[d->ra_hist_next] = READ_ONCE(d->bdi->ra_pages);
	d->ra_hist_next = (d->ra_hist_next + 1) % RA_HISTORY;
	for (i = 0; i < RA_HISTORY; i++)
		m = max(m, d->ra_hist[i]);
	WRITE_ONCE(d->ra_recent, m);
}

static void probe_add(void *data, struct folio *folio)
{
	struct address_space *mapping = folio->mapping;
	struct inode *host;
	struct ra_dev *d;
	unsigned long flags;
	dev_t dev;

	if (!READ_ONCE(ra.nr_devs) || !mapping || !mapping->host)
		return;
	host = mapping->host;
	dev = S_ISBLK(host->i_mode) ? host->i_rdev : host->i_sb->s_dev;
	rcu_read_lock();
	d = find_dev(dev);
	if (d) {
		raw_spin_lock_irqsave(&d->lock, flags);
		ra_stream_add(&d->stream, folio->index, folio_nr_pages(folio), effective_ra(d));
		raw_spin_unlock_irqrestore(&d->lock, flags);
	}
	rcu_read_unlock();
}

/* A read begins: the count, and the window's most in flight. */
static void inflight_inc(struct ra_dev *d)
{
	u32 n = atomic_inc_return(&d->inflight);
	unsigned long flags;

	raw_spin_lock_irqsave(&d->lock, flags);
	ra_stream_queued(&d->stream, n);
	raw_spin_unlock_irqrestore(&d->lock, flags);
}

/* Bio-based disks (dm, brd): every bio is traced at queue and at bio_endio. */
static void probe_bio_queue(void *data, struct bio *bio)
{
	struct ra_dev *d;

	if (!READ_ONCE(ra.nr_devs) || bio_op(bio) != REQ_OP_READ || !bio->bi_bdev)
		return;
	rcu_read_lock();
	d = find_disk(bio->bi_bdev->bd_disk);
	if (d && !d->mq)
		inflight_inc(d);
	rcu_read_unlock();
}

static void probe_bio_complete(void *data, struct request_queue *q, struct bio *bio)
{
	struct ra_dev *d;

	if (!READ_ONCE(ra.nr_devs) || bio_op(bio) != REQ_OP_READ || !bio->bi_bdev)
		return;
	rcu_read_lock();
	d = find_disk(bio->bi_bdev->bd_disk);
	/* A read queued before the device was added completes uncounted. */
	if (d && !d->mq)
		atomic_dec_if_positive(&d->inflight);
	rcu_read_unlock();
}

/*
 * blk-mq disks: a bio merged into a request loses its completion event
 * (blk_update_request clears BIO_TRACE_COMPLETION), so reads are counted
 * as requests, from issue to the completion of their last byte or their
 * requeue (a requeued request is issued again).
 */
static struct ra_dev *rq_dev(struct request *rq)
{
	if (!READ_ONCE(ra.nr_devs) || req_op(rq) != REQ_OP_READ || !rq->q->disk)
		return NULL;
	return find_disk(rq->q->disk);
}

static void probe_rq_issue(void *data, struct request *rq)
{
	struct ra_dev *d;

	rcu_read_lock();
	d = rq_dev(rq);
	if (d && d->mq)
		inflight_inc(d);
	rcu_read_unlock();
}

static void probe_rq_requeue(void *data, struct request *rq)
{
	struct ra_dev *d;

	rcu_read_lock();
	d = rq_dev(rq);
	if (d && d->mq)
		atomic_dec_if_positive(&d->inflight);
	rcu_read_unlock();
}

static void probe_rq_complete(void *data, struct request *rq, blk_status_t error,
			      unsigned int nr_bytes)
{
	struct ra_dev *d;

	/* A partial completion leaves the rest of the request in flight. */
	if (nr_bytes < blk_rq_bytes(rq))
		return;
	rcu_read_lock();
	d = rq_dev(rq);
	if (d && d->mq)
		atomic_dec_if_positive(&d->inflight);
	rcu_read_unlock();
}

static struct ra_probe {
	const char *name;
	void *fn;
	struct tracepoint *tp;
} probes[] = {
	{ "mm_filemap_add_to_page_cache", probe_add },
	{ "block_bio_queue", probe_bio_queue },
	{ "block_bio_complete", probe_bio_complete },
	{ "block_rq_issue", probe_rq_issue },
	{ "block_rq_requeue", probe_rq_requeue },
	{ "block_rq_complete", probe_rq_complete },
};

static void find_tracepoint(struct tracepoint *tp, void *priv)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(probes); i++)
		if (!strcmp(tp->name, probes[i].name))
			probes[i].tp = tp;
}

static void detach_probes(void)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(probes); i++)
		if (probes[i].tp && ra.attached & BIT(i))
			tracepoint_probe_unregister(probes[i].tp, probes[i].fn, NULL);
	ra.attached = 0;
	/* No probe runs, or will run, once this returns: state may go. */
	tracepoint_synchronize_unregister();
}

static int attach_probes(void)
{
	u32 i;
	int ret;

	for_each_kernel_tracepoint(find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		if (!probes[i].tp) {
			pr_err("lake_readahead: no tracepoint %s in this kernel\n", probes[i].name);
			ret = -ENOENT;
			goto err;
		}
		ret = tracepoint_probe_register(probes[i].tp, probes[i].fn, NULL);
		if (ret) {
			pr_err("lake_readahead: cannot attach to %s: %d\n", probes[i].name, ret);
			goto err;
		}
		ra.attached |= BIT(i);
	}
	return 0;
err:
	detach_probes();
	return ret;
}

/* --- the model ------------------------------------------------------------- */

/* Replace the model (NULL: none). Under ctl_lock. */
int ra_load_model(const char *name)
{
	const struct firmware *fw;
	struct ra_model *m = NULL, *old;
	const char *why;
	int ret = 0;

	if (name && *name) {
		ret = request_firmware_direct(&fw, name, NULL);
		if (ret) {
			pr_err("lake_readahead: cannot read /lib/firmware/%s: %d; model unchanged\n",
			       name, ret);
			return ret;
		}
		ret = ra_model_parse(fw->data, fw->size, &m, &why);
		release_firmware(fw);
		if (ret) {
			pr_err("lake_readahead: %s refused: %s; model unchanged\n", name, why);
			return ret;
		}
	}
	mutex_lock(&ra.work_lock);
	/* status_show reads the name under work_lock, with the model. */
	strscpy(ra.model_name, m ? name : "", sizeof(ra.model_name));
	old = ra.model;
	ra.model = m;
	ra.model_gen++;
	mutex_unlock(&ra.work_lock);
	ra_model_free(old);
	if (m)
		pr_info("lake_readahead: model %s: %u hidden, %u classes\n", name, m->hidden,
			m->classes);
	return 0;
}

/* --- the window ------------------------------------------------------------ */

static void log_change(struct ra_dev *d, u32 from_kib, u32 to_kib, u32 cls,
		       enum lake_target side)
{
	struct ra_log_entry *e;

	spin_lock(&ra.log_lock);
	e = &ra.log[ra.log_next++ % RA_LOG_ENTRIES];
	e->ts_ns = ktime_get_ns();
	e->dev = d->dev;
	e->from_kib = from_kib;
	e->to_kib = to_kib;
	e->cls = cls;
	e->gpu = side == LAKE_TARGET_GPU;
	spin_unlock(&ra.log_lock);
	pr_info("lake_readahead: %s: readahead %u -> %u KiB (class %u, %s)\n", d->name,
		from_kib, to_kib, cls, side == LAKE_TARGET_GPU ? "gpu" : "cpu");
}

static void record(struct ra_dev *d, const struct ra_window *w, const u16 *in)
{
	struct lake_reg_vec *vec = lake_features_begin(ra.fr);
	u32 dev = d->dev, pages = (u32)min_t(u64, w->pages, U32_MAX);
	u16 label = ra.label;

	if (!vec)
		return;
	lake_features_capture(ra.fr, vec, RA_REC_DEV, &dev, sizeof(dev));
	lake_features_capture(ra.fr, vec, RA_REC_LABEL, &label, sizeof(label));
	lake_features_capture(ra.fr, vec, RA_REC_PAGES, &pages, sizeof(pages));
	lake_features_capture(ra.fr, vec, RA_REC_IN, in, RA_INPUTS * sizeof(u16));
	lake_features_commit(ra.fr, vec);
}

/* Classes for @n inputs on the side the policy picks; the side used. */
static enum lake_target infer(const struct ra_model *m, u32 n)
{
	enum lake_target side = lake_fallback_choose(ra.fb, n);
	u64 t0 = ktime_get_ns(), ns;

	if (side == LAKE_TARGET_GPU) {
		int ret = ra_gpu_infer(m, ra.batch_in, n, ra.batch_cls);

		ns = ktime_get_ns() - t0;
		if (!ret) {
			lake_fallback_report_gpu(ra.fb, n, ns);
			ra.gpu_batches++;
			if (verify_gpu) {
				u8 cpu[RA_MAX_DEVS];
				u32 i;

				ra_infer_batch(m, ra.batch_in, n, cpu);
				for (i = 0; i < n; i++)
					ra.gpu_mismatches += cpu[i] != ra.batch_cls[i];
				ra.gpu_verified += n;
			}
			return side;
		}
		ra.gpu_failures++;
		lake_fallback_report_gpu_error(ra.fb);
		t0 = ktime_get_ns();
	}
	ra_infer_batch(m, ra.batch_in, n, ra.batch_cls);
	lake_fallback_report_cpu(ra.fb, n, ktime_get_ns() - t0);
	ra.cpu_batches++;
	return LAKE_TARGET_CPU;
}

/* Set @d's readahead to @kib (0: its saved value); the old value in KiB. */
u32 ra_set_kib(struct ra_dev *d, u32 kib)
{
	unsigned long old = READ_ONCE(d->bdi->ra_pages);
	unsigned long pages = kib ? (unsigned long)kib * SZ_1K / PAGE_SIZE : d->saved_ra_pages;

	WRITE_ONCE(d->bdi->ra_pages, pages);
	return (u32)(old * PAGE_SIZE / SZ_1K);
}

static void window_pass(void)
{
	struct ra_dev *batch[RA_MAX_DEVS];
	struct ra_model *m = ra.model;
	enum lake_target side;
	u64 now = ktime_get_ns();
	u32 i, n = 0;

	for (i = 0; i < RA_MAX_DEVS; i++) {
		struct ra_dev *d = rcu_dereference_protected(ra.devs[i],
							     lockdep_is_held(&ra.work_lock));
		struct ra_window w;
		unsigned long flags;
		u16 *in;

		if (!d)
			continue;
		raw_spin_lock_irqsave(&d->lock, flags);
		ra_stream_close(&d->stream, now - d->window_start, effective_ra(d), &w);
		d->window_start = now;
		remember_ra(d);
		raw_spin_unlock_irqrestore(&d->lock, flags);
		in = ra.batch_in + n * RA_INPUTS;
		ra_features(&w, in);
		memcpy(d->last_in, in, sizeof(d->last_in));
		d->last_pages = w.pages;
		d->windows++;
		if (!ra.label_fresh)
			record(d, &w, in);
		if (m && ra.decide && w.pages >= READ_ONCE(min_pages))
			batch[n++] = d;
	}
	ra.label_fresh = false;
	if (!n)
		return;
	side = infer(m, n);
	for (i = 0; i < n; i++) {
		struct ra_dev *d = batch[i];
		u32 cls = ra.batch_cls[i], kib = m->kib[cls], old;

		d->decisions++;
		d->last_cls = cls;
		if (READ_ONCE(d->bdi->ra_pages) == (unsigned long)kib * SZ_1K / PAGE_SIZE)
			continue;
		old = ra_set_kib(d, kib);
		d->changes++;
		log_change(d, old, kib, cls, side);
	}
}

static void window_work(struct work_struct *work)
{
	mutex_lock(&ra.work_lock);
	window_pass();
	mutex_unlock(&ra.work_lock);
	queue_delayed_work(system_unbound_wq, &ra.work, msecs_to_jiffies(READ_ONCE(ra_window_ms)));
}

/* --- devices --------------------------------------------------------------- */

/*
 * Under ctl_lock (the device list changes under it only). One entry per
 * disk: a partition shares its disk's bdi, so two entries would set one
 * readahead and each put back what it saw.
 */
int ra_add_dev(const char *path)
{
	struct gendisk *disk;
	struct ra_dev *d;
	dev_t dev;
	int ret, slot = -1;
	u32 i;

	ret = lookup_bdev(path, &dev);
	if (ret) {
		pr_err("lake_readahead: %s: not a block device: %d\n", path, ret);
		return ret;
	}
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	ret = lake_bdev_open(dev, &d->ref);
	if (ret) {
		pr_err("lake_readahead: %s: cannot open: %d\n", path, ret);
		kfree(d);
		return ret;
	}
	disk = lake_bdev(&d->ref)->bd_disk;
	for (i = 0; i < RA_MAX_DEVS; i++) {
		struct ra_dev *o = rcu_dereference_protected(ra.devs[i],
							     lockdep_is_held(&ra.ctl_lock));

		if (o && o->disk == disk) {
			if (o->dev == dev)
				pr_err("lake_readahead: %s: already managed\n", path);
			else
				pr_err("lake_readahead: %s: its disk %s is already managed as %u:%u\n",
				       path, disk->disk_name, MAJOR(o->dev), MINOR(o->dev));
			ret = -EEXIST;
			goto err;
		}
		if (!o && slot < 0)
			slot = i;
	}
	if (slot < 0) {
		pr_err("lake_readahead: %s: already %u devices\n", path, RA_MAX_DEVS);
		ret = -ENOSPC;
		goto err;
	}
	d->dev = dev;
	d->disk = disk;
	d->mq = queue_is_mq(disk->queue);
	d->bdi = disk->bdi;
	d->saved_ra_pages = READ_ONCE(d->bdi->ra_pages);
	d->ra_hist[0] = d->saved_ra_pages;
	d->ra_recent = d->saved_ra_pages;
	raw_spin_lock_init(&d->lock);
	d->window_start = ktime_get_ns();
	strscpy(d->name, disk->disk_name, sizeof(d->name));
	mutex_lock(&ra.work_lock);
	rcu_assign_pointer(ra.devs[slot], d);
	WRITE_ONCE(ra.nr_devs, ra.nr_devs + 1);
	mutex_unlock(&ra.work_lock);
	pr_info("lake_readahead: %s (%u:%u): managed, readahead %lu KiB, reads counted per %s\n",
		d->name, MAJOR(dev), MINOR(dev), d->saved_ra_pages * PAGE_SIZE / SZ_1K,
		d->mq ? "request" : "bio");
	return 0;
err:
	lake_bdev_close(&d->ref);
	kfree(d);
	return ret;
}

static void release_dev(struct ra_dev *d)
{
	ra_set_kib(d, 0);
	pr_info("lake_readahead: %s: released, readahead back to %lu KiB\n", d->name,
		d->saved_ra_pages * PAGE_SIZE / SZ_1K);
	lake_bdev_close(&d->ref);
	kfree(d);
}

/* Under ctl_lock; "" removes them all. */
int ra_remove_dev(const char *path)
{
	struct ra_dev *gone[RA_MAX_DEVS];
	dev_t dev = 0;
	u32 i, n = 0;
	int ret;

	if (*path) {
		ret = lookup_bdev(path, &dev);
		if (ret) {
			pr_err("lake_readahead: %s: not a block device: %d\n", path, ret);
			return ret;
		}
	}
	mutex_lock(&ra.work_lock);
	for (i = 0; i < RA_MAX_DEVS; i++) {
		struct ra_dev *d = rcu_dereference_protected(ra.devs[i],
							     lockdep_is_held(&ra.work_lock));

		if (d && (!*path || d->dev == dev)) {
			RCU_INIT_POINTER(ra.devs[i], NULL);
			gone[n++] = d;
		}
	}
	WRITE_ONCE(ra.nr_devs, ra.nr_devs - n);
	mutex_unlock(&ra.work_lock);
	if (*path && !n) {
		pr_err("lake_readahead: %s: not managed\n", path);
		return -ENOENT;
	}
	/* Probes in flight may still hold them. */
	synchronize_rcu();
	for (i = 0; i < n; i++)
		release_dev(gone[i]);
	return 0;
}

/* --- load and unload --------------------------------------------------------- */

static const struct lake_feature_desc schema[] = {
	[RA_REC_DEV] = { "dev", sizeof(u32), 1 },
	[RA_REC_LABEL] = { "label", sizeof(u16), 1 },
	[RA_REC_PAGES] = { "pages", sizeof(u32), 1 },
	[RA_REC_IN] = { "inputs", RA_INPUTS * sizeof(u16), 1 },
};

static int __init ra_init(void)
{
	int ret;

	mutex_init(&ra.ctl_lock);
	mutex_init(&ra.work_lock);
	mutex_init(&ra.gpu_lock);
	spin_lock_init(&ra.log_lock);
	ra.decide = true;
	ra.label = RA_NO_LABEL;
	INIT_DELAYED_WORK(&ra.work, window_work);
	ra.fr = lake_features_create("readahead", schema, ARRAY_SIZE(schema),
				     RA_REG_CAPACITY, 4);
	if (IS_ERR(ra.fr))
		return PTR_ERR(ra.fr);
	ra.fb = lake_fallback_create("readahead", RA_MAX_DEVS,
				     (u64)ra_window_ms * NSEC_PER_MSEC);
	if (IS_ERR(ra.fb)) {
		ret = PTR_ERR(ra.fb);
		goto err_fb;
	}
	/* Uncalibrated, the CPU: LAKE found KML's crossover far above RA_MAX_DEVS. */
	lake_fallback_set_crossover(ra.fb, RA_MAX_DEVS);
	mutex_lock(&ra.ctl_lock);
	ret = ra_load_model(weights);
	mutex_unlock(&ra.ctl_lock);
	if (ret)
		goto err_model;
	ret = attach_probes();
	if (ret)
		goto err_probes;
	ret = ra_debugfs_init();
	if (ret)
		goto err_debugfs;
	queue_delayed_work(system_unbound_wq, &ra.work, msecs_to_jiffies(ra_window_ms));
	pr_info("lake_readahead: probes attached, window %u ms\n", ra_window_ms);
	return 0;

err_debugfs:
	detach_probes();
err_probes:
	ra_model_free(ra.model);
err_model:
	lake_fallback_destroy(ra.fb);
err_fb:
	lake_features_destroy(ra.fr);
	return ret;
}

static void __exit ra_exit(void)
{
	ra_debugfs_exit();
	cancel_delayed_work_sync(&ra.work);
	detach_probes();
	mutex_lock(&ra.ctl_lock);
	ra_remove_dev("");
	mutex_unlock(&ra.ctl_lock);
	mutex_lock(&ra.gpu_lock);
	ra_gpu_release();
	mutex_unlock(&ra.gpu_lock);
	ra_model_free(ra.model);
	lake_fallback_destroy(ra.fb);
	lake_features_destroy(ra.fr);
	pr_info("lake_readahead: unloaded\n");
}

module_init(ra_init);
module_exit(ra_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake: block-device readahead sized by a model (after KML)");
