// SPDX-License-Identifier: GPL-2.0
/*
 * lake_example_xts's request-shape fuzzer: debugfs "fuzz N SEED", written
 * to lake/example_xts (xts(aes)) or lake/example_gcm (gcm(aes)). N random
 * requests, each run through lake's driver and through the kernel's own
 * (a tfm allocated with CRYPTO_ALG_NEED_FALLBACK: never lake's), and the
 * two must agree. What varies: the key size; the length (XTS: 16..8192,
 * every remainder; GCM: 0..8192 of text, 0..256 of associated data, every
 * tag size the kernel's gcm takes); the scatterlists, 1 to 8 entries of
 * random lengths, each at a random offset of a buffer of its own (so
 * entries cross pages and never touch); in place (one list for both) or
 * not. Every request is encrypted by both drivers and the outputs
 * compared; lake's decrypts the CPU's result in a fresh layout; a GCM
 * message with one bit flipped must be refused (-EBADMSG) by lake's driver
 * with no plaintext in the destination (untouched, or wiped). Lake's
 * driver runs on whichever side its policy picks: the VM case forces each
 * in turn. Each mismatch is logged with its shape; the result line reads
 * "fuzz ALG n N seed S mismatches M errors E".
 */
#include <crypto/aead.h>
#include <crypto/skcipher.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include "lake_crypto.h"

#define FZ_SG		8
#define FZ_SLOT		(12 * 1024)
#define FZ_MAX_TEXT	8192
#define FZ_MAX_AAD	256
#define FZ_MAX_MSG	(FZ_MAX_AAD + FZ_MAX_TEXT + 16)

struct fz {
	struct rnd_state rs;
	u8 *slots[2][FZ_SG];		/* the source's and the destination's pieces */
	struct scatterlist sg[2][FZ_SG];
	u8 *msg, *want, *got, *poison;
	unsigned int mismatches, errors;
};

static u32 fz_rnd(struct fz *f, u32 n)
{
	return n ? prandom_u32_state(&f->rs) % n : 0;
}

/* Lay @total bytes out over list @which: 1..8 pieces, each at a random offset of its slot. */
static struct scatterlist *fz_layout(struct fz *f, int which, unsigned int total)
{
	struct scatterlist *sg = f->sg[which];
	unsigned int pieces = 1 + fz_rnd(f, FZ_SG), left = total, i, len;

	if (pieces > total)
		pieces = total ? total : 1;
	sg_init_table(sg, pieces);
	for (i = 0; i < pieces; i++) {
		len = i == pieces - 1 ? left : 1 + fz_rnd(f, left - (pieces - 1 - i));
		left -= len;
		sg_set_buf(&sg[i], f->slots[which][i] + fz_rnd(f, FZ_SLOT - len + 1), len);
	}
	return sg;
}

static void fz_fill(struct scatterlist *sg, const u8 *src, unsigned int len)
{
	sg_copy_from_buffer(sg, sg_nents(sg), src, len);
}

static void fz_read(struct scatterlist *sg, u8 *dst, unsigned int len)
{
	sg_copy_to_buffer(sg, sg_nents(sg), dst, len);
}

/* --- xts --- */

static int fz_xts_run(struct crypto_skcipher *tfm, struct scatterlist *src, struct scatterlist *dst,
		      unsigned int len, u8 *iv, bool decrypt)
{
	struct skcipher_request *req = skcipher_request_alloc(tfm, GFP_KERNEL);
	DECLARE_CRYPTO_WAIT(wait);
	u8 ivc[16];
	int ret;

	if (!req)
		return -ENOMEM;
	memcpy(ivc, iv, sizeof(ivc));
	skcipher_request_set_callback(req, CRYPTO_TFM_REQ_MAY_SLEEP | CRYPTO_TFM_REQ_MAY_BACKLOG,
				      crypto_req_done, &wait);
	skcipher_request_set_crypt(req, src, dst, len, ivc);
	ret = crypto_wait_req(decrypt ? crypto_skcipher_decrypt(req) : crypto_skcipher_encrypt(req),
			      &wait);
	skcipher_request_free(req);
	return ret;
}

/* Through lake's driver in a random layout, in place or not: the output in f->got. */
static int fz_xts_lake(struct fz *f, struct crypto_skcipher *lk, const u8 *in, unsigned int len,
		       u8 *iv, bool decrypt)
{
	bool inplace = fz_rnd(f, 2);
	struct scatterlist *src = fz_layout(f, 0, len), *dst = inplace ? src : fz_layout(f, 1, len);
	int ret;

	fz_fill(src, in, len);
	ret = fz_xts_run(lk, src, dst, len, iv, decrypt);
	if (!ret)
		fz_read(dst, f->got, len);
	return ret;
}

