/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AES block cipher that examples/crypto's kernels (xts_aes.cu,
 * gcm_aes.cu) share, in the three forms xts_aes.cu's head comment
 * describes: byte-wise with S-box tables (the GPU's), table-free SSE2 and
 * AES-NI (the host device's, constant time). Included by a .cu file after
 * lake/kernel.h; everything here is per thread.
 *
 * An aes_impl names the form (ran: AES_RAN_*, the values of XTS_RAN_* and
 * GCM_RAN_*) and the round count; cipher() runs one block with a schedule
 * from expand_key(), AES_DEC_RK() picks the schedule decryption needs.
 * AES_KERNEL_TABLES(impl) goes at the top of a kernel, before any thread
 * returns: on a GPU it builds the block's tables in shared memory.
 */
#ifndef LAKE_EXAMPLE_AES_DEVICE_H
#define LAKE_EXAMPLE_AES_DEVICE_H

#define AES_RAN_TABLE_FREE	1
#define AES_RAN_AESNI		2
#define AES_RAN_GPU		3

/*
 * The GPU's cipher. cc builds it too with -DAES_TABLE_CIPHER, for the host
 * tests only (example_xts_tables.so, example_gcm_tables.so), so that its
 * code meets the published vectors without a GPU; laked's host device never
 * loads that build.
 */
#if defined(__CUDACC__) || defined(AES_TABLE_CIPHER)
#define TABLES	1
#else
#define TABLES	0
#endif

#define MAX_ROUNDS	14
#define SCHED_BYTES	(16 * (MAX_ROUNDS + 1))

/* Which cipher a thread runs, and its tables where it has any. */
struct aes_impl {
#if TABLES
	const unsigned char *sbox, *isbox;	/* the block's tables, in shared memory */
#endif
	int rounds;
	int ran;				/* AES_RAN_* */
};

/* Multiplication by x in GF(2^8), branch-free. */
LAKE_DEVICE unsigned int xtime8(unsigned int a)
{
	return ((a << 1) ^ (0x1b & (0u - (a >> 7)))) & 0xff;
}

#if TABLES

/* GPU: tables in shared memory, built by each block (sbox, then inverse). */
LAKE_DEVICE unsigned int gf_mul8(unsigned int a, unsigned int b)
{
	unsigned int r = 0;
	int i;

	for (i = 0; i < 8; i++) {
		r ^= a & (0u - ((b >> i) & 1));
		a = xtime8(a);
	}
	return r;
}

LAKE_DEVICE unsigned int sbox_of(unsigned int x)
{
	unsigned int x2 = gf_mul8(x, x), x3 = gf_mul8(x2, x), x12, x15, y;
	int i;

	x12 = gf_mul8(x3, x3);
	x12 = gf_mul8(x12, x12);
	x15 = gf_mul8(x12, x3);
	y = x15;
	for (i = 0; i < 4; i++)
		y = gf_mul8(y, y);
	y = gf_mul8(gf_mul8(y, x12), x2);	/* x^254 = x^-1 */
	x = y;
	for (i = 1; i < 5; i++)
		x ^= ((y << i) | (y >> (8 - i))) & 0xff;
	return x ^ 0x63;
}

LAKE_DEVICE void sub_word(const struct aes_impl *ks, unsigned char *w)
{
	int k;

	for (k = 0; k < 4; k++)
		w[k] = ks->sbox[w[k]];
}

LAKE_DEVICE void gpu_round_enc(const unsigned char *sbox, unsigned char *s,
				const unsigned char *rk, int last)
{
	unsigned char t[16];
	int r, c, i;

	for (c = 0; c < 4; c++)
		for (r = 0; r < 4; r++)
			t[r + 4 * c] = sbox[s[r + 4 * ((c + r) & 3)]];
	for (c = 0; c < 4 && !last; c++) {
		unsigned int a0 = t[4 * c], a1 = t[4 * c + 1], a2 = t[4 * c + 2], a3 = t[4 * c + 3];

		t[4 * c] = xtime8(a0) ^ xtime8(a1) ^ a1 ^ a2 ^ a3;
		t[4 * c + 1] = a0 ^ xtime8(a1) ^ xtime8(a2) ^ a2 ^ a3;
		t[4 * c + 2] = a0 ^ a1 ^ xtime8(a2) ^ xtime8(a3) ^ a3;
		t[4 * c + 3] = xtime8(a0) ^ a0 ^ a1 ^ a2 ^ xtime8(a3);
	}
	for (i = 0; i < 16; i++)
		s[i] = t[i] ^ rk[i];
}

LAKE_DEVICE void gpu_round_dec(const unsigned char *isbox, unsigned char *s,
				const unsigned char *rk, int last)
{
	unsigned char t[16];
	int r, c, i;

	/* InvShiftRows, InvSubBytes, AddRoundKey, InvMixColumns */
	for (c = 0; c < 4; c++)
		for (r = 0; r < 4; r++)
			t[r + 4 * ((c + r) & 3)] = isbox[s[r + 4 * c]];
	for (i = 0; i < 16; i++)
		t[i] ^= rk[i];
	for (c = 0; c < 4 && !last; c++) {
		unsigned int a0 = t[4 * c], a1 = t[4 * c + 1], a2 = t[4 * c + 2], a3 = t[4 * c + 3];

		t[4 * c] = gf_mul8(a0, 14) ^ gf_mul8(a1, 11) ^ gf_mul8(a2, 13) ^ gf_mul8(a3, 9);
		t[4 * c + 1] = gf_mul8(a0, 9) ^ gf_mul8(a1, 14) ^ gf_mul8(a2, 11) ^ gf_mul8(a3, 13);
		t[4 * c + 2] = gf_mul8(a0, 13) ^ gf_mul8(a1, 9) ^ gf_mul8(a2, 14) ^ gf_mul8(a3, 11);
		t[4 * c + 3] = gf_mul8(a0, 11) ^ gf_mul8(a1, 13) ^ gf_mul8(a2, 9) ^ gf_mul8(a3, 14);
	}
	for (i = 0; i < 16; i++)
		s[i] = t[i];
}

LAKE_DEVICE void cipher(const struct aes_impl *ks, const unsigned char *rk, int dec,
			unsigned char *b)
{
	int nr = ks->rounds, r, i;

	if (!dec) {
		for (i = 0; i < 16; i++)
			b[i] ^= rk[i];
		for (r = 1; r <= nr; r++)
			gpu_round_enc(ks->sbox, b, rk + 16 * r, r == nr);
	} else {
		for (i = 0; i < 16; i++)
			b[i] ^= rk[16 * nr + i];
		for (r = nr - 1; r >= 0; r--)
			gpu_round_dec(ks->isbox, b, rk + 16 * r, r == 0);
	}
}


#define AES_DEC_RK(ks, dec_rk, enc_rk)	(enc_rk)

#else /* host device */

#include <cpuid.h>
#include <emmintrin.h>
#include <wmmintrin.h>

/* --- table-free: SSE2 on the whole state, no data-dependent address --- */

static inline __m128i ct_xtime(__m128i a)
{
	__m128i hi = _mm_cmplt_epi8(a, _mm_setzero_si128());

	return _mm_xor_si128(_mm_add_epi8(a, a), _mm_and_si128(hi, _mm_set1_epi8(0x1b)));
}

static inline __m128i ct_mul(__m128i a, __m128i b)
{
	__m128i r = _mm_setzero_si128(), bit;
	int i;

	for (i = 0; i < 8; i++) {
		bit = _mm_set1_epi8((char)(1 << i));
		r = _mm_xor_si128(r, _mm_and_si128(a, _mm_cmpeq_epi8(_mm_and_si128(b, bit), bit)));
		a = ct_xtime(a);
	}
	return r;
}

/* x^254 in every byte: the inverse in GF(2^8), 0 for 0. */
static inline __m128i ct_inv(__m128i x)
{
	__m128i x2 = ct_mul(x, x), x3 = ct_mul(x2, x), x12, y;
	int i;

	x12 = ct_mul(x3, x3);
	x12 = ct_mul(x12, x12);
	y = ct_mul(x12, x3);			/* x^15 */
	for (i = 0; i < 4; i++)
		y = ct_mul(y, y);		/* x^240 */
	return ct_mul(ct_mul(y, x12), x2);
}

/* Rotate every byte left by n (1..7), on 16-bit shifts and masks. */
static inline __m128i ct_rotl8(__m128i x, int n)
{
	__m128i hi = _mm_and_si128(_mm_slli_epi16(x, n), _mm_set1_epi8((char)(0xff << n)));
	__m128i lo = _mm_and_si128(_mm_srli_epi16(x, 8 - n), _mm_set1_epi8((char)(0xff >> (8 - n))));

	return _mm_or_si128(hi, lo);
}

static inline __m128i ct_sub_bytes(__m128i x)
{
	__m128i y = ct_inv(x), r = y;
	int i;

	for (i = 1; i < 5; i++)
		r = _mm_xor_si128(r, ct_rotl8(y, i));
	return _mm_xor_si128(r, _mm_set1_epi8(0x63));
}

static inline __m128i ct_inv_sub_bytes(__m128i x)
{
	__m128i y = _mm_xor_si128(_mm_xor_si128(ct_rotl8(x, 1), ct_rotl8(x, 3)),
				  ct_rotl8(x, 6));

	return ct_inv(_mm_xor_si128(y, _mm_set1_epi8(0x05)));
}

/* Row r of the state is byte r of each 32-bit column. */
#define ROW(r)		_mm_set1_epi32((int)(0xffu << (8 * (r))))
#define SEL(x, r, imm)	_mm_and_si128(_mm_shuffle_epi32((x), (imm)), ROW(r))

static inline __m128i ct_shift_rows(__m128i x)
{
	return _mm_or_si128(_mm_or_si128(_mm_and_si128(x, ROW(0)),
					 SEL(x, 1, _MM_SHUFFLE(0, 3, 2, 1))),
			    _mm_or_si128(SEL(x, 2, _MM_SHUFFLE(1, 0, 3, 2)),
					 SEL(x, 3, _MM_SHUFFLE(2, 1, 0, 3))));
}

static inline __m128i ct_inv_shift_rows(__m128i x)
{
	return _mm_or_si128(_mm_or_si128(_mm_and_si128(x, ROW(0)),
					 SEL(x, 1, _MM_SHUFFLE(2, 1, 0, 3))),
			    _mm_or_si128(SEL(x, 2, _MM_SHUFFLE(1, 0, 3, 2)),
					 SEL(x, 3, _MM_SHUFFLE(0, 3, 2, 1))));
}

/* Byte i of each column takes byte i + n (mod 4) of the same column. */
static inline __m128i ct_rotcol(__m128i x, int n)
{
	return _mm_or_si128(_mm_srli_epi32(x, 8 * n), _mm_slli_epi32(x, 32 - 8 * n));
}

static inline __m128i ct_mix_columns(__m128i a)
{
	__m128i x = ct_xtime(a);

	return _mm_xor_si128(_mm_xor_si128(x, ct_rotcol(_mm_xor_si128(x, a), 1)),
			     _mm_xor_si128(ct_rotcol(a, 2), ct_rotcol(a, 3)));
}

/* InvMixColumns = MixColumns after a -> a ^ 4(a ^ rot2(a)). */
static inline __m128i ct_inv_mix_columns(__m128i a)
{
	__m128i u = ct_xtime(ct_xtime(_mm_xor_si128(a, ct_rotcol(a, 2))));

	return ct_mix_columns(_mm_xor_si128(a, u));
}

static inline void ct_sub_word(unsigned char *w)
{
	unsigned int v = (unsigned int)w[0] | (unsigned int)w[1] << 8 |
			 (unsigned int)w[2] << 16 | (unsigned int)w[3] << 24;

	v = (unsigned int)_mm_cvtsi128_si32(ct_sub_bytes(_mm_cvtsi32_si128((int)v)));
	w[0] = (unsigned char)v;
	w[1] = (unsigned char)(v >> 8);
	w[2] = (unsigned char)(v >> 16);
	w[3] = (unsigned char)(v >> 24);
}

static inline void ct_cipher(const unsigned char *rk, int nr, int dec, unsigned char *b)
{
	__m128i x = _mm_loadu_si128((const __m128i *)b);
	int r;

	if (!dec) {
		x = _mm_xor_si128(x, _mm_loadu_si128((const __m128i *)rk));
		for (r = 1; r <= nr; r++) {
			x = ct_shift_rows(ct_sub_bytes(x));
			if (r < nr)
				x = ct_mix_columns(x);
			x = _mm_xor_si128(x, _mm_loadu_si128((const __m128i *)(rk + 16 * r)));
		}
	} else {
		x = _mm_xor_si128(x, _mm_loadu_si128((const __m128i *)(rk + 16 * nr)));
		for (r = nr - 1; r >= 0; r--) {
			x = ct_inv_sub_bytes(ct_inv_shift_rows(x));
			x = _mm_xor_si128(x, _mm_loadu_si128((const __m128i *)(rk + 16 * r)));
			if (r > 0)
				x = ct_inv_mix_columns(x);
		}
	}
	_mm_storeu_si128((__m128i *)b, x);
}

/* --- AES-NI, compiled for it whatever the build's -march --- */

#define AESNI	__attribute__((target("aes")))

/* A word broadcast to all columns: ShiftRows moves nothing, so aesenclast is SubWord. */
AESNI static inline void ni_sub_word(unsigned char *w)
{
	int v = (int)((unsigned int)w[0] | (unsigned int)w[1] << 8 |
		      (unsigned int)w[2] << 16 | (unsigned int)w[3] << 24);

	v = _mm_cvtsi128_si32(_mm_aesenclast_si128(_mm_set1_epi32(v), _mm_setzero_si128()));
	w[0] = (unsigned char)v;
	w[1] = (unsigned char)(v >> 8);
	w[2] = (unsigned char)(v >> 16);
	w[3] = (unsigned char)(v >> 24);
}

AESNI static inline void ni_dec_sched(unsigned char *dec, const unsigned char *enc, int nr)
{
	int r;

	_mm_storeu_si128((__m128i *)dec, _mm_loadu_si128((const __m128i *)(enc + 16 * nr)));
	for (r = 1; r < nr; r++)
		_mm_storeu_si128((__m128i *)(dec + 16 * r),
				 _mm_aesimc_si128(_mm_loadu_si128((const __m128i *)(enc + 16 * (nr - r)))));
	_mm_storeu_si128((__m128i *)(dec + 16 * nr), _mm_loadu_si128((const __m128i *)enc));
}

AESNI static inline void ni_cipher(const unsigned char *rk, int nr, int dec, unsigned char *b)
{
	__m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)b),
				  _mm_loadu_si128((const __m128i *)rk));
	int r;

	if (!dec) {
		for (r = 1; r < nr; r++)
			x = _mm_aesenc_si128(x, _mm_loadu_si128((const __m128i *)(rk + 16 * r)));
		x = _mm_aesenclast_si128(x, _mm_loadu_si128((const __m128i *)(rk + 16 * nr)));
	} else {
		for (r = 1; r < nr; r++)
			x = _mm_aesdec_si128(x, _mm_loadu_si128((const __m128i *)(rk + 16 * r)));
		x = _mm_aesdeclast_si128(x, _mm_loadu_si128((const __m128i *)(rk + 16 * nr)));
	}
	_mm_storeu_si128((__m128i *)b, x);
}

