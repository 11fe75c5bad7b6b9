// SPDX-License-Identifier: GPL-2.0
/*
 * lake_example_vadd: the smallest complete user of lake, and the folder to
 * copy when starting a new one.
 *
 * What it does. A request adds two vectors of n unsigned 32-bit integers,
 * c = a + b. Writing "run COUNT" to debugfs lake/example_vadd starts one
 * kthread per slot of a batch (max_batch), so that batches can fill; they
 * submit COUNT requests between them and check every result, and the write
 * returns when all are done. Reading the file gives the counters: requests,
 * completed on each side, wrong results, failed requests, batches, GPU
 * batches run again on the CPU, and the policy's last reason. Writing
 * "calibrate" times both sides so that the policy can compare them.
 *
 * The model. Requests arrive one by one from many threads; a GPU pays only
 * for many at once. The batcher (lake/batch.h) holds each request until
 * max_batch have joined or window_us has passed since the first, then the
 * thread that closed the batch asks the policy for a side and runs the
 * whole batch there; the other submitters sleep until it is done. The
 * policy (lake/fallback.h, named example_vadd) answers CPU while laked is
 * absent, its device is down or loaded by others, a recent GPU failure has
 * tripped it (it probes the GPU again after a back-off), or the batch is
 * below the crossover, the batch size from which the GPU was measured
 * faster. Until "calibrate" has measured both
 * sides the policy does not know the crossover and answers CPU. An operator
 * can override it in lake/policy/example_vadd/crossover or force a side in
 * lake/policy/example_vadd/mode.
 *
 * The GPU path. Each request keeps a, b and c in one lakeshm buffer, which
 * laked maps too: lake passes the buffer by offset and copies nothing (on a
 * GPU, the copies are DMA from the pinned region). A batch of k requests is
 * 2k cuMemcpyHtoDAsync into device arrays of max_batch * n integers, one
 * cuLaunchKernel over k * n elements, k cuMemcpyDtoHAsync straight into
 * each request's c, and one cuStreamSynchronize: the asynchronous calls
 * travel to laked with the synchronize, one round trip per batch. The
 * context, module, device arrays and stream are set up by the first GPU
 * batch and shared by all: a mutex runs one GPU batch at a time, and the
 * context is current only while a batch runs, in whichever thread closed it
 * (the current context is per thread, as in CUDA: the path sets it before
 * its first call and clears it after its last, never relying on one a
 * thread may have inherited). The kernel is vadd.cu, built by nvcc for a GPU
 * and by cc for laked's host device; its signature is written once, in
 * vadd_kernel.h, which both vadd.cu and this file include, and the function
 * is looked up with lake_module_get_function() against it, so lakelib packs
 * the four parameters below with the layout this module declared and
 * refuses a laked that reports another.
 *
 * The CPU path is a plain loop. It cannot fail, which is what makes the
 * fallback safe.
 *
 * When laked is absent or dies. Without laked the policy answers CPU
 * (reason no_daemon) and every request completes there. When laked dies
 * with a batch in flight, lakelib fails its calls at once, the GPU path
 * returns -EIO, and the batcher reports the failure to the policy (which
 * trips to the CPU) and runs the same batch again on the CPU: the requests
 * still complete, correctly. A laked that stops answering costs the batch
 * lakelib's timeout_ms first, and laked itself: lakelib fences a laked that
 * does not answer in time (kills it and revokes its mapping of the region)
 * before the call returns, so no late result ever lands in a c that the CPU
 * rerun has written or a new request reuses. The next GPU batch sets the
 * path up anew, destroying the old context (a new laked refuses its stale
 * handle).
 *
 * Limits. Integers only: the kernel module does no floating point. One GPU
 * batch runs at a time. Requests come from debugfs; a real user submits from
 * its own code path, in process context, since a submitter sleeps. The
 * policy follows drift only on the side it uses; calibrate again to
 * re-measure the other. On laked's host device the "GPU" is the CPU
 * behind a round trip, so the measured crossover is "never".
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <lake/batch.h>
#include <lake/cuda.h>
#include <lake/lakelib.h>
#include <lake/shm.h>
#include "vadd_kernel.h"

#define MAX_N		(1u << 20)
#define MAX_BATCH	64
#define BLOCK		256
#define CALIB_ROUNDS	3

LAKE_KERNEL_SIG(vadd, VADD_PARAMS);

static unsigned int n = 1024;
module_param(n, uint, 0444);
MODULE_PARM_DESC(n, "integers per vector (1..1048576)");
static unsigned int max_batch = 8;
module_param(max_batch, uint, 0444);
MODULE_PARM_DESC(max_batch, "requests per batch at most (1..64)");
static unsigned int window_us = 1000;
module_param(window_us, uint, 0444);
MODULE_PARM_DESC(window_us, "how long a batch waits for more requests (0..1000000)");

struct vadd_req {
	u32 *a, *b, *c;		/* n each, in one lakeshm buffer */
	enum lake_target side;	/* the path that computed c */
};

