// SPDX-License-Identifier: GPL-2.0
/*
 * lake_example_xts: xts(aes) for the kernel's crypto API, on the GPU through
 * lake when a batch is big enough to pay, on the CPU otherwise.
 *
 * What it does. The module registers an asynchronous skcipher, cra_name
 * "xts(aes)", driver "xts-aes-lake", so that any user of the crypto API can
 * ask for it: dm-crypt with the cipher "capi:xts-aes-lake-plain64" (or, with
 * the priority raised, plain "aes-xts-plain64"). Its priority (module
 * parameter, 50 by default) is below every CPU implementation the kernel
 * has (aes-generic's xts is 100, AES-NI's 401), so a system that does not
 * name it or raise it uses what it used before. Keys are 2 x 128, 192 or
 * 256 bits; a key whose halves are equal is refused where the kernel's xts
 * refuses it (xts_verify_key: in FIPS mode or when the caller forbids weak
 * keys). The kernel's self-tests (testmgr) run when it registers, as for
 * every driver: /proc/crypto says "selftest : passed" once they have.
 *
 * How a request flows. encrypt() and decrypt() may be called in any
 * context: they check the request, queue it and return -EINPROGRESS (or
 * -EBUSY when the queue holds max_queue requests and the caller allows a
 * backlog; -ENOSPC when it does not). One worker thread takes what is queued,
 * up to max_batch requests and batch_kib bytes, as one batch, and asks the
 * policy (lake/fallback.h, named example_xts) for a side. A batch forms from
 * what is waiting when the worker gets to it: nothing waits for company, so
 * a lone request costs no window, and dm-crypt, whose workers issue a
 * bio's sectors back to back, fills batches by itself. (lake/batch.h does
 * not fit here: its submitters sleep until their batch is done, and crypto
 * API callers must not.) Each request is completed through the crypto
 * API's completion, with bottom halves off as cryptd does.
 *
 * The GPU side. The batch is packed into one lakeshm buffer: a record per
 * request (xts_kernel.h: offset, length, key index, direction, IV), the
 * data copied out of the source scatterlist (any number of entries, any
 * offsets), and the keys of the tfms the batch names. Three async copies to
 * the device, one launch of xts_aes (xts_aes.cu, one thread per request),
 * two copies back and one cuStreamSynchronize: one round trip to laked per
 * batch, and lake copies nothing itself (the buffer travels by offset).
 * Only when every call succeeded and the kernel marked every record as
 * done is the result copied into the destination scatterlists, so a failed
 * batch has written nothing a caller sees, in place or not. The kernel's
 * host-device build is constant time (AES-NI, or a table-free SSE2 cipher);
 * its GPU build uses tables (xts_aes.cu says what that leaks).
 *
 * The CPU side is the kernel's own xts(aes): each tfm holds a fallback tfm
 * allocated with CRYPTO_ALG_NEED_FALLBACK, so it is never this driver but
 * the best the CPU has (AES-NI's where the CPU has it), keyed with the same
 * key. A request runs on it with the caller's buffers and completes when it
 * does (synchronously for the usual synchronous implementations).
 *
 * The policy. A batch goes to the GPU only when laked is registered, its
 * device is up and not contended, no recent failure has tripped the policy,
 * and the batch is at least the crossover, measured by writing "calibrate"
 * to debugfs lake/example_xts (calib_bytes per request, both sides). Until
 * then it answers CPU. An operator forces a side in
 * lake/policy/example_xts/mode (or with the policy_mode parameter, applied
 * before the algorithm registers, so that its self-tests run on that side).
 * The same debugfs file takes "bench SIZE COUNT cpu|lake" (COUNT requests
 * in flight through either driver, timed) and "compare SIZE COUNT" (the
 * same bytes through both, which must agree), for make bench and the VM
 * case (bench.c).
 *
 * When laked dies. lakelib fails the batch's calls at once (or after its
 * timeout_ms, fencing a laked that hangs), the policy is told and trips to
 * the CPU, and the same batch runs again on the CPU from the untouched
 * source: requests are delayed, never lost or completed with wrong data.
 * Without laked every batch goes to the CPU; a new laked is used once the
 * policy probes again, with the GPU path set up anew.
 *
 * Unloading. Every tfm holds a reference on this module, so rmmod is
 * refused while any user (a dm-crypt mapping) has one; a user frees its tfm
 * only after its requests have completed, so no request is in flight when
 * the module goes.
 *
 * Limits. One worker: batches run one at a time, CPU ones included (the
 * CPU driver alone has no such limit; bench/ measures the difference). One
 * thread per request on the GPU, so a 64 KiB request is one thread's serial
 * work. A request larger than batch_kib runs alone on the CPU. The keys of
 * a GPU batch are in the shared region and on the device while it runs
 * (laked is trusted with both; the lakeshm copy is wiped after each batch).
 * On laked's host device the "GPU" is the CPU behind a round trip: the
 * crossover it measures is "never".
 */