static inline int cpu_has_aesni(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_AES);
}

/* PCLMULQDQ and SSSE3 (pshufb), for gcm_aes.cu's GHASH. */
static inline int cpu_has_clmul(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_PCLMUL) && (c & bit_SSSE3);
}

static inline void cipher(const struct aes_impl *ks, const unsigned char *rk, int dec, unsigned char *b)
{
	if (ks->ran == AES_RAN_AESNI)
		ni_cipher(rk, ks->rounds, dec, b);
	else
		ct_cipher(rk, ks->rounds, dec, b);
}

static inline void sub_word(const struct aes_impl *ks, unsigned char *w)
{
	if (ks->ran == AES_RAN_AESNI)
		ni_sub_word(w);
	else
		ct_sub_word(w);
}

/* AES-NI decrypts with the equivalent inverse schedule, table-free with the plain one. */
#define AES_DEC_RK(ks, dec_rk, enc_rk)	((ks)->ran == AES_RAN_AESNI ? (dec_rk) : (enc_rk))

#endif /* TABLES */

/*
 * The key schedule of FIPS-197, byte-wise, with SubWord from the cipher
 * in use (so the table-free one stays table-free).
 */
LAKE_DEVICE void expand_key(const struct aes_impl *ks, unsigned char *w,
			    const unsigned char *key, int nk)
{
	int total = 4 * (nk + 7), i, k;
	unsigned int rcon = 1;
	unsigned char t[4], x;

	for (i = 0; i < 4 * nk; i++)
		w[i] = key[i];
	for (i = nk; i < total; i++) {
		for (k = 0; k < 4; k++)
			t[k] = w[4 * (i - 1) + k];
		if (i % nk == 0) {
			x = t[0];
			t[0] = t[1];
			t[1] = t[2];
			t[2] = t[3];
			t[3] = x;
			sub_word(ks, t);
			t[0] ^= (unsigned char)rcon;
			rcon = xtime8(rcon);
		} else if (nk > 6 && i % nk == 4) {
			sub_word(ks, t);
		}
		for (k = 0; k < 4; k++)
			w[4 * i + k] = w[4 * (i - nk) + k] ^ t[k];
	}
}

