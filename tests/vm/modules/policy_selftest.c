// SPDX-License-Identifier: GPL-2.0
/*
 * lake_policy_selftest: a consumer of the CPU-fallback policy and the
 * batcher, for the VM case tests/vm/cases/30-policy.sh.
 *
 * Worker kthreads submit items (c = a + b over ITEM_WORDS u32) through a
 * batcher on the policy "selftest". A batch runs on the GPU (iadd from
 * policy.cubin, through laked) or on the CPU (the same sum in C), as the
 * policy decides. Each worker checks its result bit for bit and counts it
 * on the side that produced it: whatever laked does, no item may be lost,
 * fail or come back wrong. A "hog" kthread is a second client of the
 * device: it holds it busy with a kernel that runs until told to stop.
 *
 * Driven through debugfs lake/policy_selftest; reading it gives counters as
 * "key value" lines. Commands:
 *   start N            N workers (1..MAX_WORKERS)
 *   stop               stop them; each finishes its item first
 *   calibrate          lake_fallback_calibrate(), 3 rounds (calibrate_ret)
 *   calibrate_known    calibrate a policy "known" on made-up costs
 *                      (known_ret, known_crossover; see calibrate_known())
 *   hog BLOCKS         the second client: hold on BLOCKS blocks until stopped
 *   hog 0              stop it
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <lake/batch.h>
#include <lake/cuda.h>
#include <lake/lakelib.h>
#include <lake/shm.h>
#include "../../kernels/policy.h"

#define ITEM_WORDS	64
#define MAX_BATCH	4
#define WINDOW_NS	(1000 * 1000)
#define MAX_WORKERS	8
#define BATCH_BYTES	(MAX_BATCH * ITEM_WORDS * sizeof(u32))
#define POISON		0xdeadbeef
/* The hog's blocks give up after this many spins: minutes at least. */
#define HOG_MAX_SPINS	(1ULL << 40)

LAKE_KERNEL_SIG(iadd, IADD_PARAMS);
LAKE_KERNEL_SIG(hold, HOLD_PARAMS);

struct item {
	u32 a[ITEM_WORDS], b[ITEM_WORDS], c[ITEM_WORDS];
	enum lake_target side;
};

/* The GPU path: one context that every closer uses in turn. */
static struct {
	struct mutex lock;
	bool ready;
	u32 failures;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	CUdeviceptr a, b, c;
	u32 *sa, *sb, *sc;	/* staging in lakeshm: copies go by offset */
} gpu;

static struct {
	atomic64_t submitted, done_cpu, done_gpu, wrong, errors;
} st;

static struct {
	struct task_struct *task;
	u32 blocks;
	atomic64_t launches, done, errors;
} hog;

static DEFINE_MUTEX(ctl_lock);
static struct lake_fallback *fb;
static struct lake_batcher *batcher;
static struct task_struct *workers[MAX_WORKERS];
static struct item *worker_item[MAX_WORKERS];
static struct item *calib_items[MAX_BATCH];
static int calibrate_ret = -ENODATA;	/* until a calibration ran */
static int known_ret = -ENODATA;
static u32 known_crossover;
static struct dentry *file;

static void fill(struct item *it, u32 seed, u32 seq)
{
	u32 w, x = seed * 2654435761u ^ seq * 40503u;

	for (w = 0; w < ITEM_WORDS; w++) {
		x = x * 1664525u + 1013904223u;
		it->a[w] = x;
		it->b[w] = x ^ (x >> 7) ^ w;
		it->c[w] = POISON;
	}
}

static bool correct(const struct item *it)
{
	u32 w;

	for (w = 0; w < ITEM_WORDS; w++)
		if (it->c[w] != it->a[w] + it->b[w])
			return false;
	return true;
}

static int cpu_run(struct item **items, u32 n)
{
	u32 i, w;

	for (i = 0; i < n; i++) {
		for (w = 0; w < ITEM_WORDS; w++)
			items[i]->c[w] = items[i]->a[w] + items[i]->b[w];
		items[i]->side = LAKE_TARGET_CPU;
	}
	return 0;
}