#include <crypto/aes.h>
#include <crypto/internal/skcipher.h>
#include <crypto/xts.h>
#include <linux/debugfs.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <lake/compat.h>
#include <lake/cuda.h>
#include <lake/fallback.h>
#include <lake/lakelib.h>
#include <lake/shm.h>
#include "xts_kernel.h"
#include "xts_lake.h"

#define POLICY_NAME	"example_xts"
#define MAX_BATCH	256
#define THREADS		64
#define CALIB_ROUNDS	3

LAKE_KERNEL_SIG(xts_aes, XTS_PARAMS);

static int priority = 50;
module_param(priority, int, 0444);
MODULE_PARM_DESC(priority, "crypto API priority (AES-NI's xts is 401, aes-generic's 100)");
static unsigned int max_batch = 64;
module_param(max_batch, uint, 0444);
MODULE_PARM_DESC(max_batch, "requests per batch at most (1..256)");
static unsigned int batch_kib = 512;
module_param(batch_kib, uint, 0444);
MODULE_PARM_DESC(batch_kib, "data per batch at most, KiB (4..16384)");
static unsigned int max_queue = 1024;
module_param(max_queue, uint, 0444);
MODULE_PARM_DESC(max_queue, "requests queued before callers are backlogged (1..65536)");
static unsigned int calib_bytes = 512;
module_param(calib_bytes, uint, 0644);
MODULE_PARM_DESC(calib_bytes, "request size that calibrate times (16..65536)");
static char *policy_mode = "auto";
module_param(policy_mode, charp, 0444);
MODULE_PARM_DESC(policy_mode, "the policy's mode at load, before the self-tests: auto, cpu, gpu");

struct xts_tfm_ctx {
	struct crypto_skcipher *fallback;
	unsigned int half;			/* bytes per key: 16, 24, 32 */
	u8 key[2 * AES_MAX_KEY_SIZE];		/* K1 then K2 */
};

struct xts_req_ctx {
	bool decrypt;
	struct skcipher_request fallback_req;	/* last: its context follows */
};

/* Requests accepted and not yet taken; base.list links them. */
static struct {
	spinlock_t lock;
	struct list_head ready, backlog;
	unsigned int nready;
	wait_queue_head_t wait;
} q;

static struct {
	struct mutex lock;		/* one GPU batch (or calibration) at a time */
	bool ready;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	CUstream stream;
	CUdeviceptr units, keys, data;
	void *buf;			/* lakeshm: units, data, keys */
	struct xts_unit *hunits;
	u8 *hdata;
	struct xts_key *hkeys;
	size_t data_cap;
	const struct xts_tfm_ctx *key_of[MAX_BATCH];
} gpu;

static struct {
	atomic64_t requests, completed, errors, cpu, gpu, redone_on_cpu, refused, backlogged,
		   bad, too_big, batches, gpu_batches, gpu_unfinished;
	atomic64_t ran[XTS_RAN_GPU + 1];
} st;

#define REASON_NAME(id, str) [LAKE_REASON_##id] = str,
static const char *const reason_names[] = { LAKE_POLICY_REASONS(REASON_NAME) };

static struct lake_fallback *fb;
static struct task_struct *worker;
static struct dentry *ctl_file;
static DEFINE_MUTEX(ctl_lock);
static char bench_last[160];		/* the last bench or compare; ctl_lock */

