// SPDX-License-Identifier: GPL-2.0
/*
 * lake_example_xts's shared machinery (lake_crypto.h): one queue and one
 * worker per algorithm, the batch's way to a side (xts_lake.c's head
 * comment tells the story: the policy, the GPU round trip, the CPU redo of
 * a failed GPU batch), and the GPU context. Nothing here knows XTS or GCM:
 * an algorithm's functions pack its units and submit to its CPU driver.
 */
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <lake/lakelib.h>
#include <lake/shm.h>
#include "lake_crypto.h"

#define THREADS		64

#define REASON_NAME(id, str) [LAKE_REASON_##id] = str,
static const char *const reason_names[] = { LAKE_POLICY_REASONS(REASON_NAME) };

void lc_complete(struct lc_alg *a, struct crypto_async_request *req, int err)
{
	if (err != -EINPROGRESS) {
		atomic64_inc(&a->completed);
		/* A forged message refused is a right answer, not an error. */
		if (err == -EBADMSG)
			atomic64_inc(&a->bad_tags);
		else if (err)
			atomic64_inc(&a->errors);
	}
	local_bh_disable();
	a->complete(req, err);
	local_bh_enable();
}

int lc_queue(struct lc_alg *a, struct crypto_async_request *req)
{
	unsigned long flags;
	int ret;

	/* Counted first: the worker may complete it before this returns. */
	atomic64_inc(&a->requests);
	spin_lock_irqsave(&a->lock, flags);
	/* Behind a backlog a request waits too, so the backlog cannot starve. */
	if (a->nready < a->max_queue && list_empty(&a->backlog)) {
		list_add_tail(&req->list, &a->ready);
		a->nready++;
		ret = -EINPROGRESS;
	} else if (req->flags & CRYPTO_TFM_REQ_MAY_BACKLOG) {
		list_add_tail(&req->list, &a->backlog);
		ret = -EBUSY;
	} else {
		ret = -ENOSPC;
	}
	spin_unlock_irqrestore(&a->lock, flags);
	if (ret == -ENOSPC) {
		atomic64_dec(&a->requests);
		atomic64_inc(&a->refused);
		return ret;
	}
	if (ret == -EBUSY)
		atomic64_inc(&a->backlogged);
	wake_up(&a->wait);
	return ret;
}

/* --- the CPU side --- */

static void cpu_run(struct lc_alg *a, unsigned int n)
{
	u64 t0 = ktime_get_ns();
	bool sync = true;
	unsigned int i;

	for (i = 0; i < n; i++)
		sync &= a->cpu_submit(a->reqs[i]);
	atomic64_add(n, &a->cpu);
	/* Only a batch that ran here in full was timed. */
	if (sync)
		lake_fallback_report_cpu(a->fb, n, ktime_get_ns() - t0);
}

/* --- the GPU side --- */

static CUresult gpu_setup(struct lc_alg *a)
{
	size_t ubytes = a->max_batch * a->unit_size, kbytes = a->max_batch * a->key_size;
	CUdevice dev;
	CUresult r;

	/* Left by a failure: a live laked frees it, a new one refuses it. */
	if (a->ctx)
		cuCtxDestroy(a->ctx);
	a->ctx = NULL;
	r = cuInit(0);
	if (!r)
		r = cuDeviceGet(&dev, 0);
	if (!r)
		r = cuCtxCreate(&a->ctx, 0, dev);
	if (!r)
		r = cuModuleLoad(&a->mod, a->cubin);
	if (!r)
		r = lake_module_get_function(&a->fn, a->mod, a->sig);
	if (!r)
		r = cuMemAlloc(&a->dunits, ubytes);
	if (!r)
		r = cuMemAlloc(&a->dkeys, kbytes);
	if (!r)
		r = cuMemAlloc(&a->ddata, a->data_cap);
	if (!r)
		r = cuStreamCreate(&a->stream, CU_STREAM_NON_BLOCKING);
	return r;
}

