/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One SIMD path, written once with GCC vector extensions and built twice:
 * infer_avx2.c (VEC_BYTES 32, -mavx2) and infer_avx512.c (64, -mavx512f).
 * No intrinsics header, since the kernel has none; the only builtin is the
 * signed 32x32->64 multiply (vpmuldq), which vector extensions cannot
 * express. Every function here runs inside an FPU section (model.c).
 *
 * Layer 0 sums in s32 lanes from the bias (the overflow proof in infer.h
 * covers every partial sum), ACC0 vectors of outputs per pass over the 31
 * digits. Hidden layers sum in s64: each vector of 2N weights gives its even
 * lanes' products with one vpmuldq and its odd lanes' with another after a
 * 32-bit shift, so even and odd outputs sum in separate vectors; ACC1
 * weight vectors per pass. The output layer uses the same multiply (see
 * output()). Same zero skipping and digit clamp as the scalar path.
 */
#include "infer.h"

#define L32	(VEC_BYTES / 4)
#define L64	(VEC_BYTES / 8)

typedef s32 vsi __attribute__((vector_size(VEC_BYTES)));
typedef s64 vdi __attribute__((vector_size(VEC_BYTES)));
typedef u64 vdu __attribute__((vector_size(VEC_BYTES)));
typedef long long vll __attribute__((vector_size(VEC_BYTES)));	/* the builtins' type */

static inline vsi load(const s32 *p)
{
	vsi v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static inline void store(s32 *p, vsi v)
{
	__builtin_memcpy(p, &v, sizeof(v));
}

static inline vdi mul_even(vsi a, vsi b)
{
#if VEC_BYTES == 32
	return (vdi)__builtin_ia32_pmuldq256(a, b);
#elif defined(__clang__)
	return (vdi)__builtin_ia32_pmuldq512(a, b);
#else
	return (vdi)__builtin_ia32_pmuldq512_mask(a, b, (vll){ 0 }, 0xff);
#endif
}

static inline vsi odd_to_even(vsi v)
{
	return (vsi)((vdu)v >> 32);
}

static void layer0(const struct linnos_layer *l, const u8 *x, s32 *a)
{
	const vsi zero = { 0 };
	vsi acc[ACC0];
	u32 i, j0, k;

	for (j0 = 0; j0 < LINNOS_HIDDEN; j0 += ACC0 * L32) {
#pragma GCC unroll 16
		for (k = 0; k < ACC0; k++)
			acc[k] = load(l->b + j0 + k * L32);
		for (i = 0; i < LINNOS_INPUTS; i++) {
			const s32 *w = l->w + i * LINNOS_HIDDEN + j0;
			s32 xi = x[i] > 9 ? 9 : x[i];

			if (!xi)
				continue;
#pragma GCC unroll 16
			for (k = 0; k < ACC0; k++)
				acc[k] += xi * load(w + k * L32);
		}
#pragma GCC unroll 16
		for (k = 0; k < ACC0; k++)
			store(a + j0 + k * L32, acc[k] & (vsi)(acc[k] > zero));
	}
}

static void hidden(const struct linnos_layer *l, const s32 *a, s32 *out)
{
	vdi even[ACC1], odd[ACC1];
	s64 e[L64], o[L64];
	u32 i, j0, k, m;

	for (j0 = 0; j0 < LINNOS_HIDDEN; j0 += ACC1 * L32) {
		for (k = 0; k < ACC1; k++) {
			even[k] = (vdi){ 0 };
			odd[k] = (vdi){ 0 };
		}
		for (i = 0; i < LINNOS_HIDDEN; i++) {
			const s32 *w = l->w + i * LINNOS_HIDDEN + j0;
			vsi av;

			if (!a[i])
				continue;
			av = (vsi){ 0 } + a[i];
#pragma GCC unroll 8
			for (k = 0; k < ACC1; k++) {
				vsi wv = load(w + k * L32);

				even[k] += mul_even(av, wv);
				odd[k] += mul_even(av, odd_to_even(wv));
			}
		}
		for (k = 0; k < ACC1; k++) {
			const s32 *b = l->b + j0 + k * L32;
			s32 *dst = out + j0 + k * L32;

			__builtin_memcpy(e, &even[k], sizeof(e));
			__builtin_memcpy(o, &odd[k], sizeof(o));
			for (m = 0; m < L64; m++) {
				dst[2 * m] = linnos_finish(b[2 * m], e[m]);
				dst[2 * m + 1] = linnos_finish(b[2 * m + 1], o[m]);
			}
		}
	}
}

/*
 * The 2 x 256 output layer: row i of w holds (w0, w1) for input i, so a
 * vector of weights covers L64 inputs, outputs 0 and 1 in its even and odd
 * lanes; the activations, widened to 64-bit lanes, meet them with vpmuldq.
 */
static void output(const struct linnos_layer *l, const s32 *a, s32 *z)
{
	typedef s32 vhalf __attribute__((vector_size(VEC_BYTES / 2)));
	vdi s0 = { 0 }, s1 = { 0 };
	s64 e[L64], o[L64], t0 = 0, t1 = 0;
	u32 i, m;

	for (i = 0; i < LINNOS_HIDDEN; i += L64) {
		vhalf ah;
		vsi aw, wv = load(l->w + 2 * i);

		__builtin_memcpy(&ah, a + i, sizeof(ah));
		aw = (vsi)__builtin_convertvector(ah, vdi);
		s0 += mul_even(aw, wv);
		s1 += mul_even(aw, odd_to_even(wv));
	}
	__builtin_memcpy(e, &s0, sizeof(e));
	__builtin_memcpy(o, &s1, sizeof(o));
	for (m = 0; m < L64; m++) {
		t0 += e[m];
		t1 += o[m];
	}
	z[0] = (s32)(l->b[0] + t0 / LINNOS_SCALE);
	z[1] = (s32)(l->b[1] + t1 / LINNOS_SCALE);
}

static noinline void hidden_layers(const struct linnos_model *m, s32 *a)
{
	s32 t[LINNOS_HIDDEN];
	u32 l;

	for (l = 1; l + 1 < m->nlayers; l++) {
		hidden(&m->layer[l], a, t);
		__builtin_memcpy(a, t, sizeof(t));
	}
}

void SCORES_FN(const struct linnos_model *m, const u8 *in, s32 *z)
{
	s32 a[LINNOS_HIDDEN];

	layer0(&m->layer[0], in, a);
	if (m->nlayers > 2)
		hidden_layers(m, a);
	output(&m->layer[m->nlayers - 1], a, z);
}