static void complete_req(struct skcipher_request *req, int err)
{
	if (err != -EINPROGRESS) {
		atomic64_inc(&st.completed);
		if (err)
			atomic64_inc(&st.errors);
	}
	local_bh_disable();
	skcipher_request_complete(req, err);
	local_bh_enable();
}

/* --- the crypto API's side --- */

static int xts_setkey(struct crypto_skcipher *tfm, const u8 *key, unsigned int keylen)
{
	struct xts_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);
	int err;

	err = xts_verify_key(tfm, key, keylen);
	if (err)
		return err;
	err = aes_check_keylen(keylen / 2);
	if (err)
		return err;
	crypto_skcipher_clear_flags(ctx->fallback, CRYPTO_TFM_REQ_MASK);
	crypto_skcipher_set_flags(ctx->fallback, crypto_skcipher_get_flags(tfm) &
				  CRYPTO_TFM_REQ_MASK);
	err = crypto_skcipher_setkey(ctx->fallback, key, keylen);
	if (err)
		return err;
	memcpy(ctx->key, key, keylen);
	ctx->half = keylen / 2;
	return 0;
}

static int xts_queue(struct skcipher_request *req, bool decrypt)
{
	struct xts_req_ctx *rctx = skcipher_request_ctx(req);
	unsigned long flags;
	int ret;

	if (req->cryptlen < XTS_UNIT_MIN || sg_nents_for_len(req->src, req->cryptlen) < 0 ||
	    sg_nents_for_len(req->dst, req->cryptlen) < 0) {
		atomic64_inc(&st.bad);
		pr_warn_ratelimited("example_xts: request of %u bytes refused: below %d or past its scatterlist\n",
				    req->cryptlen, XTS_UNIT_MIN);
		return -EINVAL;
	}
	rctx->decrypt = decrypt;
	/* Counted first: the worker may complete it before this returns. */
	atomic64_inc(&st.requests);
	spin_lock_irqsave(&q.lock, flags);
	/* Behind a backlog a request waits too, so the backlog cannot starve. */
	if (q.nready < max_queue && list_empty(&q.backlog)) {
		list_add_tail(&req->base.list, &q.ready);
		q.nready++;
		ret = -EINPROGRESS;
	} else if (req->base.flags & CRYPTO_TFM_REQ_MAY_BACKLOG) {
		list_add_tail(&req->base.list, &q.backlog);
		ret = -EBUSY;
	} else {
		ret = -ENOSPC;
	}
	spin_unlock_irqrestore(&q.lock, flags);
	if (ret == -ENOSPC) {
		atomic64_dec(&st.requests);
		atomic64_inc(&st.refused);
		return ret;
	}
	if (ret == -EBUSY)
		atomic64_inc(&st.backlogged);
	wake_up(&q.wait);
	return ret;
}

static int xts_encrypt(struct skcipher_request *req)
{
	return xts_queue(req, false);
}

static int xts_decrypt(struct skcipher_request *req)
{
	return xts_queue(req, true);
}

static int xts_init_tfm(struct crypto_skcipher *tfm)
{
	struct xts_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);
	struct crypto_skcipher *fallback;

	/* Never this driver (it needs a fallback) nor one that allocates per request. */
	fallback = crypto_alloc_skcipher("xts(aes)", 0, CRYPTO_ALG_NEED_FALLBACK |
					 CRYPTO_ALG_ALLOCATES_MEMORY);
	if (IS_ERR(fallback)) {
		pr_warn("example_xts: no CPU xts(aes) to fall back on: %ld\n", PTR_ERR(fallback));
		return PTR_ERR(fallback);
	}
	ctx->fallback = fallback;
	crypto_skcipher_set_reqsize(tfm, sizeof(struct xts_req_ctx) +
				    crypto_skcipher_reqsize(fallback));
	return 0;
}

static void xts_exit_tfm(struct crypto_skcipher *tfm)
{
	struct xts_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);

	crypto_free_skcipher(ctx->fallback);
	memzero_explicit(ctx->key, sizeof(ctx->key));
}