int lc_gpu_exec(struct lc_alg *a, int n, int nkeys, unsigned int bytes, int impl)
{
	void *params[] = { &a->dunits, &a->dkeys, &a->ddata, &n, &nkeys, &bytes, &impl };
	const char *name = "?";
	CUresult r, sync;

	lockdep_assert_held(&a->gpu_lock);
	r = a->ready_gpu ? cuCtxSetCurrent(a->ctx) : gpu_setup(a);
	if (!r)
		r = cuMemcpyHtoDAsync(a->dunits, a->hunits, n * a->unit_size, a->stream);
	if (!r)
		r = cuMemcpyHtoDAsync(a->dkeys, a->hkeys, nkeys * a->key_size, a->stream);
	if (!r && bytes)
		r = cuMemcpyHtoDAsync(a->ddata, a->hdata, bytes, a->stream);
	if (!r)
		r = cuLaunchKernel(a->fn, DIV_ROUND_UP(n, THREADS), 1, 1, THREADS, 1, 1, 0,
				   a->stream, params, NULL);
	if (!r)
		r = cuMemcpyDtoHAsync(a->hunits, a->dunits, n * a->unit_size, a->stream);
	if (!r && bytes)
		r = cuMemcpyDtoHAsync(a->hdata, a->ddata, bytes, a->stream);
	/* Even after a failure: nothing queued may outlive the batch. */
	sync = cuStreamSynchronize(a->stream);
	if (!r)
		r = sync;
	a->ready_gpu = !r;
	cuCtxSetCurrent(NULL);
	memzero_explicit(a->hkeys, nkeys * a->key_size);
	if (r) {
		cuGetErrorName(r, &name);
		pr_warn_ratelimited("%s: GPU batch failed: %s\n", a->name, name);
		return -EIO;
	}
	return 0;
}

bool lc_count_ran(struct lc_alg *a, int unit, unsigned int ran)
{
	if (!ran || ran > LC_RAN_MAX) {
		atomic64_inc(&a->gpu_unfinished);
		pr_warn_ratelimited("%s: GPU batch left record %d undone\n", a->name, unit);
		return false;
	}
	atomic64_inc(&a->ran[ran]);
	return true;
}

int lc_key_index(struct lc_alg *a, const void *owner, int *nkeys, bool *fresh)
{
	int i;

	for (i = 0; i < *nkeys; i++) {
		if (a->key_of[i] == owner) {
			*fresh = false;
			return i;
		}
	}
	a->key_of[i] = owner;
	(*nkeys)++;
	*fresh = true;
	return i;
}

/* --- the worker --- */

static bool queue_nonempty(struct lc_alg *a)
{
	unsigned long flags;
	bool any;

	spin_lock_irqsave(&a->lock, flags);
	any = a->nready || !list_empty(&a->backlog);
	spin_unlock_irqrestore(&a->lock, flags);
	return any;
}

/* Ready requests first, then backlogged ones (was_backlogged says which). */
static unsigned int take_batch(struct lc_alg *a)
{
	struct crypto_async_request *req;
	struct list_head *from;
	unsigned long flags;
	size_t bytes = 0, len;
	unsigned int n = 0;

	spin_lock_irqsave(&a->lock, flags);
	while (n < a->max_batch) {
		from = a->nready ? &a->ready : &a->backlog;
		if (list_empty(from))
			break;
		req = list_first_entry(from, struct crypto_async_request, list);
		len = a->bytes(req);
		if (n && bytes + len > a->data_cap)
			break;
		list_del(&req->list);
		a->was_backlogged[n] = from == &a->backlog;
		if (from == &a->ready)
			a->nready--;
		a->reqs[n++] = req;
		bytes += len;
		if (bytes > a->data_cap)
			break;		/* too big for a batch: alone, on the CPU */
	}
	spin_unlock_irqrestore(&a->lock, flags);
	return n;
}

static void run_batch(struct lc_alg *a, unsigned int n)
{
	enum lake_target side = LAKE_TARGET_CPU;
	unsigned int i;
	u64 t0;

	atomic64_inc(&a->batches);
	if (n == 1 && a->bytes(a->reqs[0]) > a->data_cap)
		atomic64_inc(&a->too_big);
	else
		side = lake_fallback_choose(a->fb, n);
	if (side == LAKE_TARGET_GPU) {
		t0 = ktime_get_ns();
		if (!a->gpu_run(a, a->reqs, n, a->errs)) {
			lake_fallback_report_gpu(a->fb, n, ktime_get_ns() - t0);
			atomic64_inc(&a->gpu_batches);
			atomic64_add(n, &a->gpu);
			for (i = 0; i < n; i++)
				lc_complete(a, a->reqs[i], a->errs[i]);
			return;
		}
		lake_fallback_report_gpu_error(a->fb);
		atomic64_add(n, &a->redone_on_cpu);
	}
	cpu_run(a, n);
}

static int worker_fn(void *arg)
{
	struct lc_alg *a = arg;
	unsigned int n, i;

	while (!kthread_should_stop()) {
		n = take_batch(a);
		if (!n) {
			wait_event_idle(a->wait, queue_nonempty(a) || kthread_should_stop());
			continue;
		}
		for (i = 0; i < n; i++)
			if (a->was_backlogged[i])
				lc_complete(a, a->reqs[i], -EINPROGRESS);
		run_batch(a, n);
		cond_resched();
	}
	return 0;
}

