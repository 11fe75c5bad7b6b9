// SPDX-License-Identifier: GPL-2.0
/*
 * lake_slowdisk: a device-mapper target "lake_slow" that passes I/O to one
 * device and adds latency the way flash garbage collection does, for the
 * LinnOS test and demo (examples/linnos).
 *
 *	dmsetup create NAME --table "0 SECTORS lake_slow /dev/DEV INDEX"
 *
 * One schedule serves every target: quiet gaps and bursts alternate. A
 * burst lasts burst_min_ms..burst_max_ms and hits one index (drawn at
 * random, or only_index); the gaps are drawn so that bursts fill slow_pct
 * percent of the time on average. During a burst every I/O to a target with
 * that index waits slow_us (+-50%) before it goes to the device, so with two
 * targets (indices 0 and 1) the slow periods move between them and never
 * hit both at once. The wait is an hrtimer that hands the bio to a
 * workqueue, which submits it: latency is added, not queued behind other
 * I/O. us_per_mib adds a transfer time to each delayed I/O by its size
 * (examples/readahead's disk: a seek, then a bandwidth).
 *
 * Repeatable: the schedule is a function of `seed` and of the time since
 * the seed was last written (its own generator, not the kernel's random
 * pool), so writing the seed restarts it and runs that write the same seed
 * see the same bursts at the same offsets. Status is "ios N delayed N
 * bursts N": the I/Os this target passed and delayed (the ground truth of
 * slow I/O) and the bursts the schedule has started; the message "reset"
 * zeroes this target's counters. The read-only parameters ios and delayed
 * are the same counts over every target since the seed was last written
 * (the demo reads them between runs without a dmsetup call each).
 * Parameters are writable at run time.
 */
#include <linux/device-mapper.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/workqueue.h>

#define DM_MSG_PREFIX "lake_slow"
/* Past this many epochs behind (a long idle spell), the schedule restarts at now. */
#define MAX_CATCH_UP		10000

static unsigned int slow_us = 3000;
module_param(slow_us, uint, 0644);
MODULE_PARM_DESC(slow_us, "extra latency of an I/O to the index in a burst (us, +-50%)");
static unsigned int slow_pct = 3;
module_param(slow_pct, uint, 0644);
MODULE_PARM_DESC(slow_pct, "percent of the time in a burst (0..100)");
/* A disk's transfer time, for examples/readahead: large reads cost more. */
static unsigned int us_per_mib;
module_param(us_per_mib, uint, 0644);
MODULE_PARM_DESC(us_per_mib, "added to a delayed I/O per MiB it moves (us; 10000: 100 MiB/s)");
static unsigned int burst_min_ms = 20;
module_param(burst_min_ms, uint, 0644);
static unsigned int burst_max_ms = 60;
module_param(burst_max_ms, uint, 0644);
static int only_index = -1;
module_param(only_index, int, 0644);
MODULE_PARM_DESC(only_index, "the index every burst hits (-1: drawn per burst)");

static DEFINE_SPINLOCK(sched_lock);
static u64 rng;			/* splitmix64 state, under sched_lock */
static u64 epoch_end_ns;
static bool in_burst;
static int slow_index = -1;
static atomic64_t bursts;
static struct workqueue_struct *slow_wq;

static unsigned int seed = 1;
static atomic64_t total_ios, total_delayed;

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

static void sched_restart_locked(u64 now)
{
	rng = seed;
	epoch_end_ns = now;
	in_burst = true;	/* so that the first epoch drawn is a gap */
	slow_index = -1;
}

static int seed_set(const char *val, const struct kernel_param *kp)
{
	unsigned long flags;
	int ret = param_set_uint(val, kp);

	if (ret)
		return ret;
	spin_lock_irqsave(&sched_lock, flags);
	sched_restart_locked(ktime_get_ns());
	spin_unlock_irqrestore(&sched_lock, flags);
	atomic64_set(&bursts, 0);
	atomic64_set(&total_ios, 0);
	atomic64_set(&total_delayed, 0);
	return 0;
}