static CUresult gpu_setup(void)
{
	CUdevice dev;
	CUresult r;

	r = cuInit(0);
	if (!r)
		r = cuDeviceGet(&dev, 0);
	if (!r)
		r = cuCtxCreate(&gpu.ctx, 0, dev);
	if (!r)
		r = cuModuleLoad(&gpu.mod, "policy.cubin");
	if (!r)
		r = lake_module_get_function(&gpu.fn, gpu.mod, &lake_sig_iadd);
	if (!r)
		r = cuMemAlloc(&gpu.a, BATCH_BYTES);
	if (!r)
		r = cuMemAlloc(&gpu.b, BATCH_BYTES);
	if (!r)
		r = cuMemAlloc(&gpu.c, BATCH_BYTES);
	return r;
}

static CUresult gpu_exec(struct item **items, u32 n)
{
	int total = n * ITEM_WORDS;
	size_t row = sizeof(items[0]->a), bytes = n * row;
	void *params[] = { &gpu.a, &gpu.b, &gpu.c, &total };
	CUresult r;
	u32 i;

	for (i = 0; i < n; i++) {
		memcpy(gpu.sa + i * ITEM_WORDS, items[i]->a, row);
		memcpy(gpu.sb + i * ITEM_WORDS, items[i]->b, row);
	}
	r = cuCtxSetCurrent(gpu.ctx);
	if (!r)
		r = cuMemcpyHtoD(gpu.a, gpu.sa, bytes);
	if (!r)
		r = cuMemcpyHtoD(gpu.b, gpu.sb, bytes);
	if (!r)
		r = cuLaunchKernel(gpu.fn, DIV_ROUND_UP(total, 128), 1, 1, 128, 1, 1, 0,
				   NULL, params, NULL);
	if (!r)
		r = cuMemcpyDtoH(gpu.sc, gpu.c, bytes);
	if (r)
		return r;
	for (i = 0; i < n; i++) {
		memcpy(items[i]->c, gpu.sc + i * ITEM_WORDS, row);
		items[i]->side = LAKE_TARGET_GPU;
	}
	return CUDA_SUCCESS;
}

/*
 * After a failure the path is set up again from scratch. What the failed
 * laked held dies with it; a live laked frees a lost context when it exits.
 */
static int gpu_run(struct item **items, u32 n)
{
	u32 seen = READ_ONCE(gpu.failures);
	CUresult r;
	int ret = 0;

	mutex_lock(&gpu.lock);
	/* The path failed while we waited: fail at once, not after a timeout. */
	if (gpu.failures != seen) {
		ret = -EAGAIN;
		goto out;
	}
	r = gpu.ready ? CUDA_SUCCESS : gpu_setup();
	if (!r) {
		gpu.ready = true;
		r = gpu_exec(items, n);
	}
	if (r) {
		pr_info_ratelimited("policy_selftest: GPU path failed: CUresult %d\n", r);
		gpu.ready = false;
		WRITE_ONCE(gpu.failures, gpu.failures + 1);
		ret = -EIO;
	}
out:
	mutex_unlock(&gpu.lock);
	return ret;
}

static int run_batch(void *arg, enum lake_target side, void **items, u32 n)
{
	if (side == LAKE_TARGET_GPU)
		return gpu_run((struct item **)items, n);
	return cpu_run((struct item **)items, n);
}

static int calib_run(void *arg, enum lake_target side, u32 n)
{
	u32 i;
	int ret;

	for (i = 0; i < n; i++)
		fill(calib_items[i], 0xca1, i);
	ret = run_batch(NULL, side, (void **)calib_items, n);
	for (i = 0; !ret && i < n; i++)
		if (!correct(calib_items[i]))
			ret = -EIO;
	return ret;
}