/* 0, or -1 when AES-NI is asked for (@want_ni) and missing (@need_clmul: PCLMULQDQ too). */
LAKE_DEVICE int aes_pick(struct aes_impl *ks, int nk, int want_ni, int auto_ni, int need_clmul)
{
	ks->rounds = nk + 6;
#if TABLES
	(void)want_ni;
	(void)auto_ni;
	(void)need_clmul;
	ks->ran = AES_RAN_GPU;
#else
	int have = cpu_has_aesni() && (!need_clmul || cpu_has_clmul());

	if (want_ni && !have)
		return -1;
	ks->ran = want_ni || (auto_ni && have) ? AES_RAN_AESNI : AES_RAN_TABLE_FREE;
#endif
	return 0;
}

#if TABLES
LAKE_DEVICE void aes_build_tables(unsigned char *tables, int first, int step)
{
	int k;

	for (k = first; k < 256; k += step) {
		unsigned int s = sbox_of(k);

		tables[k] = (unsigned char)s;
		tables[256 + s] = (unsigned char)k;
	}
}
#endif

#ifdef __CUDACC__
#define AES_KERNEL_TABLES(ks) \
	__shared__ unsigned char aes_tables_[512]; \
	aes_build_tables(aes_tables_, threadIdx.x, blockDim.x); \
	__syncthreads(); \
	(ks)->sbox = aes_tables_; \
	(ks)->isbox = aes_tables_ + 256
#elif TABLES
#define AES_KERNEL_TABLES(ks) \
	unsigned char aes_tables_[512]; \
	aes_build_tables(aes_tables_, 0, 1); \
	(ks)->sbox = aes_tables_; \
	(ks)->isbox = aes_tables_ + 256
#else
#define AES_KERNEL_TABLES(ks)	do { } while (0)
#endif

/* Secrets (schedules, hash keys) left on a thread's stack: wiped. */
LAKE_DEVICE void aes_wipe(void *p, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n; k++)
		((volatile unsigned char *)p)[k] = 0;
}

#endif
