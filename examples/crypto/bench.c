// SPDX-License-Identifier: GPL-2.0
/*
 * lake_example_xts's debugfs commands "bench SIZE COUNT cpu|lake" and
 * "compare SIZE COUNT": requests as dm-crypt's workers issue them, all in
 * flight at once, through xts-aes-lake or through the kernel's best other
 * xts(aes). make bench times the two; the VM case compares their bytes, at
 * lengths that need ciphertext stealing too (the kernel's self-tests for
 * xts(aes) on Debian's kernels have none), with lake's scatterlists split.
 * gcm_bench is the "bench" command of lake/example_gcm, the same timing for
 * gcm(aes).
 */
#include <crypto/aead.h>
#include <crypto/skcipher.h>
#include <linux/completion.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <lake/compat.h>
#include "xts_kernel.h"
#include "xts_lake.h"

struct bench_state {
	atomic_t left;
	int err;
	struct completion done;
};

static void bench_one_done(struct bench_state *b, int err)
{
	if (err)
		WRITE_ONCE(b->err, err);
	if (atomic_dec_and_test(&b->left))
		complete(&b->done);
}

static LAKE_CRYPTO_DONE(bench_done)
{
	if (err != -EINPROGRESS)
		bench_one_done(LAKE_CRYPTO_DATA(), err);
}

static struct crypto_skcipher *bench_tfm(bool lake)
{
	static const u8 key[32] = "bench key: K1 is not K2, weakly";
	struct crypto_skcipher *tfm;
	int ret;

	/* The CPU driver: the kernel's best xts(aes) that is not this one. */
	tfm = lake ? crypto_alloc_skcipher(DRIVER_NAME, 0, 0) :
		     crypto_alloc_skcipher("xts(aes)", 0, CRYPTO_ALG_NEED_FALLBACK);
	if (IS_ERR(tfm))
		return tfm;
	ret = crypto_skcipher_setkey(tfm, key, sizeof(key));
	if (ret) {
		crypto_free_skcipher(tfm);
		return ERR_PTR(ret);
	}
	return tfm;
}

/*
 * @count requests over @buf, in place, all in flight; the time taken, or
 * -errno. @split: each request's scatterlist is three uneven entries.
 */
static s64 bench_run(struct crypto_skcipher *tfm, u8 *buf, unsigned int size,
		     unsigned int count, bool decrypt, bool split)
{
	unsigned int s1 = size / 3, s2 = size / 3 + 1;
	struct skcipher_request **reqs;
	struct scatterlist *sgs;
	struct bench_state b;
	unsigned int i;
	u8 *ivs;
	s64 ret = 0;
	u64 t0;

	reqs = kvcalloc(count, sizeof(*reqs), GFP_KERNEL);
	sgs = kvcalloc(count, 3 * sizeof(*sgs), GFP_KERNEL);
	ivs = kvcalloc(count, XTS_BLOCK, GFP_KERNEL);
	if (!reqs || !sgs || !ivs)
		ret = -ENOMEM;
	for (i = 0; !ret && i < count; i++) {
		reqs[i] = skcipher_request_alloc(tfm, GFP_KERNEL);
		if (!reqs[i])
			ret = -ENOMEM;
	}
	if (ret)
		goto out;
	atomic_set(&b.left, count);
	b.err = 0;
	init_completion(&b.done);
	t0 = ktime_get_ns();
	for (i = 0; i < count; i++) {
		struct scatterlist *sg = &sgs[3 * i];
		u8 *p = buf + (size_t)i * size;

		memcpy(ivs + i * XTS_BLOCK, &i, sizeof(i));
		if (split) {
			sg_init_table(sg, 3);
			sg_set_buf(&sg[0], p, s1);
			sg_set_buf(&sg[1], p + s1, s2);
			sg_set_buf(&sg[2], p + s1 + s2, size - s1 - s2);
		} else {
			sg_init_one(sg, p, size);
		}
		skcipher_request_set_callback(reqs[i], CRYPTO_TFM_REQ_MAY_BACKLOG |
					      CRYPTO_TFM_REQ_MAY_SLEEP, bench_done, &b);
		skcipher_request_set_crypt(reqs[i], sg, sg, size, ivs + i * XTS_BLOCK);
		ret = decrypt ? crypto_skcipher_decrypt(reqs[i]) : crypto_skcipher_encrypt(reqs[i]);
		if (ret != -EINPROGRESS && ret != -EBUSY)
			bench_one_done(&b, ret);
	}
	/* Every request completes (a failed GPU batch runs again on the CPU). */
	while (!wait_for_completion_timeout(&b.done, 10 * HZ))
		pr_warn("example_xts: bench: %d requests still in flight\n", atomic_read(&b.left));
	ret = READ_ONCE(b.err);
	if (!ret)
		ret = max(ktime_get_ns() - t0, 1ull);
out:
	for (i = 0; reqs && i < count; i++)
		skcipher_request_free(reqs[i]);
	kvfree(ivs);
	kvfree(sgs);
	kvfree(reqs);
	return ret;
}

