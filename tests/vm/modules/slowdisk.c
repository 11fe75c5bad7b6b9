// SPDX-License-Identifier: GPL-2.0
/*
 * lake_slowdisk: a device-mapper target "lake_slow" that passes I/O to one
 * device and adds latency the way flash garbage collection does, for the
 * LinnOS test and demo (examples/linnos).
 *
 *	dmsetup create NAME --table "0 SECTORS lake_slow /dev/DEV INDEX"
 *
 * Time is cut into epochs of random length (epoch_min_ms..epoch_max_ms).
 * In slow_pct percent of them one index, drawn at random, is slow: every
 * I/O to a target with that index waits slow_us (+-50%) before it goes to
 * the device; otherwise nobody is slow. One schedule serves every target,
 * so with two targets (indices 0 and 1) the slow periods move between them
 * and never hit both at once. The wait is an hrtimer that hands the bio to
 * a workqueue, which submits it: latency is added, not queued behind other
 * I/O. Parameters are writable at run time.
 */
#include <linux/device-mapper.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/workqueue.h>

#define DM_MSG_PREFIX "lake_slow"

static unsigned int slow_us = 3000;
module_param(slow_us, uint, 0644);
MODULE_PARM_DESC(slow_us, "extra latency of an I/O to the slow index (us)");
static unsigned int slow_pct = 50;
module_param(slow_pct, uint, 0644);
MODULE_PARM_DESC(slow_pct, "percent of epochs with a slow index (0..100)");
static unsigned int epoch_min_ms = 20;
module_param(epoch_min_ms, uint, 0644);
static unsigned int epoch_max_ms = 200;
module_param(epoch_max_ms, uint, 0644);

static DEFINE_SPINLOCK(sched_lock);
static u64 epoch_end_ns;
static int slow_index = -1;
static struct workqueue_struct *slow_wq;

struct slow_target {
	struct dm_dev *dev;
	int index;
	atomic64_t ios, delayed;
};

struct slow_io {
	struct hrtimer timer;
	struct work_struct work;
	struct bio *bio;
};

static bool is_slow(int index)
{
	u64 now = ktime_get_ns();
	unsigned long flags;
	u32 lo, hi;
	bool slow;

	spin_lock_irqsave(&sched_lock, flags);
	if (now >= epoch_end_ns) {
		lo = READ_ONCE(epoch_min_ms);
		hi = max(lo, READ_ONCE(epoch_max_ms));
		epoch_end_ns = now + (u64)(lo + get_random_u32_below(hi - lo + 1)) * NSEC_PER_MSEC;
		slow_index = get_random_u32_below(100) < READ_ONCE(slow_pct) ?
			     (int)get_random_u32_below(2) : -1;
	}
	slow = slow_index == index;
	spin_unlock_irqrestore(&sched_lock, flags);
	return slow;
}

static void slow_submit(struct work_struct *w)
{
	struct slow_io *sio = container_of(w, struct slow_io, work);

	submit_bio_noacct(sio->bio);
}

static enum hrtimer_restart slow_fire(struct hrtimer *t)
{
	struct slow_io *sio = container_of(t, struct slow_io, timer);

	queue_work(slow_wq, &sio->work);
	return HRTIMER_NORESTART;
}

static int slow_map(struct dm_target *ti, struct bio *bio)
{
	struct slow_target *st = ti->private;
	struct slow_io *sio = dm_per_bio_data(bio, sizeof(*sio));
	u32 us = READ_ONCE(slow_us);

	bio_set_dev(bio, st->dev->bdev);
	bio->bi_iter.bi_sector = dm_target_offset(ti, bio->bi_iter.bi_sector);
	atomic64_inc(&st->ios);
	if (!us || !bio_sectors(bio) || !is_slow(st->index))
		return DM_MAPIO_REMAPPED;
	atomic64_inc(&st->delayed);
	us = us / 2 + get_random_u32_below(us + 1);
	sio->bio = bio;
	INIT_WORK(&sio->work, slow_submit);
	hrtimer_init(&sio->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	sio->timer.function = slow_fire;
	hrtimer_start(&sio->timer, ns_to_ktime((u64)us * NSEC_PER_USEC), HRTIMER_MODE_REL);
	return DM_MAPIO_SUBMITTED;
}

static void slow_status(struct dm_target *ti, status_type_t type,
			unsigned int status_flags, char *result, unsigned int maxlen)
{
	struct slow_target *st = ti->private;
	unsigned int sz = 0;

	if (type == STATUSTYPE_INFO)
		DMEMIT("ios %lld delayed %lld", atomic64_read(&st->ios),
		       atomic64_read(&st->delayed));
	else if (type == STATUSTYPE_TABLE)
		DMEMIT("%s %d", st->dev->name, st->index);
	else if (maxlen)
		result[0] = '\0';
}

static int slow_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct slow_target *st;
	int ret;

	if (argc != 2) {
		ti->error = "lake_slow: need DEV INDEX";
		return -EINVAL;
	}
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	if (kstrtoint(argv[1], 10, &st->index) || st->index < 0 || st->index > 1) {
		ti->error = "lake_slow: INDEX is 0 or 1";
		ret = -EINVAL;
		goto err;
	}
	ret = dm_get_device(ti, argv[0], dm_table_get_mode(ti->table), &st->dev);
	if (ret) {
		ti->error = "lake_slow: cannot open the device";
		goto err;
	}
	ti->private = st;
	ti->num_flush_bios = 1;
	ti->per_io_data_size = sizeof(struct slow_io);
	return 0;
err:
	kfree(st);
	return ret;
}

static void slow_dtr(struct dm_target *ti)
{
	struct slow_target *st = ti->private;

	dm_put_device(ti, st->dev);
	kfree(st);
}

static int slow_iterate_devices(struct dm_target *ti, iterate_devices_callout_fn fn,
				void *data)
{
	struct slow_target *st = ti->private;

	return fn(ti, st->dev, 0, ti->len, data);
}

static struct target_type slow_target_type = {
	.name = "lake_slow",
	.version = { 1, 0, 0 },
	.module = THIS_MODULE,
	.ctr = slow_ctr,
	.dtr = slow_dtr,
	.map = slow_map,
	.status = slow_status,
	.iterate_devices = slow_iterate_devices,
};

static int __init slow_init(void)
{
	int ret;

	slow_wq = alloc_workqueue("lake_slow", WQ_UNBOUND | WQ_MEM_RECLAIM | WQ_HIGHPRI, 0);
	if (!slow_wq)
		return -ENOMEM;
	ret = dm_register_target(&slow_target_type);
	if (ret)
		destroy_workqueue(slow_wq);
	return ret;
}

static void __exit slow_exit(void)
{
	dm_unregister_target(&slow_target_type);
	destroy_workqueue(slow_wq);
}

module_init(slow_init);
module_exit(slow_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake test: a dm target that adds GC-like latency bursts");