/*
 * Made-up costs: 50 ms per item on the CPU, 150 ms per batch on the GPU.
 * So long that a guest's clock advancing by whole ticks, or the host
 * stalling the guest for a while, cannot turn a comparison round.
 */
static int known_run(void *arg, enum lake_target side, u32 n)
{
	u64 end = ktime_get_ns() + (side == LAKE_TARGET_GPU ? 150 : 50 * n) * NSEC_PER_MSEC;

	while (ktime_get_ns() < end)
		cpu_relax();
	return 0;
}

/*
 * With those costs the GPU loses batches of 1 and 2 and wins 4: the
 * calibrated crossover must be 4. Times reported on the wrong side would
 * make the CPU win the largest batch, and leave no crossover at all.
 */
static void calibrate_known(void)
{
	struct lake_policy_snapshot *snap = kmalloc(sizeof(*snap), GFP_KERNEL);
	struct lake_fallback *k;

	known_crossover = 0;
	known_ret = -ENOMEM;
	if (!snap)
		return;
	k = lake_fallback_create("known", MAX_BATCH, WINDOW_NS);
	known_ret = IS_ERR(k) ? PTR_ERR(k) : lake_fallback_calibrate(k, 3, known_run, NULL);
	if (!IS_ERR(k)) {
		lake_fallback_snapshot(k, snap);
		known_crossover = snap->crossover_calibrated;
		lake_fallback_destroy(k);
	}
	kfree(snap);
}

static int worker_fn(void *arg)
{
	struct item *it = arg;
	u32 seq = 0;
	int ret;

	while (!kthread_should_stop()) {
		fill(it, (u32)(uintptr_t)it, seq++);
		atomic64_inc(&st.submitted);
		ret = lake_batcher_submit(batcher, it);
		if (ret)
			atomic64_inc(&st.errors);
		else if (!correct(it))
			atomic64_inc(&st.wrong);
		else if (it->side == LAKE_TARGET_GPU)
			atomic64_inc(&st.done_gpu);
		else
			atomic64_inc(&st.done_cpu);
		usleep_range(200, 500);
	}
	/* The GPU path may have made its context current in this thread. */
	cuCtxSetCurrent(NULL);
	return 0;
}

static void stop_workers(void)
{
	int i;

	for (i = 0; i < MAX_WORKERS; i++) {
		if (workers[i])
			kthread_stop(workers[i]);
		workers[i] = NULL;
		kfree(worker_item[i]);
		worker_item[i] = NULL;
	}
}

static int start_workers(unsigned int n)
{
	struct task_struct *t;
	unsigned int i;

	if (!n || n > MAX_WORKERS || workers[0])
		return -EINVAL;
	for (i = 0; i < n; i++) {
		worker_item[i] = kmalloc(sizeof(struct item), GFP_KERNEL);
		if (!worker_item[i])
			goto err;
		t = kthread_run(worker_fn, worker_item[i], "policy_worker/%u", i);
		if (IS_ERR(t))
			goto err;
		workers[i] = t;
	}
	return 0;
err:
	stop_workers();
	return -ENOMEM;
}

/*
 * The hog holds the device: one launch of hold on hog.blocks blocks that
 * spin until it writes their flag when told to stop. Every executor of the
 * host device stays busy from the launch to the stop, however fast the host
 * runs, and laked is not held in a synchronize meanwhile, so its load
 * reports go on and see the device busy.
 */
static CUresult hog_setup(CUcontext *ctx, CUfunction *fn, CUdeviceptr *flag,
			  CUstream *s)
{
	CUmodule mod;
	CUdevice dev;
	CUresult r;

	r = cuInit(0);
	if (!r)
		r = cuDeviceGet(&dev, 0);
	if (!r)
		r = cuCtxCreate(ctx, 0, dev);
	if (!r)
		r = cuModuleLoad(&mod, "policy.cubin");
	if (!r)
		r = lake_module_get_function(fn, mod, &lake_sig_hold);
	if (!r)
		r = cuMemAlloc(flag, sizeof(int));
	if (!r)
		r = cuMemsetD32(*flag, 0, 1);
	/* Non-blocking: the flag's write on the NULL stream does not wait for it. */
	if (!r)
		r = cuStreamCreate(s, CU_STREAM_NON_BLOCKING);
	return r;
}

