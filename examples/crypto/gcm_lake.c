// SPDX-License-Identifier: GPL-2.0
/*
 * gcm(aes) for the kernel's crypto API, driver "gcm-aes-lake": the AEAD
 * half of lake_example_xts. It works as xts-aes-lake does (xts_lake.c's
 * head comment: the queue, the batches, the policy, what happens when
 * laked dies, unloading), through the same machinery (lake_crypto.c), with
 * a policy of its own, lake/policy/example_gcm, and debugfs
 * lake/example_gcm ("calibrate"; "fuzz N SEED", fuzz.c; "bench SIZE COUNT
 * cpu|lake", bench.c).
 *
 * What it takes: keys of 128, 192 and 256 bits; tags of 4, 8 and 12 to 16
 * bytes (crypto_gcm_check_authsize, the kernel's gcm rules); 12-byte IVs,
 * as the kernel's gcm(aes); associated data of req->assoclen bytes at the
 * head of the source scatterlist, then the text, then (decryption) the
 * tag; in place or not, any number of entries at any offsets. Its priority
 * is the module's priority parameter (50 by default, below the generic
 * template's 100 and AES-NI's gcm-aes-aesni), so nobody gets it unasked.
 *
 * The GPU side packs each request as the kernel (gcm_aes.cu) wants it: the
 * associated data, then the text at the next 16-byte boundary, the tag in
 * the record. The kernel checks a tag in constant time and decrypts only a
 * message whose tag matched; the module copies out only those and
 * completes the others with -EBADMSG, so a forged message leaves the
 * destination as it was. The associated data is not copied to an
 * out-of-place destination (nor does the kernel's gcm template copy it).
 *
 * The CPU side is the kernel's own gcm(aes), a fallback tfm allocated with
 * CRYPTO_ALG_NEED_FALLBACK (so never this driver), keyed and sized as ours.
 * It decrypts before it checks, so on -EBADMSG the destination's text is
 * wiped (zeros) before the request completes: no side hands a caller the
 * plaintext of a forged message.
 */
#include <crypto/aes.h>
#include <crypto/gcm.h>
#include <crypto/internal/aead.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <lake/compat.h>
#include <lake/lakelib.h>
#include <lake/shm.h>
#include "gcm_kernel.h"
#include "lake_crypto.h"
#include "xts_lake.h"

#define POLICY_NAME	"example_gcm"
#define GCM_DRIVER	"gcm-aes-lake"
#define CALIB_ROUNDS	3

LAKE_KERNEL_SIG(gcm_aes, GCM_PARAMS);

struct gcm_tfm_ctx {
	struct crypto_aead *fallback;
	unsigned int keylen;
	u8 key[AES_MAX_KEY_SIZE];
};

struct gcm_req_ctx {
	bool decrypt;
	struct aead_request fallback_req;	/* last: its context follows */
};

static struct lc_alg gcm;
static struct dentry *ctl_file;
static DEFINE_MUTEX(ctl_lock);
static char fuzz_last[160];		/* the last fuzz or bench; ctl_lock */
static const unsigned int *calib_bytes;
static unsigned int calib_max_batch;

/* --- the crypto API's side --- */

static int gcm_setkey(struct crypto_aead *tfm, const u8 *key, unsigned int keylen)
{
	struct gcm_tfm_ctx *ctx = crypto_aead_ctx(tfm);
	int err;

	err = aes_check_keylen(keylen);
	if (err)
		return err;
	crypto_aead_clear_flags(ctx->fallback, CRYPTO_TFM_REQ_MASK);
	crypto_aead_set_flags(ctx->fallback, crypto_aead_get_flags(tfm) & CRYPTO_TFM_REQ_MASK);
	err = crypto_aead_setkey(ctx->fallback, key, keylen);
	if (err)
		return err;
	memcpy(ctx->key, key, keylen);
	ctx->keylen = keylen;
	return 0;
}

