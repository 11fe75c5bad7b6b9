// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel glue of the CPU-fallback policy (include/lake/fallback.h): a lock
 * and a debugfs directory around each policy core (common/policy_core.c),
 * and the list that lakelib walks to tell every policy about laked.
 *
 * laked's state is pushed, not polled: netlink.c calls
 * lake_fallback_notify() when laked registers, goes, or reports its load,
 * so choose() reads nothing but its own policy and can run in hard irq.
 * A report stamped on arrival ages in the core, so a silent laked becomes
 * "stale_load" after load_max_age_ns even though nothing is pushed.
 *
 * Locking: fallbacks_lock (process context only) guards the list and
 * orders notifications; each policy's lock is irq-safe and nests inside.
 */
#define pr_fmt(fmt) "lakelib: " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <lake/fallback.h>
#include <lake/shm.h>
#include "lakelib.h"
#include "trace.h"

/* nr_procs of a device that cannot count them: judged on utilization. */
#define PROCS_UNKNOWN	U32_MAX

struct lake_fallback {
	spinlock_t lock;
	struct lake_policy *core;
	struct list_head node;
	struct dentry *dir;
	char name[LAKE_POLICY_NAME_MAX];
	u32 max_batch;
	u64 window_ns;
	struct lake_policy_config cfg;	/* the core's, for get_config() */
};

static DEFINE_SPINLOCK(fallbacks_lock);
static LIST_HEAD(fallbacks);
static struct dentry *policy_dir;

/* Feed laked's state to one policy; fallbacks_lock held. */
static void feed(struct lake_fallback *fb, bool up, const struct lake_load *load)
{
	unsigned long flags;

	spin_lock_irqsave(&fb->lock, flags);
	lake_policy_set_daemon(fb->core, up, up);
	if (load)
		lake_policy_report_load(fb->core, load);
	spin_unlock_irqrestore(&fb->lock, flags);
}

/* laked's state now, as the core wants it; false when there is no report. */
static bool daemon_state(bool *up, struct lake_load *load)
{
	struct lake_genl_load g;
	u64 age;

	/* laked registers only once its device is open: up means usable. */
	*up = lake_nl_daemon() != 0;
	if (!lake_nl_load(&g, &age))
		return false;
	load->util_pct = g.flags & LAKE_LOAD_F_UTIL ? g.util_pct : 0;
	load->nr_procs = g.flags & LAKE_LOAD_F_PROCS ? g.procs : PROCS_UNKNOWN;
	load->queue = g.flags & LAKE_LOAD_F_QUEUE ? g.queued : 0;
	load->ts_ns = ktime_get_ns() - age;
	return true;
}

void lake_fallback_notify(void)
{
	struct lake_fallback *fb;
	struct lake_load load;
	bool up, have;

	/* Under the list lock, so two events cannot apply out of order. */
	spin_lock(&fallbacks_lock);
	have = daemon_state(&up, &load);
	list_for_each_entry(fb, &fallbacks, node)
		feed(fb, up, have ? &load : NULL);
	spin_unlock(&fallbacks_lock);
}

/* --- debugfs ------------------------------------------------------------ */

static void show_crossover(struct seq_file *m, const char *key, u32 v)
{
	if (v == LAKE_POLICY_NEVER)
		seq_printf(m, "%s never\n", key);
	else
		seq_printf(m, "%s %u\n", key, v);
}

static void show_load(struct seq_file *m, const struct lake_policy_snapshot *s)
{
	if (!s->has_load) {
		seq_puts(m, "load none\n");
		return;
	}
	seq_printf(m, "load_util_pct %u\n", s->load.util_pct);
	if (s->load.nr_procs == PROCS_UNKNOWN)
		seq_puts(m, "load_procs unknown\n");
	else
		seq_printf(m, "load_procs %u\n", s->load.nr_procs);
	seq_printf(m, "load_age_ms %llu\n",
		   (ktime_get_ns() - s->load.ts_ns) / NSEC_PER_MSEC);
}

static void show_counters(struct seq_file *m, const struct lake_policy_snapshot *s)
{
	const struct lake_policy_counters *c = &s->counters;
	u32 r;

	seq_printf(m, "decisions_cpu %llu\ndecisions_gpu %llu\n", c->cpu, c->gpu);
	seq_printf(m, "trips %llu\nprobes %llu\nprobe_failures %llu\n",
		   c->trips, c->probes, c->probe_failures);
	seq_printf(m, "gpu_errors %llu\ncpu_reports %llu\ngpu_reports %llu\n",
		   c->gpu_errors, c->cpu_reports, c->gpu_reports);
	for (r = 0; r < LAKE_REASON_NR; r++)
		seq_printf(m, "reason_%s %llu\n", lake_policy_reason_str(r),
			   c->reason[r]);
}