static struct skcipher_alg xts_alg = {
	.base = {
		.cra_name = "xts(aes)",
		.cra_driver_name = DRIVER_NAME,
		.cra_flags = CRYPTO_ALG_ASYNC | CRYPTO_ALG_NEED_FALLBACK,
		.cra_blocksize = AES_BLOCK_SIZE,
		.cra_ctxsize = sizeof(struct xts_tfm_ctx),
		.cra_module = THIS_MODULE,
	},
	.min_keysize = 2 * AES_MIN_KEY_SIZE,
	.max_keysize = 2 * AES_MAX_KEY_SIZE,
	.ivsize = AES_BLOCK_SIZE,
	.setkey = xts_setkey,
	.encrypt = xts_encrypt,
	.decrypt = xts_decrypt,
	.init = xts_init_tfm,
	.exit = xts_exit_tfm,
};

/* --- the CPU side --- */

static LAKE_CRYPTO_DONE(fallback_done)
{
	struct skcipher_request *req = LAKE_CRYPTO_DATA();

	/* The fallback's backlog notice: our caller already has its answer. */
	if (err == -EINPROGRESS)
		return;
	complete_req(req, err);
}

/* True when the request completed before this returned. */
static bool cpu_submit(struct skcipher_request *req)
{
	struct xts_tfm_ctx *ctx = crypto_skcipher_ctx(crypto_skcipher_reqtfm(req));
	struct xts_req_ctx *rctx = skcipher_request_ctx(req);
	struct skcipher_request *sub = &rctx->fallback_req;
	int ret;

	skcipher_request_set_tfm(sub, ctx->fallback);
	skcipher_request_set_callback(sub, CRYPTO_TFM_REQ_MAY_SLEEP | CRYPTO_TFM_REQ_MAY_BACKLOG,
				      fallback_done, req);
	skcipher_request_set_crypt(sub, req->src, req->dst, req->cryptlen, req->iv);
	ret = rctx->decrypt ? crypto_skcipher_decrypt(sub) : crypto_skcipher_encrypt(sub);
	if (ret == -EINPROGRESS || ret == -EBUSY)
		return false;
	complete_req(req, ret);
	return true;
}

static void cpu_run(struct skcipher_request **reqs, unsigned int n)
{
	u64 t0 = ktime_get_ns();
	bool sync = true;
	unsigned int i;

	for (i = 0; i < n; i++)
		sync &= cpu_submit(reqs[i]);
	atomic64_add(n, &st.cpu);
	/* Only a batch that ran here in full was timed. */
	if (sync)
		lake_fallback_report_cpu(fb, n, ktime_get_ns() - t0);
}

/* --- the GPU side --- */

static CUresult gpu_setup(void)
{
	size_t ubytes = max_batch * sizeof(struct xts_unit);
	size_t kbytes = max_batch * sizeof(struct xts_key);
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
		r = cuModuleLoad(&gpu.mod, "example_xts.cubin");
	if (!r)
		r = lake_module_get_function(&gpu.fn, gpu.mod, &lake_sig_xts_aes);
	if (!r)
		r = cuMemAlloc(&gpu.units, ubytes);
	if (!r)
		r = cuMemAlloc(&gpu.keys, kbytes);
	if (!r)
		r = cuMemAlloc(&gpu.data, gpu.data_cap);
	if (!r)
		r = cuStreamCreate(&gpu.stream, CU_STREAM_NON_BLOCKING);
	return r;
}