static struct {
	struct mutex lock;
	bool ready;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	CUstream stream;
	CUdeviceptr a, b, c;	/* max_batch * n each */
} gpu;

static struct {
	atomic64_t requests, cpu, gpu, wrong, failed;
} st;

#define REASON_NAME(id, str) [LAKE_REASON_##id] = str,
static const char *const reason_names[] = { LAKE_POLICY_REASONS(REASON_NAME) };

static struct lake_fallback *fb;
static struct lake_batcher *batcher;
static struct dentry *ctl_file;
/* One command at a time: "run" and "calibrate" share the pool. */
static DEFINE_MUTEX(ctl_lock);
static struct vadd_req pool[MAX_BATCH];		/* max_batch used */
static void *pool_items[MAX_BATCH];
static struct task_struct *submitters[MAX_BATCH];
static atomic_t run_left, run_active;
static DECLARE_WAIT_QUEUE_HEAD(run_done);

/* c starts wrong everywhere, so an element that no path wrote is caught. */
static void req_fill(struct vadd_req *req, u32 seed)
{
	u32 i, x = seed * 2654435761u;

	for (i = 0; i < n; i++) {
		x = x * 1664525u + 1013904223u;
		req->a[i] = x;
		req->b[i] = (x >> 7) ^ i;
		req->c[i] = ~(req->a[i] + req->b[i]);
	}
}

static bool req_correct(const struct vadd_req *req)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (req->c[i] != req->a[i] + req->b[i])
			return false;
	return true;
}

static void cpu_run(struct vadd_req **reqs, u32 nr)
{
	u32 i, j;

	for (i = 0; i < nr; i++) {
		for (j = 0; j < n; j++)
			reqs[i]->c[j] = reqs[i]->a[j] + reqs[i]->b[j];
		reqs[i]->side = LAKE_TARGET_CPU;
	}
}

static CUresult gpu_setup(void)
{
	size_t bytes = (size_t)max_batch * n * sizeof(u32);
	CUdevice dev;
	CUresult r;

	/* Left by a failure: a live laked frees it, a new one refuses it. */
	if (gpu.ctx)
		cuCtxDestroy(gpu.ctx);
	gpu.ctx = NULL;
	r = cuInit(0);
	if (!r)
		r = cuDeviceGet(&dev, 0);
	if (!r)
		r = cuCtxCreate(&gpu.ctx, 0, dev);
	if (!r)
		r = cuModuleLoad(&gpu.mod, "example_vadd.cubin");
	if (!r)
		r = lake_module_get_function(&gpu.fn, gpu.mod, &lake_sig_vadd);
	if (!r)
		r = cuMemAlloc(&gpu.a, bytes);
	if (!r)
		r = cuMemAlloc(&gpu.b, bytes);
	if (!r)
		r = cuMemAlloc(&gpu.c, bytes);
	if (!r)
		r = cuStreamCreate(&gpu.stream, CU_STREAM_NON_BLOCKING);
	return r;
}