static int hog_fn(void *unused)
{
	unsigned long long max_spins = HOG_MAX_SPINS;
	CUdeviceptr flag = 0;
	void *params[] = { &flag, &max_spins };
	CUcontext ctx = NULL;
	CUstream s = NULL;
	bool held = false;
	CUfunction fn;
	CUresult r;
	int one = 1;

	r = hog_setup(&ctx, &fn, &flag, &s);
	if (!r)
		r = cuLaunchKernel(fn, hog.blocks, 1, 1, 1, 1, 1, 0, s, params, NULL);
	/* Sends the launch, and says it is running: it cannot end by itself yet. */
	if (!r)
		r = cuStreamQuery(s);
	if (r == CUDA_ERROR_NOT_READY) {
		held = true;
		atomic64_inc(&hog.launches);
	} else {
		atomic64_inc(&hog.errors);
	}
	while (!kthread_should_stop())
		msleep(20);
	if (held) {
		r = cuMemcpyHtoD(flag, &one, sizeof(one));
		if (!r)
			r = cuStreamSynchronize(s);
		if (r)
			atomic64_inc(&hog.errors);
		else
			atomic64_inc(&hog.done);
	}
	if (s)
		cuStreamDestroy(s);
	if (ctx)
		cuCtxDestroy(ctx);
	return 0;
}

static void stop_hog(void)
{
	if (hog.task)
		kthread_stop(hog.task);
	hog.task = NULL;
}

static int start_hog(u32 blocks)
{
	struct task_struct *t;

	if (hog.task || !blocks || blocks > 1024)
		return -EINVAL;
	hog.blocks = blocks;
	t = kthread_run(hog_fn, NULL, "policy_hog");
	if (IS_ERR(t))
		return PTR_ERR(t);
	hog.task = t;
	return 0;
}

static int ctl_show(struct seq_file *m, void *unused)
{
	struct lake_batcher_stats bs;
	unsigned int i, n = 0;

	mutex_lock(&ctl_lock);
	for (i = 0; i < MAX_WORKERS; i++)
		n += !!workers[i];
	mutex_unlock(&ctl_lock);
	lake_batcher_get_stats(batcher, &bs);
	seq_printf(m, "workers %u\nsubmitted %lld\ndone_cpu %lld\ndone_gpu %lld\n", n,
		   atomic64_read(&st.submitted), atomic64_read(&st.done_cpu),
		   atomic64_read(&st.done_gpu));
	seq_printf(m, "wrong %lld\nerrors %lld\ncalibrate_ret %d\n",
		   atomic64_read(&st.wrong), atomic64_read(&st.errors), calibrate_ret);
	seq_printf(m, "hog_launches %lld\nhog_done %lld\nhog_errors %lld\n",
		   atomic64_read(&hog.launches), atomic64_read(&hog.done),
		   atomic64_read(&hog.errors));
	seq_printf(m, "known_ret %d\nknown_crossover %u\n", known_ret, known_crossover);
	seq_printf(m, "items %llu\nbatches %llu\nclosed_full %llu\nclosed_window %llu\n",
		   bs.items, bs.batches, bs.closed_full, bs.closed_window);
	seq_printf(m, "alone %llu\ncpu_batches %llu\ngpu_batches %llu\ngpu_reruns %llu\n",
		   bs.alone, bs.cpu_batches, bs.gpu_batches, bs.gpu_reruns);
	seq_printf(m, "failed %llu\nleft %llu\n", bs.failed, bs.left);
	return 0;
}

static int ctl_open(struct inode *inode, struct file *f)
{
	return single_open(f, ctl_show, NULL);
}