static void fz_xts_one(struct fz *f, struct crypto_skcipher *lk, struct crypto_skcipher *cpu,
		       unsigned int i)
{
	unsigned int klen = 32 + 16 * fz_rnd(f, 3), len = 16 + fz_rnd(f, FZ_MAX_TEXT - 15), k;
	struct scatterlist one;
	u8 key[64], iv[16];
	int ret;

	prandom_bytes_state(&f->rs, key, klen);
	key[0] = ~key[klen / 2];		/* the halves differ */
	prandom_bytes_state(&f->rs, iv, sizeof(iv));
	prandom_bytes_state(&f->rs, f->msg, len);
	ret = crypto_skcipher_setkey(lk, key, klen) ?: crypto_skcipher_setkey(cpu, key, klen);
	if (ret)
		goto err;
	memcpy(f->want, f->msg, len);
	sg_init_one(&one, f->want, len);
	ret = fz_xts_run(cpu, &one, &one, len, iv, false);
	ret = ret ?: fz_xts_lake(f, lk, f->msg, len, iv, false);
	if (ret)
		goto err;
	if (memcmp(f->got, f->want, len)) {
		for (k = 0; k < len && f->got[k] == f->want[k]; k++)
			;
		pr_warn_ratelimited("example_fuzz: xts #%u: key %u, %u bytes: encryption differs from byte %u\n",
			i, klen * 4, len, k);
		f->mismatches++;
		return;
	}
	ret = fz_xts_lake(f, lk, f->want, len, iv, true);
	if (ret)
		goto err;
	if (memcmp(f->got, f->msg, len)) {
		pr_warn_ratelimited("example_fuzz: xts #%u: key %u, %u bytes: decryption differs\n", i,
			klen * 4, len);
		f->mismatches++;
	}
	return;
err:
	pr_warn_ratelimited("example_fuzz: xts #%u: key %u, %u bytes: %d\n", i, klen * 4, len, ret);
	f->errors++;
}

/* --- gcm --- */

static int fz_gcm_run(struct crypto_aead *tfm, struct scatterlist *src, struct scatterlist *dst,
		      unsigned int assoclen, unsigned int cryptlen, const u8 *iv, bool decrypt)
{
	struct aead_request *req = aead_request_alloc(tfm, GFP_KERNEL);
	DECLARE_CRYPTO_WAIT(wait);
	u8 ivc[12];
	int ret;

	if (!req)
		return -ENOMEM;
	memcpy(ivc, iv, sizeof(ivc));
	aead_request_set_callback(req, CRYPTO_TFM_REQ_MAY_SLEEP | CRYPTO_TFM_REQ_MAY_BACKLOG,
				  crypto_req_done, &wait);
	aead_request_set_crypt(req, src, dst, cryptlen, ivc);
	aead_request_set_ad(req, assoclen);
	ret = crypto_wait_req(decrypt ? crypto_aead_decrypt(req) : crypto_aead_encrypt(req), &wait);
	aead_request_free(req);
	return ret;
}

/*
 * Lake's driver on @in (alen + inlen bytes), output alen + outlen bytes,
 * in a random layout: the output's bytes past the AAD in f->got. The
 * destination is poisoned first; *untouched says whether it still is.
 */
static int fz_gcm_lake(struct fz *f, struct crypto_aead *lk, const u8 *in, unsigned int alen,
		       unsigned int inlen, unsigned int outlen, const u8 *iv, bool decrypt,
		       bool *untouched)
{
	unsigned int span = alen + max(inlen, outlen);
	bool inplace = fz_rnd(f, 2);
	struct scatterlist *src = fz_layout(f, 0, span), *dst = inplace ? src : fz_layout(f, 1, span);
	int ret;

	if (!inplace)
		fz_fill(dst, f->poison, span);
	fz_fill(src, in, alen + inlen);
	ret = fz_gcm_run(lk, src, dst, alen, inlen, iv, decrypt);
	fz_read(dst, f->got, span);
	/* Refused: left as it was (GPU side) or wiped (CPU side), never plaintext. */
	*untouched = !memcmp(f->got + alen, inplace ? in + alen : f->poison + alen, outlen) ||
		     !memchr_inv(f->got + alen, 0, outlen);
	memmove(f->got, f->got + alen, outlen);
	return ret;
}