static int status_show(struct seq_file *m, void *unused)
{
	struct lake_fallback *fb = m->private;
	struct lake_policy_snapshot *s;
	const struct lake_policy_config *cfg;
	u64 now = ktime_get_ns();
	u32 k;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	lake_fallback_snapshot(fb, s);
	cfg = &s->config;
	seq_printf(m, "name %s\nmode %s\n", s->name, lake_policy_mode_str(s->mode));
	seq_printf(m, "last_reason %s\n", lake_policy_reason_str(s->last_reason));
	seq_printf(m, "max_batch %u\nwindow_ns %llu\n", s->max_batch, s->window_ns);
	show_crossover(m, "crossover", s->crossover);
	show_crossover(m, "crossover_calibrated", s->crossover_calibrated);
	seq_printf(m, "crossover_override %u\n", s->crossover_override);
	seq_printf(m, "daemon %s\ndevice %s\n", s->daemon_up ? "up" : "down",
		   s->device_ok ? "ok" : "none");
	show_load(m, s);
	seq_printf(m, "tripped %d\nprobe_pending %d\nbackoff_ns %llu\n",
		   s->tripped, s->probe_pending, s->backoff_ns);
	seq_printf(m, "retry_in_ns %llu\n",
		   s->retry_at_ns > now ? s->retry_at_ns - now : 0);
	show_counters(m, s);
	seq_printf(m, "config_util_max_pct %u\nconfig_procs_max %u\nconfig_queue_max %u\n",
		   cfg->util_max_pct, cfg->procs_max, cfg->queue_max);
	seq_printf(m, "config_load_max_age_ns %llu\nconfig_probe_timeout_ns %llu\n",
		   cfg->load_max_age_ns, cfg->probe_timeout_ns);
	seq_printf(m, "config_backoff_ns %llu..%llu\nconfig_ewma_shift %u\n",
		   cfg->backoff_min_ns, cfg->backoff_max_ns, cfg->ewma_shift);
	for (k = 0; k < s->nr_buckets; k++)
		seq_printf(m, "bucket %u batch %u.. cpu_ns %llu at %u gpu_ns %llu at %u\n",
			   k, 1u << k, s->bucket[k].cpu_ns, s->bucket[k].cpu_batch,
			   s->bucket[k].gpu_ns, s->bucket[k].gpu_batch);
	kfree(s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(status);

static ssize_t mode_read(struct file *file, char __user *ubuf, size_t len,
			 loff_t *ppos)
{
	struct lake_fallback *fb = file->private_data;
	struct lake_policy_snapshot *s;
	char buf[8];
	int n;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	lake_fallback_snapshot(fb, s);
	n = scnprintf(buf, sizeof(buf), "%s\n", lake_policy_mode_str(s->mode));
	kfree(s);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static ssize_t mode_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	struct lake_fallback *fb = file->private_data;
	enum lake_policy_mode mode;
	char buf[8];
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	ret = lake_policy_mode_parse(buf, &mode);
	if (!ret)
		ret = lake_fallback_set_mode(fb, mode);
	return ret ? ret : len;
}

static const struct file_operations mode_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = mode_read,
	.write = mode_write,
	.llseek = default_llseek,
};

static int crossover_get(void *data, u64 *val)
{
	struct lake_policy_snapshot *s = kmalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return -ENOMEM;
	lake_fallback_snapshot(data, s);
	*val = s->crossover_override;
	kfree(s);
	return 0;
}

static int crossover_set(void *data, u64 val)
{
	if (val > U32_MAX)
		return -EINVAL;
	return lake_fallback_set_crossover(data, val);
}
DEFINE_DEBUGFS_ATTRIBUTE(crossover_fops, crossover_get, crossover_set, "%llu\n");

static void fallback_debugfs(struct lake_fallback *fb)
{
	fb->dir = debugfs_create_dir(fb->name, policy_dir);
	debugfs_create_file("status", 0444, fb->dir, fb, &status_fops);
	debugfs_create_file("mode", 0644, fb->dir, fb, &mode_fops);
	debugfs_create_file_unsafe("crossover", 0644, fb->dir, fb, &crossover_fops);
}

/* --- the exported API --------------------------------------------------- */

struct lake_fallback *lake_fallback_create(const char *name, u32 max_batch,
					   u64 window_ns)
{
	struct lake_fallback *fb, *other;
	size_t len = name ? strnlen(name, LAKE_POLICY_NAME_MAX) : 0;
	bool up, have;
	struct lake_load load;
	int ret;

	if (!len || len == LAKE_POLICY_NAME_MAX || strchr(name, '/') ||
	    !max_batch || max_batch > LAKE_POLICY_MAX_BATCH)
		return ERR_PTR(-EINVAL);
	fb = kzalloc(sizeof(*fb), GFP_KERNEL);
	if (!fb)
		return ERR_PTR(-ENOMEM);
	fb->core = lake_policy_create(name, max_batch, window_ns);
	if (!fb->core) {
		ret = -ENOMEM;
		goto err_free;
	}
	spin_lock_init(&fb->lock);
	memcpy(fb->name, name, len);
	fb->max_batch = max_batch;
	fb->window_ns = window_ns;
	lake_policy_default_config(&fb->cfg);

	spin_lock(&fallbacks_lock);
	list_for_each_entry(other, &fallbacks, node) {
		if (!strcmp(other->name, fb->name)) {
			spin_unlock(&fallbacks_lock);
			ret = -EEXIST;
			goto err_core;
		}
	}
	have = daemon_state(&up, &load);
	feed(fb, up, have ? &load : NULL);
	list_add_tail(&fb->node, &fallbacks);
	spin_unlock(&fallbacks_lock);
	fallback_debugfs(fb);
	return fb;

err_core:
	lake_policy_destroy(fb->core);
err_free:
	kfree(fb);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(lake_fallback_create);

void lake_fallback_destroy(struct lake_fallback *fb)
{
	if (!fb)
		return;
	/* Waits for debugfs readers and writers to leave. */
	debugfs_remove_recursive(fb->dir);
	spin_lock(&fallbacks_lock);
	list_del(&fb->node);
	spin_unlock(&fallbacks_lock);
	lake_policy_destroy(fb->core);
	kfree(fb);
}
EXPORT_SYMBOL_GPL(lake_fallback_destroy);

const char *lake_fallback_name(const struct lake_fallback *fb)
{
	return fb->name;
}
EXPORT_SYMBOL_GPL(lake_fallback_name);

u32 lake_fallback_max_batch(const struct lake_fallback *fb)
{
	return fb->max_batch;
}
EXPORT_SYMBOL_GPL(lake_fallback_max_batch);

u64 lake_fallback_window_ns(const struct lake_fallback *fb)
{
	return fb->window_ns;
}
EXPORT_SYMBOL_GPL(lake_fallback_window_ns);

enum lake_target lake_fallback_choose(struct lake_fallback *fb, u32 batch)
{
	unsigned long flags;
	enum lake_target t;

	spin_lock_irqsave(&fb->lock, flags);
	t = lake_policy_choose(fb->core, batch, ktime_get_ns());
	trace_lake_fallback_decision(fb->name, batch, t == LAKE_TARGET_GPU,
				     lake_policy_reason_str(lake_policy_last_reason(fb->core)));
	spin_unlock_irqrestore(&fb->lock, flags);
	return t;
}
EXPORT_SYMBOL_GPL(lake_fallback_choose);

int lake_fallback_report_cpu(struct lake_fallback *fb, u32 batch, u64 ns)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&fb->lock, flags);
	ret = lake_policy_report_cpu(fb->core, batch, ns);
	spin_unlock_irqrestore(&fb->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(lake_fallback_report_cpu);

int lake_fallback_report_gpu(struct lake_fallback *fb, u32 batch, u64 ns)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&fb->lock, flags);
	ret = lake_policy_report_gpu(fb->core, batch, ns);
	spin_unlock_irqrestore(&fb->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(lake_fallback_report_gpu);

void lake_fallback_report_gpu_error(struct lake_fallback *fb)
{
	unsigned long flags;

	spin_lock_irqsave(&fb->lock, flags);
	lake_policy_report_gpu_error(fb->core, ktime_get_ns());
	spin_unlock_irqrestore(&fb->lock, flags);
}
EXPORT_SYMBOL_GPL(lake_fallback_report_gpu_error);

int lake_fallback_set_mode(struct lake_fallback *fb, enum lake_policy_mode mode)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&fb->lock, flags);
	ret = lake_policy_set_mode(fb->core, mode);
	spin_unlock_irqrestore(&fb->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(lake_fallback_set_mode);

int lake_fallback_set_crossover(struct lake_fallback *fb, u32 batch)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&fb->lock, flags);
	ret = lake_policy_set_crossover(fb->core, batch);
	spin_unlock_irqrestore(&fb->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(lake_fallback_set_crossover);

void lake_fallback_get_config(struct lake_fallback *fb,
			      struct lake_policy_config *cfg)
{
	unsigned long flags;

	spin_lock_irqsave(&fb->lock, flags);
	*cfg = fb->cfg;
	spin_unlock_irqrestore(&fb->lock, flags);
}
EXPORT_SYMBOL_GPL(lake_fallback_get_config);

int lake_fallback_set_config(struct lake_fallback *fb,
			     const struct lake_policy_config *cfg)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&fb->lock, flags);
	ret = lake_policy_set_config(fb->core, cfg);
	if (!ret)
		fb->cfg = *cfg;
	spin_unlock_irqrestore(&fb->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(lake_fallback_set_config);

void lake_fallback_reset_calibration(struct lake_fallback *fb)
{
	unsigned long flags;

	spin_lock_irqsave(&fb->lock, flags);
	lake_policy_reset_calibration(fb->core);
	spin_unlock_irqrestore(&fb->lock, flags);
}
EXPORT_SYMBOL_GPL(lake_fallback_reset_calibration);

enum lake_policy_reason lake_fallback_last_reason(struct lake_fallback *fb)
{
	enum lake_policy_reason r;
	unsigned long flags;

	spin_lock_irqsave(&fb->lock, flags);
	r = lake_policy_last_reason(fb->core);
	spin_unlock_irqrestore(&fb->lock, flags);
	return r;
}
EXPORT_SYMBOL_GPL(lake_fallback_last_reason);

void lake_fallback_snapshot(struct lake_fallback *fb,
			    struct lake_policy_snapshot *snap)
{
	unsigned long flags;

	spin_lock_irqsave(&fb->lock, flags);
	lake_policy_snapshot(fb->core, snap);
	spin_unlock_irqrestore(&fb->lock, flags);
}
EXPORT_SYMBOL_GPL(lake_fallback_snapshot);

/* One timed run reported to the policy; 0 or run's error. */
static int timed_run(struct lake_fallback *fb, enum lake_target side, u32 batch,
		     lake_fallback_run_t run, void *arg)
{
	u64 t0 = ktime_get_ns();
	int ret = run(arg, side, batch);
	u64 ns = ktime_get_ns() - t0;

	if (ret)
		return ret;
	if (side == LAKE_TARGET_GPU)
		return lake_fallback_report_gpu(fb, batch, ns);
	return lake_fallback_report_cpu(fb, batch, ns);
}

int lake_fallback_calibrate(struct lake_fallback *fb, u32 rounds,
			    lake_fallback_run_t run, void *arg)
{
	u32 batch, r;
	int ret;

	might_sleep();
	if (!rounds)
		return -EINVAL;
	lake_fallback_reset_calibration(fb);
	ret = run(arg, LAKE_TARGET_CPU, 1);
	if (ret)
		return ret;
	ret = run(arg, LAKE_TARGET_GPU, 1);
	if (ret)
		goto gpu_failed;
	for (batch = 1; batch <= fb->max_batch; batch *= 2) {
		for (r = 0; r < rounds; r++) {
			ret = timed_run(fb, LAKE_TARGET_CPU, batch, run, arg);
			if (ret)
				return ret;
			ret = timed_run(fb, LAKE_TARGET_GPU, batch, run, arg);
			if (ret)
				goto gpu_failed;
		}
	}
	return 0;

gpu_failed:
	lake_fallback_report_gpu_error(fb);
	return ret;
}
EXPORT_SYMBOL_GPL(lake_fallback_calibrate);

/* --- lakectl (ctl.c) ----------------------------------------------------- */

int lake_fallback_snapshot_nth(u32 idx, struct lake_policy_snapshot *snap)
{
	struct lake_fallback *fb;
	int ret = -ENOENT;

	spin_lock(&fallbacks_lock);
	list_for_each_entry(fb, &fallbacks, node) {
		if (idx--)
			continue;
		lake_fallback_snapshot(fb, snap);
		ret = 0;
		break;
	}
	spin_unlock(&fallbacks_lock);
	return ret;
}

int lake_fallback_set_by_name(const char *name, const enum lake_policy_mode *mode,
			      const u32 *crossover)
{
	struct lake_fallback *fb;
	int ret = -ENOENT;

	/* Under the list lock: the policy cannot be destroyed meanwhile. */
	spin_lock(&fallbacks_lock);
	list_for_each_entry(fb, &fallbacks, node) {
		if (strcmp(fb->name, name))
			continue;
		ret = 0;
		if (mode)
			ret = lake_fallback_set_mode(fb, *mode);
		if (!ret && crossover)
			ret = lake_fallback_set_crossover(fb, *crossover);
		break;
	}
	spin_unlock(&fallbacks_lock);
	return ret;
}

void lake_fallback_init(void)
{
	policy_dir = debugfs_create_dir("policy", lake_debugfs_dir());
}

void lake_fallback_exit(void)
{
	/* Consumers hold lakelib until they unload; a leftover is a leak. */
	if (!list_empty(&fallbacks))
		pr_warn("policies left behind at unload\n");
	debugfs_remove_recursive(policy_dir);
}