static int gcm_setauthsize(struct crypto_aead *tfm, unsigned int authsize)
{
	struct gcm_tfm_ctx *ctx = crypto_aead_ctx(tfm);
	int err;

	err = crypto_gcm_check_authsize(authsize);
	if (err)
		return err;
	return crypto_aead_setauthsize(ctx->fallback, authsize);
}

static int gcm_queue(struct aead_request *req, bool decrypt)
{
	struct crypto_aead *tfm = crypto_aead_reqtfm(req);
	struct gcm_req_ctx *rctx = aead_request_ctx(req);
	unsigned int as = crypto_aead_authsize(tfm), in, out;

	in = req->assoclen + req->cryptlen;
	out = decrypt ? in - as : in + as;
	if ((decrypt && req->cryptlen < as) || in < req->assoclen || out < req->assoclen ||
	    sg_nents_for_len(req->src, in) < 0 || sg_nents_for_len(req->dst, out) < 0) {
		atomic64_inc(&gcm.bad);
		pr_warn_ratelimited("example_gcm: request of %u+%u bytes refused: shorter than its tag or past its scatterlist\n",
				    req->assoclen, req->cryptlen);
		return -EINVAL;
	}
	rctx->decrypt = decrypt;
	return lc_queue(&gcm, &req->base);
}

static int gcm_encrypt(struct aead_request *req)
{
	return gcm_queue(req, false);
}

static int gcm_decrypt(struct aead_request *req)
{
	return gcm_queue(req, true);
}

static int gcm_init_tfm(struct crypto_aead *tfm)
{
	struct gcm_tfm_ctx *ctx = crypto_aead_ctx(tfm);
	struct crypto_aead *fallback;

	fallback = crypto_alloc_aead("gcm(aes)", 0, CRYPTO_ALG_NEED_FALLBACK);
	if (IS_ERR(fallback)) {
		pr_warn("example_gcm: no CPU gcm(aes) to fall back on: %ld\n", PTR_ERR(fallback));
		return PTR_ERR(fallback);
	}
	ctx->fallback = fallback;
	crypto_aead_set_reqsize(tfm, sizeof(struct gcm_req_ctx) + crypto_aead_reqsize(fallback));
	return 0;
}

static void gcm_exit_tfm(struct crypto_aead *tfm)
{
	struct gcm_tfm_ctx *ctx = crypto_aead_ctx(tfm);

	crypto_free_aead(ctx->fallback);
	memzero_explicit(ctx->key, sizeof(ctx->key));
}

static struct aead_alg gcm_alg = {
	.base = {
		.cra_name = "gcm(aes)",
		.cra_driver_name = GCM_DRIVER,
		.cra_flags = CRYPTO_ALG_ASYNC | CRYPTO_ALG_NEED_FALLBACK,
		.cra_blocksize = 1,
		.cra_ctxsize = sizeof(struct gcm_tfm_ctx),
		.cra_module = THIS_MODULE,
	},
	.ivsize = GCM_AES_IV_SIZE,
	.maxauthsize = AES_BLOCK_SIZE,
	.chunksize = AES_BLOCK_SIZE,
	.setkey = gcm_setkey,
	.setauthsize = gcm_setauthsize,
	.encrypt = gcm_encrypt,
	.decrypt = gcm_decrypt,
	.init = gcm_init_tfm,
	.exit = gcm_exit_tfm,
};

/* --- the CPU side --- */

static void gcm_complete(struct crypto_async_request *base, int err)
{
	aead_request_complete(aead_request_cast(base), err);
}

/*
 * The kernel's gcm decrypts before it checks the tag, so a forged message's
 * unauthenticated plaintext is in the destination when it says -EBADMSG:
 * wiped here before the caller sees it (the GPU side never writes it).
 */
static void cpu_done(struct aead_request *req, int err)
{
	struct gcm_req_ctx *rctx = aead_request_ctx(req);
	unsigned int as = crypto_aead_authsize(crypto_aead_reqtfm(req));

	if (err == -EBADMSG && rctx->decrypt)
		sg_zero_buffer(req->dst, sg_nents(req->dst), req->cryptlen - as, req->assoclen);
	lc_complete(&gcm, &req->base, err);
}