/* Run the @n units already in the buffer; gpu.lock held. 0 or -EIO. */
static int gpu_exec(int n, int nkeys, unsigned int bytes)
{
	int impl = XTS_IMPL_AUTO, i;
	void *params[] = { &gpu.units, &gpu.keys, &gpu.data, &n, &nkeys, &bytes, &impl };
	const char *name = "?";
	CUresult r, sync;

	lockdep_assert_held(&gpu.lock);
	r = gpu.ready ? cuCtxSetCurrent(gpu.ctx) : gpu_setup();
	if (!r)
		r = cuMemcpyHtoDAsync(gpu.units, gpu.hunits, n * sizeof(*gpu.hunits), gpu.stream);
	if (!r)
		r = cuMemcpyHtoDAsync(gpu.keys, gpu.hkeys, nkeys * sizeof(*gpu.hkeys), gpu.stream);
	if (!r)
		r = cuMemcpyHtoDAsync(gpu.data, gpu.hdata, bytes, gpu.stream);
	if (!r)
		r = cuLaunchKernel(gpu.fn, DIV_ROUND_UP(n, THREADS), 1, 1, THREADS, 1, 1, 0,
				   gpu.stream, params, NULL);
	if (!r)
		r = cuMemcpyDtoHAsync(gpu.hunits, gpu.units, n * sizeof(*gpu.hunits), gpu.stream);
	if (!r)
		r = cuMemcpyDtoHAsync(gpu.hdata, gpu.data, bytes, gpu.stream);
	/* Even after a failure: nothing queued may outlive the batch. */
	sync = cuStreamSynchronize(gpu.stream);
	if (!r)
		r = sync;
	gpu.ready = !r;
	cuCtxSetCurrent(NULL);
	memzero_explicit(gpu.hkeys, nkeys * sizeof(*gpu.hkeys));
	if (r) {
		cuGetErrorName(r, &name);
		pr_warn_ratelimited("example_xts: GPU batch failed: %s\n", name);
		return -EIO;
	}
	/* A record the kernel did not mark was not processed: the batch failed. */
	for (i = 0; i < n; i++) {
		if (!gpu.hunits[i].ran || gpu.hunits[i].ran > XTS_RAN_GPU) {
			atomic64_inc(&st.gpu_unfinished);
			pr_warn_ratelimited("example_xts: GPU batch left record %d undone\n", i);
			return -EIO;
		}
	}
	for (i = 0; i < n; i++)
		atomic64_inc(&st.ran[gpu.hunits[i].ran]);
	return 0;
}

static int key_index(const struct xts_tfm_ctx *ctx, int *nkeys)
{
	struct xts_key *k;
	int i;

	for (i = 0; i < *nkeys; i++)
		if (gpu.key_of[i] == ctx)
			return i;
	k = &gpu.hkeys[i];
	memset(k, 0, sizeof(*k));
	k->len = ctx->half;
	memcpy(k->data_key, ctx->key, ctx->half);
	memcpy(k->tweak_key, ctx->key + ctx->half, ctx->half);
	gpu.key_of[i] = ctx;
	(*nkeys)++;
	return i;
}

static int gpu_run(struct skcipher_request **reqs, unsigned int n)
{
	unsigned int i, bytes = 0, len;
	int nkeys = 0, ret = 0;

	mutex_lock(&gpu.lock);
	for (i = 0; i < n && !ret; i++) {
		struct skcipher_request *req = reqs[i];
		struct xts_req_ctx *rctx = skcipher_request_ctx(req);
		struct xts_unit *u = &gpu.hunits[i];

		memset(u, 0, sizeof(*u));
		u->offset = bytes;
		u->len = req->cryptlen;
		u->key = key_index(crypto_skcipher_ctx(crypto_skcipher_reqtfm(req)), &nkeys);
		u->flags = rctx->decrypt ? XTS_F_DECRYPT : 0;
		memcpy(u->iv, req->iv, XTS_BLOCK);
		len = sg_pcopy_to_buffer(req->src, sg_nents(req->src), gpu.hdata + bytes,
					 req->cryptlen, 0);
		if (len != req->cryptlen)
			ret = -EINVAL;
		bytes += ALIGN(req->cryptlen, XTS_BLOCK);
	}
	if (!ret)
		ret = gpu_exec(n, nkeys, bytes);
	for (i = 0; i < n && !ret; i++) {
		struct skcipher_request *req = reqs[i];

		sg_pcopy_from_buffer(req->dst, sg_nents(req->dst),
				     gpu.hdata + gpu.hunits[i].offset, req->cryptlen, 0);
	}
	mutex_unlock(&gpu.lock);
	return ret;
}

/* --- the worker --- */

static bool queue_nonempty(void)
{
	unsigned long flags;
	bool any;

	spin_lock_irqsave(&q.lock, flags);
	any = q.nready || !list_empty(&q.backlog);
	spin_unlock_irqrestore(&q.lock, flags);
	return any;
}