static CUresult gpu_exec(struct vadd_req **reqs, u32 nr)
{
	size_t bytes = n * sizeof(u32);
	int total = nr * n;
	void *params[] = { &gpu.a, &gpu.b, &gpu.c, &total };
	CUresult r = CUDA_SUCCESS, sync;
	u32 i;

	for (i = 0; i < nr && !r; i++) {
		r = cuMemcpyHtoDAsync(gpu.a + i * bytes, reqs[i]->a, bytes, gpu.stream);
		if (!r)
			r = cuMemcpyHtoDAsync(gpu.b + i * bytes, reqs[i]->b, bytes,
					      gpu.stream);
	}
	if (!r)
		r = cuLaunchKernel(gpu.fn, DIV_ROUND_UP(total, BLOCK), 1, 1, BLOCK, 1, 1,
				   0, gpu.stream, params, NULL);
	for (i = 0; i < nr && !r; i++)
		r = cuMemcpyDtoHAsync(reqs[i]->c, gpu.c + i * bytes, bytes, gpu.stream);
	/* Even after a failure: nothing queued may outlive the batch. */
	sync = cuStreamSynchronize(gpu.stream);
	return r ? r : sync;
}

static int gpu_run(struct vadd_req **reqs, u32 nr)
{
	const char *name = "?";
	CUresult r;
	u32 i;

	mutex_lock(&gpu.lock);
	r = gpu.ready ? cuCtxSetCurrent(gpu.ctx) : gpu_setup();
	if (!r)
		r = gpu_exec(reqs, nr);
	gpu.ready = !r;
	cuCtxSetCurrent(NULL);
	mutex_unlock(&gpu.lock);
	if (r) {
		cuGetErrorName(r, &name);
		pr_warn_ratelimited("example_vadd: GPU batch failed: %s\n", name);
		return -EIO;
	}
	for (i = 0; i < nr; i++)
		reqs[i]->side = LAKE_TARGET_GPU;
	return 0;
}

static int vadd_run(void *arg, enum lake_target side, void **items, u32 nr)
{
	struct vadd_req **reqs = (struct vadd_req **)items;

	if (side == LAKE_TARGET_GPU)
		return gpu_run(reqs, nr);
	cpu_run(reqs, nr);
	return 0;
}

static void submit_one(struct vadd_req *req)
{
	req_fill(req, atomic64_inc_return(&st.requests));
	if (lake_batcher_submit(batcher, req))
		atomic64_inc(&st.failed);
	else if (!req_correct(req))
		atomic64_inc(&st.wrong);
	else if (req->side == LAKE_TARGET_GPU)
		atomic64_inc(&st.gpu);
	else
		atomic64_inc(&st.cpu);
}

static int submit_loop(void *arg)
{
	while (!kthread_should_stop() && atomic_dec_if_positive(&run_left) >= 0)
		submit_one(arg);
	if (atomic_dec_and_test(&run_active))
		wake_up(&run_done);
	return 0;
}

/* @count requests from the submitters; a fatal signal stops them early. */
static int run_requests(u32 count)
{
	u32 nr = min(max_batch, count), i;
	int ret = 0;

	atomic_set(&run_left, count);
	atomic_set(&run_active, nr);
	for (i = 0; i < nr; i++) {
		submitters[i] = kthread_create(submit_loop, &pool[i], "vadd_submit/%u", i);
		if (IS_ERR(submitters[i])) {
			ret = PTR_ERR(submitters[i]);
			submitters[i] = NULL;
			break;
		}
		/* kthread_stop() must find it even if it has returned. */
		get_task_struct(submitters[i]);
		wake_up_process(submitters[i]);
	}
	if (!ret)
		ret = wait_event_killable(run_done, !atomic_read(&run_active));
	for (i = 0; i < nr && submitters[i]; i++) {
		kthread_stop(submitters[i]);
		put_task_struct(submitters[i]);
		submitters[i] = NULL;
	}
	return ret;
}