static int bench_check(unsigned int size, unsigned int count)
{
	if (size < XTS_UNIT_MIN || size > 65536 || !count || count > 8192 ||
	    (u64)size * count > (8u << 20)) {
		pr_warn("example_xts: bench|compare SIZE (16..65536) COUNT (1..8192, 8 MiB in all)\n");
		return -EINVAL;
	}
	return 0;
}

int xts_bench(unsigned int size, unsigned int count, bool lake, char *out, size_t outlen)
{
	struct crypto_skcipher *tfm;
	u8 *buf;
	s64 ns;

	ns = bench_check(size, count);
	if (ns)
		return ns;
	tfm = bench_tfm(lake);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	buf = kvmalloc((size_t)size * count, GFP_KERNEL);
	ns = -ENOMEM;
	if (buf) {
		memset(buf, 0x5a, (size_t)size * count);
		ns = bench_run(tfm, buf, size, count, false, false);
	}
	if (ns > 0)
		snprintf(out, outlen, "bench %s size %u count %u ns %lld kbps %llu err 0\n",
			 lake ? "lake" : "cpu", size, count, ns,
			 div64_u64((u64)size * count * USEC_PER_SEC, ns));
	kvfree(buf);
	crypto_free_skcipher(tfm);
	return ns < 0 ? ns : 0;
}

/*
 * The same plaintext through both drivers: the ciphertexts must be equal,
 * and each driver must decrypt the other's; lake's scatterlists are split.
 * How many requests' bytes differ goes to @out.
 */
int xts_compare(unsigned int size, unsigned int count, char *out, size_t outlen)
{
	struct crypto_skcipher *lk = NULL, *cpu = NULL;
	u8 *plain = NULL, *a = NULL, *b = NULL;
	size_t bytes = (size_t)size * count, i;
	unsigned int bad = 0, j;
	s64 ret;

	ret = bench_check(size, count);
	if (ret)
		return ret;
	lk = bench_tfm(true);
	cpu = bench_tfm(false);
	plain = kvmalloc(bytes, GFP_KERNEL);
	a = kvmalloc(bytes, GFP_KERNEL);
	b = kvmalloc(bytes, GFP_KERNEL);
	if (IS_ERR(lk) || IS_ERR(cpu)) {
		ret = IS_ERR(lk) ? PTR_ERR(lk) : PTR_ERR(cpu);
		goto out;
	}
	ret = -ENOMEM;
	if (!plain || !a || !b)
		goto out;
	for (i = 0; i < bytes; i++)
		plain[i] = (u8)(i * 131 + (i >> 8));
	memcpy(a, plain, bytes);
	memcpy(b, plain, bytes);
	/* lake's requests in three uneven scatterlist entries, the CPU's in one. */
	ret = bench_run(lk, a, size, count, false, true);
	if (ret > 0)
		ret = bench_run(cpu, b, size, count, false, false);
	for (j = 0; ret > 0 && j < count; j++)
		bad += !!memcmp(a + (size_t)j * size, b + (size_t)j * size, size);
	if (ret > 0)
		ret = bench_run(lk, b, size, count, true, true);
	if (ret > 0)
		ret = bench_run(cpu, a, size, count, true, false);
	for (j = 0; ret > 0 && j < count; j++)
		bad += !!memcmp(a + (size_t)j * size, plain + (size_t)j * size, size) ||
		       !!memcmp(b + (size_t)j * size, plain + (size_t)j * size, size);
	if (ret > 0) {
		snprintf(out, outlen, "compare size %u count %u differ %u\n", size, count, bad);
		ret = 0;
	}
out:
	kvfree(b);
	kvfree(a);
	kvfree(plain);
	if (!IS_ERR_OR_NULL(cpu))
		crypto_free_skcipher(cpu);
	if (!IS_ERR_OR_NULL(lk))
		crypto_free_skcipher(lk);
	return ret;
}