/* --- start and stop --- */

int lc_alg_start(struct lc_alg *a, unsigned int max_batch, unsigned int batch_kib,
		 unsigned int max_queue, enum lake_policy_mode mode)
{
	size_t ubytes = max_batch * a->unit_size, kbytes = max_batch * a->key_size;
	int ret;

	a->max_batch = max_batch;
	a->max_queue = max_queue;
	a->data_cap = (size_t)batch_kib * 1024;
	spin_lock_init(&a->lock);
	INIT_LIST_HEAD(&a->ready);
	INIT_LIST_HEAD(&a->backlog);
	init_waitqueue_head(&a->wait);
	mutex_init(&a->gpu_lock);
	a->buf = lake_shm_alloc(ubytes + a->data_cap + kbytes);
	if (!a->buf) {
		pr_warn("%s: no %zu bytes in lakeshm for a batch\n", a->name,
			ubytes + a->data_cap + kbytes);
		return -ENOMEM;
	}
	a->hunits = a->buf;
	a->hdata = (u8 *)a->buf + ubytes;
	a->hkeys = a->hdata + a->data_cap;
	a->fb = lake_fallback_create(a->name, max_batch, 0);
	if (IS_ERR(a->fb)) {
		ret = PTR_ERR(a->fb);
		a->fb = NULL;
		goto err;
	}
	ret = lake_fallback_set_mode(a->fb, mode);
	if (ret)
		goto err;
	a->worker = kthread_run(worker_fn, a, "lake_%s", a->name + strlen("example_"));
	if (IS_ERR(a->worker)) {
		ret = PTR_ERR(a->worker);
		a->worker = NULL;
		goto err;
	}
	return 0;
err:
	lc_alg_stop(a);
	return ret;
}

void lc_alg_stop(struct lc_alg *a)
{
	if (a->worker)
		kthread_stop(a->worker);
	a->worker = NULL;
	if (a->ctx)
		cuCtxDestroy(a->ctx);
	a->ctx = NULL;
	lake_fallback_destroy(a->fb);
	a->fb = NULL;
	if (a->buf)
		lake_shm_free(a->buf);
	a->buf = NULL;
}

/* --- debugfs --- */

void lc_show(struct seq_file *m, struct lc_alg *a)
{
	u64 req = atomic64_read(&a->requests), done = atomic64_read(&a->completed);
	unsigned long flags;
	unsigned int queued;

	spin_lock_irqsave(&a->lock, flags);
	queued = a->nready;
	spin_unlock_irqrestore(&a->lock, flags);
	seq_printf(m, "requests %llu\ncompleted %llu\npending %llu\n", req, done, req - done);
	seq_printf(m, "errors %lld\ncpu %lld\ngpu %lld\nredone_on_cpu %lld\n",
		   atomic64_read(&a->errors), atomic64_read(&a->cpu), atomic64_read(&a->gpu),
		   atomic64_read(&a->redone_on_cpu));
	seq_printf(m, "refused %lld\nbacklogged %lld\nbad %lld\ntoo_big %lld\nqueued %u\n",
		   atomic64_read(&a->refused), atomic64_read(&a->backlogged),
		   atomic64_read(&a->bad), atomic64_read(&a->too_big), queued);
	seq_printf(m, "batches %lld\ngpu_batches %lld\ngpu_unfinished %lld\nbad_tags %lld\n",
		   atomic64_read(&a->batches), atomic64_read(&a->gpu_batches),
		   atomic64_read(&a->gpu_unfinished), atomic64_read(&a->bad_tags));
	seq_printf(m, "ran_table_free %lld\nran_aesni %lld\nran_gpu %lld\nlast_reason %s\n",
		   atomic64_read(&a->ran[1]), atomic64_read(&a->ran[2]),
		   atomic64_read(&a->ran[3]), reason_names[lake_fallback_last_reason(a->fb)]);
}

int lc_parse_mode(const char *s, enum lake_policy_mode *mode)
{
	static const char *const names[] = {
		[LAKE_POLICY_AUTO] = "auto", [LAKE_POLICY_CPU] = "cpu", [LAKE_POLICY_GPU] = "gpu",
	};
	int i;

	for (i = 0; i < LAKE_POLICY_NR_MODES; i++) {
		if (s && !strcmp(s, names[i])) {
			*mode = i;
			return 0;
		}
	}
	return -EINVAL;
}