/* lake_fallback_calibrate() times this on each side. */
static int calib_run(void *arg, enum lake_target side, u32 nr)
{
	u32 i;
	int ret;

	for (i = 0; i < nr; i++)
		req_fill(&pool[i], i);
	ret = vadd_run(NULL, side, pool_items, nr);
	for (i = 0; !ret && i < nr; i++)
		if (!req_correct(&pool[i]))
			ret = -EIO;
	return ret;
}

static int ctl_show(struct seq_file *m, void *unused)
{
	struct lake_batcher_stats bs;

	lake_batcher_get_stats(batcher, &bs);
	seq_printf(m, "requests %lld\ncpu %lld\ngpu %lld\nwrong %lld\nfailed %lld\n",
		   atomic64_read(&st.requests), atomic64_read(&st.cpu),
		   atomic64_read(&st.gpu), atomic64_read(&st.wrong),
		   atomic64_read(&st.failed));
	seq_printf(m, "batches %llu\ngpu_reruns %llu\nlast_reason %s\n", bs.batches,
		   bs.gpu_reruns, reason_names[lake_fallback_last_reason(fb)]);
	return 0;
}

static int ctl_open(struct inode *inode, struct file *f)
{
	return single_open(f, ctl_show, NULL);
}

static ssize_t ctl_write(struct file *f, const char __user *ubuf, size_t len,
			 loff_t *ppos)
{
	char cmd[32];
	u32 count;
	int ret;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = '\0';
	if (mutex_lock_killable(&ctl_lock))
		return -EINTR;
	if (sscanf(cmd, "run %u", &count) == 1 && count)
		ret = run_requests(count);
	else if (!strcmp(strim(cmd), "calibrate"))
		ret = lake_fallback_calibrate(fb, CALIB_ROUNDS, calib_run, NULL);
	else
		ret = -EINVAL;
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

static void pool_free(void)
{
	u32 i;

	for (i = 0; i < max_batch && pool[i].a; i++)
		lake_shm_free(pool[i].a);
}

static int pool_alloc(void)
{
	u32 i;

	for (i = 0; i < max_batch; i++) {
		pool[i].a = lake_shm_alloc(3 * n * sizeof(u32));
		if (!pool[i].a)
			return -ENOMEM;
		pool[i].b = pool[i].a + n;
		pool[i].c = pool[i].b + n;
		pool_items[i] = &pool[i];
	}
	return 0;
}

static int __init vadd_init(void)
{
	int ret;

	if (!n || n > MAX_N || !max_batch || max_batch > MAX_BATCH ||
	    window_us > USEC_PER_SEC)
		return -EINVAL;
	mutex_init(&gpu.lock);
	ret = pool_alloc();
	if (ret)
		goto err_pool;
	fb = lake_fallback_create("example_vadd", max_batch,
				  (u64)window_us * NSEC_PER_USEC);
	if (IS_ERR(fb)) {
		ret = PTR_ERR(fb);
		goto err_pool;
	}
	batcher = lake_batcher_create(fb, vadd_run, NULL);
	if (IS_ERR(batcher)) {
		ret = PTR_ERR(batcher);
		goto err_fallback;
	}
	ctl_file = debugfs_create_file("example_vadd", 0600, lake_debugfs_dir(), NULL,
				       &ctl_fops);
	return 0;

err_fallback:
	lake_fallback_destroy(fb);
err_pool:
	pool_free();
	return ret;
}

static void __exit vadd_exit(void)
{
	debugfs_remove(ctl_file);
	lake_batcher_destroy(batcher);
	lake_fallback_destroy(fb);
	if (gpu.ctx)
		cuCtxDestroy(gpu.ctx);
	pool_free();
}

module_init(vadd_init);
module_exit(vadd_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake example: vector add, batched, on the GPU or the CPU");