/*
 * gcm(aes): COUNT requests of SIZE bytes of text and 16 of associated data
 * (an ESP header's worth), 16-byte tags, all in flight, in place, through
 * gcm-aes-lake or the kernel's best other gcm(aes); encryption timed.
 */
int gcm_bench(unsigned int size, unsigned int count, bool lake, char *out, size_t outlen)
{
	static const u8 key[16] = "gcm bench key!!";
	unsigned int slot = 16 + size + 16, i;
	struct aead_request **reqs = NULL;
	struct scatterlist *sgs = NULL;
	struct crypto_aead *tfm;
	struct bench_state b;
	u8 *buf = NULL, *ivs = NULL;
	s64 ret;
	u64 t0;

	ret = bench_check(size, count);
	if (ret)
		return ret;
	tfm = lake ? crypto_alloc_aead("gcm-aes-lake", 0, 0) :
		     crypto_alloc_aead("gcm(aes)", 0, CRYPTO_ALG_NEED_FALLBACK);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	ret = crypto_aead_setkey(tfm, key, sizeof(key)) ?: crypto_aead_setauthsize(tfm, 16);
	if (ret)
		goto out;
	ret = -ENOMEM;
	buf = kvmalloc((size_t)slot * count, GFP_KERNEL);
	reqs = kvcalloc(count, sizeof(*reqs), GFP_KERNEL);
	sgs = kvcalloc(count, sizeof(*sgs), GFP_KERNEL);
	ivs = kvcalloc(count, 12, GFP_KERNEL);
	if (!buf || !reqs || !sgs || !ivs)
		goto out;
	for (i = 0; i < count; i++) {
		reqs[i] = aead_request_alloc(tfm, GFP_KERNEL);
		if (!reqs[i])
			goto out;
	}
	memset(buf, 0x5a, (size_t)slot * count);
	atomic_set(&b.left, count);
	b.err = 0;
	init_completion(&b.done);
	t0 = ktime_get_ns();
	for (i = 0; i < count; i++) {
		memcpy(ivs + 12 * i, &i, sizeof(i));
		sg_init_one(&sgs[i], buf + (size_t)i * slot, slot);
		aead_request_set_callback(reqs[i], CRYPTO_TFM_REQ_MAY_BACKLOG |
					  CRYPTO_TFM_REQ_MAY_SLEEP, bench_done, &b);
		aead_request_set_crypt(reqs[i], &sgs[i], &sgs[i], size, ivs + 12 * i);
		aead_request_set_ad(reqs[i], 16);
		ret = crypto_aead_encrypt(reqs[i]);
		if (ret != -EINPROGRESS && ret != -EBUSY)
			bench_one_done(&b, ret);
	}
	while (!wait_for_completion_timeout(&b.done, 10 * HZ))
		pr_warn("example_gcm: bench: %d requests still in flight\n", atomic_read(&b.left));
	ret = READ_ONCE(b.err);
	if (!ret) {
		u64 ns = max(ktime_get_ns() - t0, 1ull);

		snprintf(out, outlen, "bench %s size %u count %u ns %llu kbps %llu err 0\n",
			 lake ? "lake" : "cpu", size, count, ns,
			 div64_u64((u64)size * count * USEC_PER_SEC, ns));
	}
out:
	for (i = 0; reqs && i < count; i++)
		aead_request_free(reqs[i]);
	kvfree(ivs);
	kvfree(sgs);
	kvfree(reqs);
	kvfree(buf);
	crypto_free_aead(tfm);
	return ret;
}