static void fz_gcm_one(struct fz *f, struct crypto_aead *lk, struct crypto_aead *cpu,
		       unsigned int i)
{
	static const unsigned int auths[] = { 4, 8, 12, 13, 14, 15, 16 };
	unsigned int klen = 16 + 8 * fz_rnd(f, 3), as = auths[fz_rnd(f, 7)];
	unsigned int alen = fz_rnd(f, 4) ? fz_rnd(f, FZ_MAX_AAD + 1) : 0;
	unsigned int len = fz_rnd(f, 8) ? fz_rnd(f, FZ_MAX_TEXT + 1) : 0, bit;
	struct scatterlist one;
	bool untouched;
	u8 key[32], iv[12];
	int ret;

	prandom_bytes_state(&f->rs, key, klen);
	prandom_bytes_state(&f->rs, iv, sizeof(iv));
	prandom_bytes_state(&f->rs, f->msg, alen + len);
	ret = crypto_aead_setkey(lk, key, klen) ?: crypto_aead_setkey(cpu, key, klen);
	ret = ret ?: crypto_aead_setauthsize(lk, as) ?: crypto_aead_setauthsize(cpu, as);
	if (ret)
		goto err;
	memcpy(f->want, f->msg, alen + len);
	sg_init_one(&one, f->want, alen + len + as);
	ret = fz_gcm_run(cpu, &one, &one, alen, len, iv, false);
	ret = ret ?: fz_gcm_lake(f, lk, f->msg, alen, len, len + as, iv, false, &untouched);
	if (ret)
		goto err;
	if (memcmp(f->got, f->want + alen, len + as)) {
		pr_warn_ratelimited("example_fuzz: gcm #%u: key %u, tag %u, aad %u, text %u: encryption differs\n",
			i, klen * 8, as, alen, len);
		f->mismatches++;
		return;
	}
	/* Lake opens the CPU's message... */
	ret = fz_gcm_lake(f, lk, f->want, alen, len + as, len, iv, true, &untouched);
	if (ret)
		goto err;
	if (memcmp(f->got, f->msg + alen, len)) {
		pr_warn_ratelimited("example_fuzz: gcm #%u: key %u, tag %u, aad %u, text %u: decryption differs\n",
			i, klen * 8, as, alen, len);
		f->mismatches++;
		return;
	}
	/* ... and refuses it with one bit flipped, writing nothing. */
	bit = fz_rnd(f, (alen + len + as) * 8);
	f->want[bit / 8] ^= 1u << (bit % 8);
	ret = fz_gcm_lake(f, lk, f->want, alen, len + as, len, iv, true, &untouched);
	if (ret != -EBADMSG || !untouched) {
		pr_warn_ratelimited("example_fuzz: gcm #%u: key %u, tag %u, aad %u, text %u: bit %u flipped: %d, destination %s\n",
			i, klen * 8, as, alen, len, bit, ret, untouched ? "untouched" : "written");
		f->mismatches++;
	}
	return;
err:
	pr_warn_ratelimited("example_fuzz: gcm #%u: key %u, tag %u, aad %u, text %u: %d\n",
			    i, klen * 8, as, alen, len, ret);
	f->errors++;
}

int lc_fuzz(bool gcm, unsigned int n, u32 seed, char *out, size_t outlen)
{
	struct crypto_skcipher *xl = NULL, *xc = NULL;
	struct crypto_aead *gl = NULL, *gc = NULL;
	struct fz *f;
	unsigned int i, j;
	int ret = 0;

	if (!n || n > 100000) {
		pr_warn("example_fuzz: fuzz N (1..100000) SEED\n");
		return -EINVAL;
	}
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	prandom_seed_state(&f->rs, seed);
	for (i = 0; i < 2; i++)
		for (j = 0; j < FZ_SG; j++)
			if (!(f->slots[i][j] = kmalloc(FZ_SLOT, GFP_KERNEL)))
				ret = -ENOMEM;
	f->msg = kmalloc(FZ_MAX_MSG, GFP_KERNEL);
	f->want = kmalloc(FZ_MAX_MSG, GFP_KERNEL);
	f->got = kmalloc(FZ_MAX_MSG, GFP_KERNEL);
	f->poison = kmalloc(FZ_MAX_MSG, GFP_KERNEL);
	if (!f->msg || !f->want || !f->got || !f->poison)
		ret = -ENOMEM;
	if (ret)
		goto out;
	memset(f->poison, 0xa5, FZ_MAX_MSG);
	if (gcm) {
		gl = crypto_alloc_aead("gcm-aes-lake", 0, 0);
		gc = crypto_alloc_aead("gcm(aes)", 0, CRYPTO_ALG_NEED_FALLBACK);
		ret = IS_ERR(gl) ? PTR_ERR(gl) : IS_ERR(gc) ? PTR_ERR(gc) : 0;
	} else {
		xl = crypto_alloc_skcipher("xts-aes-lake", 0, 0);
		xc = crypto_alloc_skcipher("xts(aes)", 0, CRYPTO_ALG_NEED_FALLBACK);
		ret = IS_ERR(xl) ? PTR_ERR(xl) : IS_ERR(xc) ? PTR_ERR(xc) : 0;
	}
	for (i = 0; !ret && i < n; i++) {
		if (gcm)
			fz_gcm_one(f, gl, gc, i);
		else
			fz_xts_one(f, xl, xc, i);
		cond_resched();
	}
	if (!ret)
		snprintf(out, outlen, "fuzz %s n %u seed %u mismatches %u errors %u\n",
			 gcm ? "gcm" : "xts", n, seed, f->mismatches, f->errors);
out:
	if (!IS_ERR_OR_NULL(gl))
		crypto_free_aead(gl);
	if (!IS_ERR_OR_NULL(gc))
		crypto_free_aead(gc);
	if (!IS_ERR_OR_NULL(xl))
		crypto_free_skcipher(xl);
	if (!IS_ERR_OR_NULL(xc))
		crypto_free_skcipher(xc);
	kfree(f->poison);
	kfree(f->got);
	kfree(f->want);
	kfree(f->msg);
	for (i = 0; i < 2; i++)
		for (j = 0; j < FZ_SG; j++)
			kfree(f->slots[i][j]);
	kfree(f);
	return ret;
}