static LAKE_CRYPTO_DONE(fallback_done)
{
	struct aead_request *req = LAKE_CRYPTO_DATA();

	if (err == -EINPROGRESS)
		return;
	cpu_done(req, err);
}

static bool gcm_cpu_submit(struct crypto_async_request *base)
{
	struct aead_request *req = aead_request_cast(base);
	struct gcm_tfm_ctx *ctx = crypto_aead_ctx(crypto_aead_reqtfm(req));
	struct gcm_req_ctx *rctx = aead_request_ctx(req);
	struct aead_request *sub = &rctx->fallback_req;
	int ret;

	aead_request_set_tfm(sub, ctx->fallback);
	aead_request_set_callback(sub, CRYPTO_TFM_REQ_MAY_SLEEP | CRYPTO_TFM_REQ_MAY_BACKLOG,
				  fallback_done, req);
	aead_request_set_crypt(sub, req->src, req->dst, req->cryptlen, req->iv);
	aead_request_set_ad(sub, req->assoclen);
	ret = rctx->decrypt ? crypto_aead_decrypt(sub) : crypto_aead_encrypt(sub);
	if (ret == -EINPROGRESS || ret == -EBUSY)
		return false;
	cpu_done(req, ret);
	return true;
}

/* --- the GPU side --- */

static size_t gcm_bytes(struct crypto_async_request *base)
{
	struct aead_request *req = aead_request_cast(base);

	return ALIGN(req->assoclen, GCM_BLOCK) + ALIGN(req->cryptlen, GCM_BLOCK);
}

static int key_index(const struct gcm_tfm_ctx *ctx, unsigned int keylen, const u8 *key,
		     int *nkeys)
{
	struct gcm_key *k;
	bool fresh;
	int i;

	i = lc_key_index(&gcm, ctx, nkeys, &fresh);
	if (fresh) {
		k = (struct gcm_key *)gcm.hkeys + i;
		memset(k, 0, sizeof(*k));
		k->len = keylen;
		memcpy(k->key, key, keylen);
	}
	return i;
}

/* The @n units in the buffer; gpu_lock held. 0 or -EIO. */
static int gpu_exec(int n, int nkeys, unsigned int bytes)
{
	struct gcm_unit *units = gcm.hunits;
	int i, ret;

	ret = lc_gpu_exec(&gcm, n, nkeys, bytes, GCM_IMPL_AUTO);
	for (i = 0; i < n && !ret; i++)
		if (!lc_count_ran(&gcm, i, units[i].ran))
			ret = -EIO;
	return ret;
}