/* Ready requests first, then backlogged ones (@was_backlogged says which). */
static unsigned int take_batch(struct skcipher_request **reqs, bool *was_backlogged)
{
	struct skcipher_request *req;
	struct list_head *from;
	unsigned long flags;
	size_t bytes = 0, len;
	unsigned int n = 0;

	spin_lock_irqsave(&q.lock, flags);
	while (n < max_batch) {
		from = q.nready ? &q.ready : &q.backlog;
		if (list_empty(from))
			break;
		req = container_of(from->next, struct skcipher_request, base.list);
		len = ALIGN(req->cryptlen, XTS_BLOCK);
		if (n && bytes + len > gpu.data_cap)
			break;
		list_del(&req->base.list);
		was_backlogged[n] = from == &q.backlog;
		if (from == &q.ready)
			q.nready--;
		reqs[n++] = req;
		bytes += len;
		if (bytes > gpu.data_cap)
			break;		/* too big for a batch: alone, on the CPU */
	}
	spin_unlock_irqrestore(&q.lock, flags);
	return n;
}

static void run_batch(struct skcipher_request **reqs, unsigned int n)
{
	enum lake_target side = LAKE_TARGET_CPU;
	unsigned int i;
	u64 t0;

	atomic64_inc(&st.batches);
	if (n == 1 && reqs[0]->cryptlen > gpu.data_cap)
		atomic64_inc(&st.too_big);
	else
		side = lake_fallback_choose(fb, n);
	if (side == LAKE_TARGET_GPU) {
		t0 = ktime_get_ns();
		if (!gpu_run(reqs, n)) {
			lake_fallback_report_gpu(fb, n, ktime_get_ns() - t0);
			atomic64_inc(&st.gpu_batches);
			atomic64_add(n, &st.gpu);
			for (i = 0; i < n; i++)
				complete_req(reqs[i], 0);
			return;
		}
		lake_fallback_report_gpu_error(fb);
		atomic64_add(n, &st.redone_on_cpu);
	}
	cpu_run(reqs, n);
}

static int worker_fn(void *unused)
{
	static struct skcipher_request *reqs[MAX_BATCH];
	static bool was_backlogged[MAX_BATCH];
	unsigned int n, i;

	while (!kthread_should_stop()) {
		n = take_batch(reqs, was_backlogged);
		if (!n) {
			wait_event_idle(q.wait, queue_nonempty() || kthread_should_stop());
			continue;
		}
		for (i = 0; i < n; i++)
			if (was_backlogged[i])
				complete_req(reqs[i], -EINPROGRESS);
		run_batch(reqs, n);
		cond_resched();
	}
	return 0;
}

/* --- calibration: made-up requests of calib_bytes on each side --- */

static struct crypto_sync_skcipher *calib_tfm;
static u8 *calib_buf;

static int calib_cpu(u32 nr)
{
	SYNC_SKCIPHER_REQUEST_ON_STACK(req, calib_tfm);
	struct scatterlist sg;
	u8 iv[XTS_BLOCK];
	u32 i;
	int ret = 0;

	for (i = 0; i < nr && !ret; i++) {
		memset(iv, 0, sizeof(iv));
		memcpy(iv, &i, sizeof(i));
		sg_init_one(&sg, calib_buf + i * calib_bytes, calib_bytes);
		skcipher_request_set_sync_tfm(req, calib_tfm);
		skcipher_request_set_callback(req, 0, NULL, NULL);
		skcipher_request_set_crypt(req, &sg, &sg, calib_bytes, iv);
		ret = crypto_skcipher_encrypt(req);
	}
	skcipher_request_zero(req);
	return ret;
}

static int calib_gpu(u32 nr)
{
	static const struct xts_tfm_ctx calib_key = {
		.half = 16,
		.key = "lake calibration key, not weak!",
	};
	int nkeys = 0, ret;
	u32 i;

	mutex_lock(&gpu.lock);
	for (i = 0; i < nr; i++) {
		struct xts_unit *u = &gpu.hunits[i];

		memset(u, 0, sizeof(*u));
		u->offset = i * calib_bytes;
		u->len = calib_bytes;
		u->key = key_index(&calib_key, &nkeys);
		memcpy(u->iv, &i, sizeof(i));
	}
	memcpy(gpu.hdata, calib_buf, nr * calib_bytes);
	ret = gpu_exec(nr, nkeys, nr * calib_bytes);
	mutex_unlock(&gpu.lock);
	return ret;
}