static const struct kernel_param_ops seed_ops = {
	.set = seed_set,
	.get = param_get_uint,
};
module_param_cb(seed, &seed_ops, &seed, 0644);
MODULE_PARM_DESC(seed, "the schedule's seed; writing it restarts the schedule");

static int total_set(const char *val, const struct kernel_param *kp)
{
	pr_err("lake_slow: %s is read-only\n", kp->name);
	return -EPERM;
}

static int total_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read((atomic64_t *)kp->arg));
}

static const struct kernel_param_ops total_ops = {
	.set = total_set,
	.get = total_get,
};
module_param_cb(ios, &total_ops, &total_ios, 0444);
MODULE_PARM_DESC(ios, "I/Os passed by every target since the seed was written");
module_param_cb(delayed, &total_ops, &total_delayed, 0444);
MODULE_PARM_DESC(delayed, "I/Os delayed by every target since the seed was written");

static u64 next_rand(void)
{
	u64 z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in lo..hi (inclusive). */
static u64 draw(u64 lo, u64 hi)
{
	return hi > lo ? lo + next_rand() % (hi - lo + 1) : lo;
}

/* Move the schedule on to @now: end the epochs that are over. */
static void sched_advance_locked(u64 now, u32 pct)
{
	u64 lo = max(1U, READ_ONCE(burst_min_ms)) * NSEC_PER_MSEC;
	u64 hi = max_t(u64, lo, (u64)READ_ONCE(burst_max_ms) * NSEC_PER_MSEC);
	int only = READ_ONCE(only_index), n = 0;
	u64 gap;

	while (now >= epoch_end_ns) {
		if (++n > MAX_CATCH_UP) {
			epoch_end_ns = now;
			n = 0;
		}
		if (in_burst) {
			in_burst = false;
			slow_index = -1;
			/* Mean gap = mean burst x (100 - pct) / pct. */
			gap = div_u64((lo + hi) * (100 - pct), pct);
			epoch_end_ns += draw(0, gap);
		} else {
			in_burst = true;
			slow_index = only == 0 || only == 1 ? only : (int)(next_rand() & 1);
			epoch_end_ns += draw(lo, hi);
			atomic64_inc(&bursts);
		}
	}
}

static bool is_slow(int index)
{
	u32 pct = min(100U, READ_ONCE(slow_pct));
	unsigned long flags;
	bool slow;

	if (!pct)
		return false;
	spin_lock_irqsave(&sched_lock, flags);
	sched_advance_locked(ktime_get_ns(), pct);
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
	atomic64_inc(&total_ios);
	if (!us || !bio_sectors(bio) || !is_slow(st->index))
		return DM_MAPIO_REMAPPED;
	atomic64_inc(&st->delayed);
	atomic64_inc(&total_delayed);
	us = us / 2 + get_random_u32_below(us + 1);
	us += (u32)(((u64)bio->bi_iter.bi_size * READ_ONCE(us_per_mib)) >> 20);
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
		DMEMIT("ios %lld delayed %lld bursts %lld", atomic64_read(&st->ios),
		       atomic64_read(&st->delayed), atomic64_read(&bursts));
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

static int slow_message(struct dm_target *ti, unsigned int argc, char **argv,
			char *result, unsigned int maxlen)
{
	struct slow_target *st = ti->private;

	if (argc == 1 && !strcmp(argv[0], "reset")) {
		atomic64_set(&st->ios, 0);
		atomic64_set(&st->delayed, 0);
		return 0;
	}
	DMERR("unknown message (reset)");
	return -EINVAL;
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
	.version = { 1, 1, 0 },
	.module = THIS_MODULE,
	.ctr = slow_ctr,
	.dtr = slow_dtr,
	.map = slow_map,
	.status = slow_status,
	.message = slow_message,
	.iterate_devices = slow_iterate_devices,
};

static int __init slow_init(void)
{
	int ret;

	sched_restart_locked(ktime_get_ns());
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