static int gcm_gpu_run(struct lc_alg *a, struct crypto_async_request **reqs, unsigned int n,
		       int *errs)
{
	struct gcm_unit *units = a->hunits;
	unsigned int i, bytes = 0;
	int nkeys = 0, ret = 0;

	mutex_lock(&a->gpu_lock);
	for (i = 0; i < n && !ret; i++) {
		struct aead_request *req = aead_request_cast(reqs[i]);
		struct crypto_aead *tfm = crypto_aead_reqtfm(req);
		struct gcm_tfm_ctx *ctx = crypto_aead_ctx(tfm);
		struct gcm_req_ctx *rctx = aead_request_ctx(req);
		unsigned int as = crypto_aead_authsize(tfm), nents = sg_nents(req->src);
		struct gcm_unit *u = &units[i];

		memset(u, 0, sizeof(*u));
		u->offset = bytes;
		u->assoclen = req->assoclen;
		u->text = bytes + ALIGN(req->assoclen, GCM_BLOCK);
		u->len = req->cryptlen - (rctx->decrypt ? as : 0);
		u->key = key_index(ctx, ctx->keylen, ctx->key, &nkeys);
		u->flags = rctx->decrypt ? GCM_F_DECRYPT : 0;
		u->authsize = as;
		memcpy(u->iv, req->iv, GCM_AES_IV_SIZE);
		if (sg_pcopy_to_buffer(req->src, nents, a->hdata + u->offset, u->assoclen, 0) !=
		    u->assoclen ||
		    sg_pcopy_to_buffer(req->src, nents, a->hdata + u->text, u->len, u->assoclen) !=
		    u->len ||
		    (rctx->decrypt && sg_pcopy_to_buffer(req->src, nents, u->tag, as,
							 u->assoclen + u->len) != as))
			ret = -EINVAL;
		bytes = u->text + ALIGN(u->len, GCM_BLOCK);
	}
	if (!ret)
		ret = gpu_exec(n, nkeys, bytes);
	for (i = 0; i < n && !ret; i++) {
		struct aead_request *req = aead_request_cast(reqs[i]);
		struct gcm_unit *u = &units[i];
		unsigned int nents = sg_nents(req->dst);

		errs[i] = 0;
		if (u->flags & GCM_F_DECRYPT) {
			if (!u->tag_ok) {
				errs[i] = -EBADMSG;
				continue;
			}
		} else {
			sg_pcopy_from_buffer(req->dst, nents, u->tag, u->authsize,
					     u->assoclen + u->len);
		}
		sg_pcopy_from_buffer(req->dst, nents, a->hdata + u->text, u->len, u->assoclen);
	}
	/* The plaintexts and tags of this batch stay in lakeshm no longer than it. */
	memzero_explicit(a->hdata, bytes);
	memzero_explicit(units, n * sizeof(*units));
	mutex_unlock(&a->gpu_lock);
	return ret;
}

static struct lc_alg gcm = {
	.name = POLICY_NAME,
	.cubin = "example_gcm.cubin",
	.sig = &lake_sig_gcm_aes,
	.unit_size = sizeof(struct gcm_unit),
	.key_size = sizeof(struct gcm_key),
	.bytes = gcm_bytes,
	.gpu_run = gcm_gpu_run,
	.cpu_submit = gcm_cpu_submit,
	.complete = gcm_complete,
};

/* --- calibration: made-up requests of calib_bytes (16 of associated data) --- */

#define CALIB_AAD	16

static struct crypto_aead *calib_tfm;
static u8 *calib_buf;
static const u8 calib_key[16] = "lake gcm calib!";

