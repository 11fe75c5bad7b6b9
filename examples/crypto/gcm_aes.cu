// SPDX-License-Identifier: GPL-2.0
/*
 * AES-GCM (NIST SP 800-38D, 96-bit IVs as the kernel's gcm(aes) takes them)
 * over a batch of AEAD requests, one thread per request. Built by nvcc into
 * example_gcm.cubin for a GPU and by cc into example_gcm.so for laked's
 * host device (examples/crypto/crypto.mk); the module (gcm_lake.c) launches
 * it.
 *
 * Each thread expands its unit's key, makes the hash key H = E_K(0^128),
 * and runs the counter mode from J0 = IV || 1 (the first text block uses
 * J0 + 1) and GHASH over the associated data, the ciphertext and their bit
 * lengths; the tag is E_K(J0) ^ GHASH, cut to the unit's authsize.
 * Decryption hashes the ciphertext first and compares the tags with no
 * early exit (every byte's difference is ORed, then tested once); only a
 * unit whose tag matched is decrypted, and the module copies out only
 * those: a forged message yields no plaintext at all.
 *
 * What runs, and what each leaks:
 *
 *  - AES-NI + PCLMULQDQ (host device, where cpuid reports both and SSSE3):
 *    the CPU's instructions for AES and for the GF(2^128) products,
 *    constant time; compiled with target attributes, chosen at run time.
 *  - Table-free (host device, any x86-64): aes_device.h's SSE2 cipher, and
 *    GHASH as 128 conditional XORs and shifts per block done with masks,
 *    no data-dependent address or branch.
 *  - GPU (nvcc): AES with S-box tables in shared memory, indexed by secret
 *    bytes (the key schedule and the state after the first round): bank
 *    conflicts make the kernel's time depend on them, the timing channel
 *    xts_aes.cu describes. GHASH stays the bitwise, table-free one there
 *    (it needs no tables to be fast enough beside table AES), so H and the
 *    tags do not reach memory addresses; the AES tables are the channel.
 */
#include <lake/kernel.h>
#include "gcm_kernel.h"
#include "aes_device.h"

#define RK_BYTES	(16 * (MAX_ROUNDS + 1))

struct ghash {
	unsigned long long hh, hl;	/* H, as two big-endian halves */
	unsigned long long yh, yl;	/* the running hash */
#if !TABLES
	__m128i hr, yr;			/* PCLMULQDQ: H and the hash, byte-reversed */
	int clmul;
#endif
};

struct gcm_state {
	struct aes_impl ai;
	unsigned char rk[RK_BYTES];
	struct ghash g;
};