static int calib_run(void *arg, enum lake_target side, u32 nr)
{
	return side == LAKE_TARGET_GPU ? calib_gpu(nr) : calib_cpu(nr);
}

static int calibrate(void)
{
	static const u8 key[32] = "calibration: K1 differs from K2";
	int ret;

	if (calib_bytes < XTS_UNIT_MIN || calib_bytes > 65536 ||
	    (size_t)calib_bytes * max_batch > gpu.data_cap) {
		pr_warn("example_xts: calib_bytes %u: 16..65536, and max_batch of them in batch_kib\n",
			calib_bytes);
		return -EINVAL;
	}
	calib_tfm = crypto_alloc_sync_skcipher("xts(aes)", 0, CRYPTO_ALG_NEED_FALLBACK);
	if (IS_ERR(calib_tfm))
		return PTR_ERR(calib_tfm);
	calib_buf = kvzalloc((size_t)calib_bytes * max_batch, GFP_KERNEL);
	ret = calib_buf ? crypto_sync_skcipher_setkey(calib_tfm, key, sizeof(key)) : -ENOMEM;
	if (!ret)
		ret = lake_fallback_calibrate(fb, CALIB_ROUNDS, calib_run, NULL);
	kvfree(calib_buf);
	crypto_free_sync_skcipher(calib_tfm);
	return ret;
}

/* --- debugfs lake/example_xts --- */

static int ctl_show(struct seq_file *m, void *unused)
{
	u64 req = atomic64_read(&st.requests), done = atomic64_read(&st.completed);
	unsigned long flags;
	unsigned int queued;

	spin_lock_irqsave(&q.lock, flags);
	queued = q.nready;
	spin_unlock_irqrestore(&q.lock, flags);
	seq_printf(m, "driver %s\npriority %d\nrequests %llu\ncompleted %llu\npending %llu\n",
		   DRIVER_NAME, xts_alg.base.cra_priority, req, done, req - done);
	seq_printf(m, "errors %lld\ncpu %lld\ngpu %lld\nredone_on_cpu %lld\n",
		   atomic64_read(&st.errors), atomic64_read(&st.cpu), atomic64_read(&st.gpu),
		   atomic64_read(&st.redone_on_cpu));
	seq_printf(m, "refused %lld\nbacklogged %lld\nbad %lld\ntoo_big %lld\nqueued %u\n",
		   atomic64_read(&st.refused), atomic64_read(&st.backlogged),
		   atomic64_read(&st.bad), atomic64_read(&st.too_big), queued);
	seq_printf(m, "batches %lld\ngpu_batches %lld\ngpu_unfinished %lld\n",
		   atomic64_read(&st.batches), atomic64_read(&st.gpu_batches),
		   atomic64_read(&st.gpu_unfinished));
	seq_printf(m, "ran_table_free %lld\nran_aesni %lld\nran_gpu %lld\nlast_reason %s\n",
		   atomic64_read(&st.ran[XTS_RAN_TABLE_FREE]),
		   atomic64_read(&st.ran[XTS_RAN_AESNI]), atomic64_read(&st.ran[XTS_RAN_GPU]),
		   reason_names[lake_fallback_last_reason(fb)]);
	if (!mutex_lock_interruptible(&ctl_lock)) {
		seq_puts(m, bench_last);
		mutex_unlock(&ctl_lock);
	}
	return 0;
}

static int ctl_open(struct inode *inode, struct file *f)
{
	return single_open(f, ctl_show, NULL);
}