static int ctl_command(char *cmd)
{
	unsigned int n;

	if (sscanf(cmd, "start %u", &n) == 1)
		return start_workers(n);
	if (!strcmp(cmd, "stop")) {
		stop_workers();
		return 0;
	}
	if (!strcmp(cmd, "calibrate")) {
		calibrate_ret = lake_fallback_calibrate(fb, 3, calib_run, NULL);
		/* This thread ran the GPU path too. */
		cuCtxSetCurrent(NULL);
		return 0;
	}
	if (!strcmp(cmd, "calibrate_known")) {
		calibrate_known();
		return 0;
	}
	if (!strcmp(cmd, "hog 0")) {
		stop_hog();
		return 0;
	}
	if (sscanf(cmd, "hog %u", &n) == 1)
		return start_hog(n);
	return -EINVAL;
}

static ssize_t ctl_write(struct file *f, const char __user *ubuf, size_t len,
			 loff_t *ppos)
{
	char cmd[64];
	int ret;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = '\0';
	mutex_lock(&ctl_lock);
	ret = ctl_command(strim(cmd));
	mutex_unlock(&ctl_lock);
	return ret ? ret : len;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.open = ctl_open,
	.read = seq_read,
	.write = ctl_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static void free_calib_items(void)
{
	int i;

	for (i = 0; i < MAX_BATCH; i++)
		kfree(calib_items[i]);
}

static void free_staging(void)
{
	u32 *bufs[] = { gpu.sa, gpu.sb, gpu.sc };
	int i;

	for (i = 0; i < ARRAY_SIZE(bufs); i++)
		if (bufs[i])
			lake_shm_free(bufs[i]);
}

static int __init policy_selftest_init(void)
{
	struct lake_policy_config cfg;
	int i, ret = -ENOMEM;

	mutex_init(&gpu.lock);
	gpu.sa = lake_shm_alloc(BATCH_BYTES);
	gpu.sb = lake_shm_alloc(BATCH_BYTES);
	gpu.sc = lake_shm_alloc(BATCH_BYTES);
	if (!gpu.sa || !gpu.sb || !gpu.sc)
		goto err_staging;
	for (i = 0; i < MAX_BATCH; i++) {
		calib_items[i] = kmalloc(sizeof(struct item), GFP_KERNEL);
		if (!calib_items[i])
			goto err_items;
	}
	fb = lake_fallback_create("selftest", MAX_BATCH, WINDOW_NS);
	if (IS_ERR(fb)) {
		ret = PTR_ERR(fb);
		goto err_items;
	}
	/* TCG is slow: give laked's reports and a probe's set-up some slack. */
	lake_fallback_get_config(fb, &cfg);
	cfg.load_max_age_ns = 500 * NSEC_PER_MSEC;
	cfg.probe_timeout_ns = 2 * NSEC_PER_SEC;
	ret = lake_fallback_set_config(fb, &cfg);
	if (ret)
		goto err_fallback;
	batcher = lake_batcher_create(fb, run_batch, NULL);
	if (IS_ERR(batcher)) {
		ret = PTR_ERR(batcher);
		goto err_fallback;
	}
	file = debugfs_create_file("policy_selftest", 0600, lake_debugfs_dir(), NULL,
				   &ctl_fops);
	return 0;

err_fallback:
	lake_fallback_destroy(fb);
err_items:
	free_calib_items();
err_staging:
	free_staging();
	return ret;
}

static void __exit policy_selftest_exit(void)
{
	debugfs_remove(file);
	stop_hog();
	stop_workers();
	lake_batcher_destroy(batcher);
	lake_fallback_destroy(fb);
	if (gpu.ready)
		cuCtxDestroy(gpu.ctx);
	free_calib_items();
	free_staging();
}

module_init(policy_selftest_init);
module_exit(policy_selftest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake: CPU-fallback policy and batcher, exercised against laked");