LAKE_DEVICE unsigned long long be64(const unsigned char *p)
{
	unsigned long long v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

LAKE_DEVICE void put_be64(unsigned char *p, unsigned long long v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

/*
 * Y = Y * H in GF(2^128), bit by bit as SP 800-38D writes it (bit 0 is the
 * first byte's most significant), every step done with masks.
 */
LAKE_DEVICE void ghash_mul_bits(struct ghash *g)
{
	unsigned long long zh = 0, zl = 0, vh = g->hh, vl = g->hl, x, m, lsb;
	int i;

	for (i = 0; i < 128; i++) {
		x = i < 64 ? g->yh : g->yl;
		m = 0ull - ((x >> (63 - (i & 63))) & 1);
		zh ^= vh & m;
		zl ^= vl & m;
		lsb = 0ull - (vl & 1);
		vl = (vl >> 1) | (vh << 63);
		vh = (vh >> 1) ^ (0xe100000000000000ull & lsb);
	}
	g->yh = zh;
	g->yl = zl;
}

#if !TABLES

#include <tmmintrin.h>

#define CLMUL	__attribute__((target("pclmul,ssse3")))

CLMUL static inline __m128i bswap128(__m128i x)
{
	return _mm_shuffle_epi8(x, _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
						15));
}

/*
 * The product of two byte-reversed field elements: four carry-less
 * products make 256 bits, shifted left by one (the operands are bit
 * reflected), then reduced modulo x^128 + x^7 + x^2 + x + 1.
 */
CLMUL static inline __m128i clmul_gfmul(__m128i a, __m128i b)
{
	__m128i lo = _mm_clmulepi64_si128(a, b, 0x00), hi = _mm_clmulepi64_si128(a, b, 0x11);
	__m128i mid = _mm_xor_si128(_mm_clmulepi64_si128(a, b, 0x10),
				    _mm_clmulepi64_si128(a, b, 0x01));
	__m128i c1, c2, c3, r;

	lo = _mm_xor_si128(lo, _mm_slli_si128(mid, 8));
	hi = _mm_xor_si128(hi, _mm_srli_si128(mid, 8));
	/* <hi:lo> <<= 1 */
	c1 = _mm_srli_epi32(lo, 31);
	c2 = _mm_srli_epi32(hi, 31);
	lo = _mm_slli_epi32(lo, 1);
	hi = _mm_slli_epi32(hi, 1);
	c3 = _mm_srli_si128(c1, 12);
	lo = _mm_or_si128(lo, _mm_slli_si128(c1, 4));
	hi = _mm_or_si128(_mm_or_si128(hi, _mm_slli_si128(c2, 4)), c3);
	/* the reduction, in two phases */
	r = _mm_xor_si128(_mm_xor_si128(_mm_slli_epi32(lo, 31), _mm_slli_epi32(lo, 30)),
			  _mm_slli_epi32(lo, 25));
	c1 = _mm_srli_si128(r, 4);
	lo = _mm_xor_si128(lo, _mm_slli_si128(r, 12));
	r = _mm_xor_si128(_mm_xor_si128(_mm_srli_epi32(lo, 1), _mm_srli_epi32(lo, 2)),
			  _mm_srli_epi32(lo, 7));
	r = _mm_xor_si128(r, c1);
	lo = _mm_xor_si128(lo, r);
	return _mm_xor_si128(hi, lo);
}

CLMUL static inline void clmul_init(struct ghash *g, const unsigned char *h)
{
	g->hr = bswap128(_mm_loadu_si128((const __m128i *)h));
	g->yr = _mm_setzero_si128();
}

CLMUL static inline void clmul_block(struct ghash *g, const unsigned char *b)
{
	g->yr = clmul_gfmul(_mm_xor_si128(g->yr, bswap128(_mm_loadu_si128((const __m128i *)b))),
			    g->hr);
}

CLMUL static inline void clmul_final(const struct ghash *g, unsigned char *out)
{
	_mm_storeu_si128((__m128i *)out, bswap128(g->yr));
}

#endif /* !TABLES */

LAKE_DEVICE void ghash_init(struct ghash *g, const unsigned char *h, int clmul)
{
	g->hh = be64(h);
	g->hl = be64(h + 8);
	g->yh = 0;
	g->yl = 0;
#if !TABLES
	g->clmul = clmul;
	if (clmul)
		clmul_init(g, h);
#else
	(void)clmul;
#endif
}

LAKE_DEVICE void ghash_block(struct ghash *g, const unsigned char *b)
{
#if !TABLES
	if (g->clmul) {
		clmul_block(g, b);
		return;
	}
#endif
	g->yh ^= be64(b);
	g->yl ^= be64(b + 8);
	ghash_mul_bits(g);
}

/* @n bytes, the last block padded with zeros (lengths are public: branches on them are fine). */
LAKE_DEVICE void ghash_bytes(struct ghash *g, const unsigned char *p, unsigned int n)
{
	unsigned char last[16];
	unsigned int i, j;

	for (i = 0; i + 16 <= n; i += 16)
		ghash_block(g, p + i);
	if (i < n) {
		for (j = 0; j < 16; j++)
			last[j] = i + j < n ? p[i + j] : 0;
		ghash_block(g, last);
	}
}

LAKE_DEVICE void ghash_final(struct ghash *g, unsigned int alen, unsigned int clen,
			     unsigned char *out)
{
	unsigned char lens[16];

	put_be64(lens, (unsigned long long)alen * 8);
	put_be64(lens + 8, (unsigned long long)clen * 8);
	ghash_block(g, lens);
#if !TABLES
	if (g->clmul) {
		clmul_final(g, out);
		return;
	}
#endif
	put_be64(out, g->yh);
	put_be64(out + 8, g->yl);
}

/* Counter block @c: the IV, then c as a big-endian 32-bit word. */
LAKE_DEVICE void ctr_block(unsigned char *b, const unsigned char *iv, unsigned int c)
{
	int k;

	for (k = 0; k < GCM_IV_BYTES; k++)
		b[k] = iv[k];
	b[12] = (unsigned char)(c >> 24);
	b[13] = (unsigned char)(c >> 16);
	b[14] = (unsigned char)(c >> 8);
	b[15] = (unsigned char)c;
}

/* The counter mode from J0 + 1, in place (the same both ways). */
LAKE_DEVICE void gcm_ctr(const struct gcm_state *s, const unsigned char *iv, unsigned char *p,
			 unsigned int n)
{
	unsigned char ks[16];
	unsigned int i, j, c = 1;

	for (i = 0; i < n; i += 16) {
		ctr_block(ks, iv, ++c);
		cipher(&s->ai, s->rk, 0, ks);
		for (j = 0; j < 16 && i + j < n; j++)
			p[i + j] ^= ks[j];
	}
	aes_wipe(ks, sizeof(ks));
}

LAKE_DEVICE int authsize_ok(unsigned int a)
{
	return a == 4 || a == 8 || (a >= 12 && a <= 16);
}

LAKE_KERNEL(gcm_aes, GCM_PARAMS)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned char h[16], t[16], e0[16];
	const struct gcm_key *key;
	struct gcm_state s;
	struct gcm_unit *u;
	unsigned int k, diff = 0;
	int dec;

	AES_KERNEL_TABLES(&s.ai);
	if (i >= count)
		return;
	u = &units[i];
	if (u->key >= (unsigned int)nkeys || u->offset > data_len ||
	    u->assoclen > data_len - u->offset || u->text < u->offset + u->assoclen ||
	    u->text > data_len || u->len > data_len - u->text || !authsize_ok(u->authsize))
		LAKE_TRAP();
	key = &keys[u->key];
	if (key->len != 16 && key->len != 24 && key->len != 32)
		LAKE_TRAP();
	if (aes_pick(&s.ai, key->len / 4, impl == GCM_IMPL_CLMUL, impl == GCM_IMPL_AUTO, 1))
		LAKE_TRAP();
	dec = u->flags & GCM_F_DECRYPT;
	expand_key(&s.ai, s.rk, key->key, key->len / 4);
	for (k = 0; k < 16; k++)
		h[k] = 0;
	cipher(&s.ai, s.rk, 0, h);
	ghash_init(&s.g, h, s.ai.ran == AES_RAN_AESNI);
	ghash_bytes(&s.g, data + u->offset, u->assoclen);
	if (!dec)
		gcm_ctr(&s, u->iv, data + u->text, u->len);
	ghash_bytes(&s.g, data + u->text, u->len);
	ghash_final(&s.g, u->assoclen, u->len, t);
	ctr_block(e0, u->iv, 1);
	cipher(&s.ai, s.rk, 0, e0);
	for (k = 0; k < 16; k++)
		t[k] ^= e0[k];
	if (!dec) {
		for (k = 0; k < 16; k++)
			u->tag[k] = t[k];
	} else {
		/* Constant time: no exit before the last byte. */
		for (k = 0; k < u->authsize; k++)
			diff |= (unsigned int)(t[k] ^ u->tag[k]);
		u->tag_ok = diff == 0;
		if (u->tag_ok)
			gcm_ctr(&s, u->iv, data + u->text, u->len);
	}
	u->ran = s.ai.ran;
	/* The schedule, H and the tag are secrets: leave none on the stack. */
	aes_wipe(&s, sizeof(s));
	aes_wipe(h, sizeof(h));
	aes_wipe(t, sizeof(t));
	aes_wipe(e0, sizeof(e0));
}
