// SPDX-License-Identifier: GPL-2.0
/*
 * lake_example_xts: xts(aes) for the kernel's crypto API, on the GPU through
 * lake when a batch is big enough to pay, on the CPU otherwise. The module
 * also registers gcm(aes), "gcm-aes-lake" (gcm_lake.c), which works the same
 * way; the queue, the worker, the side's choice, the GPU round trip and the
 * CPU redo are shared, in lake_crypto.c, and so is the AES of the two
 * kernels (aes_device.h). fuzz.c compares both drivers with the kernel's
 * over random request shapes ("fuzz N SEED" in either debugfs file).
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
 * Limits. One worker per algorithm: its batches run one at a time, CPU
 * ones included (the CPU driver alone has no such limit; bench/ measures
 * the difference). One
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
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <lake/compat.h>
#include <lake/cuda.h>
#include <lake/fallback.h>
#include <lake/lakelib.h>
#include <lake/shm.h>
#include "lake_crypto.h"
#include "xts_kernel.h"
#include "xts_lake.h"

#define POLICY_NAME	"example_xts"
#define CALIB_ROUNDS	3

LAKE_KERNEL_SIG(xts_aes, XTS_PARAMS);

static int priority = 50;
module_param(priority, int, 0444);
MODULE_PARM_DESC(priority, "crypto API priority of both drivers (AES-NI's xts is 401, gcm 800; aes-generic's 100)");
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
MODULE_PARM_DESC(policy_mode, "both policies' mode at load, before the self-tests: auto, cpu, gpu");

struct xts_tfm_ctx {
	struct crypto_skcipher *fallback;
	unsigned int half;			/* bytes per key: 16, 24, 32 */
	u8 key[2 * AES_MAX_KEY_SIZE];		/* K1 then K2 */
};

struct xts_req_ctx {
	bool decrypt;
	struct skcipher_request fallback_req;	/* last: its context follows */
};

static struct lc_alg xts;
static struct dentry *ctl_file;
static DEFINE_MUTEX(ctl_lock);
static char bench_last[160];		/* the last bench, compare or fuzz; ctl_lock */

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

	if (req->cryptlen < XTS_UNIT_MIN || sg_nents_for_len(req->src, req->cryptlen) < 0 ||
	    sg_nents_for_len(req->dst, req->cryptlen) < 0) {
		atomic64_inc(&xts.bad);
		pr_warn_ratelimited("example_xts: request of %u bytes refused: below %d or past its scatterlist\n",
				    req->cryptlen, XTS_UNIT_MIN);
		return -EINVAL;
	}
	rctx->decrypt = decrypt;
	return lc_queue(&xts, &req->base);
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

static void xts_complete(struct crypto_async_request *base, int err)
{
	skcipher_request_complete(skcipher_request_cast(base), err);
}

static LAKE_CRYPTO_DONE(fallback_done)
{
	struct skcipher_request *req = LAKE_CRYPTO_DATA();

	/* The fallback's backlog notice: our caller already has its answer. */
	if (err == -EINPROGRESS)
		return;
	lc_complete(&xts, &req->base, err);
}

static bool xts_cpu_submit(struct crypto_async_request *base)
{
	struct skcipher_request *req = skcipher_request_cast(base);
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
	lc_complete(&xts, base, ret);
	return true;
}

/* --- the GPU side --- */

static size_t xts_bytes(struct crypto_async_request *base)
{
	return ALIGN(skcipher_request_cast(base)->cryptlen, XTS_BLOCK);
}

static int key_index(const struct xts_tfm_ctx *ctx, int *nkeys)
{
	struct xts_key *k;
	bool fresh;
	int i;

	i = lc_key_index(&xts, ctx, nkeys, &fresh);
	if (fresh) {
		k = (struct xts_key *)xts.hkeys + i;
		memset(k, 0, sizeof(*k));
		k->len = ctx->half;
		memcpy(k->data_key, ctx->key, ctx->half);
		memcpy(k->tweak_key, ctx->key + ctx->half, ctx->half);
	}
	return i;
}

/* Run the @n units already in the buffer; gpu_lock held. 0 or -EIO. */
static int gpu_exec(int n, int nkeys, unsigned int bytes)
{
	struct xts_unit *units = xts.hunits;
	int i, ret;

	ret = lc_gpu_exec(&xts, n, nkeys, bytes, XTS_IMPL_AUTO);
	/* A record the kernel did not mark was not processed: the batch failed. */
	for (i = 0; i < n && !ret; i++)
		if (!lc_count_ran(&xts, i, units[i].ran))
			ret = -EIO;
	return ret;
}