static int calib_cpu(u32 nr)
{
	unsigned int size = *calib_bytes, unit = CALIB_AAD + size + GCM_BLOCK;
	struct aead_request *req;
	DECLARE_CRYPTO_WAIT(wait);
	struct scatterlist sg;
	u8 iv[GCM_AES_IV_SIZE];
	u32 i;
	int ret = 0;

	req = aead_request_alloc(calib_tfm, GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	for (i = 0; i < nr && !ret; i++) {
		memset(iv, 0, sizeof(iv));
		memcpy(iv, &i, sizeof(i));
		sg_init_one(&sg, calib_buf + i * unit, unit);
		aead_request_set_callback(req, CRYPTO_TFM_REQ_MAY_SLEEP, crypto_req_done, &wait);
		aead_request_set_crypt(req, &sg, &sg, size, iv);
		aead_request_set_ad(req, CALIB_AAD);
		ret = crypto_wait_req(crypto_aead_encrypt(req), &wait);
	}
	aead_request_free(req);
	return ret;
}

static int calib_gpu(u32 nr)
{
	unsigned int size = *calib_bytes, slot = CALIB_AAD + ALIGN(size, GCM_BLOCK);
	struct gcm_unit *units = gcm.hunits;
	int nkeys = 0, ret;
	u32 i;

	mutex_lock(&gcm.gpu_lock);
	for (i = 0; i < nr; i++) {
		struct gcm_unit *u = &units[i];

		memset(u, 0, sizeof(*u));
		u->offset = i * slot;
		u->assoclen = CALIB_AAD;
		u->text = u->offset + CALIB_AAD;
		u->len = size;
		u->authsize = 16;
		u->key = key_index(NULL, sizeof(calib_key), calib_key, &nkeys);
		memcpy(u->iv, &i, sizeof(i));
	}
	memset(gcm.hdata, 0x5a, nr * slot);
	ret = gpu_exec(nr, nkeys, nr * slot);
	mutex_unlock(&gcm.gpu_lock);
	return ret;
}

static int calib_run(void *arg, enum lake_target side, u32 nr)
{
	return side == LAKE_TARGET_GPU ? calib_gpu(nr) : calib_cpu(nr);
}

static int calibrate(void)
{
	unsigned int size = *calib_bytes;
	int ret;

	if (size < 16 || size > 65536 ||
	    (size_t)(CALIB_AAD + size + GCM_BLOCK) * calib_max_batch > gcm.data_cap) {
		pr_warn("example_gcm: calib_bytes %u: 16..65536, and max_batch of them in batch_kib\n",
			size);
		return -EINVAL;
	}
	calib_tfm = crypto_alloc_aead("gcm(aes)", 0, CRYPTO_ALG_NEED_FALLBACK);
	if (IS_ERR(calib_tfm))
		return PTR_ERR(calib_tfm);
	calib_buf = kvzalloc((size_t)(CALIB_AAD + size + GCM_BLOCK) * calib_max_batch, GFP_KERNEL);
	ret = calib_buf ? crypto_aead_setkey(calib_tfm, calib_key, sizeof(calib_key)) : -ENOMEM;
	if (!ret)
		ret = lake_fallback_calibrate(gcm.fb, CALIB_ROUNDS, calib_run, NULL);
	kvfree(calib_buf);
	crypto_free_aead(calib_tfm);
	return ret;
}

/* --- debugfs lake/example_gcm --- */

static int ctl_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "driver %s\npriority %d\n", GCM_DRIVER, gcm_alg.base.cra_priority);
	lc_show(m, &gcm);
	if (!mutex_lock_interruptible(&ctl_lock)) {
		seq_puts(m, fuzz_last);
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
	unsigned int n, seed, size;
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
	} else if (sscanf(cmd, "fuzz %u %u", &n, &seed) == 2) {
		ret = lc_fuzz(true, n, seed, fuzz_last, sizeof(fuzz_last));
	} else if (sscanf(cmd, "bench %u %u %7s", &size, &n, side) == 3 &&
		   (!strcmp(side, "cpu") || !strcmp(side, "lake"))) {
		ret = gcm_bench(size, n, side[0] == 'l', fuzz_last, sizeof(fuzz_last));
	} else {
		pr_warn_ratelimited("example_gcm: commands: calibrate, fuzz N SEED, bench SIZE COUNT cpu|lake\n");
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

/* --- start and stop, from the module's init and exit --- */

int gcm_lake_init(int priority, unsigned int max_batch, unsigned int batch_kib,
		  unsigned int max_queue, enum lake_policy_mode mode, const unsigned int *calib)
{
	int ret;

	calib_bytes = calib;
	calib_max_batch = max_batch;
	ret = lc_alg_start(&gcm, max_batch, batch_kib, max_queue, mode);
	if (ret)
		return ret;
	ctl_file = debugfs_create_file(POLICY_NAME, 0600, lake_debugfs_dir(), NULL, &ctl_fops);
	/* Last: the self-tests run now, through the worker. */
	gcm_alg.base.cra_priority = priority;
	ret = crypto_register_aead(&gcm_alg);
	if (ret) {
		pr_warn("example_gcm: registering %s failed: %d\n", GCM_DRIVER, ret);
		debugfs_remove(ctl_file);
		lc_alg_stop(&gcm);
	}
	return ret;
}

void gcm_lake_exit(void)
{
	crypto_unregister_aead(&gcm_alg);
	debugfs_remove(ctl_file);
	lc_alg_stop(&gcm);
}