static ssize_t ctl_write(struct file *f, const char __user *ubuf, size_t len, loff_t *ppos)
{
	unsigned int size, count;
	char cmd[48], side[8];
	int ret;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = '\0';
	if (mutex_lock_killable(&ctl_lock))
		return -EINTR;
	if (!strcmp(strim(cmd), "calibrate")) {
		ret = calibrate();
	} else if (sscanf(cmd, "bench %u %u %7s", &size, &count, side) == 3 &&
		   (!strcmp(side, "cpu") || !strcmp(side, "lake"))) {
		ret = xts_bench(size, count, side[0] == 'l', bench_last, sizeof(bench_last));
	} else if (sscanf(cmd, "compare %u %u", &size, &count) == 2) {
		ret = xts_compare(size, count, bench_last, sizeof(bench_last));
	} else {
		pr_warn_ratelimited("example_xts: commands: calibrate, bench SIZE COUNT cpu|lake, compare SIZE COUNT\n");
		ret = -EINVAL;
	}
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

/* --- load and unload --- */

static int parse_mode(enum lake_policy_mode *mode)
{
	static const char *const names[] = {
		[LAKE_POLICY_AUTO] = "auto", [LAKE_POLICY_CPU] = "cpu", [LAKE_POLICY_GPU] = "gpu",
	};
	int i;

	for (i = 0; i < LAKE_POLICY_NR_MODES; i++) {
		if (policy_mode && !strcmp(policy_mode, names[i])) {
			*mode = i;
			return 0;
		}
	}
	return -EINVAL;
}

static void teardown(void)
{
	if (!IS_ERR_OR_NULL(worker))
		kthread_stop(worker);
	debugfs_remove(ctl_file);
	if (gpu.ctx)
		cuCtxDestroy(gpu.ctx);
	lake_fallback_destroy(fb);
	if (gpu.buf)
		lake_shm_free(gpu.buf);
}

static int __init xts_lake_init(void)
{
	enum lake_policy_mode mode;
	size_t ubytes, kbytes;
	int ret;

	if (!max_batch || max_batch > MAX_BATCH || batch_kib < 4 || batch_kib > 16384 ||
	    !max_queue || max_queue > 65536 || parse_mode(&mode)) {
		pr_warn("example_xts: bad parameters (max_batch 1..256, batch_kib 4..16384, max_queue 1..65536, policy_mode auto|cpu|gpu)\n");
		return -EINVAL;
	}
	spin_lock_init(&q.lock);
	INIT_LIST_HEAD(&q.ready);
	INIT_LIST_HEAD(&q.backlog);
	init_waitqueue_head(&q.wait);
	mutex_init(&gpu.lock);

	ubytes = max_batch * sizeof(struct xts_unit);
	kbytes = max_batch * sizeof(struct xts_key);
	gpu.data_cap = (size_t)batch_kib * 1024;
	gpu.buf = lake_shm_alloc(ubytes + gpu.data_cap + kbytes);
	if (!gpu.buf) {
		pr_warn("example_xts: no %zu bytes in lakeshm for a batch\n",
			ubytes + gpu.data_cap + kbytes);
		return -ENOMEM;
	}
	gpu.hunits = gpu.buf;
	gpu.hdata = (u8 *)gpu.buf + ubytes;
	gpu.hkeys = (struct xts_key *)(gpu.hdata + gpu.data_cap);

	fb = lake_fallback_create(POLICY_NAME, max_batch, 0);
	if (IS_ERR(fb)) {
		ret = PTR_ERR(fb);
		fb = NULL;
		goto err;
	}
	ret = lake_fallback_set_mode(fb, mode);
	if (ret)
		goto err;
	worker = kthread_run(worker_fn, NULL, "lake_xts");
	if (IS_ERR(worker)) {
		ret = PTR_ERR(worker);
		goto err;
	}
	ctl_file = debugfs_create_file(POLICY_NAME, 0600, lake_debugfs_dir(), NULL, &ctl_fops);
	/* Last: the self-tests run now, through the worker. */
	xts_alg.base.cra_priority = priority;
	ret = crypto_register_skcipher(&xts_alg);
	if (ret) {
		pr_warn("example_xts: registering %s failed: %d\n", DRIVER_NAME, ret);
		goto err;
	}
	return 0;

err:
	teardown();
	return ret;
}

static void __exit xts_lake_exit(void)
{
	/* No tfm is left (each holds the module), so no request either. */
	crypto_unregister_skcipher(&xts_alg);
	teardown();
}

module_init(xts_lake_init);
module_exit(xts_lake_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake example: xts(aes) for the crypto API, batched on the GPU or the CPU");
MODULE_ALIAS_CRYPTO("xts-aes-lake");