static int xts_gpu_run(struct lc_alg *a, struct crypto_async_request **reqs, unsigned int n,
		       int *errs)
{
	struct xts_unit *units = a->hunits;
	unsigned int i, bytes = 0, len;
	int nkeys = 0, ret = 0;

	mutex_lock(&a->gpu_lock);
	for (i = 0; i < n && !ret; i++) {
		struct skcipher_request *req = skcipher_request_cast(reqs[i]);
		struct xts_req_ctx *rctx = skcipher_request_ctx(req);
		struct xts_unit *u = &units[i];

		memset(u, 0, sizeof(*u));
		u->offset = bytes;
		u->len = req->cryptlen;
		u->key = key_index(crypto_skcipher_ctx(crypto_skcipher_reqtfm(req)), &nkeys);
		u->flags = rctx->decrypt ? XTS_F_DECRYPT : 0;
		memcpy(u->iv, req->iv, XTS_BLOCK);
		len = sg_pcopy_to_buffer(req->src, sg_nents(req->src), a->hdata + bytes,
					 req->cryptlen, 0);
		if (len != req->cryptlen)
			ret = -EINVAL;
		bytes += ALIGN(req->cryptlen, XTS_BLOCK);
	}
	if (!ret)
		ret = gpu_exec(n, nkeys, bytes);
	for (i = 0; i < n && !ret; i++) {
		struct skcipher_request *req = skcipher_request_cast(reqs[i]);

		sg_pcopy_from_buffer(req->dst, sg_nents(req->dst), a->hdata + units[i].offset,
				     req->cryptlen, 0);
		errs[i] = 0;
	}
	mutex_unlock(&a->gpu_lock);
	return ret;
}

static struct lc_alg xts = {
	.name = POLICY_NAME,
	.cubin = "example_xts.cubin",
	.sig = &lake_sig_xts_aes,
	.unit_size = sizeof(struct xts_unit),
	.key_size = sizeof(struct xts_key),
	.bytes = xts_bytes,
	.gpu_run = xts_gpu_run,
	.cpu_submit = xts_cpu_submit,
	.complete = xts_complete,
};

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
	struct xts_unit *units = xts.hunits;
	int nkeys = 0, ret;
	u32 i;

	mutex_lock(&xts.gpu_lock);
	for (i = 0; i < nr; i++) {
		struct xts_unit *u = &units[i];

		memset(u, 0, sizeof(*u));
		u->offset = i * calib_bytes;
		u->len = calib_bytes;
		u->key = key_index(&calib_key, &nkeys);
		memcpy(u->iv, &i, sizeof(i));
	}
	memcpy(xts.hdata, calib_buf, nr * calib_bytes);
	ret = gpu_exec(nr, nkeys, nr * calib_bytes);
	mutex_unlock(&xts.gpu_lock);
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
	    (size_t)calib_bytes * max_batch > xts.data_cap) {
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
		ret = lake_fallback_calibrate(xts.fb, CALIB_ROUNDS, calib_run, NULL);
	kvfree(calib_buf);
	crypto_free_sync_skcipher(calib_tfm);
	return ret;
}

/* --- debugfs lake/example_xts --- */

static int ctl_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "driver %s\npriority %d\n", DRIVER_NAME, xts_alg.base.cra_priority);
	lc_show(m, &xts);
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
	unsigned int size, count, seed;
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
	} else if (sscanf(cmd, "fuzz %u %u", &count, &seed) == 2) {
		ret = lc_fuzz(false, count, seed, bench_last, sizeof(bench_last));
	} else {
		pr_warn_ratelimited("example_xts: commands: calibrate, bench SIZE COUNT cpu|lake, compare SIZE COUNT, fuzz N SEED\n");
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

static int __init xts_lake_init(void)
{
	enum lake_policy_mode mode;
	int ret;

	if (!max_batch || max_batch > LC_MAX_BATCH || batch_kib < 4 || batch_kib > 16384 ||
	    !max_queue || max_queue > 65536 || lc_parse_mode(policy_mode, &mode)) {
		pr_warn("example_xts: bad parameters (max_batch 1..256, batch_kib 4..16384, max_queue 1..65536, policy_mode auto|cpu|gpu)\n");
		return -EINVAL;
	}
	ret = lc_alg_start(&xts, max_batch, batch_kib, max_queue, mode);
	if (ret)
		return ret;
	ctl_file = debugfs_create_file(POLICY_NAME, 0600, lake_debugfs_dir(), NULL, &ctl_fops);
	/* Last: the self-tests run now, through the worker. */
	xts_alg.base.cra_priority = priority;
	ret = crypto_register_skcipher(&xts_alg);
	if (ret) {
		pr_warn("example_xts: registering %s failed: %d\n", DRIVER_NAME, ret);
		goto err;
	}
	ret = gcm_lake_init(priority, max_batch, batch_kib, max_queue, mode, &calib_bytes);
	if (ret) {
		crypto_unregister_skcipher(&xts_alg);
		goto err;
	}
	return 0;

err:
	debugfs_remove(ctl_file);
	lc_alg_stop(&xts);
	return ret;
}

static void __exit xts_lake_exit(void)
{
	/* No tfm is left (each holds the module), so no request either. */
	gcm_lake_exit();
	crypto_unregister_skcipher(&xts_alg);
	debugfs_remove(ctl_file);
	lc_alg_stop(&xts);
}

module_init(xts_lake_init);
module_exit(xts_lake_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lake example: xts(aes) and gcm(aes) for the crypto API, batched on the GPU or the CPU");
MODULE_ALIAS_CRYPTO("xts-aes-lake");
MODULE_ALIAS_CRYPTO("gcm-aes-lake");
